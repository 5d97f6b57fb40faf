//! Runs that outlive their session: the suspended-run index, taking a run up again in the next
//! session, and resuming on one word.
//!
//! A run is **suspended** when SessionEnd finds it unfinished: its state file keeps
//! `active: true` and gains `suspended_at`. The Stop capability leaves suspended runs alone
//! (they belong to no live session). How it comes back depends on how long ago that was,
//! measured against the resume bound ([`within_ms`]: `resume.within_minutes` in
//! `.omc/config.json`, default [`RESUME_WITHIN_MINUTES`], 0 for never):
//!
//! * **within the bound** the run is still the work in hand: the same session coming back
//!   (`claude --resume <id>`, any SessionStart with that id) takes it back without asking
//!   ([`unsuspend_own`]), and so does the next *new* session of the project
//!   ([`adopt`], on a SessionStart that starts a session: `startup`, `clear`): re-bound to it
//!   with its task, iteration, budget and edits, the model told its task at once, and the next
//!   Stop continues it;
//! * **past the bound** nothing re-arms it without the person's word (a run suspended days ago
//!   must not start blocking after an unrelated question): the session is told at start
//!   ([`offers`]; another session's runs up to 7 days old, its own whatever their age) and, when
//!   the user's whole prompt is the resume word ([`request`]: `omc resume` or `resume`,
//!   optionally followed by a mode name), UserPromptSubmit re-binds it ([`on_prompt`]): the
//!   state file is copied into the new session's directory with the new `session_id`,
//!   `suspended_at` cleared and the iteration kept, and the old one ends with
//!   `ended_reason: "resumed"` (for the session's own run, it is simply un-suspended).
//!
//! An agent whose sessions can end without a SessionEnd (Qwen Code headless,
//! [`crate::protocol::Agent::may_end_silently`]) never suspends a run. There the Stop that
//! hands a turn back with the run still active notes it in the index as **left open**
//! ([`note_open`]), with the run's `last_checked_at` at that moment: as long as nothing has
//! touched the run since (any later Stop or prompt of that session moves `last_checked_at`),
//! it is taken up or offered as a suspended run would be. The one case this gets wrong: a
//! second session opened in the project while an interactive Qwen session waits for its
//! person's answer takes that session's run over (the first session's next prompt then finds
//! it ended as `resumed`, and `omc resume` there takes it back).
//!
//! SessionEnd records each suspended run in `.omc/state/suspended-runs.json`, newest last, at
//! most [`MAX_INDEX`] entries, so finding them costs a handful of reads whatever the number of
//! session directories. Every entry is checked against its state file before use.

use super::{clip, render, run_label};
use crate::capabilities::Ctx;
use crate::modes::{is_persistent, state_file_name};
use crate::protocol::Answer;
use crate::state::files::{ModeState, SCHEMA_VERSION};
use crate::state::{Change, Scope, SessionId, StateFile, Store};
use serde::{Deserialize, Serialize};
use std::io;

/// `.omc/state/suspended-runs.json`.
pub const INDEX: &str = "suspended-runs.json";
/// Entries kept in the index.
pub const MAX_INDEX: usize = 20;
/// Suspended runs of other sessions older than this are no longer offered (7 days).
pub const OFFER_MAX_AGE_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// A run suspended (or left open) at most this many minutes ago is taken up by the next
/// session without asking; an older one only on the person's word. Two hours: the same
/// span after which an untouched active run goes stale (contract §6), so a run is either
/// still the work in hand or it waits for the person.
pub const RESUME_WITHIN_MINUTES: u32 = 120;
/// Runs listed at SessionStart.
pub const MAX_OFFERS: usize = 3;

const SUSPENDED: &str = include_str!("../../../templates/memory/suspended.md");
const RESUMED: &str = include_str!("../../../templates/memory/resumed.md");
const NOTHING: &str = include_str!("../../../templates/memory/resume-nothing.md");
const BUSY: &str = include_str!("../../../templates/memory/resume-busy.md");
const TAKEN_UP: &str = include_str!("../../../templates/memory/taken-up.md");
const ALREADY: &str = include_str!("../../../templates/memory/resume-already.md");
const LEFTOVER: &str = include_str!("../../../templates/memory/omc-leftover.md");

/// What the resume word's text names as the session a run left by OMC came from.
const NO_SESSION: &str = "(none: left by oh-my-claudecode in .omc/state/)";

