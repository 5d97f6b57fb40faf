//! Factory Droid 0.225.2 specifics of the agent harness: the custom model in the user
//! settings, and a session driven over `droid exec`'s JSON-RPC mode
//! (tests/e2e/factory-FINDINGS.md).
//!
//! `droid exec "PROMPT"` runs no UserPromptSubmit hook (its one call site is the JSON-RPC
//! session's `droid.add_user_message`), so a keyword could start nothing there; the harness
//! drives `droid exec --input-format stream-jsonrpc --output-format stream-jsonrpc` as
//! Factory's own SDK does: `droid.initialize_session` (or `droid.load_session` to resume),
//! then `droid.add_user_message`, and closes stdin once the session's working state is back to
//! `idle` (after every Stop continuation). No login is asked for with a custom model. The
//! settings name the scripted model (`customModels`, chat completions); they are written per
//! run, since each run has its own model server.

use super::agent_harness::{
    AgentSandbox, AgentScenario, Driver, HookSpec, Launch, grouped, parse_jsonl,
};
use super::model::{ChatWire, Wire};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

/// The custom model's id as Droid names it (`custom:<displayName>-<index>`).
const MODEL: &str = "custom:Mock-0";

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::factory())
}

pub(super) fn prepare(sb: &AgentSandbox) {
    std::fs::create_dir_all(sb.client_home()).unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    let settings = json!({"customModels": [{
        "model": "mock-model", "displayName": "Mock", "baseUrl": format!("{base_url}/v1"),
        "apiKey": "x", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]});
    std::fs::write(
        l.sb.client_home().join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
    cmd.args([
        "exec",
        "--input-format",
        "stream-jsonrpc",
        "--output-format",
        "stream-jsonrpc",
    ])
    .env("NO_COLOR", "1");
}

pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    json!({"hooks": grouped(specs, |s| json!({
        "type": "command", "command": s.command, "timeout": s.timeout_s
    }))})
}

fn request(id: &str, method: &str, params: Value) -> String {
    let r = json!({"jsonrpc": "2.0", "type": "request", "factoryApiVersion": "1.0.0",
                   "id": id, "method": method, "params": params});
    format!("{r}\n")
}

/// The state a `droid_working_state_changed` notification announces.
fn working_state(line: &Value) -> Option<&str> {
    let n = &line["params"]["notification"];
    (n["type"] == "droid_working_state_changed")
        .then(|| n["newState"].as_str())
        .flatten()
}

/// The JSON-RPC session: start (or load) it, send the prompt, wait for the turn to end.
pub(super) fn driver(sb: &AgentSandbox, prompt: &str, sc: &AgentScenario) -> Driver {
    let cwd = sb.project();
    let prompt = prompt.to_owned();
    let resume = sc.resume.clone();
    Box::new(move |mut stdin, lines, deadline, _pid| {
        let start = match &resume {
            Some(id) => request("1", "droid.load_session", json!({"sessionId": id})),
            None => request(
                "1",
                "droid.initialize_session",
                json!({"machineId": "omc-e2e", "cwd": cwd, "modelId": MODEL,
                       "skipPermissionsUnsafe": true}),
            ),
        };
        stdin.write_all(start.as_bytes()).unwrap();
        let wait = |pred: &dyn Fn(&Value) -> bool| -> bool {
            while Instant::now() < deadline {
                match lines.recv_timeout(std::time::Duration::from_millis(200)) {
                    Ok(l) => {
                        if serde_json::from_str::<Value>(&l).is_ok_and(|v| pred(&v)) {
                            return true;
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Err(_) => return false,
                }
            }
            false
        };
        if !wait(&|v| v["type"] == "response" && v["id"] == "1") {
            return;
        }
        stdin
            .write_all(request("2", "droid.add_user_message", json!({"text": prompt})).as_bytes())
            .unwrap();
        if wait(&|v| working_state(v).is_some_and(|s| s != "idle")) {
            wait(&|v| working_state(v) == Some("idle"));
        }
    })
}

/// `(lines, session id, result text)`: the session id from the start request's response (the
/// resumed session keeps its id), the answer from the last assistant message notified.
pub(super) fn parse_output(stdout: &str, sc: &AgentScenario) -> (Value, String, String) {
    let lines = parse_jsonl(stdout);
    let session = lines
        .iter()
        .find_map(|l| {
            (l["type"] == "response" && l["id"] == "1")
                .then(|| l["result"]["sessionId"].as_str())
                .flatten()
        })
        .map(str::to_owned)
        .or_else(|| sc.resume.clone())
        .unwrap_or_default();
    let text = lines
        .iter()
        .rev()
        .find_map(|l| {
            let n = &l["params"]["notification"];
            if n["type"] != "create_message" || n["message"]["role"] != "assistant" {
                return None;
            }
            n["message"]["content"]
                .as_array()?
                .iter()
                .find_map(|c| (c["type"] == "text").then(|| c["text"].as_str()).flatten())
        })
        .unwrap_or("")
        .to_owned();
    (Value::Array(lines), session, text)
}
