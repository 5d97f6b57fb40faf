//! Qwen Code 0.24.4 specifics of the agent harness: offline user settings, the headless command
//! line and its `--output-format json` result.
//!
//! `QWEN_HOME` holds the user settings directly (`$QWEN_HOME/settings.json`): OpenAI-compatible
//! auth against the scripted model (`OPENAI_BASE_URL`), usage statistics and telemetry off (no
//! DNS lookup then, qwen-FINDINGS.md §2), auto-update off, and the managed auto-memory off so
//! that no background subagent makes extra model calls. Folder trust is off by default, so the
//! project's `.qwen/settings.json` hooks load. Hook timeouts are seconds.

use super::agent_harness::{AgentSandbox, HookSpec, Launch, grouped, parse_json_output};
use super::model::{ChatWire, Wire};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::qwen())
}

pub(super) fn prepare(sb: &AgentSandbox) {
    let home = sb.client_home();
    std::fs::create_dir_all(&home).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": "mock-model"},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false},
        "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false,
                   "enableAutoSkill": false},
    });
    std::fs::write(
        home.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    cmd.args(["--auth-type", "openai", "--yolo", "--output-format", "json"]);
    if let Some(id) = &l.sc.resume {
        cmd.args(["--resume", id]);
    }
    if let Some(id) = &l.sc.session_id {
        cmd.args(["--session-id", id]);
    }
    cmd.arg("-p").arg(l.prompt);
    cmd.env("QWEN_HOME", l.sb.client_home())
        .env("OPENAI_API_KEY", "sk-mock")
        .env("OPENAI_BASE_URL", format!("{base_url}/v1"))
        .env("OPENAI_MODEL", "mock-model")
        .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
        .env("NO_COLOR", "1");
}

pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    json!({"hooks": grouped(specs, |s| json!({
        "type": "command", "command": s.command, "timeout": s.timeout_s
    }))})
}

/// `(result, session id, result text)` from `--output-format json` (an array of messages
/// ending with a `result` message).
pub(super) fn parse_output(stdout: &str) -> (Value, String, String) {
    let v = parse_json_output(stdout);
    let items: Vec<&Value> = match &v {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    let session = items
        .iter()
        .find_map(|m| m["session_id"].as_str())
        .unwrap_or("")
        .to_owned();
    let text = items
        .iter()
        .rev()
        .find(|m| m["type"] == "result")
        .and_then(|m| m["result"].as_str())
        .unwrap_or("")
        .to_owned();
    (v, session, text)
}