/// The resume bound in force, in milliseconds (see the module doc).
pub fn within_ms(config: &crate::config::Config) -> i64 {
    i64::from(
        config
            .u32_at("resume/within_minutes")
            .unwrap_or(RESUME_WITHIN_MINUTES),
    ) * 60_000
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Index {
    #[serde(default)]
    pub schema_version: u32,
    /// Oldest first.
    #[serde(default)]
    pub runs: Vec<Suspended>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Suspended {
    pub session_id: String,
    pub mode: String,
    pub prompt: String,
    pub iteration: u32,
    pub max_iterations: u32,
    /// When it was suspended, or left open.
    pub suspended_at: String,
    /// Not suspended: left open at the end of a turn by a session that may end without saying
    /// so (see the module doc). It holds while the run's `last_checked_at` is still this.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_checked_at: Option<String>,
}

impl Suspended {
    pub fn of(state: &ModeState, session: &SessionId, now_iso: &str) -> Suspended {
        Suspended {
            session_id: session.to_string(),
            mode: state.mode.clone(),
            prompt: clip(&state.prompt, 200),
            iteration: state.iteration,
            max_iterations: state.max_iterations,
            suspended_at: state
                .suspended_at
                .clone()
                .unwrap_or_else(|| now_iso.to_string()),
            open: false,
            last_checked_at: None,
        }
    }

    /// Whether the run it names is still as the entry says: suspended, or (left open) active
    /// and untouched since.
    fn holds(&self, state: &ModeState) -> bool {
        if self.open {
            state.active
                && state.suspended_at.is_none()
                && state.last_checked_at.is_some()
                && state.last_checked_at == self.last_checked_at
        } else {
            state.active && state.suspended_at.is_some()
        }
    }

    fn age_ms(&self, now_ms: i64) -> Option<i64> {
        crate::time::parse_iso(&self.suspended_at).map(|t| now_ms - t)
    }
}

/// Stop, on an agent whose sessions may end silently: the run `state` of session `session`
/// stays active at the end of this turn; note it as left open (see the module doc).
pub fn note_open(store: &Store, state: &ModeState, session: &SessionId, now_iso: &str) {
    let mut entry = Suspended::of(state, session, now_iso);
    entry.suspended_at = now_iso.to_string();
    entry.open = true;
    entry.last_checked_at = state.last_checked_at.clone();
    if let Err(e) = note(store, &[entry]) {
        crate::diag!("stop: the run left open was not noted: {e}");
    }
}

fn index_file() -> Option<StateFile> {
    StateFile::new(&Scope::Global, INDEX)
}

/// Records newly suspended runs (replacing older entries for the same session and mode).
pub fn note(store: &Store, runs: &[Suspended]) -> io::Result<()> {
    let Some(f) = index_file() else { return Ok(()) };
    if runs.is_empty() {
        return Ok(());
    }
    store.update(&f, |cur: Option<Index>| {
        let mut idx = cur.unwrap_or_default();
        idx.schema_version = SCHEMA_VERSION;
        idx.runs.retain(|r| {
            !runs
                .iter()
                .any(|n| n.session_id == r.session_id && n.mode == r.mode)
        });
        idx.runs.extend(runs.iter().cloned());
        let surplus = idx.runs.len().saturating_sub(MAX_INDEX);
        idx.runs.drain(..surplus);
        (Change::Write(idx), ())
    })
}

/// Drops index entries matching `keep == false`; writes only when something goes.
fn prune_index(store: &Store, keep: impl Fn(&Suspended) -> bool) {
    let Some(f) = index_file() else { return };
    let Some(idx) = store.read::<Index>(&f) else {
        return;
    };
    if idx.runs.iter().all(&keep) {
        return;
    }
    let result = store.update(&f, |cur: Option<Index>| match cur {
        Some(mut idx) => {
            idx.runs.retain(&keep);
            (Change::Write(idx), ())
        }
        None => (Change::Keep, ()),
    });
    if let Err(e) = result {
        crate::diag!("suspended-run index not updated: {e}");
    }
}

/// The session's state file for `mode`.
fn mode_file(session: &SessionId, mode: &str) -> Option<StateFile> {
    StateFile::new(&Scope::Session(session.clone()), &state_file_name(mode))
}

fn same_project(state: &ModeState, store: &Store) -> bool {
    state.project_path.as_deref().is_none_or(|p| {
        let trim = |s: &str| s.trim_end_matches('/').to_string();
        trim(p) == trim(&store.project().to_string_lossy())
            || matches!(
                (std::fs::canonicalize(p), std::fs::canonicalize(store.project())),
                (Ok(a), Ok(b)) if a == b
            )
    })
}

/// Runs waiting to be taken up, newest first, checked against their state files: other
/// sessions' suspended (or left-open) runs up to [`OFFER_MAX_AGE_MS`] old, and this session's
/// own still suspended, whatever their age (past the resume bound, [`unsuspend_own`] left
/// them for the person to decide). Entries that no longer hold are removed from the index.
pub fn offers(ctx: &Ctx<'_>, store: &Store) -> Vec<Suspended> {
    let Some(idx) = index_file().and_then(|f| store.read::<Index>(&f)) else {
        return Vec::new();
    };
    let own = ctx.scope.session_id().map(SessionId::as_str);
    let mut valid = Vec::new();
    let mut gone = Vec::new();
    for r in idx.runs.iter().rev() {
        let mine = Some(r.session_id.as_str()) == own;
        if mine && r.open {
            // The session that left it open is back: the run is simply its own again (live,
            // or stale as any untouched run).
            gone.push((r.session_id.clone(), r.mode.clone()));
            continue;
        }
        let fresh = mine || r.age_ms(ctx.now_ms).is_some_and(|a| a <= OFFER_MAX_AGE_MS);
        let holds = fresh
            && is_persistent(&r.mode)
            && SessionId::parse(&r.session_id)
                .and_then(|sid| mode_file(&sid, &r.mode))
                .and_then(|f| store.read::<ModeState>(&f))
                .is_some_and(|s| r.holds(&s) && same_project(&s, store));
        if holds {
            valid.push(r.clone());
        } else {
            gone.push((r.session_id.clone(), r.mode.clone()));
        }
    }
    if !gone.is_empty() {
        prune_index(store, |r| {
            !gone.iter().any(|(s, m)| *s == r.session_id && *m == r.mode)
        });
    }
    valid
}

/// SessionStart of a new session (`startup`, `clear`): takes up the runs of the newest earlier
/// session that were suspended (or left open) within the resume bound, re-bound to this
/// session, and returns what the model is told about each. Nothing for a session that resumes
/// or compacts, which keeps its own runs.
pub fn adopt(ctx: &Ctx<'_>, store: &Store) -> Vec<(String, String)> {
    let starts_a_session = matches!(
        ctx.input.source.as_deref(),
        None | Some("startup" | "clear")
    );
    let bound = within_ms(&ctx.config);
    let Some(to) = ctx.scope.session_id() else {
        return Vec::new();
    };
    if !starts_a_session || bound <= 0 {
        return Vec::new();
    }
    let recent: Vec<Suspended> = offers(ctx, store)
        .into_iter()
        .filter(|r| r.session_id != to.as_str())
        .filter(|r| {
            r.age_ms(ctx.now_ms)
                .is_some_and(|a| (0..=bound).contains(&a))
        })
        .collect();
    let Some(from) = recent.first().map(|r| r.session_id.clone()) else {
        return Vec::new();
    };
    let now = crate::time::iso(ctx.now_ms);
    let mut out = Vec::new();
    for r in recent.iter().filter(|r| r.session_id == from) {
        let Some(from_sid) = SessionId::parse(&r.session_id) else {
            continue;
        };
        if let Ok(state) = rebind(store, &from_sid, to, r, ctx.now_ms, &now) {
            carry_edits(store, &from_sid, to);
            let ago = match r.age_ms(ctx.now_ms).map(|ms| ms / 60_000) {
                Some(0) => "less than a minute ago".to_string(),
                Some(m) => format!(
                    "{} ago",
                    crate::modes::minutes_text(u32::try_from(m).unwrap_or(u32::MAX))
                ),
                None => "earlier".to_string(),
            };
            out.push((
                r.mode.clone(),
                render(
                    TAKEN_UP.trim_end(),
                    &[
                        ("label", &run_label(&r.mode)),
                        ("from", &r.session_id),
                        ("ago", &ago),
                        ("iteration", &state.iteration.to_string()),
                        (
                            "max",
                            &format!(
                                "{}{}",
                                crate::modes::effective_max(&state, &ctx.config),
                                crate::modes::budget_suffix(&state, ctx.now_ms)
                            ),
                        ),
                        ("task", &clip(&state.prompt, 1_000)),
                    ],
                ),
            ));
        }
    }
    prune_index(store, |r| {
        !(r.session_id == from && out.iter().any(|(m, _)| *m == r.mode))
    });
    out
}

/// The SessionStart text about waiting runs, or `None`.
pub fn offers_text(offers: &[Suspended]) -> Option<String> {
    offer_text(
        SUSPENDED,
        offers.iter().map(|r| {
            let when = crate::time::parse_iso(&r.suspended_at)
                .map_or_else(|| r.suspended_at.clone(), crate::time::human);
            let whence = format!(" — session {}, suspended {when}", r.session_id);
            (
                &r.mode[..],
                r.iteration,
                r.max_iterations,
                whence,
                &r.prompt[..],
            )
        }),
    )
}

/// One line per run offered (at most [`MAX_OFFERS`]: its mode, iteration, where it waits and
/// its task) rendered into `template`; `None` without runs. Suspended runs and the runs OMC
/// left session-less are offered alike.
fn offer_text<'a>(
    template: &str,
    runs: impl Iterator<Item = (&'a str, u32, u32, String, &'a str)>,
) -> Option<String> {
    let lines: Vec<String> = runs
        .take(MAX_OFFERS)
        .map(|(mode, iteration, max, whence, prompt)| {
            format!(
                "- [{}] iteration {iteration}/{max}{whence}. Task: \"{}\"",
                run_label(mode),
                clip(prompt, 200)
            )
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    Some(render(template.trim_end(), &[("runs", &lines.join("\n"))]))
}

/// Runs oh-my-claudecode left in the session-less `.omc/state/<mode>-state.json` (it kept a
/// run there when it had no session id): active, of this project, touched within
/// [`OFFER_MAX_AGE_MS`], offered to a session (one with an id) as a suspended run is, newest
/// first.
pub fn leftovers(ctx: &Ctx<'_>, store: &Store) -> Vec<ModeState> {
    if ctx.scope.session_id().is_none() {
        return Vec::new();
    }
    let touched = |s: &ModeState| {
        [s.last_checked_at.as_deref(), s.started_at.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(crate::time::parse_iso)
            .max()
    };
    let mut runs: Vec<ModeState> = super::mode_states(store, &Scope::Global)
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.active && is_persistent(&s.mode) && same_project(s, store))
        .filter(|s| touched(s).is_some_and(|t| ctx.now_ms - t <= OFFER_MAX_AGE_MS))
        .collect();
    runs.sort_by_key(|s| std::cmp::Reverse(touched(s)));
    runs
}

/// What SessionStart says of [`leftovers`].
pub fn leftovers_text(runs: &[ModeState]) -> Option<String> {
    offer_text(
        LEFTOVER,
        runs.iter().map(|r| {
            (
                &r.mode[..],
                r.iteration,
                r.max_iterations,
                String::new(),
                &r.prompt[..],
            )
        }),
    )
}

/// The resume word, for a run OMC left session-less: copied into session `to` (unless that
/// session already runs the mode), the session-less one ended as `resumed`.
fn take_leftover(
    store: &Store,
    to: &SessionId,
    run: &ModeState,
    now_ms: i64,
) -> Result<ModeState, Refused> {
    let now_iso = crate::time::iso(now_ms);
    let (Some(src), Some(dst)) = (
        StateFile::new(&Scope::Global, &state_file_name(&run.mode)),
        mode_file(to, &run.mode),
    ) else {
        return Err(Refused::Gone);
    };
    let project = store.project().to_string_lossy().into_owned();
    move_run(store, &src, &dst, to, &now_iso, |old| {
        if !old.active {
            return None;
        }
        let mut new = old.clone();
        new.mode = run.mode.clone();
        new.session_id = Some(to.to_string());
        new.project_path = Some(project.clone());
        new.suspended_at = None;
        new.new_turn();
        new.last_checked_at = Some(now_iso.clone());
        new.extra
            .insert("resumed_from".into(), "oh-my-claudecode".into());
        new.extra
            .insert("resumed_at".into(), now_iso.clone().into());
        Some(new)
    })
}

/// Moves a run from `src` into `dst`, under `src`'s lock: `taken` makes the new state from the
/// old one (`None`: the run is no longer there to take). It is written into `dst` unless an
/// active run is there already, and only then is the old one ended as `resumed`, so a crash in
/// between leaves a duplicate rather than losing the run.
fn move_run(
    store: &Store,
    src: &StateFile,
    dst: &StateFile,
    to: &SessionId,
    now_iso: &str,
    taken: impl Fn(&ModeState) -> Option<ModeState>,
) -> Result<ModeState, Refused> {
    let outcome = store.update(src, |cur: Option<ModeState>| {
        let Some((old, new)) = cur.and_then(|old| taken(&old).map(|new| (old, new))) else {
            return (Change::Keep, Err(Refused::Gone));
        };
        let placed = store.update(dst, |existing: Option<ModeState>| match existing {
            Some(e) if e.active => (Change::Keep, false),
            _ => (Change::Write(new.clone()), true),
        });
        match placed {
            Ok(true) => {
                let mut ended = old;
                ended.end("resumed", now_iso);
                ended
                    .extra
                    .insert("resumed_into".into(), to.to_string().into());
                (Change::Write(ended), Ok(new))
            }
            Ok(false) => (Change::Keep, Err(Refused::Busy)),
            Err(e) => {
                crate::diag!("resume: cannot write {}: {e}", dst.name());
                (Change::Keep, Err(Refused::Gone))
            }
        }
    });
    outcome.unwrap_or_else(|e| {
        crate::diag!("resume: {e}");
        Err(Refused::Gone)
    })
}

/// SessionStart: this session is live again, so its runs suspended within the resume bound
/// are too; older ones stay suspended and are offered (issue 30: a run suspended days ago must
/// not start blocking again on its own). Returns the modes un-suspended.
///
/// `own` is this session's runs as read once at session start ([`super::mode_states`]); a run
/// un-suspended here is replaced in it by what was written.
pub fn unsuspend_own(
    ctx: &Ctx<'_>,
    store: &Store,
    own: &mut [(StateFile, ModeState)],
) -> Vec<String> {
    let Some(sid) = ctx.scope.session_id() else {
        return Vec::new();
    };
    let bound = within_ms(&ctx.config);
    let recent = |s: &ModeState| {
        s.active
            && s.suspended_at
                .as_deref()
                .and_then(crate::time::parse_iso)
                .is_some_and(|t| (0..=bound).contains(&(ctx.now_ms - t)))
    };
    let now = crate::time::iso(ctx.now_ms);
    let mut out = Vec::new();
    for (file, state) in own.iter_mut() {
        if !recent(state) {
            continue;
        }
        let r = store.update(file, |cur: Option<ModeState>| match cur {
            Some(mut s) if recent(&s) => {
                s.unsuspend(ctx.now_ms);
                s.last_checked_at = Some(now.clone());
                s.new_turn();
                (Change::Write(s.clone()), Some(s))
            }
            _ => (Change::Keep, None),
        });
        match r {
            Ok(Some(written)) => {
                out.push(state.mode.clone());
                *state = written;
            }
            Ok(None) => {}
            Err(e) => crate::diag!("session-start: cannot resume {}: {e}", file.name()),
        }
    }
    if !out.is_empty() {
        prune_index(store, |r| {
            !(r.session_id == sid.as_str() && out.contains(&r.mode))
        });
    }
    out
}

/// The resume word: `Some(None)` for "the newest run", `Some(Some(mode))` for one mode.
/// Only the whole prompt counts: `omc resume`, `resume`, either followed by a persistent
/// mode name; case, surrounding space and a final `.` or `!` do not matter.
pub fn request(prompt: &str) -> Option<Option<&'static str>> {
    let p = prompt.trim();
    // a few words at most: a long prompt is never the word, and is not copied to find out
    // (lowercasing and splitting a megabyte prompt was the hook's peak memory)
    if p.len() > 64 {
        return None;
    }
    let p = p.trim_end_matches(['.', '!']).to_lowercase();
    let words: Vec<&str> = p.split_whitespace().collect();
    let rest = match words.as_slice() {
        ["omc", "resume", rest @ ..] | ["resume", rest @ ..] => rest,
        _ => return None,
    };
    match rest {
        [] => Some(None),
        [mode] => crate::modes::PERSISTENT
            .iter()
            .find(|m| *m == mode)
            .map(|m| Some(*m)),
        _ => None,
    }
}

/// Why a run could not be re-bound.
enum Refused {
    Busy,
    Gone,
}

/// UserPromptSubmit: on the resume word, re-binds the newest suspended run(s) of another
/// session to this one and says so.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let Some(wanted) = ctx.input.prompt.as_deref().and_then(request) else {
        return Answer::default();
    };
    let (Some(store), Some(to)) = (&ctx.store, ctx.scope.session_id()) else {
        return Answer::default();
    };
    let offers: Vec<Suspended> = offers(ctx, store)
        .into_iter()
        .filter(|r| wanted.is_none_or(|m| r.mode == m))
        .collect();
    let Some(from) = offers.first().map(|r| r.session_id.clone()) else {
        // Runs oh-my-claudecode left session-less come after every session's own.
        let left: Vec<ModeState> = leftovers(ctx, store)
            .into_iter()
            .filter(|r| wanted.is_none_or(|m| r.mode == m))
            .collect();
        if !left.is_empty() {
            let mut texts = Vec::new();
            for r in &left {
                let taken = take_leftover(store, to, r, ctx.now_ms);
                texts.extend(taken_text(ctx, &r.mode, NO_SESSION, &taken));
            }
            if !texts.is_empty() {
                return Answer::context(texts.join("\n\n"));
            }
        }
        // The word after this session took a run up at its start (within the resume bound):
        // say so, rather than "nothing to resume" beside the run it is working on.
        if let Some(text) = already_taken_up(ctx, store, wanted) {
            return Answer::context(text);
        }
        let what = wanted.map_or(String::new(), |m| format!(" {m}"));
        return Answer::context(render(NOTHING.trim_end(), &[("mode", &what)]));
    };
    let now = crate::time::iso(ctx.now_ms);
    let mut texts = Vec::new();
    for r in offers.iter().filter(|r| r.session_id == from) {
        let Some(from_sid) = SessionId::parse(&r.session_id) else {
            continue;
        };
        let taken = rebind(store, &from_sid, to, r, ctx.now_ms, &now);
        if taken.is_ok() {
            carry_edits(store, &from_sid, to);
        }
        texts.extend(taken_text(ctx, &r.mode, &r.session_id, &taken));
    }
    prune_index(store, |r| r.session_id != from);
    if texts.is_empty() {
        return Answer::context(render(NOTHING.trim_end(), &[("mode", "")]));
    }
    Answer::context(texts.join("\n\n"))
}

