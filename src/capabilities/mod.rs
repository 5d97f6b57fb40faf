//! The capabilities: one file each, one uniform signature. A capability reads a [`Ctx`] and
//! returns an [`Answer`]; `Answer::default()` means "nothing to say". The registry below says
//! which capabilities run, in order, for each hook subcommand — adding a capability is a new
//! file plus one line here.

pub mod cancel;
pub mod client_events;
pub mod config_notice;
pub mod context_notice;
pub mod continuation;
pub mod delegation;
pub mod deliverables;
pub mod export;
mod given;
pub mod keywords;
pub mod learned_skills;
pub mod memory;
pub mod output_check;
pub mod persistent_mode;
pub mod project_rules;
pub mod run_events;
pub mod skill_guard;
pub mod subagents;
pub mod temporaries;
pub mod tool_failure;
pub mod trust_guard;
pub mod trust_notice;
pub mod verify_trust;

use crate::config::Config;
use crate::config::hooks_toml::Loaded;
use crate::env::Env;
use crate::hooks::Hook;
use crate::protocol::{Answer, HookInput};
use crate::state::{Scope, Store};
use std::cell::OnceCell;

/// Everything a capability may look at.
pub struct Ctx<'a> {
    pub hook: Hook,
    pub input: &'a HookInput,
    pub env: &'a Env,
    /// The clock for this invocation (pinned by `OMC_NOW_MS`).
    pub now_ms: i64,
    /// The session's scope (or the session-less one).
    pub scope: Scope,
    /// `None` when no project root could be resolved: stateful capabilities then do nothing.
    pub store: Option<Store>,
    pub config: Config,
    /// The user's and the project's `hooks.toml`, read once per hook: the dispatcher fills it
    /// with what the user hooks ran from; read on first use otherwise ([`Ctx::hook_files`]).
    pub hook_files: OnceCell<Loaded>,
}

impl Ctx<'_> {
    /// The `hooks.toml` files of this hook ([`Ctx::hook_files`]'s field): export's sinks, the
    /// trust notice and the run notifications read them from here, not from the disk again.
    pub fn hook_files(&self) -> &Loaded {
        self.hook_files
            .get_or_init(|| crate::config::hooks_toml::load(self.env, self.store.as_ref()))
    }

    /// What bounds a run's end-of-turn continuations on this client: continuations in a row
    /// without progress, and per prompt where the client counts those (see
    /// [`crate::protocol::agents::caps`]).
    pub fn stop_limits(&self) -> crate::protocol::agents::StopLimits {
        crate::protocol::agents::stop_limits(
            self.input.format,
            self.env,
            self.store.as_ref().map(|s| s.project()),
        )
    }
}

