//! The client's own news that no Stop sees (contract §3, "StopFailure, Notification,
//! PermissionDenied"): a turn that ended on an API error, the client waiting for the person,
//! auto mode refusing a tool call. Claude Code 2.1.332 sends them as `StopFailure`
//! (`error`, `error_details`, `last_assistant_message`; fired *instead of* Stop, its output
//! and exit code ignored), `Notification` (`message`, `title`, `notification_type`) and
//! `PermissionDenied` (`tool_name`, `tool_input`, `tool_use_id`, `reason`; an answer of
//! `retry: true` would make the model try again, which we never ask). The fields are the
//! bundle's, see tests/e2e/FINDINGS.md ("StopFailure, Notification, PermissionDenied").
//!
//! What each does, all of it without a word to the model (these hooks never answer):
//!
//! * StopFailure: a live run of the session is handed back with the error as its reason
//!   (`paused_at`, `pause_kind: api_error`, a journal record), as a Stop hands a run back at a
//!   limit, so `status` and `report` say why it stopped, and [`super::run_events`] announces the
//!   hand-back; with no live run, an `api-error` notification.
//! * Notification: a type that means the person is awaited ([`WAITING_TYPES`]) is recorded in a
//!   live run's journal (`waiting`) and notified (`waiting`); other types do nothing here.
//! * PermissionDenied: a failure of that tool, counted as PostToolUseFailure counts one
//!   ([`super::tool_failure`]: the escalation record and the session's tally), and notified
//!   (`permission-denied`).
//!
//! A payload missing what the event needs is a no-op with one line on stderr.

use super::Ctx;
use crate::modes::{PERSISTENT, state_file_name};
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::{Change, StateFile};
use serde_json::{Value, json};

/// Notification types that mean the client is waiting for the person, with what the message
/// says they are waiting on. Claude Code 2.1.332's other types (`auth_success`,
/// `elicitation_complete`, `elicitation_response`, `agent_completed`, `computer_use_exit`, …)
/// are news, not a wait.
pub const WAITING_TYPES: &[(&str, &str)] = &[
    ("permission_prompt", "a permission answer"),
    (
        "worker_permission_prompt",
        "a permission answer for a worker",
    ),
    ("idle_prompt", "the next prompt"),
    ("elicitation_dialog", "an answer to a tool's question"),
    ("agent_needs_input", "an answer"),
];

/// Longest error detail or message kept, in characters.
const MAX_DETAIL_CHARS: usize = 300;

/// The `pause_kind` of a run handed back by an API error.
pub const API_ERROR_PAUSE: &str = "api_error";

fn raw_str<'a>(ctx: &'a Ctx<'_>, key: &str) -> Option<&'a str> {
    given(ctx.input.raw.get(key).and_then(Value::as_str))
}

/// A field's text, trimmed; `None` when missing or blank.
fn given(field: Option<&str>) -> Option<&str> {
    field.map(str::trim).filter(|s| !s.is_empty())
}

/// One line, cut, secrets redacted: a detail that may quote a request or a key.
fn clean(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let redacted = crate::redact::text(&one_line).map_or(one_line, |(r, _)| r);
    crate::protocol::output::truncate_chars(&redacted, MAX_DETAIL_CHARS)
}

/// The session's live runs (active, neither suspended nor already handed back), by file.
fn live_runs(ctx: &Ctx<'_>) -> Vec<StateFile> {
    let Some(store) = &ctx.store else {
        return Vec::new();
    };
    PERSISTENT
        .iter()
        .filter_map(|mode| {
            let file = StateFile::new(&ctx.scope, &state_file_name(mode))?;
            let s: ModeState = store.read(&file)?;
            let live = s.active && s.suspended_at.is_none() && s.paused_at.is_none();
            live.then_some(file)
        })
        .collect()
}

/// Applies `f` to each live run of the session, under the run file's lock; how many changed.
fn update_live(ctx: &Ctx<'_>, f: impl Fn(&mut ModeState) -> bool) -> usize {
    let Some(store) = &ctx.store else {
        return 0;
    };
    let mut changed = 0;
    for file in live_runs(ctx) {
        let r = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if s.active && s.suspended_at.is_none() && s.paused_at.is_none() => {
                if f(&mut s) {
                    (Change::Write(s), true)
                } else {
                    (Change::Keep, false)
                }
            }
            _ => (Change::Keep, false),
        });
        match r {
            Ok(true) => changed += 1,
            Ok(false) => {}
            Err(e) => crate::diag!("{}: cannot record it in the run: {e}", ctx.hook.name),
        }
    }
    changed
}

