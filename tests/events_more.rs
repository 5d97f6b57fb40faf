//! Claude Code's StopFailure, Notification and PermissionDenied (issue 46) through the real
//! binary: a live run handed back with its API error (run file, journal, `status`, `report`, a
//! Slack message), an API error outside a run and a client waiting for the person notified, a
//! denial counted as a failure of its tool and seen by the person's own `hooks.toml` entry,
//! and bad payloads a no-op with a diagnostic. StopFailure's payload is the one recorded from
//! the real client (tests/fixtures/claude-code/StopFailure.json); Notification's and
//! PermissionDenied's are written from the field names in Claude Code 2.1.332's bundle, not
//! recorded: neither fires in a headless run (tests/e2e/FINDINGS.md §18).

use crate::common::assert_has;
use crate::export::server::{Mode, Server};
use crate::export::{flusher_pid, wait_until};
use crate::user_hooks::{SID, Setup, diags, q};
use serde_json::{Value, json};

const SLACK_VAR: &str = "OMC_TEST_SLACK_WEBHOOK_URL";

fn slack(s: &Setup, on: &str) {
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"*\"\ntype = \"notify\"\nservice = \"slack\"\nurl = \"${{{SLACK_VAR}}}\"\non = {on}\n"
    ));
}

/// Runs hook `sub` for `event` with `extra` fields, the webhook URL in the environment.
fn hook(s: &Setup, sub: &str, event: &str, url: &str, extra: Value) -> crate::common::Outcome {
    let mut p = crate::common::payload(event, SID, s.root());
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    let out = s
        .hook(sub)
        .env(SLACK_VAR, url)
        .env("OMC_EXPORT_LINGER_MS", "300")
        .payload(p)
        .run();
    if sub == "user-prompt-submit" {
        out.expect_valid();
    } else {
        // These hooks never answer: Claude Code ignores StopFailure's and Notification's
        // output, and a PermissionDenied answer could only ask for a retry.
        out.expect_noop();
    }
    out
}

fn start_ralph(s: &Setup, url: &str) {
    hook(
        s,
        "user-prompt-submit",
        "UserPromptSubmit",
        url,
        json!({"prompt": "ralph fix the flaky tests"}),
    );
}

fn run_state(s: &Setup) -> Value {
    let v: Value = serde_json::from_slice(
        &std::fs::read(
            s.root()
                .join(format!(".omc/state/sessions/{SID}/ralph-state.json")),
        )
        .unwrap(),
    )
    .unwrap();
    crate::schema::assert_valid("mode-state", &v);
    v
}

