//! CodeBuddy Code 2.117.0 (inside `@tencent-ai/agent-sdk` 0.3.201) specifics of the agent
//! harness: the headless multi-turn mode that keeps a session open (tests/e2e/
//! codebuddy-FINDINGS.md).
//!
//! `codebuddy -p "PROMPT"` prints its result and exits while a Stop continuation is only being
//! scheduled, so a turn never continues there; with `--input-format stream-json` the process
//! lives while its stdin is open and the continuation runs. The harness sends the prompt as one
//! `{"type": "user", …}` line, waits for the turn's `result` line, then for the model to stay
//! unasked for [`QUIET`] (continuations print nothing on stdout), and closes stdin.
//! `CODEBUDDY_BASE_URL` points at the scripted chat-completions model (no `/v1`), and no login
//! is asked for with `CODEBUDDY_API_KEY` set.

use super::agent_harness::{AgentSandbox, Driver, HookSpec, Launch, grouped, parse_jsonl};
use super::model::{ChatWire, ScriptedModel, Wire};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the session must have asked the model nothing, after its first result, before it
/// counts as done. A continuation asks within a second of its Stop hook here; the margin is for
/// a loaded machine. (A wait, not an assertion: a session still working fails the test's own
/// checks on what the model was asked, never passes them by accident.)
const QUIET: Duration = Duration::from_secs(8);

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::codebuddy())
}

pub(super) fn prepare(sb: &AgentSandbox) {
    std::fs::create_dir_all(sb.client_home()).unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    cmd.args([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--model",
        "mock-model",
        "--dangerously-skip-permissions",
    ]);
    if let Some(id) = &l.sc.resume {
        cmd.args(["--resume", id]);
    }
    if let Some(id) = &l.sc.session_id {
        cmd.args(["--session-id", id]);
    }
    cmd.env("CODEBUDDY_CONFIG_DIR", l.sb.client_home())
        .env("CODEBUDDY_API_KEY", "sk-mock")
        .env("CODEBUDDY_BASE_URL", l.base_url)
        .env("NO_COLOR", "1");
}

pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    json!({"hooks": grouped(specs, |s| json!({
        "type": "command", "command": s.command, "timeout": s.timeout_s
    }))})
}

/// Sends the prompt and waits for the session to settle (see the module doc).
pub(super) fn driver(prompt: &str, model: Arc<ScriptedModel>) -> Driver {
    let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
    Box::new(move |mut stdin, lines, deadline| {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut seen_result = false;
        let mut last_change = Instant::now();
        let mut asked = model.requests().len();
        while Instant::now() < deadline {
            match lines.recv_timeout(Duration::from_millis(200)) {
                Ok(l) => {
                    if serde_json::from_str::<Value>(&l).is_ok_and(|v| v["type"] == "result") {
                        seen_result = true;
                    }
                    last_change = Instant::now();
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(_) => return,
            }
            let now_asked = model.requests().len();
            if now_asked != asked {
                asked = now_asked;
                last_change = Instant::now();
            }
            if seen_result && last_change.elapsed() >= QUIET {
                return;
            }
        }
    })
}

/// `(lines, session id, result text)` from `--output-format stream-json`.
pub(super) fn parse_output(stdout: &str) -> (Value, String, String) {
    let lines = parse_jsonl(stdout);
    let session = lines
        .iter()
        .find_map(|l| l["session_id"].as_str())
        .unwrap_or("")
        .to_owned();
    let text = lines
        .iter()
        .rev()
        .find(|l| l["type"] == "result")
        .and_then(|l| l["result"].as_str())
        .unwrap_or("")
        .to_owned();
    (Value::Array(lines), session, text)
}