/// What the resume word says of one run taken up from session `from` (or refused because the
/// session already runs that mode); nothing for a run that is gone.
fn taken_text(
    ctx: &Ctx<'_>,
    mode: &str,
    from: &str,
    taken: &Result<ModeState, Refused>,
) -> Option<String> {
    match taken {
        Ok(state) => Some(render(
            RESUMED.trim_end(),
            &[
                ("label", &run_label(mode)),
                ("from", from),
                ("iteration", &state.iteration.to_string()),
                (
                    "max",
                    &crate::modes::effective_max(state, &ctx.config).to_string(),
                ),
                ("task", &clip(&state.prompt, 1_000)),
            ],
        )),
        Err(Refused::Busy) => Some(render(BUSY.trim_end(), &[("mode", mode), ("from", from)])),
        Err(Refused::Gone) => None,
    }
}

/// What the resume word is told when this session already runs a run it took up from another
/// session (the newest of them, or the named mode's).
fn already_taken_up(ctx: &Ctx<'_>, store: &Store, wanted: Option<&str>) -> Option<String> {
    super::mode_states(store, &ctx.scope)
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.active && s.suspended_at.is_none())
        .filter(|s| wanted.is_none_or(|m| s.mode == m))
        .find_map(|s| {
            let from = s.extra.get("resumed_from")?.as_str()?.to_string();
            Some(render(
                ALREADY.trim_end(),
                &[
                    ("label", &run_label(&s.mode)),
                    ("from", &from),
                    ("iteration", &s.iteration.to_string()),
                    (
                        "max",
                        &crate::modes::effective_max(&s, &ctx.config).to_string(),
                    ),
                ],
            ))
        })
}

