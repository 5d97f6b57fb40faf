//! Gemini CLI 0.61.0 specifics of the agent harness: offline user settings, the headless
//! command line and its `-o json` result.
//!
//! `GEMINI_CLI_HOME` replaces the home directory, so user settings are
//! `$GEMINI_CLI_HOME/.gemini/settings.json`: API-key auth, usage statistics, telemetry and
//! auto-update off (no DNS lookup then, gemini-FINDINGS.md §2), folder trust off, hooks enabled.
//! The model is reached through `GOOGLE_GEMINI_BASE_URL` (plain http is accepted for
//! 127.0.0.1); `GEMINI_CLI_TRUST_WORKSPACE=true` trusts the project for the run. Hook timeouts
//! are milliseconds in this client.

use super::agent_harness::{AgentSandbox, HookSpec, Launch, grouped, parse_json_output};
use super::model::{GeminiWire, Wire};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(GeminiWire)
}

pub(super) fn prepare(sb: &AgentSandbox) {
    let home = sb.client_home();
    std::fs::create_dir_all(&home).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "model": {"name": "gemini-2.5-flash"},
        "hooksConfig": {"enabled": true},
    });
    std::fs::write(
        home.join("settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
}

pub(super) fn args(cmd: &mut Command, l: &Launch) {
    cmd.args(["--yolo", "--output-format", "json"]);
    if let Some(id) = &l.sc.resume {
        cmd.args(["--resume", id]);
    }
    if let Some(id) = &l.sc.session_id {
        cmd.args(["--session-id", id]);
    }
    cmd.arg("-p").arg(l.prompt);
    cmd.env("GEMINI_CLI_HOME", l.sb.home())
        .env("GEMINI_API_KEY", "mock-key")
        .env("GOOGLE_GEMINI_BASE_URL", l.base_url)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("NO_COLOR", "1");
}

/// Gemini's project settings with `hooks` (handlers named, timeouts in ms).
pub(super) fn hooks_json(specs: &[HookSpec]) -> Value {
    json!({
        "hooksConfig": {"enabled": true},
        "hooks": grouped(specs, |s| json!({
            "type": "command",
            "name": format!("e2e-{}", s.event),
            "command": s.command,
            "timeout": s.timeout_s * 1000,
        })),
    })
}

/// `(result, session id, response text)` from `-o json`.
pub(super) fn parse_output(stdout: &str) -> (Value, String, String) {
    let v = parse_json_output(stdout);
    let session = v["session_id"]
        .as_str()
        .or(v["sessionId"].as_str())
        .unwrap_or("")
        .to_owned();
    let text = v["response"].as_str().unwrap_or("").to_owned();
    (v, session, text)
}

/// Lays out the shipped Gemini extension as a checkout holds it — `<root>/pkg/extensions/gemini/`
/// (the repository's `gemini-extension.json` and `hooks/hooks.json`, copied byte for byte) and
/// `<root>/pkg/target/release/omc-hooks` (a symlink to the binary under test, so this works in
/// every profile) — and links it into the sandbox's user extensions with the client's own
/// `gemini extensions link <dir> --consent`. Returns the extension directory.
///
/// `--consent` is what a headless link needs: an extension with hooks asks for consent, and
/// without the flag the question is read from stdin. The directories are real (only the binary
/// is a symlink): the hook command's `${extensionPath}/../..` is resolved by the shell, which
/// would follow a symlinked `extensions/gemini` elsewhere.
pub fn link_extension(sb: &AgentSandbox) -> std::path::PathBuf {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let checkout = sb.root().join("pkg");
    let ext = checkout.join("extensions/gemini");
    for rel in ["gemini-extension.json", "hooks/hooks.json"] {
        let to = ext.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join("extensions/gemini").join(rel), &to).unwrap();
    }
    let bin = checkout.join("target/release/omc-hooks");
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(super::agent_harness::omc_bin(), &bin).unwrap();
    let (status, stdout, stderr) = sb.client_command(&[
        "extensions".as_ref(),
        "link".as_ref(),
        ext.as_os_str(),
        "--consent".as_ref(),
    ]);
    assert!(
        status.success(),
        "gemini extensions link failed ({status}):\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    ext
}
