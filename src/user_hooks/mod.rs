//! User hooks: a team's own checks, run inside our hook subcommands, configured in
//! `hooks.toml` — the user's (`$XDG_CONFIG_HOME/omc-hooks/hooks.toml`) and the project's
//! (`.omc/hooks.toml`, which runs only once the user trusts that exact file).
//!
//! For each hook invocation the dispatcher calls [`run`] before our own capabilities. The
//! entries serving the event run in file order (user file first): scripts (`script.rs`) and
//! synchronous webhooks (`webhook.rs`), each answering allow, block or modify (`action.rs`).
//! The first block wins on an event that can block, and then the action does not happen — our
//! capabilities are not run either; a later entry sees an earlier entry's rewritten tool input.
//! `async_webhook` / `otlp` entries are not run here: export reads them from
//! [`crate::config::hooks_toml::export_entries`]. The files themselves are parsed and checked in
//! [`crate::config::hooks_toml`]; whether a project file is trusted is [`crate::state::trust`].
//!
//! Everything is bounded by the hook's own deadline: user hooks get [`budget`] of it, each
//! entry at most its `timeout_ms` of what is left, so a slow hook costs the agent time but
//! never our answer. Any failure of a user hook is `allow` plus one diagnostic line.

pub mod action;
pub mod body;
pub mod notice;
pub mod report;
pub mod script;
pub mod template;
pub mod webhook;

