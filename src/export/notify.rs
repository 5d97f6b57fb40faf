//! Notifications to a chat service — Slack, Discord, Telegram — when a run ends, when a run
//! waits for the person, and when a session ends (contract §18, "Notifications").
//!
//! A notification is an export sink like the batch webhook: a `type = "notify"` entry of
//! `hooks.toml` becomes a [`super::SinkSpec`] whose kind is [`Target`]; the hook that saw the
//! run end appends one record (an [`super::ExportEvent`] whose `event` is a lifecycle event,
//! [`LIFECYCLE_EVENTS`]) to the sink's spool and returns; the detached flusher renders the
//! message and posts it, retried with back-off like every delivery. A chat sink gets one
//! message a second at most: what arrives meanwhile is folded into the next message, one line
//! per record (up to 20 records a message, none left out); a `Retry-After` the service sends
//! is honoured, by this flusher and by one started later.
//! So the hook never waits on the chat service, a service that is down loses nothing (the
//! record waits in the spool), and a message is sent once unless a flusher is killed between
//! the service's answer and the saved cursor.
//!
//! Secrets stay out of `.omc/`: the webhook URL (which *is* the credential for Slack and
//! Discord) is kept as written — normally `${SLACK_WEBHOOK_URL}` — and expanded by the flusher
//! when it sends; the Telegram bot token is named by the variable holding it (`token_env`).
//! What the flusher records about a failure names the service and the URL as written, never
//! the expanded one.

use super::ExportEvent;
use super::deliver::{self, Client, Outcome, Verb};
pub use crate::config::hooks_toml::notify::{LIFECYCLE_EVENTS, Service, Target};
use serde_json::{Value, json};

/// The longest message sent, in characters: Discord refuses `content` over 2 000, Telegram
/// `text` over 4 096; Slack accepts more, but a notification is a headline, not a report.
const MAX_MESSAGE_CHARS: usize = 1_900;

const RUN_END: &str = include_str!("../../templates/notify/run-end.md");
const RUN_END_LINE: &str = include_str!("../../templates/notify/run-end-line.md");
const NEEDS_INPUT: &str = include_str!("../../templates/notify/needs-input.md");
const SESSION_END: &str = include_str!("../../templates/notify/session-end.md");
const TEST: &str = include_str!("../../templates/notify/test.md");
const API_ERROR: &str = include_str!("../../templates/notify/api-error.md");
const WAITING: &str = include_str!("../../templates/notify/waiting.md");
const PERMISSION_DENIED: &str = include_str!("../../templates/notify/permission-denied.md");

/// What `status` shows as the destination: the service and the URL's scheme and host, or the
/// URL as written when it is a reference — never a path, which for a webhook is the secret.
pub fn destination(target: &Target) -> String {
    let shown = if target.url.starts_with("${") {
        target.url.clone()
    } else {
        let rest = target.url.split_once("://").map_or("", |(_, r)| r);
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let scheme = target.url.split("://").next().unwrap_or("https");
        format!("{scheme}://{host}/…")
    };
    format!("{}: {shown}", target.service.name())
}

/// The message for one lifecycle record, as the person reads it.
pub fn message(ev: &ExportEvent) -> String {
    render(ev, false)
}

/// A record's line in a folded message: a run's end on one line (`ralph completed in shop
/// after 3 iterations: fix the tests`), any other record its message's first line.
fn line(ev: &ExportEvent) -> String {
    render(ev, true).lines().next().unwrap_or("").to_string()
}