/// The files the earlier session edited come along with its run, so a checkpoint in the new
/// session (whatever agent it runs in) still lists them. Entries already recorded here win.
fn carry_edits(store: &Store, from: &SessionId, to: &SessionId) {
    let old = super::edits::read(store, &Scope::Session(from.clone()));
    if old.files.is_empty() {
        return;
    }
    let Some(file) = StateFile::new(&Scope::Session(to.clone()), super::edits::FILE) else {
        return;
    };
    let result = store.update(&file, |cur: Option<super::edits::Edits>| {
        let mut e = cur.unwrap_or_default();
        let mut files: Vec<_> = old
            .files
            .iter()
            .filter(|o| !e.files.iter().any(|f| f.path == o.path))
            .cloned()
            .collect();
        files.append(&mut e.files);
        let surplus = files.len().saturating_sub(super::edits::MAX_FILES);
        files.drain(..surplus);
        e.files = files;
        e.dropped_files += old.dropped_files + surplus as u64;
        e.schema_version = SCHEMA_VERSION;
        (Change::Write(e), ())
    });
    if let Err(e) = result {
        crate::diag!("resume: the earlier session's edits were not carried over: {e}");
    }
}

/// Moves the run an index entry names from session `from` into session `to` (or, when they
/// are the same session, un-suspends it in place). The new state is written first, so a crash
/// in between leaves a duplicate rather than losing the run. Whether the entry still holds is
/// checked on the freshly read file, under its lock.
fn rebind(
    store: &Store,
    from: &SessionId,
    to: &SessionId,
    entry: &Suspended,
    now_ms: i64,
    now_iso: &str,
) -> Result<ModeState, Refused> {
    let mode = entry.mode.as_str();
    let (Some(src), Some(dst)) = (mode_file(from, mode), mode_file(to, mode)) else {
        return Err(Refused::Gone);
    };
    let project = store.project().to_string_lossy().into_owned();
    // Taken up: as if suspended at the entry's time (a run left open has no `suspended_at`),
    // so a time budget does not count the time it waited.
    let taken_up = |old: &ModeState| {
        let mut new = old.clone();
        new.session_id = Some(to.to_string());
        new.project_path = Some(project.clone());
        if new.suspended_at.is_none() {
            new.suspended_at = Some(entry.suspended_at.clone());
        }
        new.unsuspend(now_ms);
        // The resume word is the user speaking, and a new session is a new turn: a run that
        // was waiting for an answer (the model asked, then the session ended) has it now.
        new.new_turn();
        new.last_checked_at = Some(now_iso.to_string());
        new
    };
    if from == to {
        let r = store.update(&src, |cur: Option<ModeState>| match cur {
            Some(old) if entry.holds(&old) => {
                let new = taken_up(&old);
                (Change::Write(new.clone()), Ok(new))
            }
            _ => (Change::Keep, Err(Refused::Gone)),
        });
        return r.unwrap_or_else(|e| {
            crate::diag!("resume: {e}");
            Err(Refused::Gone)
        });
    }
    move_run(store, &src, &dst, to, now_iso, |old| {
        if !entry.holds(old) {
            return None;
        }
        let mut new = taken_up(old);
        new.extra
            .insert("resumed_from".into(), from.to_string().into());
        new.extra.insert("resumed_at".into(), now_iso.into());
        Some(new)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resume_word() {
        assert_eq!(request("resume"), Some(None));
        assert_eq!(request("  OMC Resume. "), Some(None));
        assert_eq!(request("omc resume ralph"), Some(Some("ralph")));
        assert_eq!(request("resume ultrawork!"), Some(Some("ultrawork")));
        assert_eq!(request("resume the work on the parser"), None);
        assert_eq!(request("please resume"), None);
        assert_eq!(request("resume tdd"), None);
        assert_eq!(request("how do I resume?"), None);
    }

    #[test]
    fn rebinding_a_run_that_waited_for_the_user_clears_the_wait() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::new(
            crate::state::Root {
                project: t.path().to_path_buf(),
                omc: t.path().join(".omc"),
            },
            0,
        );
        let (from, to) = (
            SessionId::parse("old-1").unwrap(),
            SessionId::parse("new-1").unwrap(),
        );
        let mut old = ModeState::start(
            "ralph",
            Some("old-1"),
            &t.path().to_string_lossy(),
            "fix the tests",
            "2026-12-02T13:40:00.000Z",
            100,
        );
        old.iteration = 2;
        old.suspended_at = Some("2026-12-02T13:45:00.000Z".into());
        old.awaiting_input_at = Some("2026-12-02T13:44:00.000Z".into());
        store
            .write(&mode_file(&from, "ralph").unwrap(), &old)
            .unwrap();
        let entry = Suspended::of(&old, &from, "2026-12-02T13:45:00.000Z");
        let new = rebind(
            &store,
            &from,
            &to,
            &entry,
            crate::time::parse_iso("2026-12-02T14:00:00.000Z").unwrap(),
            "2026-12-02T14:00:00.000Z",
        )
        .unwrap_or_else(|_| panic!("re-bound"));
        assert_eq!(new.awaiting_input_at, None);
        assert_eq!(new.suspended_at, None);
        assert_eq!(new.iteration, 2);
        let on_disk: ModeState = store.read(&mode_file(&to, "ralph").unwrap()).unwrap();
        assert_eq!(on_disk.awaiting_input_at, None);
        assert_eq!(on_disk.session_id.as_deref(), Some("new-1"));
        let was: ModeState = store.read(&mode_file(&from, "ralph").unwrap()).unwrap();
        assert!(!was.active);
        assert_eq!(was.ended_reason.as_deref(), Some("resumed"));
    }

    #[test]
    fn texts_are_pinned() {
        let r = Suspended {
            session_id: "old-1".into(),
            mode: "ralph".into(),
            prompt: "fix the tests".into(),
            iteration: 3,
            max_iterations: 100,
            suspended_at: "2026-12-02T13:45:00.000Z".into(),
            open: false,
            last_checked_at: None,
        };
        assert_eq!(
            offers_text(std::slice::from_ref(&r)).unwrap(),
            "[SUSPENDED RUN] An unfinished run from an earlier session in this project is waiting:\n\
             - [RALPH LOOP] iteration 3/100 — session old-1, suspended 2026-12-02 13:45 UTC. Task: \"fix the tests\"\n\
             It is resumed — re-bound to this session, iteration kept — only when the user's whole \
             message is `omc resume` (or `resume`; `omc resume <mode>` picks one run). Do not resume \
             it yourself. Mention it to the user if it bears on their request; otherwise focus on \
             what they ask."
        );
        assert_eq!(offers_text(&[]), None);
        let left: ModeState = serde_json::from_value(serde_json::json!({
            "active": true, "mode": "ralph", "prompt": "fix the tests",
            "iteration": 3, "max_iterations": 100
        }))
        .unwrap();
        assert_eq!(
            leftovers_text(std::slice::from_ref(&left)).unwrap(),
            "[LEFT BY OH-MY-CLAUDECODE] An unfinished run that oh-my-claudecode left in this \
             project, bound to no session, is waiting:\n\
             - [RALPH LOOP] iteration 3/100. Task: \"fix the tests\"\n\
             It is resumed — re-bound to this session, iteration kept — only when the user's whole \
             message is `omc resume` (or `resume`; `omc resume <mode>` picks one run). Do not resume \
             it yourself. Mention it to the user if it bears on their request; otherwise focus on \
             what they ask."
        );
        assert_eq!(leftovers_text(&[]), None);
        assert_eq!(
            render(
                RESUMED.trim_end(),
                &[
                    ("label", "RALPH LOOP"),
                    ("from", "old-1"),
                    ("iteration", "3"),
                    ("max", "100"),
                    ("task", "fix")
                ]
            ),
            "[RALPH LOOP RESUMED] Re-bound to this session from session old-1; iteration 3/100.\n\
             Task: fix\n\
             Continue the task from where it stopped; the run keeps going at each stop until it is \
             done. Put <omc-complete/> alone on the last line of your final message when the task is really complete; the \
             user can stop the run with `cancelomc`."
        );
        assert_eq!(
            render(NOTHING.trim_end(), &[("mode", " ralph")]),
            "[OMC RESUME] There is no suspended ralph run to resume in this project. Tell the user so."
        );
        assert_eq!(
            render(
                ALREADY.trim_end(),
                &[
                    ("label", "RALPH LOOP"),
                    ("from", "old-1"),
                    ("iteration", "8"),
                    ("max", "100")
                ]
            ),
            "[OMC RESUME] The RALPH LOOP run from session old-1 was already taken up by this \
             session when it started (iteration 8/100); carry on with it: each stop sends you \
             back to it until it is done."
        );
        assert_eq!(
            render(
                TAKEN_UP.trim_end(),
                &[
                    ("label", "RALPH LOOP"),
                    ("from", "old-1"),
                    ("ago", "45 min ago"),
                    ("iteration", "7"),
                    ("max", "100 · 45 min left"),
                    ("task", "fix")
                ]
            ),
            "[RALPH LOOP RESUMED] The run from session old-1, left unfinished 45 min ago, \
             continues in this session: iteration 7/100 · 45 min left.\n\
             Task: fix\n\
             If the user asks for something else, do that first; otherwise carry on with this \
             task from where it stopped. Each stop sends you back to it until it is done. Put \
             <omc-complete/> in your final message when it is really complete; the user can stop \
             the run with `cancelomc`."
        );
        assert_eq!(
            render(BUSY.trim_end(), &[("mode", "ralph"), ("from", "old-1")]),
            "[OMC RESUME] A ralph run is already active in this session, so the suspended one from \
             session old-1 was left as it is."
        );
    }
}
