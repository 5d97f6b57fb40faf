//! SessionStart (`startup`, `resume`, `clear`, `compact`): hand the model what it must not
//! lose, within [`BUDGET`] characters, most important first:
//!
//! 0. this session's runs untouched for more than 2 hours, ended now as `stale` ([`stale`]),
//!    with a system message to the person;
//! 1. this session's active runs (`[RALPH LOOP RESTORED] …`) — a session that starts again
//!    first takes back its runs suspended within the resume bound
//!    ([`resume::unsuspend_own`]), and a new session takes up an earlier session's runs
//!    suspended within it (`[RALPH LOOP RESUMED] …`, [`resume::adopt`]);
//! 2. after a compaction, the newest checkpoint;
//! 3. otherwise, suspended runs of earlier sessions and the word that resumes them;
//! 4. the notepad's Priority Context;
//! 5. project memory;
//! 6. the project's wiki (`.omc/wiki/`, [`wiki`]).
//!
//! A section that does not fit is cut with a marker, and sections left out entirely are named
//! in a closing line. It also records `session.json` (first start, last start, source, agent),
//! which SessionEnd uses for the session's duration: the only record of when the session
//! began. Where the project has no `.omc/` yet, the start goes to the user's state directory
//! instead ([`crate::state::pending`]): creating `.omc/` here would show in the git status the
//! agent sends the model with the first prompt, and SessionStart hooks can run before that
//! snapshot is taken (tests/e2e/FINDINGS.md §11). SessionEnd takes it back from there.

use super::{
    checkpoint, clip, mode_states, notepad, project_memory, render, resume, run_label, stale, wiki,
};
use crate::capabilities::Ctx;
use crate::protocol::Answer;
use crate::protocol::output::truncate_chars;
use crate::state::files::{ModeState, SCHEMA_VERSION};
use crate::state::{Change, StateFile, Store, pending};
use serde::{Deserialize, Serialize};

/// The most characters SessionStart adds to the context.
pub const BUDGET: usize = 6_000;
/// Room kept for the closing "left out" line when sections must go.
const NOTICE_RESERVE: usize = 300;
/// A section is cut rather than left out only if at least this much of it fits.
const MIN_CUT: usize = 200;
/// The Priority Context shown at most (it "should stay short").
const MAX_PRIORITY_CHARS: usize = 2_000;
/// An active run untouched this long is stale (as on Stop) and is not announced.
const STALE_MS: i64 = stale::STALE_MS;

/// `session.json` in the session scope.
pub const MARKER: &str = "session.json";

const RESTORED: &str = include_str!("../../../templates/memory/restored.md");
const PRIORITY: &str = include_str!("../../../templates/memory/priority-context.md");
const OMITTED: &str = include_str!("../../../templates/memory/budget-omitted.md");

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Marker {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub session_id: String,
    pub started_at: String,
    pub last_start_at: String,
    #[serde(default)]
    pub last_source: String,
    #[serde(default)]
    pub starts: u32,
    /// This session's first start created `.omc/`: if it records nothing else, SessionEnd
    /// removes the directory again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_state_dir: bool,
    /// The agent the session runs in (its hooks' `--agent`), as of its last start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The terminal program the session runs in (`TERM_PROGRAM`), as of its last start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term_program: Option<String>,
    /// The session's terminal device (`/dev/pts/3`), as of its last start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tty: Option<String>,
    /// Where the session is in its terminal (`tmux pane %3`, `iTerm2 session …`: the
    /// terminal's own id, [`crate::env::Env::terminal_locator`]), as of its last start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_id: Option<String>,
}