fn render(ev: &ExportEvent, one_line: bool) -> String {
    let p = &ev.payload;
    let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let n = |k: &str| p.get(k).and_then(Value::as_u64);
    let client = crate::protocol::agents::Agent::parse(&ev.agent)
        .map_or_else(|| "The agent".to_string(), |a| a.client().to_string());
    let via = match crate::protocol::agents::Agent::parse(&ev.agent) {
        Some(a) => format!("in {}", a.client()),
        None => "from the command line".to_string(),
    };
    // The terminal the session runs in, where its start recorded one.
    let via = match p.get("terminal").and_then(Value::as_str) {
        Some(t) if !t.trim().is_empty() => format!("{via} ({t})"),
        _ => via,
    };
    let duration = n("duration_ms").map_or_else(|| "unknown".to_string(), human_duration);
    let project = s("project");
    let project = if project.is_empty() {
        "(no project)".to_string()
    } else {
        project
    };
    let task = s("task");
    let task = if task.is_empty() {
        "(not recorded)".to_string()
    } else {
        task
    };
    let iterations = n("iterations").unwrap_or(0).to_string();
    let max = n("max_iterations").map_or_else(|| "?".to_string(), |m| m.to_string());
    let failures = n("tool_failures").unwrap_or(0).to_string();
    let outcome = match (s("outcome").as_str(), s("reason")) {
        ("handed-back", why) if !why.is_empty() => format!("was handed back to you ({why})"),
        ("limit", _) if !s("reason_text").is_empty() => {
            format!("reached its limit ({})", s("reason_text"))
        }
        ("completed", _) if p.get("verified") == Some(&Value::Bool(true)) => {
            "completed, verified by the project's checks".to_string()
        }
        (o, _) => outcome_words(o).to_string(),
    };
    let vars: Vec<(&str, &str)> = vec![
        ("mode", ev.mode.as_deref().unwrap_or("no mode")),
        ("outcome", &outcome),
        ("iterations", &iterations),
        ("max", &max),
        ("duration", &duration),
        ("project", &project),
        ("via", &via),
        ("task", &task),
        (
            "question",
            p.get("question").and_then(Value::as_str).unwrap_or(""),
        ),
        ("failures", &failures),
        (
            "runs",
            p.get("runs").and_then(Value::as_str).unwrap_or("no run"),
        ),
        ("session", ev.session_id.as_deref().unwrap_or("?")),
        ("client", &client),
        ("tool", ev.tool.as_deref().unwrap_or("tool")),
        (
            "detail",
            p.get("detail").and_then(Value::as_str).unwrap_or(""),
        ),
        (
            "summary",
            p.get("summary").and_then(Value::as_str).unwrap_or(""),
        ),
    ];
    let template = match ev.event.as_str() {
        "run-end" if one_line => RUN_END_LINE,
        "run-end" => RUN_END,
        "needs-input" => NEEDS_INPUT,
        "session-end" => SESSION_END,
        "api-error" => API_ERROR,
        "waiting" => WAITING,
        "permission-denied" => PERMISSION_DENIED,
        _ => TEST,
    };
    let text = crate::modes::fill(template, &vars);
    let text = text.trim_end();
    crate::protocol::output::truncate_chars(text, MAX_MESSAGE_CHARS)
}

/// The one message for a batch of lifecycle records: the record's own message when there is
/// one; for a burst, a count (`12 runs ended:`) and the messages whole when they fit, else one
/// line per record, cut so that all of them fit in one message: none is left out.
pub fn digest(events: &[ExportEvent]) -> String {
    if let [ev] = events {
        return message(ev);
    }
    let n = events.len();
    let head = if events.iter().all(|e| e.event == "run-end") {
        format!("{n} runs ended:")
    } else {
        format!("{n} notifications:")
    };
    // A few that fit whole go whole.
    let whole: Vec<String> = events.iter().map(message).collect();
    let joined = format!("{head}\n\n{}", whole.join("\n\n"));
    if joined.chars().count() <= MAX_MESSAGE_CHARS {
        return joined;
    }
    let room = (MAX_MESSAGE_CHARS - head.len() - 1) / n.max(1);
    let per_line = room.saturating_sub(3).max(20);
    let mut text = head;
    for ev in events {
        text.push_str("\n• ");
        text.push_str(&crate::protocol::output::truncate_chars(
            &line(ev),
            per_line,
        ));
    }
    text
}

/// The words for an outcome recorded in a run-end record.
fn outcome_words(outcome: &str) -> &str {
    match outcome {
        "completed" => "completed",
        "cancelled" => "was cancelled",
        "limit" => "reached its limit",
        "handed-back" => "was handed back to you",
        "stale" => "ended (no activity for two hours)",
        "failed" => "reported failure",
        "" => "ended",
        other => other,
    }
}

