//! Progress between continuations (issues 24 and 34, contract §6): a run's cap counts
//! continuations after which the agent did nothing new, not continuations while it works.
//!
//! Each tool event of the session is reduced to the marks of what it observably did
//! ([`super::work`]: a command and its result, a file's content, a completed todo). The
//! session's work log (`work.json`) keeps the marks seen since the run started; an event with a
//! mark not seen before is progress, and each active run's count of continuations without
//! progress (`consecutive_blocks`) starts again from 0. An event that only repeats seen work
//! (the same command with the same output, an edit undone, the same error again) changes no
//! count: the log notes what repeated, for the hand-back ("ran `ls` again with the same
//! output"). Which event is judged depends on what the client installs: the post-tool and
//! failure events where it has them (the result is known), else the pre-tool event (the call
//! alone); on a client with both, the pre-tool event of an edit only marks the content the
//! edit starts from.
//!
//! The same log holds what the verify evidence needs ([`super::verify`]): how many tool calls
//! may have written ([`super::writes`]; counted at the pre-tool event too, since Codex's
//! `apply_patch` fires no other, and only while a run has verify commands), the verify
//! commands whose call has begun, and the agent's last run of each, with its outcome. And the
//! count of Stop blocks relayed from the person's own stop hooks
//! ([`relay_user_block`]), which no client caps on Codex and Gemini CLI.
//!
//! Cheap by construction, for a hook that fires around every tool call: nothing is read or
//! written unless the session has an active run (its files are read anyway) or a log; the
//! log is written only when the event changes it; no process is spawned, no git run, and the
//! log is bounded ([`MAX_SEEN`] marks, [`MAX_CHECKS`] commands).

use super::work::{self, Work};
pub use super::work::{Check, FILE, WorkLog};
use super::writes;
use crate::capabilities::Ctx;
use crate::modes::{REGISTRY, state_file_name};
use crate::protocol::Answer;
use crate::state::files::{ModeState, SCHEMA_VERSION};
use crate::state::{Change, Scope, StateFile, Store};

/// The session's log, as it stands.
pub fn read(store: &Store, scope: &Scope) -> WorkLog {
    StateFile::new(scope, FILE)
        .and_then(|f| store.read(&f))
        .unwrap_or_default()
}

/// The session's active runs' start times, highest priority first (none: nothing to track).
/// `present` is the scope's listing ([`Store::names`]): a mode whose file is not in it is not
/// opened (the no-run case of every tool event); `None` reads each file.
fn active_runs(
    store: &Store,
    scope: &Scope,
    present: Option<&[String]>,
) -> Vec<(StateFile, ModeState)> {
    REGISTRY
        .iter()
        .filter_map(|spec| {
            let name = state_file_name(spec.name);
            if present.is_some_and(|p| !p.contains(&name)) {
                return None;
            }
            let file = StateFile::new(scope, &name)?;
            let s: ModeState = store.read(&file)?;
            (s.active && s.suspended_at.is_none()).then_some((file, s))
        })
        .collect()
}

/// PreToolUse, PostToolUse, PostToolUseFailure: says nothing.
pub fn on_tool(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let Some(log_file) = StateFile::new(&ctx.scope, FILE) else {
        return Answer::default();
    };
    // One listing of the session's directory says which of its files exist: with no run and
    // no log, nothing else is opened.
    let present = store.names(&ctx.scope);
    let runs = active_runs(store, &ctx.scope, present.as_deref());
    let has_log = match &present {
        Some(p) => p.iter().any(|n| n == FILE),
        None => store.path(&log_file).exists(),
    };
    if runs.is_empty() && !has_log {
        return Answer::default();
    }
    // The person's own verify lists are read only now that a run is live (dispatch leaves
    // them out of a tool event's configuration: `verify_trust::defers_person_lists`).
    let with_person;
    let config = if runs.is_empty() {
        &ctx.config
    } else if crate::capabilities::verify_trust::defers_person_lists(ctx.hook.event) {
        with_person =
            crate::capabilities::verify_trust::with_person_lists(ctx.config.clone(), ctx.env);
        &with_person
    } else {
        &ctx.config
    };
    let verify: Vec<String> = runs
        .iter()
        .flat_map(|(_, s)| super::verify::commands(&s.mode, config))
        .collect();
    // What the call does to the verify evidence: its writes and checks ([`super::writes`]);
    // nothing to count while no run has a verify command.
    let steps = match ctx.input.tool_name.as_deref() {
        Some(tool) if !verify.is_empty() => {
            writes::steps(tool, ctx.input.tool_input.as_ref(), &verify)
        }
        _ => Vec::new(),
    };
    let pre = ctx.hook.event == "PreToolUse";
    let judged = if pre && crate::protocol::agents::sees_tool_results(ctx.input.format) {
        // Judged by its result later; an edit's starting content is seen now, so undoing the
        // edit is not new content.
        match work::content_mark(ctx.input) {
            Some(mark) => Judged::Baseline(mark),
            None if steps.is_empty() => return Answer::default(),
            None => Judged::Nothing,
        }
    } else {
        let w = if pre {
            work::of_call_alone(ctx.input)
        } else {
            work::of_tool_event(ctx.input, ctx.hook.event == "PostToolUseFailure")
        };
        match w {
            Some(w) => Judged::Work(w),
            None => return Answer::default(),
        }
    };
    let started = runs.first().and_then(|(_, s)| s.started_at.clone());
    let now = crate::time::iso(ctx.now_ms);
    let failed = ctx.hook.event == "PostToolUseFailure";
    let edited = work::edited_path(ctx.input).map(|p| relative(store.project(), ctx.input, p));
    let progressed = store.update(&log_file, |cur: Option<WorkLog>| {
        let mut log = cur.unwrap_or_default().for_run(started.as_deref());
        log.schema_version = SCHEMA_VERSION;
        let before = log.clone();
        let (progressed, outcome) = match &judged {
            Judged::Baseline(mark) => {
                log.remember(mark.clone());
                (false, None)
            }
            Judged::Nothing => (false, None),
            // A pre-tool event judged alone knows no outcome: it records no check.
            Judged::Work(w) => {
                let p = log.record(w);
                log.tally(p, failed, edited.clone(), w);
                (p, w.command.as_ref().filter(|_| !pre))
            }
        };
        log.apply(&steps, outcome, &now);
        if log == before {
            (Change::Keep, progressed)
        } else {
            (Change::Write(log), progressed)
        }
    });
    match progressed {
        Ok(true) => reset_counts(store, &runs),
        Ok(false) => {}
        Err(e) => crate::diag!("progress: cannot record the tool event: {e}"),
    }
    Answer::default()
}

