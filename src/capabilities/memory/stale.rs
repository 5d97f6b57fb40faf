//! Stale runs at session start: an active run of this session (or of none) untouched for more
//! than [`STALE_MS`] is ended as `stale` when a session starts, rather than staying `active`
//! with no word until a Stop ends it. The model is told in the start's context (so it does not
//! take the task up by itself) and the person in a system message; the notification sinks
//! hear of it as of any run end (`run_events` watches SessionStart). A suspended run is left
//! alone: it is offered, as suspended runs are (`resume`).

use super::{clip, mode_states, render, run_label};
use crate::capabilities::Ctx;
use crate::state::files::ModeState;
use crate::state::{Change, Store};

/// An active run untouched this long is stale (as on Stop: contract §6).
pub const STALE_MS: i64 = 2 * 60 * 60 * 1000;

const ENDED: &str = include_str!("../../../templates/memory/stale-ended.md");
const MESSAGE: &str = include_str!("../../../templates/memory/stale-ended-message.md");

/// The latest time the run was touched, in ms.
pub fn last_touched(s: &ModeState) -> Option<i64> {
    [
        s.last_checked_at.as_deref(),
        s.started_at.as_deref(),
        s.extra.get("updated_at").and_then(|v| v.as_str()),
    ]
    .into_iter()
    .flatten()
    .filter_map(crate::time::parse_iso)
    .max()
}

/// Whether the run is this session's (or no session's), active, not suspended, and untouched
/// for more than [`STALE_MS`] at `now_ms`.
fn is_stale(s: &ModeState, ctx: &Ctx<'_>) -> bool {
    let own = ctx.scope.session_id().map(|id| id.as_str());
    s.active
        && s.suspended_at.is_none()
        && (s.session_id.is_none() || s.session_id.as_deref() == own)
        && last_touched(s).is_none_or(|t| ctx.now_ms - t > STALE_MS)
}

/// Ends this session's stale runs; the context for the model and the message for the person,
/// one paragraph and one line per run ended.
pub fn end(ctx: &Ctx<'_>, store: &Store) -> Option<(String, String)> {
    let now_iso = crate::time::iso(ctx.now_ms);
    let mut texts = Vec::new();
    let mut lines = Vec::new();
    for (file, _) in mode_states(store, &ctx.scope) {
        let r = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if is_stale(&s, ctx) => {
                let last = last_touched(&s).map_or_else(|| "never".to_string(), crate::time::human);
                let said = (
                    render(
                        ENDED.trim_end(),
                        &[
                            ("label", &run_label(&s.mode)),
                            ("last", &last),
                            ("task", &clip(&s.prompt, 500)),
                            ("mode", &s.mode),
                        ],
                    ),
                    render(MESSAGE.trim_end(), &[("mode", &s.mode), ("last", &last)]),
                );
                s.end("stale", &now_iso);
                (Change::Write(s), Some(said))
            }
            _ => (Change::Keep, None),
        });
        match r {
            Ok(Some((text, line))) => {
                texts.push(text);
                lines.push(line);
            }
            Ok(None) => {}
            Err(e) => crate::diag!("session start: cannot end stale run {}: {e}", file.name()),
        }
    }
    (!texts.is_empty()).then(|| (texts.join("\n\n"), lines.join("\n")))
}
