//! Export in the real Claude Code client: with `OMC_EXPORT_WEBHOOK_URL` in the client's
//! environment, the hooks of a real session spool their events and the detached flusher
//! delivers them to a loopback receiver, with the client's own session id; the client's run
//! is not held up by the flusher (it keeps no pipe of the client's).

use crate::e2e::{Sandbox, Scenario, plugin_dir};
use crate::export::server::{Mode, Server};
use serde_json::json;
use std::collections::HashSet;
use std::time::Duration;

#[test]
fn a_real_session_is_exported_to_a_batch_webhook() {
    let srv = Server::start(Mode::Ok);
    let sb = Sandbox::new();
    let plugin = plugin_dir();
    let run = sb.claude(
        plugin,
        "list the files",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "ls"}))
            .reply_text("done")
            .env("OMC_EXPORT_WEBHOOK_URL", srv.url("/batch"))
            .env("OMC_EXPORT_FLUSH_INTERVAL_MS", "100")
            .env("OMC_EXPORT_LINGER_MS", "500"),
        None,
    );
    run.assert_success();
    let session = run.session_id.clone();
    let want = [
        "session-start",
        "user-prompt-submit",
        "post-tool-use",
        "stop",
        "session-end",
    ];
    srv.wait_for(Duration::from_secs(60), "the session's events", |s| {
        let got: HashSet<String> = s
            .requests()
            .iter()
            .flat_map(|r| r.json()["events"].as_array().cloned().unwrap_or_default())
            .map(|e| e["event"].as_str().unwrap_or("").to_string())
            .collect();
        want.iter().all(|w| got.contains(*w))
    });
    let events: Vec<serde_json::Value> = srv
        .requests()
        .iter()
        .flat_map(|r| r.json()["events"].as_array().cloned().unwrap())
        .collect();
    for e in &events {
        assert_eq!(e["session_id"], session.as_str(), "{e}");
        assert_eq!(e["agent"], "claude");
    }
    let tool = events
        .iter()
        .find(|e| e["event"] == "post-tool-use")
        .unwrap();
    assert_eq!(tool["payload"]["tool_name"], "Bash");
    assert_eq!(tool["payload"]["hook_event_name"], "PostToolUse");
    for r in srv.requests() {
        assert_eq!(r.header("x-omc-version"), Some(env!("CARGO_PKG_VERSION")));
    }
}