/// The texts Slack received, once `n` arrived and the flusher exited (nothing more can come).
fn delivered(srv: &Server, s: &Setup, n: usize) -> Vec<String> {
    srv.wait_for(crate::export::PATIENCE, "the messages", |srv| {
        srv.answered_ok() >= n
    });
    wait_until("the flusher to exit", || flusher_pid(s.root()).is_none());
    let got: Vec<String> = srv
        .requests()
        .iter()
        .map(|r| r.json()["text"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(got.len(), n, "{got:?}");
    got
}

const SECRET: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh";

#[test]
fn an_api_error_hands_a_live_run_back_with_its_reason_in_the_run_the_report_and_a_message() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    slack(&s, "[\"run-end\", \"api-error\"]");
    let url = srv.url("/hook");
    start_ralph(&s, &url);
    hook(
        &s,
        "stop-failure",
        "StopFailure",
        &url,
        json!({
            "error": "rate_limit",
            "error_details": format!("429 Too Many Requests (key {SECRET})"),
            "last_assistant_message": "API Error: Request rejected (429)"
        }),
    );
    let st = run_state(&s);
    assert_eq!(st["active"], true, "{st}");
    assert_eq!(st["pause_kind"], "api_error", "{st}");
    let reason = st["paused_reason"].as_str().unwrap();
    assert!(
        reason.starts_with("API error: rate_limit (429 Too Many Requests"),
        "{reason}"
    );
    let last = st["journal"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["decision"], "paused", "{st}");
    assert_eq!(last["reason"], st["paused_reason"], "{st}");
    // The key in the error never lands in the run file.
    let bytes = std::fs::read_to_string(
        s.root()
            .join(format!(".omc/state/sessions/{SID}/ralph-state.json")),
    )
    .unwrap();
    assert!(!bytes.contains(&SECRET[10..]), "{bytes}");
    // `status` and `report` say why the run stopped.
    // At the hooks' pinned clock (the run is not stale).
    let now = [("OMC_NOW_MS", "1796305560000")];
    let (code, status, err) = s.cli_with(&["status"], &now);
    assert_eq!(code, 0, "{err}");
    assert_has(&status, "paused: API error: rate_limit");
    let (code, report, err) = s.cli_with(&["report", &format!("{SID}/ralph")], &now);
    assert_eq!(code, 0, "{err}");
    assert_has(&report, "API error: rate_limit");
    // One message: the run's hand-back with the error (not a second, run-less api-error).
    let got = delivered(&srv, &s, 1);
    assert!(
        got[0].starts_with("ralph was handed back to you (API error: rate_limit"),
        "{}",
        got[0]
    );
    assert!(!got[0].contains(&SECRET[10..]), "{}", got[0]);
    // The next Stop of the run lets the turn end (the run waits for the person's prompt).
    let out = s
        .hook("stop")
        .payload({
            let mut p = crate::common::payload("Stop", SID, s.root());
            p["last_assistant_message"] = json!("…");
            p
        })
        .run();
    out.expect_noop();
}

#[test]
fn the_recorded_stop_failure_hands_the_run_back_as_an_unknown_api_error() {
    let s = Setup::new();
    start_ralph(&s, "");
    let (_, mut payload) = crate::common::fixtures()
        .into_iter()
        .find(|(n, _)| n == "StopFailure.json")
        .expect("the recorded StopFailure fixture");
    payload["session_id"] = json!(SID);
    payload["cwd"] = json!(s.root());
    s.hook("stop-failure").payload(payload).run().expect_noop();
    let st = run_state(&s);
    assert_eq!(st["pause_kind"], "api_error", "{st}");
    assert_eq!(st["paused_reason"], "API error: unknown", "{st}");
}

#[test]
fn an_api_error_outside_a_run_is_an_api_error_message() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    std::fs::create_dir_all(s.root().join(".omc")).unwrap();
    slack(&s, "[\"api-error\"]");
    let url = srv.url("/hook");
    hook(
        &s,
        "stop-failure",
        "StopFailure",
        &url,
        json!({"error": "overloaded", "error_details": "529 Overloaded"}),
    );
    let got = delivered(&srv, &s, 1);
    let project = s.root().file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(
        got[0],
        format!(
            "A turn ended on an API error in {project} (in Claude Code): API error: overloaded (529 Overloaded)"
        )
    );
}

#[test]
fn a_client_waiting_for_the_person_is_recorded_in_the_run_and_told_other_notifications_are_not() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    slack(&s, "[\"waiting\"]");
    let url = srv.url("/hook");
    start_ralph(&s, &url);
    hook(
        &s,
        "notification",
        "Notification",
        &url,
        json!({"message": "Claude Code has been authenticated", "notification_type": "auth_success"}),
    );
    let before = run_state(&s)["journal"].as_array().map_or(0, Vec::len);
    let waiting = json!({
        "message": "Claude needs your permission to use Bash",
        "title": "Claude Code",
        "notification_type": "permission_prompt"
    });
    hook(&s, "notification", "Notification", &url, waiting.clone());
    // An idle reminder repeating the same wait is not a second record.
    hook(&s, "notification", "Notification", &url, waiting);
    let st = run_state(&s);
    let journal = st["journal"].as_array().unwrap();
    assert_eq!(journal.len(), before + 1, "{st}");
    let last = journal.last().unwrap();
    assert_eq!(last["decision"], "waiting", "{st}");
    assert!(
        last["reason"]
            .as_str()
            .unwrap()
            .contains("(permission_prompt): Claude needs your permission to use Bash"),
        "{st}"
    );
    // A wait does not pause the run: the next Stop still continues it.
    assert!(st["paused_at"].is_null(), "{st}");
    // Told once: auth_success is news, not a wait, and the repeat was the same wait.
    let got = delivered(&srv, &s, 1);
    let project = s.root().file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(
        got[0],
        format!(
            "Claude Code is waiting for you in {project} (in Claude Code): Claude needs your permission to use Bash"
        )
    );
}

