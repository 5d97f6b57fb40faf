//! CodeBuddy Code 2.117.0 (inside `@tencent-ai/agent-sdk` 0.3.201) specifics of the agent
//! harness: the headless multi-turn mode that keeps a session open (tests/e2e/
//! codebuddy-FINDINGS.md).
//!
//! `codebuddy -p "PROMPT"` prints its result and exits while a Stop continuation is only being
//! scheduled, so a turn never continues there; with `--input-format stream-json` the process
//! lives while its stdin is open and the continuation runs. The harness sends the prompt as one
//! `{"type": "user", …}` line, waits for the turn's `result` line, then for the session to
//! stay quiet for [`QUIET`] — the model unasked, the sandbox unwritten, the client's processes
//! idle (continuations print nothing on stdout) — and closes stdin.
//! `CODEBUDDY_BASE_URL` points at the scripted chat-completions model (no `/v1`), and no login
//! is asked for with `CODEBUDDY_API_KEY` set.

use super::agent_harness::{AgentSandbox, Driver, HookSpec, Launch, grouped, parse_jsonl};
use super::model::{ChatWire, ScriptedModel, Wire};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the session must have asked the model nothing, written no file in the sandbox and
/// kept the client's processes idle ([`group_busy`]), after its first result, before it counts
/// as done. A continuation asks within a second of its Stop hook here; the margin is for a
/// loaded machine. The files and the processes count because on a loaded machine the client
/// took longer than this between two requests (CI: the 8th continuation of
/// `our_cap_pauses_a_run_and_cancelomc_ends_it`, and the first of
/// `stop_blocks_continue_as_labelled_prompts_without_a_cap_of_its_own` after its Stop hook had
/// written its record, were cut off by closing stdin). (A wait, not an assertion: a session
/// still working fails the test's own checks on what the model was asked, never passes them by
/// accident.)
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
    Box::new(move |mut stdin, lines, deadline, pid| {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut seen_result = false;
        let mut last_change = Instant::now();
        let mut asked = model.requests().len();
        let mut written = newest_write(&root);
        let mut cpu = HashMap::new();
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
            if group_busy(pid, &mut cpu) {
                last_change = Instant::now();
            }
            if seen_result && last_change.elapsed() >= QUIET {
                return;
            }
        }
    })
}

/// Whether a process of the client's group (`pgid`: the client and the hooks it runs) is
/// running or waiting for the disk now, started since the last look, or used more than a
/// clock tick of CPU since then (`seen`: each one's CPU ticks at the last look). A client
/// starved of CPU on a loaded machine is runnable, not idle; an idle one sleeps on its stdin.
fn group_busy(pgid: u32, seen: &mut HashMap<u32, u64>) -> bool {
    let mut busy = false;
    let mut now = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the command name's closing parenthesis: state, ppid, pgrp, …, utime (the
        // 12th after the state), stime.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() < 13 || f[2].parse::<u32>().ok() != Some(pgid) {
            continue;
        }
        let ticks = f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0);
        busy |= matches!(f[0], "R" | "D") || seen.get(&pid).is_none_or(|before| ticks > before + 1);
        now.insert(pid, ticks);
    }
    *seen = now;
    busy
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
