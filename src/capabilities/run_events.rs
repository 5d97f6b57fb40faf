//! Lifecycle events for the notification sinks (contract §18, "Notifications"): a run that
//! ended (completed, cancelled, a limit, stale, handed back at the block cap), a run that waits
//! for the person (`needs-input`), and the end of a session, with its figures.
//!
//! Runs end in many places — the Stop hook's guards, a cancel, `omc-hooks mode phase … complete`
//! run by the model, and whatever ends a run tomorrow — so the events are not raised at each of
//! them. They are read from the run files instead, in one place: [`Watch::start`] reads this
//! session's run files before a hook's capabilities (or a command) run, [`Watch::finish`] reads
//! them after and turns each change into at most one event, spooled for the notification
//! sinks through export's outbox. The hook only appends; the detached flusher sends. With no
//! notification sink configured nothing is read at all.
//!
//! A change is seen only by the process that made it (it read the file before and after), so a
//! run end is announced once, however many hooks run later with the same clock.

use super::Ctx;
use crate::config::hooks_toml::Loaded;
use crate::env::Env;
use crate::export::{ExportEvent, SinkKind, SinkSpec};
use crate::modes::{PERSISTENT, state_file_name};
use crate::state::files::ModeState;
use crate::state::{Scope, StateFile, Store};
use serde_json::json;

/// The hooks in which a run may end or start waiting, or a session end: the Stop hook (its
/// guards), the prompt hook (a cancel, a mode command), SessionStart (a stale run ended) and
/// SessionEnd. Other hooks leave the run files' end state alone and pay nothing.
/// StopFailure hands a live run back (`super::client_events`), as a Stop at a limit does.
const WATCHED: [&str; 5] = [
    "stop",
    "stop-failure",
    "user-prompt-submit",
    "session-start",
    "session-end",
];

/// Longest task text and question quoted in a notification, in characters.
const MAX_QUOTE_CHARS: usize = 300;

/// The session's run files as they were, and the sinks that want to hear about changes.
pub struct Watch {
    sinks: Vec<SinkSpec>,
    scope: Scope,
    /// The hook being served; `None` for a command.
    hook: Option<&'static str>,
    before: Vec<(&'static str, Option<ModeState>)>,
}

/// Who and when, for the events [`Watch::finish`] makes.
pub struct Seen<'a> {
    /// The agent's name (`claude`, `codex`, …), or `omc-hooks` for a command.
    pub agent: &'a str,
    pub now_ms: i64,
    /// The model's last message (the Stop payload's), for the question a run waits on.
    pub last_message: Option<&'a str>,
}

/// For the dispatcher: a watch over this hook's session, if this hook may end a run and a
/// notification sink is configured.
pub fn before(ctx: &Ctx<'_>) -> Option<Watch> {
    if !WATCHED.contains(&ctx.hook.name) {
        return None;
    }
    Watch::start(
        ctx.store.as_ref()?,
        &ctx.scope,
        ctx.env,
        Some(ctx.hook.name),
        ctx.hook_files(),
    )
}

/// For the dispatcher: the events of this hook, spooled. Says nothing to the model.
pub fn after(ctx: &Ctx<'_>, watch: Watch) {
    let Some(store) = &ctx.store else {
        return;
    };
    let seen = Seen {
        agent: ctx.input.agent.name(),
        now_ms: ctx.now_ms,
        last_message: ctx.input.last_assistant_message.as_deref(),
    };
    watch.finish(store, ctx.env, &seen);
}

/// For a command that may end runs (`cancel`, `mode phase … complete`): `f`, watched.
pub fn around<T>(store: &Store, scope: &Scope, env: &Env, f: impl FnOnce() -> T) -> T {
    let files = crate::config::hooks_toml::load(env, Some(store));
    let watch = Watch::start(store, scope, env, None, &files);
    let out = f();
    if let Some(w) = watch {
        let seen = Seen {
            agent: COMMAND_LINE,
            now_ms: env.now_ms(),
            last_message: None,
        };
        w.finish(store, env, &seen);
    }
    out
}