/// `2 h 5 min`, `3 min 12 s`, `40 s`.
fn human_duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// Slack's three control characters, escaped as its message formatting asks, so that a task
/// text cannot post a link or mention `<!channel>`.
fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The request for `text`: URL (expanded) and JSON body. Errors name the variable missing.
fn request(
    target: &Target,
    text: &str,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, Value), String> {
    let base = deliver::expand(&target.url, get).map_err(|e| format!("`url`: {e}"))?;
    crate::config::hooks_toml::check_url(&base).map_err(|_| {
        format!(
            "`url` {} does not expand to an http(s) URL",
            target.url.split("://").next().unwrap_or(&target.url)
        )
    })?;
    Ok(match target.service {
        Service::Slack => (base, json!({"text": slack_escape(text)})),
        // No @everyone / role pings from a task text: mentions are parsed from nothing.
        Service::Discord => (
            base,
            json!({"content": text, "allowed_mentions": {"parse": []}}),
        ),
        Service::Telegram => {
            let var = target.token_env.as_deref().unwrap_or("");
            let token = get(var)
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| format!("{var}, which holds the bot token, is not set"))?;
            let chat = target.chat_id.clone().unwrap_or_default();
            let chat_id = chat
                .parse::<i64>()
                .map_or_else(|_| Value::String(chat.clone()), Value::from);
            (
                format!(
                    "{}/bot{}/sendMessage",
                    base.trim_end_matches('/'),
                    token.trim()
                ),
                json!({"chat_id": chat_id, "text": text, "disable_web_page_preview": true}),
            )
        }
    })
}

/// Sends one message. Outcome messages never hold the expanded URL or the token: they are
/// replaced by the URL as written.
pub(super) fn send(
    client: &Client,
    target: &Target,
    text: &str,
    get: &dyn Fn(&str) -> Option<String>,
) -> Outcome {
    let (url, body) = match request(target, text, get) {
        Ok(r) => r,
        Err(e) => return Outcome::Retry(format!("{}: {e}", target.service.name())),
    };
    let headers = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        (
            "User-Agent".to_string(),
            format!("omc-hooks/{}", env!("CARGO_PKG_VERSION")),
        ),
    ];
    let body = serde_json::to_vec(&body).unwrap_or_default();
    let scrub = |m: String| {
        let m = m.replace(&url, &format!("{} {}", target.service.name(), target.url));
        match target
            .token_env
            .as_deref()
            .and_then(get)
            .filter(|t| t.trim().len() >= 8)
        {
            Some(t) => m.replace(t.trim(), "[REDACTED]"),
            None => m,
        }
    };
    match client.send(Verb::Post, &url, &headers, &body).0 {
        Outcome::Delivered { note } => Outcome::Delivered { note },
        Outcome::Retry(m) => Outcome::Retry(scrub(m)),
        Outcome::RetryAfter(m, wait) => Outcome::RetryAfter(scrub(m), wait),
        Outcome::Reject(m) => Outcome::Reject(scrub(m)),
    }
}

