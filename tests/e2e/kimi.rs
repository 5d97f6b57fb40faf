//! Kimi CLI 1.51.0 specifics of the agent harness: its `config.toml`, the `--print` command
//! line and its `stream-json` output.
//!
//! Kimi keeps everything in `$KIMI_SHARE_DIR` (here `<home>/.kimi`): `config.toml` names an
//! OpenAI-compatible provider (`openai_legacy`, chat completions) whose `base_url` each run
//! replaces with `OPENAI_BASE_URL` (Kimi's override for that provider type), telemetry is off,
//! and hooks are `[[hooks]]` tables in the same file — there is no project file, so the
//! recorder and `omc-hooks install --agent kimi --user` both write there. Hook timeouts are
//! seconds. The session id is printed on stderr (`To resume this session: kimi -r <id>`).

use super::agent_harness::{AgentSandbox, HookSpec, Launch};
use super::model::{ChatWire, Step, Wire};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::qwen())
}

/// The shell tool as Kimi offers it.
pub(super) fn shell_step(cmd: &str) -> Step {
    Step::Call("Shell".into(), json!({"command": cmd}))
}

/// The user configuration without hooks: the provider, the model, telemetry off.
pub(super) const CONFIG: &str = r#"default_model = "mock"
telemetry = false

[providers.mock]
type = "openai_legacy"
base_url = "http://127.0.0.1:9/v1"
api_key = "sk-mock"

[models.mock]
provider = "mock"
model = "mock-model"
max_context_size = 128000
"#;

pub(super) fn prepare(sb: &AgentSandbox) {
    let home = sb.client_home();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.toml"), CONFIG).unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    cmd.args(["--print", "--output-format", "stream-json"]);
    if let Some(id) = &l.sc.resume {
        cmd.args(["--session", id]);
    }
    cmd.arg("-p").arg(l.prompt);
    cmd.env("KIMI_SHARE_DIR", l.sb.client_home())
        .env("OPENAI_BASE_URL", format!("{base_url}/v1"))
        .env("OPENAI_API_KEY", "sk-mock")
        .env("KIMI_DISABLE_TELEMETRY", "1")
        .env("KIMI_CLI_NO_AUTO_UPDATE", "1")
        .env("NO_COLOR", "1");
}

/// `[[hooks]]` tables for `specs`, appended to the configuration (replacing earlier ones).
pub(super) fn write_hooks(sb: &AgentSandbox, specs: &[HookSpec]) {
    let mut text = CONFIG.to_string();
    for s in specs {
        text.push_str("\n[[hooks]]\n");
        text.push_str(&format!("event = {}\n", json!(s.event)));
        if let Some(m) = s.matcher.as_deref().filter(|m| *m != "*") {
            text.push_str(&format!("matcher = {}\n", json!(m)));
        }
        text.push_str(&format!("command = {}\n", json!(s.command)));
        text.push_str(&format!("timeout = {}\n", s.timeout_s));
    }
    std::fs::write(sb.client_home().join("config.toml"), text).unwrap();
}

/// (event, command) of every `[[hooks]]` table in the configuration.
pub(super) fn hooks_in(text: &str) -> Vec<(String, String)> {
    let doc: toml_edit::DocumentMut = text.parse().expect("Kimi's config.toml is TOML");
    doc.get("hooks")
        .and_then(|h| h.as_array_of_tables())
        .into_iter()
        .flat_map(|a| a.iter())
        .filter_map(|t| {
            Some((
                t.get("event")?.as_str()?.to_owned(),
                t.get("command")?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// `(messages, session id, final text)` from `--output-format stream-json` (one message per
/// line: the assistant's turns with their tool calls, the tool results) and stderr.
pub(super) fn parse_output(stdout: &str, stderr: &str) -> (Value, String, String) {
    let messages: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(Value::is_object)
        .collect();
    let text = messages
        .iter()
        .rev()
        .filter(|m| m["role"] == "assistant")
        .find_map(|m| m["content"].as_str().filter(|t| !t.is_empty()))
        .unwrap_or("")
        .to_owned();
    let session = stderr
        .lines()
        .chain(stdout.lines())
        .find_map(|l| l.trim().strip_prefix("To resume this session: kimi -r "))
        .unwrap_or("")
        .trim()
        .to_owned();
    (Value::Array(messages), session, text)
}
