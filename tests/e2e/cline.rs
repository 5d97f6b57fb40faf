//! Cline CLI 3.0.65 specifics of the agent harness: its provider settings, the headless
//! `cline --json "<prompt>"` command line and its JSON-lines output.
//!
//! `CLINE_DIR` (here `<home>/.cline`) holds the settings: `data/settings/providers.json` names
//! the `openai-compatible` provider (chat completions) with each run's scripted model as its
//! `baseUrl` — what `cline auth -p openai-compatible -k … -m … -b …` writes. Hooks are one
//! executable per event in the project's `.clinerules/hooks/` (also `~/.cline/hooks/`), named
//! after the event, run by their `#!` line; there are no matchers and no timeouts per hook.
//! The session id is the name of the session's folder under `data/sessions/` (the payloads'
//! `sessionContext.rootSessionId`).

use super::agent_harness::{AgentSandbox, HookSpec, Launch, parse_json_output};
use super::model::{ChatWire, Step, Wire};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::qwen())
}

/// The shell tool as Cline offers it: several commands per call, here one.
pub(super) fn shell_step(cmd: &str) -> Step {
    Step::Call("run_commands".into(), json!({"commands": [cmd]}))
}

pub(super) fn prepare(sb: &AgentSandbox) {
    std::fs::create_dir_all(sb.client_home().join("data/settings")).unwrap();
}

/// What `cline auth -p openai-compatible -k sk-mock -m mock-model -b <url>` writes.
fn providers_json(base_url: &str) -> Value {
    json!({
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {"openai-compatible": {
            "settings": {"provider": "openai-compatible", "apiKey": "sk-mock",
                         "model": "mock-model", "baseUrl": base_url},
            "updatedAt": "2026-12-04T05:46:38.364Z",
            "tokenSource": "manual"
        }}
    })
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    assert!(
        l.sc.resume.is_none(),
        "Cline resumes a session (--id) only in its interactive UI, not headless"
    );
    let settings = l.sb.client_home().join("data/settings");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("providers.json"),
        serde_json::to_string_pretty(&providers_json(&format!("{base_url}/v1"))).unwrap(),
    )
    .unwrap();
    cmd.arg("--json").arg(l.prompt);
    cmd.env("CLINE_DIR", l.sb.client_home())
        .env("NO_COLOR", "1");
}

/// One script per spec in the project's `.clinerules/hooks/`, named after its event.
pub(super) fn write_hooks(sb: &AgentSandbox, specs: &[HookSpec]) {
    use std::os::unix::fs::PermissionsExt;
    let dir = sb.hooks_file();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for s in specs {
        let p = dir.join(&s.event);
        std::fs::write(&p, format!("#!/bin/sh\n{}\n", s.command)).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// (event, command line) of every hook script in `dir`: the event is the file name without its
/// extension, the command the first line after the `#!` that names omc-hooks (or the first).
pub(super) fn hooks_in(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        if !text.starts_with("#!") {
            continue;
        }
        let event = name.split('.').next().unwrap_or("").to_owned();
        let lines: Vec<&str> = text
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .collect();
        let cmd = lines
            .iter()
            .find(|l| l.contains("omc-hooks"))
            .or(lines.first())
            .map(|l| l.to_string())
            .unwrap_or_default();
        out.push((event, cmd));
    }
    out.sort();
    out
}

/// `(events, session id, final text)` from `--json` (one event per line, ending with
/// `run_result`); the session is the newest folder under `$CLINE_DIR/data/sessions/`.
pub(super) fn parse_output(stdout: &str, client_home: &Path) -> (Value, String, String) {
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .collect();
    let text = events
        .iter()
        .rev()
        .find(|e| e["type"] == "run_result")
        .and_then(|e| e["text"].as_str())
        .unwrap_or("")
        .to_owned();
    let mut sessions: Vec<String> = std::fs::read_dir(client_home.join("data/sessions"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    sessions.sort();
    let events = if events.is_empty() {
        parse_json_output(stdout)
    } else {
        Value::Array(events)
    };
    (events, sessions.pop().unwrap_or_default(), text)
}

/// Ends the `cline --cline-hub-daemon` a run may leave behind (cline-FINDINGS.md §2): the CLI
/// sometimes starts one, detached from its own process group, for the sandbox's project (its
/// `--cwd`), and it outlives the run by hours. Found by its command line in `/proc`, so only
/// this sandbox's daemons are ended; returns how many were.
pub(super) fn reap_hub_daemons(sb: &AgentSandbox) -> usize {
    // the sandbox as given and as resolved, whichever the client was handed
    let roots: Vec<String> = [Some(sb.root().to_path_buf()), sb.root().canonicalize().ok()]
        .into_iter()
        .flatten()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut ended = 0;
    for entry in procs.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<_> = cmdline
            .split(|&b| b == 0)
            .map(String::from_utf8_lossy)
            .collect();
        let is_hub = args.iter().any(|a| a == "--cline-hub-daemon");
        let ours = args.windows(2).any(|w| {
            w[0] == "--cwd"
                && roots
                    .iter()
                    .any(|r| Path::new(w[1].as_ref()).starts_with(r))
        });
        if is_hub
            && ours
            && Command::new("kill")
                .arg(pid)
                .status()
                .is_ok_and(|s| s.success())
        {
            ended += 1;
        }
    }
    if ended > 0 {
        eprintln!("ended {ended} Cline hub daemon(s) left by the run");
    }
    ended
}