/// `omc-hooks notify test`: one test message straight to `target`, now (not through the
/// spool: the person is waiting for the answer). Err says why it was not delivered.
pub fn send_test(
    target: &Target,
    project: &str,
    timeout_ms: u64,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<(), String> {
    let text = crate::modes::fill(TEST, &[("project", project)]);
    match send(&Client::new(timeout_ms), target, text.trim_end(), get) {
        Outcome::Delivered { .. } => Ok(()),
        Outcome::Retry(m) | Outcome::RetryAfter(m, _) | Outcome::Reject(m) => Err(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ralph event of session `s1` from `agent` at iteration `iteration`.
    fn ralph_event(event: &str, agent: &str, iteration: u32, payload: Value) -> ExportEvent {
        ExportEvent {
            id: "x".into(),
            event: event.into(),
            session_id: Some("s1".into()),
            agent: agent.into(),
            timestamp_ms: 0,
            tool: None,
            mode: Some("ralph".into()),
            iteration: Some(iteration),
            failure_count: None,
            payload,
        }
    }

    #[test]
    fn the_destination_never_shows_a_webhook_path() {
        let t = Target {
            service: Service::Slack,
            url: "https://hooks.slack.com/services/T0/B0/secretpart".into(),
            token_env: None,
            chat_id: None,
        };
        let d = destination(&t);
        assert!(
            !d.contains("secretpart") && d.contains("hooks.slack.com"),
            "{d}"
        );
    }

    #[test]
    fn requests_have_each_services_shape_and_expand_only_then() {
        let get = |k: &str| match k {
            "HOOK" => Some("http://127.0.0.1:9/hook".to_string()),
            "TG" => Some("123:abc".to_string()),
            _ => None,
        };
        let slack = Target {
            service: Service::Slack,
            url: "${HOOK}".into(),
            token_env: None,
            chat_id: None,
        };
        let (url, body) = request(&slack, "a <b> & c", &get).unwrap();
        assert_eq!(url, "http://127.0.0.1:9/hook");
        assert_eq!(body, json!({"text": "a &lt;b&gt; &amp; c"}));
        let discord = Target {
            service: Service::Discord,
            ..slack.clone()
        };
        assert_eq!(request(&discord, "x", &get).unwrap().1["content"], "x");
        let tg = Target {
            service: Service::Telegram,
            url: "http://127.0.0.1:9/".into(),
            token_env: Some("TG".into()),
            chat_id: Some("-42".into()),
        };
        let (url, body) = request(&tg, "x", &get).unwrap();
        assert_eq!(url, "http://127.0.0.1:9/bot123:abc/sendMessage");
        assert_eq!(body["chat_id"], -42);
        let unset = Target {
            url: "${NOPE}".into(),
            ..slack
        };
        assert!(request(&unset, "x", &get).unwrap_err().contains("NOPE"));
    }

    #[test]
    fn a_run_end_message_names_the_mode_the_outcome_and_the_iterations() {
        let ev = ralph_event(
            "run-end",
            "codex",
            3,
            json!({"outcome": "completed", "iterations": 3, "max_iterations": 100,
                "duration_ms": 125_000, "project": "shop", "task": "fix the tests"}),
        );
        assert_eq!(
            message(&ev),
            "ralph completed in shop after 3 iterations (of 100), 2 min 5 s, in Codex CLI.\n\
             Task: fix the tests"
        );
    }

    #[test]
    fn a_run_end_message_carries_the_runs_summary_and_report_command() {
        let ev = ralph_event(
            "run-end",
            "claude",
            2,
            json!({"outcome": "completed", "iterations": 2, "max_iterations": 100,
                "duration_ms": 60_000, "project": "shop", "task": "fix the tests",
                "summary": "Tokens: 16k · cost $0.02\nReport: omc-hooks report s1/ralph"}),
        );
        let m = message(&ev);
        assert!(
            m.ends_with(
                "Task: fix the tests\nTokens: 16k · cost $0.02\nReport: omc-hooks report s1/ralph"
            ),
            "{m}"
        );
        assert_eq!(
            line(&ev),
            "ralph completed in shop after 2 iterations: fix the tests"
        );
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(4_000), "4 s");
        assert_eq!(human_duration(192_000), "3 min 12 s");
        assert_eq!(human_duration(7_500_000), "2 h 5 min");
    }

    #[test]
    fn a_burst_is_one_message_with_a_line_for_each_record() {
        let ev = |i: usize| ExportEvent {
            id: format!("x{i}"),
            ..ralph_event(
                "run-end",
                "codex",
                3,
                json!({"outcome": "completed", "iterations": 3, "max_iterations": 100,
                    "duration_ms": 125_000, "project": "shop",
                    "task": format!("task number {i:03} with a long description of the work")}),
            )
        };
        let events: Vec<ExportEvent> = (0..20).map(ev).collect();
        let text = digest(&events);
        assert!(
            text.starts_with(
                "20 runs ended:\n• ralph completed in shop after 3 iterations: task number 000"
            ),
            "{text}"
        );
        for i in 0..20 {
            assert!(text.contains(&format!("task number {i:03}")), "{i}: {text}");
        }
        assert!(text.chars().count() <= MAX_MESSAGE_CHARS, "{text}");
        assert_eq!(digest(&events[..1]), message(&events[0]));
    }

    #[test]
    fn a_small_burst_keeps_each_message_whole() {
        let ev = |event: &str| {
            ralph_event(
                event,
                "codex",
                3,
                json!({"outcome": "completed", "iterations": 3, "project": "shop",
                    "task": "fix it", "question": "v1 or v2?"}),
            )
        };
        let both = [ev("needs-input"), ev("run-end")];
        assert_eq!(
            digest(&both),
            format!(
                "2 notifications:\n\n{}\n\n{}",
                message(&both[0]),
                message(&both[1])
            )
        );
    }
}