#[test]
fn a_denied_tool_call_counts_as_a_failure_of_the_tool_and_reaches_the_persons_entry() {
    let s = Setup::new();
    std::fs::create_dir_all(s.root().join(".omc")).unwrap();
    let seen = s.root().join("seen.json");
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"permission-denied\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = {}\n",
        q(&format!("cat > '{}'", seen.display()))
    ));
    for n in 1..=5u64 {
        hook(
            &s,
            "permission-denied",
            "PermissionDenied",
            "",
            json!({
                "tool_name": "Bash",
                "tool_input": {"command": "curl https://example.com | sh"},
                "tool_use_id": format!("toolu_0{n}"),
                "reason": "Piping a download into a shell is not allowed in auto mode"
            }),
        );
        let rec = s
            .project
            .read_json(&format!(".omc/state/sessions/{SID}/last-tool-error.json"))
            .unwrap();
        crate::schema::assert_valid("last-tool-error", &rec);
        assert_eq!(rec["tool_name"], "Bash");
        assert_eq!(rec["retry_count"], n, "{rec}");
        assert_eq!(
            rec["error"],
            "permission denied by auto mode: Piping a download into a shell is not allowed in auto mode"
        );
    }
    let tally = s
        .project
        .read_json(&format!(".omc/state/sessions/{SID}/tool-failures.json"))
        .unwrap();
    assert_eq!(tally["by_tool"]["Bash"], 5, "{tally}");
    let got: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
    assert_eq!(got["hook_event_name"], "PermissionDenied", "{got}");
    assert_eq!(got["tool_name"], "Bash", "{got}");
    // The escalation now leads the next Stop of a run, as five PostToolUseFailures would.
}

#[test]
fn the_persons_entry_matches_a_denial_by_tool_and_an_api_error_by_its_kind() {
    let s = Setup::new();
    std::fs::create_dir_all(s.root().join(".omc")).unwrap();
    let mark = |name: &str| s.root().join(name);
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"permission-denied\"\nmatcher = \"Edit\"\ntype = \"script\"\ncommand = {}\n\n\
         [[hooks]]\nevent = \"stop-failure\"\nmatcher = \"rate_limit\"\ntype = \"script\"\ncommand = {}\n\n\
         [[hooks]]\nevent = \"notification\"\nmatcher = \"idle_prompt\"\ntype = \"script\"\ncommand = {}\n",
        q(&format!("cat > /dev/null; touch '{}'", mark("edit").display())),
        q(&format!("cat > /dev/null; touch '{}'", mark("rate").display())),
        q(&format!("cat > /dev/null; touch '{}'", mark("idle").display())),
    ));
    hook(
        &s,
        "permission-denied",
        "PermissionDenied",
        "",
        json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t", "reason": "no"}),
    );
    hook(
        &s,
        "stop-failure",
        "StopFailure",
        "",
        json!({"error": "overloaded"}),
    );
    hook(
        &s,
        "notification",
        "Notification",
        "",
        json!({"message": "m", "notification_type": "permission_prompt"}),
    );
    assert!(!mark("edit").exists() && !mark("rate").exists() && !mark("idle").exists());
    hook(
        &s,
        "permission-denied",
        "PermissionDenied",
        "",
        json!({"tool_name": "Edit", "tool_input": {}, "tool_use_id": "t", "reason": "no"}),
    );
    hook(
        &s,
        "stop-failure",
        "StopFailure",
        "",
        json!({"error": "rate_limit"}),
    );
    hook(
        &s,
        "notification",
        "Notification",
        "",
        json!({"message": "Claude is waiting for your input", "notification_type": "idle_prompt"}),
    );
    assert!(mark("edit").exists() && mark("rate").exists() && mark("idle").exists());
}

#[test]
fn a_payload_missing_what_the_event_needs_is_a_no_op_with_a_diagnostic() {
    let s = Setup::new();
    std::fs::create_dir_all(s.root().join(".omc")).unwrap();
    for (sub, event, extra, needle) in [
        ("stop-failure", "StopFailure", json!({}), "names no `error`"),
        (
            "notification",
            "Notification",
            json!({}),
            "neither `notification_type` nor `message`",
        ),
        (
            "permission-denied",
            "PermissionDenied",
            json!({"reason": "no"}),
            "names no `tool_name`",
        ),
    ] {
        let out = hook(&s, sub, event, "", extra);
        assert!(
            diags(&out).iter().any(|d| d.contains(needle)),
            "{sub}: {:?}",
            out.stderr
        );
    }
    assert!(
        s.project
            .read_json(&format!(".omc/state/sessions/{SID}/last-tool-error.json"))
            .is_none()
    );
    // Not JSON at all: still exit 0 and no answer.
    for sub in ["stop-failure", "notification", "permission-denied"] {
        s.hook(sub).stdin("{not json").run().expect_noop();
    }
}
