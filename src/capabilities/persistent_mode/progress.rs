//! Progress between continuations (issue 24, contract §6): a run's cap counts continuations
//! after which the agent did nothing, not continuations while it works. Any tool event of the
//! session — the pre-tool, post-tool or failure event, whichever of them the agent has
//! installed (`protocol/agents/table.rs`: every agent installs one) — after a Stop block means
//! the agent worked, so each active run's count of continuations without progress
//! (`consecutive_blocks`) starts again from 0. Claude Code's own cap counts the same way
//! (tests/e2e/FINDINGS.md §7).
//!
//! Cheap by construction, for a hook that fires around every tool call: the session's run
//! files are read (a missing one is a failed open); only the first tool event after a block
//! finds a count to reset and writes, under the run file's lock; the ones after it find
//! nothing to reset and write nothing. The per-prompt count (`turn_blocks`) is left alone: the
//! clients that count every continuation of a prompt do not reset theirs on a tool call.

use crate::capabilities::Ctx;
use crate::modes::{REGISTRY, state_file_name};
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::{Change, StateFile};

/// PreToolUse, PostToolUse, PostToolUseFailure: says nothing.
pub fn on_tool(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    for spec in &REGISTRY {
        let Some(file) = StateFile::new(&ctx.scope, &state_file_name(spec.name)) else {
            continue;
        };
        let waiting = |s: &ModeState| s.active && s.consecutive_blocks > 0;
        if !store.read::<ModeState>(&file).is_some_and(|s| waiting(&s)) {
            continue;
        }
        let r = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if waiting(&s) => {
                s.consecutive_blocks = 0;
                (Change::Write(s), ())
            }
            _ => (Change::Keep, ()),
        });
        if let Err(e) = r {
            crate::diag!("progress: cannot reset {}'s count: {e}", spec.name);
        }
    }
    Answer::default()
}
