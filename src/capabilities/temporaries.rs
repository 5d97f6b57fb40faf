//! Removes the temporary files that writers killed mid-write left under `.omc/` (issue 43: a
//! hook killed by its client between creating `.tmp-XXXXXX` and renaming it leaves it for
//! ever). At every session start and end: often enough that none piles up, rarely enough that
//! the listing costs nothing a tool call would notice. Only files older than any live writer
//! could be (`state::fs::ORPHAN_TEMP_AGE_SECS`); `doctor` does the same and says what it
//! removed.

use crate::capabilities::Ctx;
use crate::protocol::Answer;

pub fn run(ctx: &Ctx<'_>) -> Answer {
    if let Some(store) = &ctx.store {
        let removed = store.prune_temporaries();
        if !removed.is_empty() && ctx.env.debug {
            crate::diag!(
                "{}: removed {} temporary file(s) left by killed writers: {}",
                ctx.hook.name,
                removed.len(),
                removed.join(", ")
            );
        }
    }
    Answer::default()
}
