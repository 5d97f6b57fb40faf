//! CodeBuddy Code 2.117.0 (inside `@tencent-ai/agent-sdk` 0.3.201) specifics of the agent
//! harness: the headless multi-turn mode that keeps a session open (tests/e2e/
//! codebuddy-FINDINGS.md).
//!
//! `codebuddy -p "PROMPT"` prints its result and exits while a Stop continuation is only being
//! scheduled, so a turn never continues there; with `--input-format stream-json` the process
//! lives while its stdin is open and the continuation runs. The harness sends the prompt as one
//! `{"type": "user", …}` line, waits for the turn's `result` line, then for the model to stay
//! unasked and the sandbox unwritten for [`QUIET`] (continuations print nothing on stdout), and
//! closes stdin.
//! `CODEBUDDY_BASE_URL` points at the scripted chat-completions model (no `/v1`), and no login
//! is asked for with `CODEBUDDY_API_KEY` set.

use super::agent_harness::{AgentSandbox, Driver, HookSpec, Launch, grouped, parse_jsonl};
use super::model::{ChatWire, ScriptedModel, Wire};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the session must have asked the model nothing and written no file in the sandbox,
/// after its first result, before it counts as done. A continuation asks within a second of its
/// Stop hook here; the margin is for a loaded machine. The files count because on a loaded
/// machine the client took longer than this between two requests (CI: the 8th continuation of
/// `our_cap_pauses_a_run_and_cancelomc_ends_it` was cut off by closing stdin), and in that time
/// its hooks write their state and it writes its transcript. (A wait, not an assertion: a
/// session still working fails the test's own checks on what the model was asked, never passes
/// them by accident.)
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
pub(super) fn driver(sb: &AgentSandbox, prompt: &str, model: Arc<ScriptedModel>) -> Driver {
    let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
    let root = sb.root().to_path_buf();
    Box::new(move |mut stdin, lines, deadline| {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut seen_result = false;
        let mut last_change = Instant::now();
        let mut asked = model.requests().len();
        let mut written = newest_write(&root);
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
            let now_written = newest_write(&root);
            if now_written != written {
                written = now_written;
                last_change = Instant::now();
            }
            if seen_result && last_change.elapsed() >= QUIET {
                return;
            }
        }
    })
}

/// The newest modification time of a file or folder under `root` (the sandbox: the client's
/// home, the project and its `.omc`), walking at most a few thousand entries.
fn newest_write(root: &std::path::Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > 5000 {
                return newest;
            }
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            newest = newest.max(meta.modified().ok());
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    newest
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
