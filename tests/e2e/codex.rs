//! Codex CLI specifics of the agent harness (pinned 0.171.0; written for 0.169.0, what changed
//! is in codex-FINDINGS.md §18): offline `config.toml`, the `codex exec` command line, its
//! `--json` event stream, and hook trust.
//!
//! Offline: a custom provider `mock` (`wire_api = "responses"`, Bearer key from `MOCK_API_KEY`)
//! whose `base_url` each run points at its own scripted model with `-c`, no retries, and the
//! curated-plugin sync (`[features] plugins`, `apps`) off — with those, Codex makes no DNS
//! lookup (codex-FINDINGS.md §2). The project is trusted in config.toml (project hooks load
//! only in trusted projects); hooks themselves need hook trust: runs pass
//! `--dangerously-bypass-hook-trust` unless the scenario asks for trusted hooks only, in which
//! case [`trust_hooks`] must have written their hashes.

use super::agent_harness::{AgentSandbox, HookSpec, Launch, grouped, parse_json_output};
use super::model::{ResponsesWire, Wire};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ResponsesWire)
}

fn config_toml(sb: &AgentSandbox) -> String {
    format!(
        r#"model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[features]
hooks = true
plugins = false
apps = false

[analytics]
enabled = false

[projects."{}"]
trust_level = "trusted"
"#,
        sb.project().display()
    )
}

pub(super) fn prepare(sb: &AgentSandbox) {
    let home = sb.client_home();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.toml"), config_toml(sb)).unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    let base_url = l.base_url;
    cmd.arg("exec");
    if let Some(id) = &l.sc.resume {
        cmd.args(["resume", id]);
    }
    cmd.args([
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
    ]);
    if l.sc.bypass_hook_trust {
        cmd.arg("--dangerously-bypass-hook-trust");
    }
    if l.sc.resume.is_none() {
        cmd.arg("-C").arg(l.sb.project());
    }
    cmd.arg("-c")
        .arg(format!("model_providers.mock.base_url=\"{base_url}/v1\""));
    cmd.arg(l.prompt);
    cmd.env("CODEX_HOME", l.sb.client_home())
        .env("MOCK_API_KEY", "sk-mock")
        .env("RUST_LOG", "warn");
}

pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    json!({"hooks": grouped(specs, |s| json!({
        "type": "command", "command": s.command, "timeout": s.timeout_s
    }))})
}

/// `(events, session id, last agent message)` from the `--json` JSONL stream.
pub(super) fn parse_output(stdout: &str) -> (Value, String, String) {
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .collect();
    let session = events
        .iter()
        .find(|e| e["type"] == "thread.started")
        .and_then(|e| e["thread_id"].as_str())
        .unwrap_or("")
        .to_owned();
    let text = events
        .iter()
        .rev()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "agent_message")
        .and_then(|e| e["item"]["text"].as_str())
        .unwrap_or("")
        .to_owned();
    if events.is_empty() {
        return (parse_json_output(stdout), session, text);
    }
    (Value::Array(events), session, text)
}

/// Snake-case event name as Codex keys its hook state (`PreToolUse` → `pre_tool_use`).
fn snake(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Compact JSON with object keys sorted recursively (Codex's fingerprint input).
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&m[*k])))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

fn sha256_hex(data: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) is needed to pre-trust Codex hooks");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(data.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// The `[hooks.state."<file>:<event>:<group>:<handler>"]` tables that mark every handler of
/// `file` (a Codex hooks.json) trusted, as codex-FINDINGS.md §3 describes (the hash is the one
/// upstream computes: `codex-rs/hooks/src/engine/discovery.rs` and
/// `codex-rs/config/src/fingerprint.rs` in openai/codex).
pub(super) fn trust_entries(file: &std::path::Path) -> String {
    trust_entries_as(file, &file.display().to_string())
}