use crate::config::hooks_toml::{self as config, Entry, Kind, Origin};
use crate::env::Env;
use crate::hooks::Hook;
use crate::protocol::{Answer, HookInput, Permission};
use crate::state::trust;
use crate::state::{Scope, Store};
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `OMC_HOOK_CONTEXT` carries the event JSON up to this size; above it, stdin alone does (the
/// kernel refuses a single environment string over 128 KiB).
pub const MAX_CONTEXT_ENV_BYTES: usize = 100_000;

/// An entry is not started with less than this left of the budget.
const MIN_RUN: Duration = Duration::from_millis(20);

/// The subject's value in a payload (an empty string when the field is missing, so that only
/// `*` matches it).
pub fn subject(event: &str, input: &HookInput) -> Option<String> {
    let value = match crate::config::hooks_toml::matcher::subject_of(event)? {
        "tool_name" => input.tool_name.clone(),
        "source" => input.source.clone(),
        "reason" => input.reason.clone(),
        "trigger" => input.trigger.clone(),
        "error" => input.error.clone(),
        "notification_type" => input
            .raw
            .get("notification_type")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        _ => input.agent_type.clone(),
    };
    Some(value.unwrap_or_default())
}

/// What the user hooks decided for one invocation.
#[derive(Debug, Default)]
pub struct Outcome {
    pub answer: Answer,
    /// A user hook blocked an action that can be refused; our capabilities must not run.
    pub refused: bool,
}

/// The part of a hook's internal deadline that user hooks may spend, counted from the start of
/// the process; the rest is kept for our capabilities, the answer and a margin
/// (2.5 s → 2.0 s; SessionEnd's 900 ms → 720 ms).
pub fn budget(hook: Hook) -> Duration {
    hook.deadline * 4 / 5
}

/// Whether a block from a user hook refuses the event's action.
pub fn can_block(event: &str) -> bool {
    matches!(
        event,
        "pre-tool-use" | "user-prompt-submit" | "stop" | "subagent-stop"
    )
}

/// Whether the agent is shown context added on this event (as `Answer::encode` sends it).
fn takes_context(event: &str) -> bool {
    matches!(
        event,
        "session-start"
            | "user-prompt-submit"
            | "pre-tool-use"
            | "post-tool-use"
            | "post-tool-use-failure"
            | "subagent-start"
    )
}

/// Runs the user hooks of `loaded` (the `hooks.toml` files, [`config::load`]: cheap when none
/// exists, one look-up each) serving `hook` for this payload. `started` is when the hook
/// process started (the budget counts from there).
pub fn run(
    hook: Hook,
    env: &Env,
    input: &HookInput,
    store: Option<&Store>,
    scope: &Scope,
    started: Instant,
    loaded: &config::Loaded,
) -> Outcome {
    if loaded.is_empty() {
        return Outcome::default();
    }
    let deadline = started + budget(hook);
    let mut out = Outcome::default();
    for u in &loaded.unreadable {
        crate::diag!(
            "{} ({} hooks) cannot be read: {}; its hooks do not run",
            u.path.display(),
            u.origin.label(),
            u.error
        );
    }
    let mut entries = runnable(hook, env, loaded, store, scope, &mut out.answer);
    let subject = subject(hook.name, input);
    entries.retain(|e| e.matcher.accepts(subject.as_deref()));
    if entries.is_empty() {
        return out;
    }
    let project = store.map(|s| s.project().to_path_buf());
    let cwd = project
        .clone()
        .or_else(|| input.cwd.as_ref().map(PathBuf::from))
        .or_else(|| env.process_cwd.clone())
        .unwrap_or_else(|| PathBuf::from("/"));
    let mut body = body::build(hook.name, input, project.as_deref());
    body.extend(body::session_fields(
        hook.name,
        input,
        store,
        scope,
        env.now_ms(),
    ));
    let permission = hook.name == config::PERMISSION_REQUEST;
    // A permission request's allow: (rewritten input, permission updates), each the first given.
    let mut allowed: Option<(Option<Value>, Option<Value>)> = None;
    let mut contexts: Vec<String> = Vec::new();
    for entry in entries {
        if let Some(t) = &entry.additional_context {
            contexts.push(template::expand(t, &body));
        }
        if matches!(entry.kind, Kind::Context) {
            continue;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left < MIN_RUN {
            crate::diag!(
                "user hook {}: not run, the {} ms budget for user hooks is spent",
                entry.label(),
                budget(hook).as_millis()
            );
            continue;
        }
        let timeout = entry.timeout.min(left);
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let answer = match &entry.kind {
            Kind::Script { command } => run_script(
                (command, entry.raw.get("shell").and_then(|v| v.as_str())),
                &cwd,
                &bytes,
                hook,
                input,
                project.as_deref(),
                timeout,
            ),
            Kind::Webhook {
                url,
                method,
                headers,
                retries,
            } => webhook::call(
                &webhook::Call {
                    url,
                    method: *method,
                    headers,
                    retries: *retries,
                    event: hook.name,
                    body: &bytes,
                    timeout,
                },
                env,
            )
            .and_then(|b| {
                b.filter(|b| !(permission && b.iter().all(u8::is_ascii_whitespace)))
                    .map(|b| action::decode(&b))
                    .transpose()
            }),
            Kind::Export { .. } | Kind::Context => continue,
        };
        if permission {
            match answer {
                Err(why) => crate::diag!(
                    "user hook {}: {why}; no answer, the person is asked",
                    entry.label()
                ),
                Ok(None) => {}
                Ok(Some(action::Action::Allow {
                    updated_permissions,
                })) => {
                    let a = allowed.get_or_insert((None, None));
                    if a.1.is_none() {
                        a.1 = updated_permissions;
                    }
                }
                Ok(Some(action::Action::Block { reason })) => {
                    let message = reason
                        .unwrap_or_else(|| format!("Denied by the user hook {}.", entry.label()));
                    out.answer.permission = Some(Permission::Deny {
                        message,
                        interrupt: entry.interrupt,
                    });
                    out.refused = true;
                    break;
                }
                Ok(Some(action::Action::Modify {
                    context,
                    tool_input,
                    updated_permissions,
                })) => {
                    contexts.extend(context);
                    if tool_input.is_some() || updated_permissions.is_some() {
                        let a = allowed.get_or_insert((None, None));
                        if let Some(ti) = tool_input {
                            body.insert("tool_input".into(), ti.clone());
                            a.0 = Some(ti);
                        }
                        if a.1.is_none() {
                            a.1 = updated_permissions;
                        }
                    }
                }
            }
            continue;
        }
        match answer {
            Err(why) => crate::diag!("user hook {}: {why}; allowed", entry.label()),
            Ok(None | Some(action::Action::Allow { .. })) => {}
            Ok(Some(action::Action::Block { reason })) => {
                let reason = reason
                    .unwrap_or_else(|| format!("Blocked by the user hook {}.", entry.label()));
                if can_block(hook.name) {
                    if matches!(hook.name, "stop" | "subagent-stop") {
                        out.answer.block = Some(reason);
                    } else {
                        out.answer.deny = Some(reason);
                    }
                    out.refused = true;
                    break;
                }
                crate::diag!(
                    "user hook {}: {} cannot block (the action already happened); its reason is \
                     passed on as context",
                    entry.label(),
                    hook.name
                );
                contexts.push(reason);
            }
            Ok(Some(action::Action::Modify {
                context,
                tool_input,
                ..
            })) => {
                contexts.extend(context);
                match tool_input {
                    Some(ti) if hook.name == "pre-tool-use" => {
                        body.insert("tool_input".into(), ti.clone());
                        out.answer.updated_input = Some(ti);
                    }
                    Some(_) => crate::diag!(
                        "user hook {}: tool_input can only be rewritten on pre-tool-use; ignored",
                        entry.label()
                    ),
                    None => {}
                }
            }
        }
    }
    if let (None, Some((updated_input, updated_permissions))) = (&out.answer.permission, allowed) {
        out.answer.permission = Some(Permission::Allow {
            updated_input,
            updated_permissions,
        });
    }
    if !contexts.is_empty() {
        if takes_context(hook.name) {
            out.answer.merge(Answer::context(contexts.join("\n\n")));
        } else {
            crate::diag!(
                "user hooks: {} passes no context to the agent; {} text(s) dropped",
                hook.name,
                contexts.len()
            );
        }
    }
    out
}

/// The entries of trusted files that serve `hook` (scripts and webhooks), in order; announces,
/// once per session, a file that does not run as written.
fn runnable<'a>(
    hook: Hook,
    env: &Env,
    loaded: &'a config::Loaded,
    store: Option<&Store>,
    scope: &Scope,
    answer: &mut Answer,
) -> Vec<&'a Entry> {
    let trusted = loaded
        .files
        .iter()
        .any(|f| f.origin == Origin::Project)
        .then(|| trust::read(env));
    let mut entries: Vec<&Entry> = Vec::new();
    for f in &loaded.files {
        let status = match (&f.origin, &trusted) {
            (Origin::Project, Some(t)) => trust::status_in(t, &trust::key(&f.path), &f.sha256),
            _ => trust::Status::Trusted,
        };
        if let Some(text) = notice::text(f, status) {
            // SessionEnd cannot show a message: leave the announcement to a hook that can.
            let first = hook.name != "session-end"
                && store.is_some_and(|s| notice::first_time(s, scope, f, env.now_ms()));
            if first || env.debug {
                crate::diag!("{text}");
            }
            if first {
                answer.merge(Answer::system_message(text));
            }
        }
        if status == trust::Status::Trusted {
            entries.extend(f.entries.iter().filter(|e| {
                e.enabled && e.serves(hook.name) && !matches!(e.kind, Kind::Export { .. })
            }));
        }
    }
    entries
}