/// A named capability entry point.
pub struct Capability {
    pub name: &'static str,
    pub run: fn(&Ctx<'_>) -> Answer,
}

/// Which capabilities run for which hook subcommand, in the order their answers are merged.
/// A subcommand with no entry is a no-op (its capability is not built yet).
const REGISTRY: &[(&str, &[Capability])] = &[
    (
        "session-start",
        &[
            cap("session-memory", memory::session_start::run),
            cap("config-notice", config_notice::run),
            cap("trust-notice", trust_notice::on_session_start),
            cap("temporaries", temporaries::run),
        ],
    ),
    (
        "user-prompt-submit",
        &[
            cap("keywords.reset_turn", keywords::reset_turn),
            cap("progress", persistent_mode::progress::on_prompt),
            cap("resume", memory::resume::on_prompt),
            cap("mode-command", persistent_mode::command::on_prompt),
            cap("keywords", keywords::on_prompt),
            cap("learned-skills", learned_skills::on_prompt),
            cap("wiki-pages", memory::wiki::on_prompt),
            cap("deliverables", deliverables::tell_parent),
            cap("config-notice", config_notice::run),
        ],
    ),
    (
        "pre-tool-use",
        &[
            cap("trust-guard", trust_guard::on_pre_tool_use),
            cap("progress", persistent_mode::progress::on_tool),
            cap("skill-guard", skill_guard::on_pre_tool_use),
            cap("project-rules", project_rules::on_pre_tool_use),
        ],
    ),
    (
        "post-tool-use",
        &[
            cap("progress", persistent_mode::progress::on_tool),
            cap("skill-guard", skill_guard::on_post_tool_use),
            cap("tool_failure clear", tool_failure::clear),
            cap("edits", memory::edits::record),
            cap("remember", memory::remember::on_post_tool_use),
            cap("todos", memory::todos::record),
            cap("output-check", output_check::on_post_tool_use),
            cap("project-rules", project_rules::on_post_tool_use),
            cap("deliverables", deliverables::tell_parent),
            cap("delegation", delegation::on_post_tool_use),
            cap("context-notice", context_notice::on_post_tool_use),
        ],
    ),
    (
        "post-tool-use-failure",
        &[
            cap("progress", persistent_mode::progress::on_tool),
            cap("skill-guard", skill_guard::on_post_tool_use_failure),
            cap("tool_failure", tool_failure::record),
        ],
    ),
    // Persistent modes first; with none to continue it asks `skill_guard::stop_block`.
    (
        "stop",
        &[
            cap("persistent_mode", persistent_mode::stop),
            cap("config-notice", config_notice::run),
        ],
    ),
    (
        "stop-failure",
        &[cap("client-events", client_events::on_stop_failure)],
    ),
    (
        "notification",
        &[cap("client-events", client_events::on_notification)],
    ),
    (
        "permission-denied",
        &[cap("client-events", client_events::on_permission_denied)],
    ),
    ("subagent-start", &[cap("subagents", subagents::start)]),
    (
        "subagent-stop",
        &[
            cap("subagents", subagents::stop),
            cap("deliverables", deliverables::on_subagent_stop),
            cap("remember", memory::remember::on_subagent_stop),
        ],
    ),
    (
        "pre-compact",
        &[
            cap("checkpoint", memory::checkpoint::run),
            cap("project-rules", project_rules::forget),
        ],
    ),
    (
        "session-end",
        &[
            cap("skill-guard", skill_guard::on_session_end),
            cap("temporaries", temporaries::run),
            cap("session-end", memory::session_end::run),
        ],
    ),
];

/// Capabilities that run after those of the registry, for every hook subcommand: export sees
/// the state the others left.
pub const AFTER_EVERY_HOOK: &[Capability] = &[cap("export", export::run)];

const fn cap(name: &'static str, run: fn(&Ctx<'_>) -> Answer) -> Capability {
    Capability { name, run }
}

/// The capabilities of a hook subcommand.
pub fn for_hook(name: &str) -> &'static [Capability] {
    REGISTRY
        .iter()
        .find(|(hook, _)| *hook == name)
        .map_or(&[], |(_, caps)| caps)
}

/// Test support: `got` against the file `name` of `folder` (from the crate's root); with
/// `OMC_UPDATE_SNAPSHOTS` set, the file is rewritten first (the change is then reviewed in git).
#[cfg(test)]
#[track_caller]
pub(crate) fn snapshot(folder: &str, name: &str, got: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name);
    if std::env::var_os("OMC_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{got}\n")).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        got,
        want.trim_end(),
        "{name} changed (OMC_UPDATE_SNAPSHOTS=1 to accept)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn omcs_script_names_name_real_work() {
        for (name, work) in crate::hooks::OMC_SCRIPTS {
            match work {
                crate::hooks::OmcWork::Capabilities(caps) => {
                    for c in *caps {
                        assert!(
                            REGISTRY
                                .iter()
                                .any(|(_, list)| list.iter().any(|x| x.name == *c)),
                            "{name}: no capability {c}"
                        );
                    }
                }
                crate::hooks::OmcWork::Hook(h) => {
                    assert!(crate::hooks::find(h).is_some(), "{name}: no hook {h}")
                }
                crate::hooks::OmcWork::Nothing => {}
            }
        }
    }

    #[test]
    fn registry_names_real_hooks_once() {
        for (i, (name, _)) in REGISTRY.iter().enumerate() {
            assert!(crate::hooks::find(name).is_some(), "{name} is not a hook");
            assert!(
                REGISTRY[i + 1..].iter().all(|(n, _)| n != name),
                "{name} registered twice"
            );
        }
    }
}