/// [`trust_entries`] for the handlers of `file` keyed by `key_source` instead of the file's
/// path: a plugin's hooks are keyed `<plugin>@<marketplace>:<hooks file relative to the
/// plugin root>` (`codex-rs/hooks/src/declarations.rs::plugin_hook_key_source`; seen to work
/// with 0.169.0, codex-FINDINGS.md §9).
pub fn trust_entries_as(file: &std::path::Path, key_source: &str) -> String {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let mut out = String::new();
    for (event, groups) in v["hooks"].as_object().into_iter().flatten() {
        let ev = snake(event);
        for (gi, g) in groups.as_array().into_iter().flatten().enumerate() {
            for (hi, h) in g["hooks"].as_array().into_iter().flatten().enumerate() {
                let clamp = matches!(event.as_str(), "SessionEnd" | "Interrupt");
                let t = h["timeout"].as_u64();
                let timeout = if clamp {
                    t.unwrap_or(1).clamp(1, 3)
                } else {
                    t.unwrap_or(600)
                };
                let mut handler = json!({
                    "type": "command",
                    "command": h["command"],
                    "timeout": timeout,
                    "async": h["async"].as_bool().unwrap_or(false),
                });
                if let Some(m) = h.get("statusMessage") {
                    handler["statusMessage"] = m.clone();
                }
                let mut identity = json!({"event_name": ev, "hooks": [handler]});
                if let Some(m) = g.get("matcher").and_then(Value::as_str) {
                    if !matches!(event.as_str(), "UserPromptSubmit" | "Stop") {
                        identity["matcher"] = json!(m);
                    }
                }
                let hash = sha256_hex(&canonical(&identity));
                out.push_str(&format!(
                    "\n[hooks.state.\"{key_source}:{ev}:{gi}:{hi}\"]\nenabled = true\ntrusted_hash = \"sha256:{hash}\"\n"
                ));
            }
        }
    }
    out
}

pub(super) fn trust_hooks(sb: &AgentSandbox) {
    let cfg = sb.client_home().join("config.toml");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    text.push_str(&trust_entries(&sb.hooks_file()));
    std::fs::write(cfg, text).unwrap();
}

/// Installs the checkout's Codex plugin the way a user does, with the client's own commands:
/// `codex plugin marketplace add <checkout>` (the checkout is its own marketplace,
/// `.agents/plugins/marketplace.json`) then `codex plugin add omc-hooks@omc-hooks`. Turns
/// `[features] plugins` on first (the harness keeps it off); the plugin's hooks are then the
/// only ones in the sandbox. Returns the plugin root Codex runs the hooks from (its cache copy).
///
/// The checkout is a copy of the shipped manifests plus the binary as a regular file at
/// `target/release/omc-hooks`: `plugin add` copies the plugin directory and leaves symlinks
/// out (codex-FINDINGS.md §9), so a symlinked binary would be missing from the copy.
pub fn install_plugin(sb: &AgentSandbox) -> std::path::PathBuf {
    let cfg = sb.client_home().join("config.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(text.contains("\nplugins = false\n"), "{text}");
    std::fs::write(
        &cfg,
        text.replace("\nplugins = false\n", "\nplugins = true\n"),
    )
    .unwrap();

    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let checkout = sb.root().join("pkg");
    for rel in [
        ".agents/plugins/marketplace.json",
        ".codex-plugin/plugin.json",
        "extensions/codex/hooks.json",
    ] {
        let to = checkout.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join(rel), &to).unwrap();
    }
    let bin = checkout.join("target/release/omc-hooks");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    let from = super::agent_harness::omc_bin();
    if std::fs::hard_link(from, &bin).is_err() {
        std::fs::copy(from, &bin).unwrap();
    }

    for args in [
        &["plugin", "marketplace", "add", checkout.to_str().unwrap()][..],
        &["plugin", "add", "omc-hooks@omc-hooks"][..],
    ] {
        let os: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let (status, stdout, stderr) = sb.client_command(&os);
        assert!(
            status.success(),
            "codex {} failed ({status}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
            args.join(" ")
        );
    }
    sb.client_home()
        .join("plugins/cache/omc-hooks/omc-hooks")
        .join(env!("CARGO_PKG_VERSION"))
}
