//! GitHub Copilot CLI 1.0.102 specifics of the agent harness: offline settings, the headless
//! command line and its `--output-format json` result (tests/e2e/copilot-FINDINGS.md).
//!
//! Offline with a custom provider (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL` →
//! the scripted chat-completions model): no GitHub login is asked for. `COPILOT_HOME` is the
//! sandbox's `~/.copilot`, whose `config.json` lists the project in `trustedFolders`, so the
//! repository's `.github/hooks/` load in `-p` runs, resumed ones too (`--trust-folder` trusts
//! one new session only). The client unpacks its package into `$XDG_CACHE_HOME/copilot/pkg` on
//! first start: the shared cache of `clients::cache_dir`, unpacked once at install.

use super::agent_harness::{AgentSandbox, HookSpec, Launch, parse_jsonl};
use super::clients::{Agent, cache_dir};
use super::model::{ChatWire, Wire};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::copilot())
}

pub(super) fn prepare(sb: &AgentSandbox) {
    let home = sb.client_home();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.json"),
        serde_json::to_string_pretty(&json!({"trustedFolders": [sb.project()]})).unwrap(),
    )
    .unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    cmd.args(["--allow-all", "--output-format", "json", "--no-auto-update"]);
    if let Some(id) = &l.sc.resume {
        cmd.args(["--resume", id]);
    }
    if let Some(id) = &l.sc.session_id {
        cmd.args(["--session-id", id]);
    }
    cmd.arg("-p").arg(l.prompt);
    cmd.env("COPILOT_HOME", l.sb.client_home())
        .env("XDG_CACHE_HOME", cache_dir(Agent::Copilot))
        .env("COPILOT_OFFLINE", "true")
        .env("COPILOT_PROVIDER_BASE_URL", format!("{base_url}/v1"))
        .env("COPILOT_MODEL", "mock-model")
        .env("COPILOT_AUTO_UPDATE", "false")
        .env("NO_COLOR", "1");
}

/// The hook file: flat handlers per event (`{"version": 1, "hooks": {"Stop": [{…}]}}`).
pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    let mut hooks = serde_json::Map::new();
    for s in specs {
        let mut h = json!({"type": "command", "command": s.command, "timeoutSec": s.timeout_s});
        if let Some(m) = &s.matcher {
            h["matcher"] = json!(m);
        }
        hooks
            .entry(s.event.clone())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(h);
    }
    json!({"version": 1, "hooks": hooks})
}

/// `(events, session id, result text)` from `--output-format json`: one event per line, the
/// last a `result` with the `sessionId`; the answer is the last `assistant.message`.
pub(super) fn parse_output(stdout: &str) -> (Value, String, String) {
    let lines = parse_jsonl(stdout);
    let session = lines
        .iter()
        .rev()
        .find(|l| l["type"] == "result")
        .and_then(|l| l["sessionId"].as_str())
        .unwrap_or("")
        .to_owned();
    let text = lines
        .iter()
        .rev()
        .find(|l| l["type"] == "assistant.message")
        .and_then(|l| l["data"]["content"].as_str())
        .unwrap_or("")
        .to_owned();
    (Value::Array(lines), session, text)
}
