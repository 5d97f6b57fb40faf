//! Sinks configured in `hooks.toml` (`type = "async_webhook"`): the user hooks module loads and
//! trusts the file, export spools and delivers. A project file configures nothing until trusted.

use super::server::{Mode, Server};
use super::*;
use crate::user_hooks::{Setup, q};

fn sink_entry(url: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"post-tool-use\"\nmatcher = \"Ba*\"\ntype = \"async_webhook\"\nurl = {}\nbatch_size = 2\nflush_interval_ms = 3600000\n",
        q(url)
    )
}

fn tool(s: &Setup, name: &str) {
    s.hook("post-tool-use")
        .env("OMC_EXPORT_LINGER_MS", "300")
        .payload({
            let mut v = crate::common::payload("PostToolUse", "sess-c", s.root());
            v["tool_name"] = json!(name);
            v["tool_input"] = json!({"command": "ls"});
            v["tool_response"] = json!({"stdout": "ok"});
            v
        })
        .run()
        .expect_valid();
}

#[test]
fn a_trusted_project_sink_delivers_and_an_untrusted_one_spools_nothing() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.project_hooks(&sink_entry(&srv.url("/team")));

    // Untrusted: nothing is spooled, nothing is sent.
    tool(&s, "Bash");
    tool(&s, "Bash");
    assert!(spooled_records(s.root()).is_empty());
    assert!(flusher_pid(s.root()).is_none());

    // Trusted: a batch of two reaches the endpoint; a tool the matcher does not name is left out.
    s.trust();
    tool(&s, "Bash");
    tool(&s, "Read");
    tool(&s, "Bash");
    srv.wait_for(PATIENCE, "the batch from hooks.toml", |s| {
        s.answered_ok() >= 1
    });
    let reqs = srv.requests();
    let body = reqs[0].json();
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{body}");
    assert!(events.iter().all(|e| e["payload"]["tool_name"] == "Bash"));
    wait_until("the flusher to exit", || flusher_pid(s.root()).is_none());
}

#[test]
fn an_event_a_user_script_refuses_is_still_exported() {
    let srv = Server::start(Mode::Ok);
    let s = Setup::new();
    s.project_hooks(&format!(
        "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = {}\n\n\
         [[hooks]]\nevent = \"pre-tool-use\"\ntype = \"async_webhook\"\nurl = {}\nbatch_size = 1\nflush_interval_ms = 3600000\n",
        q(r#"printf '{"action":"block","reason":"no shell today"}'"#),
        q(&srv.url("/team"))
    ));
    s.trust();
    let out = s
        .hook("pre-tool-use")
        .env("OMC_EXPORT_LINGER_MS", "300")
        .payload({
            let mut v = crate::common::payload("PreToolUse", "sess-r", s.root());
            v["tool_name"] = json!("Bash");
            v["tool_input"] = json!({"command": "rm -rf build"});
            v
        })
        .run();
    out.expect_valid();
    assert_eq!(
        crate::user_hooks::denied(&out).as_deref(),
        Some("no shell today"),
        "{}",
        out.stdout
    );
    srv.wait_for(PATIENCE, "the refused event's batch", |s| {
        s.answered_ok() >= 1
    });
    let body = srv.requests()[0].json();
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{body}");
    assert_eq!(events[0]["payload"]["tool_name"], "Bash", "{body}");
    wait_until("the flusher to exit", || flusher_pid(s.root()).is_none());
}

/// Issue 46: `retries` on an `async_webhook` (the seed's own example uses it) no longer
/// disables the entry: a batch the receiver cannot take is tried `1 + retries` times, then
/// dropped and counted, and the events after it are delivered.
#[test]
fn an_async_webhooks_retries_are_honoured_then_the_batch_is_dropped_and_counted() {
    let srv = Server::start(Mode::Status(503));
    let s = Setup::new();
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"post-tool-use\"\ntype = \"async_webhook\"\nname = \"flaky\"\nurl = {}\n\
         batch_size = 1\nflush_interval_ms = 10\nretries = 1\n",
        q(&srv.url("/team"))
    ));
    tool(&s, "Bash");
    let progress = || -> Value {
        std::fs::read(s.root().join(".omc/export/flaky.progress.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null)
    };
    wait_until("the batch to be dropped", || {
        progress()["dropped_total"] == 1
    });
    assert_eq!(srv.request_count(), 2, "the first attempt and one retry");
    let p = progress();
    assert!(
        p["last_error"]
            .as_str()
            .unwrap()
            .contains("dropped after 2 attempts"),
        "{p}"
    );
    crate::schema::assert_valid("export-progress", &p);
    srv.set_mode(Mode::Ok);
    tool(&s, "Bash");
    srv.wait_for(PATIENCE, "the next batch", |s| s.answered_ok() >= 1);
}