/// SessionStart entry point.
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let source = ctx.input.source.as_deref().unwrap_or("startup");
    // This session's runs, read once: the steps below that write one keep this current.
    let mut own = mode_states(store, &ctx.scope);
    resume::unsuspend_own(ctx, store, &mut own);
    let taken_up = resume::adopt(ctx, store);
    if !taken_up.is_empty() {
        // Runs taken up from another session were written into this one.
        own = mode_states(store, &ctx.scope);
    }
    mark(ctx, store, source);
    let ended = stale::end(ctx, store, &mut own);

    let mut sections: Vec<(&'static str, String)> = Vec::new();
    if let Some((text, _)) = &ended {
        sections.push(("stale runs", text.clone()));
    }
    for (_, text) in &taken_up {
        sections.push(("resumed runs", text.clone()));
    }
    for (_, s) in own {
        if live(&s, ctx) && !taken_up.iter().any(|(m, _)| *m == s.mode) {
            sections.push(("restored runs", restored(&s, &ctx.config)));
        }
    }
    if source == "compact" {
        if let Some(cp) = checkpoint::latest(store, &ctx.scope) {
            sections.push(("checkpoint", checkpoint::context(&cp)));
        }
    } else {
        if let Some(text) = resume::offers_text(&resume::offers(ctx, store)) {
            sections.push(("suspended runs", text));
        }
        if let Some(text) = resume::leftovers_text(&resume::leftovers(ctx, store)) {
            sections.push(("runs left by oh-my-claudecode", text));
        }
    }
    if let Some(text) = notepad::read(store) {
        let p = notepad::priority_context(&text);
        if !p.is_empty() {
            let p = truncate_chars(&p, MAX_PRIORITY_CHARS);
            sections.push(("notepad", render(PRIORITY.trim_end(), &[("text", &p)])));
        }
    }
    if let Some(text) = project_memory::section(store) {
        sections.push(("project memory", text));
    }
    if let Some(text) = wiki::section(store) {
        // The wiki's pages are anyone's text: redacted and without escapes (issue 43).
        sections.push(("wiki", crate::terminal::shown(&text)));
    }
    let text = assemble(&sections, BUDGET);
    let answer = if text.is_empty() {
        Answer::default()
    } else {
        Answer::context(text)
    };
    match ended {
        Some((_, message)) => answer.with_system_message(message),
        None => answer,
    }
}

/// Active, not suspended, this session's, and touched within [`STALE_MS`].
fn live(s: &ModeState, ctx: &Ctx<'_>) -> bool {
    let own = ctx.scope.session_id().map(|id| id.as_str());
    let last = [s.last_checked_at.as_deref(), s.started_at.as_deref()]
        .into_iter()
        .flatten()
        .filter_map(crate::time::parse_iso)
        .max();
    s.active
        && s.suspended_at.is_none()
        && (s.session_id.is_none() || s.session_id.as_deref() == own)
        && last.is_some_and(|t| ctx.now_ms - t <= STALE_MS)
}

fn restored(s: &ModeState, config: &crate::config::Config) -> String {
    let started = s
        .started_at
        .as_deref()
        .and_then(crate::time::parse_iso)
        .map_or_else(|| "earlier".to_string(), crate::time::human);
    render(
        RESTORED.trim_end(),
        &[
            ("label", &run_label(&s.mode)),
            ("iteration", &s.iteration.to_string()),
            ("max", &crate::modes::effective_max(s, config).to_string()),
            ("started", &started),
            ("task", &clip(&s.prompt, 1_000)),
        ],
    )
}

/// Records the start in `session.json` (only for a valid session id).
fn mark(ctx: &Ctx<'_>, store: &Store, source: &str) {
    let Some(sid) = ctx.scope.session_id() else {
        return;
    };
    let Some(file) = StateFile::new(&ctx.scope, MARKER) else {
        return;
    };
    let now = crate::time::iso(ctx.now_ms);
    let source = clip(source, 40);
    let next = |cur: Option<Marker>| {
        let mut m = cur.unwrap_or_else(|| Marker {
            started_at: now.clone(),
            ..Marker::default()
        });
        m.schema_version = SCHEMA_VERSION;
        m.session_id = sid.to_string();
        m.last_start_at = now.clone();
        m.last_source = source.clone();
        m.starts += 1;
        m.agent = Some(ctx.input.agent.name().to_string());
        m.term_program = ctx
            .env
            .var("TERM_PROGRAM")
            .map(|t| clip(t, 64))
            .filter(|t| !t.is_empty());
        m.tty = ctx.env.tty().map(|t| clip(t, 64));
        m.terminal_id = ctx.env.terminal_locator();
        m
    };
    if !store.omc_dir().exists() {
        // No `.omc/` in this project: keep the start outside it (see the module doc).
        let project = store.project();
        let cur = pending::peek(ctx.env, project, sid).and_then(|v| serde_json::from_value(v).ok());
        let m = next(cur);
        let r = serde_json::to_value(&m)
            .map_err(std::io::Error::other)
            .and_then(|v| pending::record(ctx.env, project, sid, &v));
        if let Err(e) = r
            && ctx.env.debug
        {
            crate::diag!("session-start: start not recorded outside the project: {e}");
        }
        return;
    }
    // A start kept outside while the project had no `.omc/` (this session's first one, before
    // a run created the directory) is where the session began: carried in, then dropped.
    let outside = || {
        pending::peek(ctx.env, store.project(), sid).and_then(|v| serde_json::from_value(v).ok())
    };
    let mut carried = false;
    let r = store.update(&file, |cur: Option<Marker>| {
        let cur = cur.or_else(|| {
            let o = outside();
            carried = o.is_some();
            o
        });
        (Change::Write(next(cur)), ())
    });
    match r {
        Ok(()) if carried => {
            let _ = pending::take(ctx.env, store.project(), sid);
        }
        Ok(()) => {}
        Err(e) => crate::diag!("session-start: cannot record the session: {e}"),
    }
}