/// StopFailure: the turn ended on an API error.
pub fn on_stop_failure(ctx: &Ctx<'_>) -> Answer {
    let Some(error) = given(ctx.input.error.as_deref()) else {
        crate::diag!("stop-failure: the payload names no `error`; nothing recorded");
        return Answer::default();
    };
    let details = match ctx.input.raw.get("error_details") {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    };
    let reason = if details.is_empty() {
        clean(&format!("API error: {error}"))
    } else {
        clean(&format!("API error: {error} ({details})"))
    };
    let now = crate::time::iso(ctx.now_ms);
    let handed_back = update_live(ctx, |s| {
        s.paused_at = Some(now.clone());
        s.paused_reason = Some(reason.clone());
        s.pause_kind = Some(API_ERROR_PAUSE.to_string());
        s.last_checked_at = Some(now.clone());
        super::persistent_mode::journal::note_event(s, &now, "paused", &reason);
        true
    });
    if handed_back == 0 {
        // A live run's hand-back is announced as its `run-end` (run_events sees the change).
        super::run_events::announce(ctx, "api-error", None, json!({"detail": reason}));
    }
    Answer::default()
}

/// Notification: the client tells the person something; a wait is recorded and notified.
pub fn on_notification(ctx: &Ctx<'_>) -> Answer {
    let kind = raw_str(ctx, "notification_type");
    let message = raw_str(ctx, "message");
    let Some(kind) = kind else {
        if message.is_none() {
            crate::diag!(
                "notification: the payload has neither `notification_type` nor `message`; ignored"
            );
        }
        return Answer::default();
    };
    let Some((_, awaited)) = WAITING_TYPES.iter().find(|(t, _)| *t == kind) else {
        return Answer::default();
    };
    let detail = clean(message.unwrap_or(awaited));
    let now = crate::time::iso(ctx.now_ms);
    let reason = clean(&format!(
        "the client waits for {awaited} ({kind}): {detail}"
    ));
    let live = live_runs(ctx).len();
    let recorded = update_live(ctx, |s| {
        // The same wait told twice in a row (an idle reminder) is one record.
        let again = s
            .journal
            .last()
            .is_some_and(|e| e.decision == "waiting" && e.reason.as_deref() == Some(&reason));
        if !again {
            s.last_checked_at = Some(now.clone());
            super::persistent_mode::journal::note_event(s, &now, "waiting", &reason);
        }
        !again
    });
    if live > 0 && recorded == 0 {
        // Every live run had this wait already: told once.
        return Answer::default();
    }
    super::run_events::announce(
        ctx,
        "waiting",
        None,
        json!({"detail": detail, "notification_type": kind}),
    );
    Answer::default()
}

/// PermissionDenied: auto mode refused a tool call; a failure of that tool.
pub fn on_permission_denied(ctx: &Ctx<'_>) -> Answer {
    let Some(tool) = given(ctx.input.tool_name.as_deref()) else {
        crate::diag!("permission-denied: the payload names no `tool_name`; nothing recorded");
        return Answer::default();
    };
    let reason = given(ctx.input.reason.as_deref()).unwrap_or("no reason given");
    let mut input = ctx.input.clone();
    input.error = Some(format!("permission denied by auto mode: {reason}"));
    input.is_interrupt = false;
    let failure = Ctx {
        hook: ctx.hook,
        input: &input,
        env: ctx.env,
        now_ms: ctx.now_ms,
        scope: ctx.scope.clone(),
        store: ctx.store.clone(),
        config: ctx.config.clone(),
        hook_files: ctx.hook_files.clone(),
    };
    // Its guidance is for the model, which this event cannot reach: recorded, not said.
    let _ = super::tool_failure::record(&failure);
    super::run_events::announce(
        ctx,
        "permission-denied",
        Some(tool),
        json!({"detail": clean(reason)}),
    );
    Answer::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_types_are_named_once() {
        for (i, (t, what)) in WAITING_TYPES.iter().enumerate() {
            assert!(!what.is_empty(), "{t}");
            assert!(
                WAITING_TYPES[i + 1..].iter().all(|(o, _)| o != t),
                "{t} twice"
            );
        }
    }

    #[test]
    fn a_detail_is_one_redacted_line() {
        let d = clean("rate limited\n  key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 x");
        assert!(!d.contains('\n'));
        assert!(!d.contains("abcdefghijklmnopqrstuvwxyz0123456789"), "{d}");
    }
}