/// `script`: the command line and the shell the entry names.
fn run_script(
    (command, shell): (&str, Option<&str>),
    cwd: &std::path::Path,
    bytes: &[u8],
    hook: Hook,
    input: &HookInput,
    project: Option<&std::path::Path>,
    timeout: Duration,
) -> Result<Option<action::Action>, String> {
    let context = if bytes.len() <= MAX_CONTEXT_ENV_BYTES {
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        String::new()
    };
    let env = vec![
        ("OMC_HOOK_EVENT", hook.name.to_string()),
        ("OMC_TOOL_NAME", input.tool_name.clone().unwrap_or_default()),
        (
            "OMC_SESSION_ID",
            input.session_id.clone().unwrap_or_default(),
        ),
        (
            "OMC_PROJECT_DIR",
            project
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
        ("OMC_HOOK_CONTEXT", context),
    ];
    let stdout = script::run(script::Invocation {
        command,
        shell,
        cwd,
        stdin: bytes,
        env,
        timeout,
    })
    .map_err(|f| f.to_string())?;
    // On a permission request silence is no opinion, not an approval.
    let permission = hook.name == config::PERMISSION_REQUEST;
    if permission && stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    match action::decode(&stdout) {
        Ok(a) => Ok(Some(a)),
        // A script written for AtomCode answers in text (`ok`, `deny: …`); never on a
        // permission request, where only a JSON answer approves.
        Err(e) => match (permission, action::decode_text(&stdout)) {
            (false, Some(a)) => Ok(Some(a)),
            _ => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_subject_field_is_the_empty_string() {
        let input = HookInput::default();
        assert_eq!(subject("pre-tool-use", &input).as_deref(), Some(""));
        assert_eq!(subject("stop", &input), None);
    }
}
