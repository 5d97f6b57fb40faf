//! Compaction, memory and runs that outlive their session (contract §9).
//!
//! What the next context needs is collected while the session works (edited files and todos
//! on PostToolUse), flushed before a compaction (a checkpoint plus a dated notepad entry),
//! and handed back by SessionStart within a fixed budget. SessionEnd summarises the session
//! and *suspends* unfinished runs instead of deleting them; a later session is told about
//! them and re-binds one when the user answers with the documented word (see [`resume`]).
//!
//! Files (all described in `state-schema/`):
//! * session scope: `edits.json`, `todos.json`, `session.json`, `checkpoints/<stamp>.json`,
//!   `subagents.json` (see [`super::subagents`]);
//! * `.omc/state/suspended-runs.json`: the index of suspended runs, so a new session finds
//!   them without scanning every session directory;
//! * `.omc/notepad.md`, `.omc/project-memory.json`: written by people too, never clobbered;
//! * `.omc/sessions/<id>.json`: the summary written at SessionEnd.

pub mod checkpoint;
pub mod edits;
pub mod notepad;
pub mod project_memory;
pub mod remember;
pub mod resume;
pub mod session_end;
pub mod session_start;
pub mod stale;
pub mod todos;
pub mod wiki;

use crate::modes::{PERSISTENT, state_file_name};
use crate::state::files::ModeState;
use crate::state::{Scope, StateFile, Store};

/// Fills `{name}` placeholders of a template.
pub(crate) fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// At most `max` characters of `text` on one line, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::terminal::clip(&flat, max)
}

/// The persistent-mode runs of `scope` as found on disk (any state), in priority order. The
/// file name says which mode a run is: oh-my-claudecode's files have no `mode` field, and a run
/// must never be announced as `[ MODE RESTORED]`.
/// One listing of the scope's directory says which files to open ([`Store::names`]).
pub(crate) fn mode_states(store: &Store, scope: &Scope) -> Vec<(StateFile, ModeState)> {
    let present = store.names(scope);
    PERSISTENT
        .iter()
        .filter_map(|mode| {
            let name = state_file_name(mode);
            if present.as_ref().is_some_and(|p| !p.contains(&name)) {
                return None;
            }
            let file = StateFile::new(scope, &name)?;
            let mut state: ModeState = store.read(&file)?;
            if state.mode != *mode {
                state.mode = mode.to_string();
            }
            Some((file, state))
        })
        .collect()
}

/// The header a restored or suspended run is announced with: `RALPH LOOP`, `ULTRAWORK MODE`.
pub(crate) fn run_label(mode: &str) -> String {
    match mode {
        "ralph" => "RALPH LOOP".to_string(),
        other => format!("{} MODE", other.to_ascii_uppercase()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_flattens_and_marks_the_cut() {
        assert_eq!(clip("a\n  b", 10), "a b");
        assert_eq!(clip("abcdef", 4), "abc…");
    }

    #[test]
    fn render_fills_placeholders() {
        assert_eq!(render("{a}-{b}-{a}", &[("a", "1"), ("b", "2")]), "1-2-1");
    }

    #[test]
    fn labels() {
        assert_eq!(run_label("ralph"), "RALPH LOOP");
        assert_eq!(run_label("ultrawork"), "ULTRAWORK MODE");
    }
}