/// An edited file's path as the report lists it: relative to the project when inside it.
fn relative(project: &std::path::Path, input: &crate::protocol::HookInput, path: &str) -> String {
    let p = std::path::Path::new(path);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        match input.cwd.as_deref() {
            Some(cwd) => std::path::Path::new(cwd).join(p),
            None => return path.to_string(),
        }
    };
    if let Ok(rel) = abs.strip_prefix(project) {
        return rel.display().to_string();
    }
    // A project reached through a symlink (macOS's /tmp): compare the real paths.
    match (std::fs::canonicalize(&abs), std::fs::canonicalize(project)) {
        (Ok(a), Ok(p)) if a.starts_with(&p) => a
            .strip_prefix(&p)
            .map_or_else(|_| abs.display().to_string(), |r| r.display().to_string()),
        _ => abs.display().to_string(),
    }
}

enum Judged {
    Baseline(String),
    /// A pre-tool event whose result is judged later: only its steps count now.
    Nothing,
    Work(Work),
}

/// Progress: every active run's count of continuations without progress starts again.
fn reset_counts(store: &Store, runs: &[(StateFile, ModeState)]) {
    let waiting = |s: &ModeState| s.active && s.consecutive_blocks > 0;
    for (file, s) in runs {
        if !waiting(s) {
            continue;
        }
        let r = store.update(file, |s: Option<ModeState>| match s {
            Some(mut s) if waiting(&s) => {
                s.consecutive_blocks = 0;
                (Change::Write(s), ())
            }
            _ => (Change::Keep, ()),
        });
        if let Err(e) = r {
            crate::diag!("progress: cannot reset {}'s count: {e}", file.name());
        }
    }
}

/// UserPromptSubmit: the person spoke, so relayed stop-hook blocks are counted afresh and a
/// cancel's hold on them is over. Runs before the keywords, so a `cancelomc` typed now holds
/// again.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(file)) = (&ctx.store, StateFile::new(&ctx.scope, FILE)) else {
        return Answer::default();
    };
    let needs = store
        .read::<WorkLog>(&file)
        .is_some_and(|l| l.user_blocks > 0 || l.user_blocks_off);
    if needs {
        let r = store.update(&file, |cur: Option<WorkLog>| match cur {
            Some(mut l) => {
                l.user_blocks = 0;
                l.user_blocks_off = false;
                (Change::Write(l), ())
            }
            None => (Change::Keep, ()),
        });
        if let Err(e) = r {
            crate::diag!("progress: cannot reset the relayed stop blocks: {e}");
        }
    }
    Answer::default()
}

/// A cancel: the person's own stop hooks are not relayed until their next prompt.
pub fn hold_user_blocks(store: &Store, scope: &Scope) {
    let Some(file) = StateFile::new(scope, FILE) else {
        return;
    };
    let r = store.update(&file, |cur: Option<WorkLog>| {
        let mut l = cur.unwrap_or_default();
        l.schema_version = SCHEMA_VERSION;
        l.user_blocks_off = true;
        l.user_blocks = 0;
        (Change::Write(l), ())
    });
    if let Err(e) = r {
        crate::diag!("cancel: cannot hold the relayed stop blocks: {e}");
    }
}

/// What happens to a block one of the person's own stop hooks answered: relayed while the
/// session makes progress, at most the no-progress cap in a row (`cap`), and not at all after a
/// cancel until the next prompt. `Err(note)` when it must not be relayed, with why.
pub fn relay_user_block(store: &Store, scope: &Scope, cap: u32) -> Result<(), String> {
    let Some(file) = StateFile::new(scope, FILE) else {
        return Ok(());
    };
    let r = store.update(&file, |cur: Option<WorkLog>| {
        let mut l = cur.unwrap_or_default();
        l.schema_version = SCHEMA_VERSION;
        if l.user_blocks_off {
            return (Change::Keep, Err("the session was cancelled".to_string()));
        }
        if l.user_blocks >= cap {
            let what = l
                .repeat
                .as_ref()
                .filter(|_| l.repeats > 0)
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            let n = l.user_blocks;
            return (
                Change::Keep,
                Err(format!("no progress in the last {n} continuations{what}")),
            );
        }
        l.user_blocks += 1;
        (Change::Write(l), Ok(()))
    });
    r.unwrap_or_else(|e| {
        // Nothing could be counted, so nothing bounds the relay: let the stop happen.
        Err(format!("its count could not be saved ({e})"))
    })
}