/// The session's start as recorded at SessionStart: `session.json`, else the record kept
/// outside a project that had no `.omc/` then (taken: it is not needed after SessionEnd).
pub fn take_marker(ctx: &Ctx<'_>, store: &Store) -> Option<Marker> {
    let sid = ctx.scope.session_id()?;
    let outside = pending::take(ctx.env, store.project(), sid)
        .and_then(|v| serde_json::from_value::<Marker>(v).ok());
    let inside = StateFile::new(&ctx.scope, MARKER).and_then(|f| store.read::<Marker>(&f));
    match (inside, outside) {
        // Both (a version that did not carry the outside start in): the session began at the
        // earlier one.
        (Some(mut i), Some(o)) => {
            let at = |s: &str| crate::time::parse_iso(s).unwrap_or(i64::MAX);
            if at(&o.started_at) < at(&i.started_at) {
                i.started_at = o.started_at;
            }
            Some(i)
        }
        (i, o) => i.or(o),
    }
}

/// Joins sections within `budget` characters: whole while they fit, the first that does not
/// fit is cut (if enough of it fits), the rest are named in a closing line.
pub fn assemble(sections: &[(&str, String)], budget: usize) -> String {
    const SEP: &str = "\n\n";
    let total: usize = sections
        .iter()
        .map(|(_, t)| t.chars().count())
        .sum::<usize>()
        + SEP.len() * sections.len().saturating_sub(1);
    if total <= budget {
        return sections
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(SEP);
    }
    let limit = budget.saturating_sub(NOTICE_RESERVE);
    let mut parts: Vec<String> = Vec::new();
    let mut used = 0;
    let mut omitted: Vec<&str> = Vec::new();
    for (name, text) in sections {
        let sep = if parts.is_empty() { 0 } else { SEP.len() };
        let room = limit.saturating_sub(used + sep);
        let n = text.chars().count();
        if n <= room {
            parts.push(text.clone());
            used += sep + n;
        } else if room >= MIN_CUT {
            parts.push(truncate_chars(text, room));
            used += sep + room;
        } else {
            omitted.push(name);
        }
    }
    if !omitted.is_empty() {
        let notice = render(
            OMITTED.trim_end(),
            &[
                ("count", &omitted.len().to_string()),
                ("sections", &omitted.join(", ")),
            ],
        );
        parts.push(truncate_chars(&notice, NOTICE_RESERVE - SEP.len()));
    }
    parts.join(SEP)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn everything_fits_unchanged() {
        let s = vec![("a", "one".to_string()), ("b", "two".to_string())];
        assert_eq!(assemble(&s, 100), "one\n\ntwo");
    }

    #[test]
    fn budget_is_respected_first_sections_win() {
        let s = vec![
            ("modes", "M".repeat(3_000)),
            ("checkpoint", "C".repeat(4_000)),
            ("notepad", "N".repeat(500)),
        ];
        let out = assemble(&s, BUDGET);
        assert!(len(&out) <= BUDGET, "{}", len(&out));
        assert!(out.starts_with(&"M".repeat(3_000)));
        assert!(out.contains("…[truncated]"));
        assert!(out.ends_with(
            "[OMC] 1 more section(s) left out to stay within the context budget (notepad). Full text: .omc/notepad.md, .omc/project-memory.json, .omc/state/sessions/<id>/checkpoints/."
        ));
    }

    #[test]
    fn a_huge_first_section_is_cut_and_still_within_budget() {
        let s = vec![("modes", "é".repeat(50_000)), ("x", "y".repeat(10))];
        let out = assemble(&s, BUDGET);
        assert!(len(&out) <= BUDGET);
        assert!(out.contains("left out") && out.contains("(x)"));
    }

    #[test]
    fn restored_text_is_pinned() {
        let s = ModeState::start(
            "ralph",
            Some("s1"),
            "/p",
            "fix the tests",
            "2026-12-02T13:45:00.000Z",
            100,
        );
        assert_eq!(
            restored(&s, &crate::config::Config::default()),
            "[RALPH LOOP RESTORED] Iteration 1/100, started 2026-12-02 13:45 UTC.\n\
             Task: fix the tests\n\
             This run is still active in this session. Prioritize the user's newest request; when \
             there is none, keep working on the task. Put <omc-complete/> alone on the last line of your final message when \
             it is really complete; the user can stop the run with `cancelomc`."
        );
        assert_eq!(
            render(PRIORITY.trim_end(), &[("text", "Use pnpm.")]),
            "[NOTEPAD — PRIORITY CONTEXT] From .omc/notepad.md, written for every session:\nUse pnpm."
        );
    }
}