/// For an event of the client's own that is not a run's change (`api-error`, `waiting`,
/// `permission-denied`, [`crate::export::notify::LIFECYCLE_EVENTS`]): one record with
/// `payload` (its `detail` in words), the project and the terminal added, spooled for the
/// notification sinks that listen to `event`. Nothing when none is configured. Whether a
/// record was spooled.
pub fn announce(
    ctx: &Ctx<'_>,
    event: &str,
    tool: Option<&str>,
    mut payload: serde_json::Value,
) -> bool {
    let Some(store) = &ctx.store else {
        return false;
    };
    let sinks: Vec<SinkSpec> = crate::export::sources::configured_in(ctx.hook_files(), ctx.env)
        .into_iter()
        .filter(|s| matches!(s.kind, SinkKind::Notify(_)))
        .collect();
    if sinks.is_empty() {
        return false;
    }
    payload["project"] = json!(project_name(store));
    if let Some(t) = terminal(store, &ctx.scope) {
        payload["terminal"] = json!(t);
    }
    let ev = ExportEvent {
        id: crate::export::event::new_id(),
        event: event.to_string(),
        session_id: ctx.scope.session_id().map(|s| s.to_string()),
        agent: ctx.input.agent.name().to_string(),
        timestamp_ms: ctx.now_ms,
        tool: tool.map(str::to_string),
        mode: None,
        iteration: None,
        failure_count: None,
        payload,
    };
    crate::export::enqueue(store, ctx.env, &ev, &sinks).spooled > 0
}

/// The `agent` of events a command made.
pub const COMMAND_LINE: &str = "command-line";

impl Watch {
    /// Reads the scope's run files, unless no notification sink is configured in `files` (the
    /// `hooks.toml` files, loaded) (`None`).
    pub fn start(
        store: &Store,
        scope: &Scope,
        env: &Env,
        hook: Option<&'static str>,
        files: &Loaded,
    ) -> Option<Watch> {
        let sinks: Vec<SinkSpec> = crate::export::sources::configured_in(files, env)
            .into_iter()
            .filter(|s| matches!(s.kind, SinkKind::Notify(_)))
            .collect();
        if sinks.is_empty() {
            return None;
        }
        Some(Watch {
            sinks,
            scope: scope.clone(),
            hook,
            before: runs(store, scope),
        })
    }

    /// Compares the run files with what [`Watch::start`] read, spools one record per change
    /// (and, after SessionEnd, the session's), and starts a flusher. Returns the events made.
    pub fn finish(self, store: &Store, env: &Env, seen: &Seen<'_>) -> Vec<ExportEvent> {
        let after = runs(store, &self.scope);
        let mut events = Vec::new();
        for ((mode, before), (_, now)) in self.before.iter().zip(after.iter()) {
            let (Some(before), Some(now)) = (before, now) else {
                continue;
            };
            if let Some((event, outcome)) = change(before, now) {
                events.push(run_event(
                    event,
                    outcome,
                    mode,
                    now,
                    store,
                    &self.scope,
                    seen,
                ));
            }
        }
        if self.hook == Some("session-end") {
            events.push(session_event(store, &self.scope, seen));
        }
        for ev in &events {
            crate::export::enqueue(store, env, ev, &self.sinks);
        }
        if events.is_empty() {
            // Messages left by a flusher that gave up on a service that was down go out now.
            crate::export::resume_delivery(store, env, &self.sinks);
        }
        events
    }
}

/// Each mode's run file, as it stands; one listing of the scope's directory says which files
/// to open ([`Store::names`]).
fn runs(store: &Store, scope: &Scope) -> Vec<(&'static str, Option<ModeState>)> {
    let present = store.names(scope);
    PERSISTENT
        .iter()
        .map(|mode| {
            let name = state_file_name(mode);
            let state = if present.as_ref().is_some_and(|p| !p.contains(&name)) {
                None
            } else {
                StateFile::new(scope, &name).and_then(|f| store.read(&f))
            };
            (*mode, state)
        })
        .collect()
}

/// What one run's change means: the lifecycle event and, for a run end, its outcome.
fn change(before: &ModeState, now: &ModeState) -> Option<(&'static str, &'static str)> {
    let live = |s: &ModeState| s.active && s.suspended_at.is_none();
    if !live(before) {
        return None;
    }
    if !now.active {
        // The same run, ended (a new run started meanwhile would be active).
        return match now.ended_reason.as_deref() {
            None | Some("resumed") => None,
            Some(reason) => Some(("run-end", outcome(reason))),
        };
    }
    if now.started_at != before.started_at || now.suspended_at.is_some() {
        return None;
    }
    if before.awaiting_input_at.is_none() && now.awaiting_input_at.is_some() {
        return Some(("needs-input", ""));
    }
    // The Stop hook handed the run back at a continuation limit (`paused_at` set): the run
    // stays, waiting for the person.
    let handed_back = before.paused_at.is_none() && now.paused_at.is_some();
    handed_back.then_some(("run-end", "handed-back"))
}

