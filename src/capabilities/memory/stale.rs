//! Stale runs at session start: an active run untouched for more than [`STALE_MS`] — this
//! session's (or of none), or one an earlier session of this project left behind (a session
//! that ended without its SessionEnd: a crash, a closed terminal) — is ended as `stale` when a
//! session starts, rather than staying `active` with no word until a Stop of its own session
//! ends it (which, for a session that is gone, never comes). The model is told in the start's context (so it does not
//! take the task up by itself) and the person in a system message; the notification sinks
//! hear of it as of any run end (`run_events` watches SessionStart). A suspended run is left
//! alone: it is offered, as suspended runs are (`resume`).

use super::{clip, mode_states, render, run_label};
use crate::capabilities::Ctx;
use crate::state::files::ModeState;
use crate::state::{Change, Scope, StateFile, Store};

/// At most this many earlier sessions' folders are looked at.
const MAX_SESSIONS: usize = 200;

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

/// Whether the run, found in `scope`'s folder, is that session's (or no session's) and this
/// project's (or names none), active, not suspended, and untouched for more than
/// [`STALE_MS`] at `now_ms`.
fn is_stale(s: &ModeState, scope: &Scope, store: &Store, now_ms: i64) -> bool {
    let owner = scope.session_id().map(|id| id.as_str());
    s.active
        && s.suspended_at.is_none()
        && (s.session_id.is_none() || s.session_id.as_deref() == owner)
        && s.project_path
            .as_deref()
            .is_none_or(|p| same_project(p, store))
        && last_touched(s).is_none_or(|t| now_ms - t > STALE_MS)
}

fn same_project(path: &str, store: &Store) -> bool {
    let trim = |p: &str| p.trim_end_matches(['/', '\\']).to_string();
    let project = store.project();
    trim(path) == trim(&project.to_string_lossy())
        || matches!(
            (std::fs::canonicalize(path), std::fs::canonicalize(project)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Ends this session's stale runs; the context for the model and the message for the person,
/// one paragraph and one line per run ended.
///
/// `own` is this session's runs as read once at session start ([`mode_states`]): read from it,
/// not from disk again, and a run ended here is replaced in it by what was written.
pub fn end(
    ctx: &Ctx<'_>,
    store: &Store,
    own: &mut [(StateFile, ModeState)],
) -> Option<(String, String)> {
    let now_iso = crate::time::iso(ctx.now_ms);
    let mut texts = Vec::new();
    let mut lines = Vec::new();
    let others: Vec<Scope> = store
        .sessions()
        .into_iter()
        .filter(|id| ctx.scope.session_id() != Some(id))
        .take(MAX_SESSIONS)
        .map(Scope::Session)
        .collect();
    let mine = own
        .iter()
        .filter(|(_, s)| is_stale(s, &ctx.scope, store, ctx.now_ms))
        .map(|(f, _)| (f.clone(), &ctx.scope));
    let theirs = others.iter().flat_map(|scope| {
        mode_states(store, scope)
            .into_iter()
            .filter(|(_, s)| is_stale(s, scope, store, ctx.now_ms))
            .map(move |(f, _)| (f, scope))
    });
    let files: Vec<(StateFile, &Scope)> = mine.chain(theirs).collect();
    for (file, scope) in files {
        let r = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if is_stale(&s, scope, store, ctx.now_ms) => {
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
                (Change::Write(s.clone()), Some((said, s)))
            }
            _ => (Change::Keep, None),
        });
        match r {
            Ok(Some(((text, line), written))) => {
                texts.push(text);
                lines.push(line);
                if *scope == ctx.scope
                    && let Some(entry) = own.iter_mut().find(|(f, _)| f.name() == file.name())
                {
                    entry.1 = written;
                }
            }
            Ok(None) => {}
            Err(e) => crate::diag!("session start: cannot end stale run {}: {e}", file.name()),
        }
    }
    (!texts.is_empty()).then(|| (texts.join("\n\n"), lines.join("\n")))
}