/// The outcome word for an `ended_reason`.
fn outcome(reason: &str) -> &'static str {
    match reason {
        "completed" | "tests_passing" | "complete" => "completed",
        "cancelled" => "cancelled",
        "stale" => "stale",
        "failed" => "failed",
        r if r.starts_with("max_") || r.contains("limit") || r.contains("budget") => "limit",
        _ => "ended",
    }
}

fn project_name(store: &Store) -> String {
    store
        .project()
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

fn quote(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::protocol::output::truncate_chars(&one_line, MAX_QUOTE_CHARS)
}

fn run_event(
    event: &str,
    outcome: &str,
    mode: &str,
    run: &ModeState,
    store: &Store,
    scope: &Scope,
    seen: &Seen<'_>,
) -> ExportEvent {
    let started = run.started_at.as_deref().and_then(crate::time::parse_iso);
    let mut payload = json!({
        "outcome": outcome,
        "iterations": run.iteration,
        "max_iterations": run.max_iterations,
        "project": project_name(store),
        "task": quote(&run.prompt),
    });
    if run.ended_reason.is_some() {
        // The documented reason in words, with the tokens spent (contract §6).
        payload["reason_text"] = json!(crate::modes::end_reason_text(run));
    }
    if run.tokens_used > 0 {
        payload["tokens_used"] = json!(run.tokens_used);
    }
    if run.max_tokens > 0 {
        payload["max_tokens"] = json!(run.max_tokens);
    }
    if let Some(c) = run.cost_usd {
        payload["cost_usd"] = json!(c);
    }
    if run.max_cost_usd > 0.0 {
        payload["max_cost_usd"] = json!(run.max_cost_usd);
    }
    if event == "run-end" {
        // The one-screen summary and the command that shows the rest (issue 42).
        payload["summary"] = json!(crate::modes::run_summary(run));
        payload["report_command"] =
            json!(format!("omc-hooks report {}", crate::modes::run_id(run)));
    }
    if let Some(v) = run.verified {
        payload["verified"] = json!(v);
    }
    if let Some(reason) = run.ended_reason.as_ref().or(run.paused_reason.as_ref()) {
        payload["reason"] = json!(reason);
    }
    if let Some(t) = started {
        payload["duration_ms"] = json!((seen.now_ms - t).max(0));
    }
    if event == "needs-input"
        && let Some(m) = seen.last_message
    {
        payload["question"] = json!(last_paragraph(m));
    }
    if let Some(t) = terminal(store, scope) {
        payload["terminal"] = json!(t);
    }
    ExportEvent {
        id: crate::export::event::new_id(),
        event: event.to_string(),
        session_id: scope.session_id().map(|s| s.to_string()),
        agent: seen.agent.to_string(),
        timestamp_ms: seen.now_ms,
        tool: None,
        mode: Some(mode.to_string()),
        iteration: Some(run.iteration),
        failure_count: None,
        payload,
    }
}

/// The terminal the session runs in (`iTerm.app /dev/pts/3 tmux pane %3 (…)`), as its
/// `session.json` recorded it at its last start; `None` where it recorded none.
fn terminal(store: &Store, scope: &Scope) -> Option<String> {
    let file = StateFile::new(scope, super::memory::session_start::MARKER)?;
    let marker: serde_json::Value = store.read(&file)?;
    let parts: Vec<&str> = ["term_program", "tty", "terminal_id"]
        .iter()
        .filter_map(|k| marker.get(*k)?.as_str())
        .filter(|s| !s.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The question a waiting run asks: the message's last paragraph, markers left out.
fn last_paragraph(message: &str) -> String {
    let text = message.replace(super::persistent_mode::needs_input::NEEDS_INPUT_TOKEN, "");
    let para = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .last()
        .unwrap_or("");
    quote(para)
}

/// The session's end, with the figures SessionEnd summarised (`.omc/sessions/<id>.json`) or,
/// where it wrote none (a project without `.omc/`), what is known here.
fn session_event(store: &Store, scope: &Scope, seen: &Seen<'_>) -> ExportEvent {
    use super::memory::session_end::{DIR, Summary};
    let summary: Option<Summary> = scope
        .session_id()
        .and_then(|sid| StateFile::nested(&Scope::Omc, DIR, &format!("{sid}.json")))
        .and_then(|f| store.read(&f))
        .filter(|s: &Summary| s.ended_at == crate::time::iso(seen.now_ms));
    let mut payload = json!({"project": project_name(store)});
    let mut iteration = None;
    if let Some(s) = &summary {
        let runs: Vec<String> = s
            .modes
            .iter()
            .map(|r| {
                let state = match (&r.ended_reason, r.suspended) {
                    (_, true) => "suspended".to_string(),
                    (Some(why), _) => outcome(why).to_string(),
                    (None, _) if r.active => "active".to_string(),
                    (None, _) => "ended".to_string(),
                };
                format!("{} {} ({} iterations)", r.mode, state, r.iteration)
            })
            .collect();
        payload["runs"] = json!(if runs.is_empty() {
            "no run".to_string()
        } else {
            runs.join(", ")
        });
        payload["iterations"] = json!(s.iterations);
        payload["tool_failures"] = json!(s.failures.iter().map(|f| f.retry_count).sum::<u64>());
        if let Some(d) = s.duration_ms {
            payload["duration_ms"] = json!(d);
        }
        if let Some(r) = &s.reason {
            payload["reason"] = json!(r);
        }
        iteration = u32::try_from(s.iterations).ok();
    }
    ExportEvent {
        id: crate::export::event::new_id(),
        event: "session-end".into(),
        session_id: scope.session_id().map(|s| s.to_string()),
        agent: seen.agent.to_string(),
        timestamp_ms: seen.now_ms,
        tool: None,
        mode: summary
            .as_ref()
            .and_then(|s| s.modes.first())
            .map(|r| r.mode.clone()),
        iteration,
        failure_count: None,
        payload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(iteration: u32, blocks: u32) -> ModeState {
        let mut s = ModeState::start(
            "ralph",
            Some("s1"),
            "/p",
            "fix it",
            "2026-01-01T00:00:00.000Z",
            100,
        );
        s.iteration = iteration;
        s.consecutive_blocks = blocks;
        s
    }

    #[test]
    fn an_ended_run_is_a_run_end_with_its_outcome() {
        let before = run(3, 2);
        for (reason, want) in [
            ("completed", "completed"),
            ("tests_passing", "completed"),
            ("cancelled", "cancelled"),
            ("max_iterations", "limit"),
            ("max_cycles", "limit"),
            ("stale", "stale"),
            ("failed", "failed"),
        ] {
            let mut now = before.clone();
            now.end(reason, "2026-01-01T00:05:00.000Z");
            assert_eq!(change(&before, &now), Some(("run-end", want)), "{reason}");
        }
        let mut moved = before.clone();
        moved.end("resumed", "t");
        assert_eq!(change(&before, &moved), None);
    }

    #[test]
    fn a_run_that_continues_or_was_not_live_says_nothing() {
        let before = run(3, 2);
        let mut next = before.clone();
        next.iteration = 4;
        next.consecutive_blocks = 3;
        next.last_checked_at = Some("later".into());
        assert_eq!(change(&before, &next), None);
        let mut ended = before.clone();
        ended.end("completed", "t");
        assert_eq!(change(&ended, &ended), None);
        let mut suspended = before.clone();
        suspended.suspended_at = Some("t".into());
        assert_eq!(change(&before, &suspended), None);
    }

    #[test]
    fn waiting_and_handing_back_are_told_apart_from_a_new_prompt() {
        let before = run(3, 2);
        let mut waiting = before.clone();
        waiting.awaiting_input_at = Some("t".into());
        waiting.consecutive_blocks = 0;
        assert_eq!(change(&before, &waiting), Some(("needs-input", "")));
        let mut paused = before.clone();
        paused.consecutive_blocks = 0;
        paused.paused_at = Some("t".into());
        assert_eq!(change(&before, &paused), Some(("run-end", "handed-back")));
        // A new prompt resets the count and clears the pause: no hand-back; nor a pause seen
        // again.
        let mut answered = paused.clone();
        answered.paused_at = None;
        assert_eq!(change(&paused, &answered), None);
        assert_eq!(change(&paused, &paused), None);
    }

    #[test]
    fn the_question_is_the_last_paragraph_without_the_marker() {
        assert_eq!(
            last_paragraph("I tried A.\n\nShould I use the v2 API or keep v1?\n<omc-needs-input/>"),
            "Should I use the v2 API or keep v1?"
        );
    }
}
