//! OpenCode 1.18.33 and Kilo Code 7.7.9 specifics of the agent harness: the provider, started as
//! `opencode serve` / `kilo serve` on a loopback port and driven over its HTTP API (create a
//! session or take the one to resume, `prompt_async`, read the messages), as an editor drives
//! it. `opencode run` cannot be used: it exits at the session's first idle, before our plugin
//! has continued it (opencode-FINDINGS.md §3).
//!
//! The configuration is given in `OPENCODE_CONFIG_CONTENT` / `KILO_CONFIG_CONTENT` (the
//! project keeps only what `install` wrote): an OpenAI-compatible provider on the scripted
//! model (`@ai-sdk/openai-compatible`, bundled in both binaries), every tool allowed (Kilo asks
//! before a shell command otherwise), no snapshots, sharing or update checks; models and LSP
//! downloads off, and npm offline, so the client's own background `npm install` of
//! `@opencode-ai/plugin` into each config folder fails at once instead of reaching the
//! registry (our plugin imports nothing).

use super::agent_harness::{AgentSandbox, AgentScenario};
use super::clients::Agent;
use super::model::{ChatWire, ScriptedModel, Wire};
use super::plugin_host::{Driven, Host, timeout_of, wait_for_the_end};
use serde_json::{Value, json};
use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::opencode())
}

/// The client's configuration for a scripted model at `base_url`.
pub(super) fn config(base_url: &str) -> Value {
    json!({
        "provider": {"mock": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Scripted model",
            "options": {"baseURL": format!("{base_url}/v1"), "apiKey": "sk-mock"},
            "models": {"mock": {"name": "mock", "tool_call": true,
                                "limit": {"context": 128000, "output": 4096}}}
        }},
        "model": "mock/mock",
        "small_model": "mock/mock",
        "autoupdate": false,
        "share": "disabled",
        "snapshot": false,
        "permission": {"bash": "allow", "edit": "allow", "webfetch": "allow",
                       "external_directory": "allow"}
    })
}

/// The variable prefix the client reads (`OPENCODE_…` or `KILO_…`).
fn prefix(agent: Agent) -> &'static str {
    if agent == Agent::Kilo {
        "KILO"
    } else {
        "OPENCODE"
    }
}

fn http() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into()
}

fn request(method: &str, url: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let agent = http();
    let resp = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        (_, b) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(b.map(Value::to_string).unwrap_or_else(|| "{}".into())),
    };
    let mut resp = resp.map_err(|e| format!("{method} {url}: {e}"))?;
    let status = resp.status().as_u16();
    let mut text = String::new();
    resp.body_mut()
        .as_reader()
        .read_to_string(&mut text)
        .map_err(|e| format!("{method} {url}: {e}"))?;
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Ok((status, v))
}

/// The server's base URL, from its "listening on" line.
fn wait_for_url(
    host: &mut Host,
    agent: Agent,
    deadline: Instant,
    diagnose: &dyn Fn(&Host) -> String,
) -> String {
    loop {
        let out = host.stdout();
        if let Some(url) = out
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
        {
            return url.trim_end_matches('/').to_owned();
        }
        if let Ok(Some(st)) = host.child.try_wait() {
            panic!(
                "{} serve exited ({st}) before listening\n{}",
                agent.name(),
                diagnose(host)
            );
        }
        if Instant::now() > deadline {
            host.stop();
            panic!(
                "{} serve did not listen in time\n{}",
                agent.name(),
                diagnose(host)
            );
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Starts the server, sends `prompt` to a new session (or the one `scenario.resume` names) and
/// waits for the run to end.
pub(super) fn drive(
    sb: &AgentSandbox,
    mut cmd: Command,
    prompt: &str,
    scenario: &AgentScenario,
    model: &ScriptedModel,
    trace: &Path,
    from: usize,
) -> (Host, Driven) {
    let agent = sb.agent;
    let p = prefix(agent);
    cmd.args([
        "serve",
        "--port",
        "0",
        "--hostname",
        "127.0.0.1",
        "--print-logs",
    ])
    .args(&scenario.args)
    .env(
        format!("{p}_CONFIG_CONTENT"),
        config(&model.base_url()).to_string(),
    )
    .env(format!("{p}_DISABLE_MODELS_FETCH"), "true")
    .env(format!("{p}_DISABLE_AUTOUPDATE"), "true")
    .env(format!("{p}_DISABLE_LSP_DOWNLOAD"), "true")
    .env(format!("{p}_DISABLE_SHARE"), "true")
    .env("npm_config_offline", "true");
    if agent == Agent::Kilo {
        cmd.env("KILO_TELEMETRY_LEVEL", "off")
            .env("KILO_DISABLE_SESSION_INGEST", "true")
            .env("KILO_NO_DAEMON", "1");
    }
    // Re-applied: the scenario's variables win over the defaults above.
    for (k, v) in &scenario.env {
        cmd.env(k, v);
    }
    let timeout = timeout_of(scenario);
    let mut host = Host::spawn(cmd, agent, false);
    let diagnose = |h: &Host| {
        format!(
            "stdout:\n{}\nstderr (tail):\n{}\nrequests:\n{}\nplugin trace:\n{}",
            tail(&h.stdout(), 3000),
            tail(&h.stderr(), 6000),
            super::agent_harness::describe(&model.requests()),
            std::fs::read_to_string(trace).unwrap_or_default()
        )
    };
    let base = wait_for_url(&mut host, agent, Instant::now() + timeout, &diagnose);
    let fail = |h: &mut Host, what: String| -> ! {
        let d = diagnose(h);
        h.stop();
        panic!("{}: {what}\n{d}", agent.name())
    };
    let session_id = match &scenario.resume {
        Some(id) => id.clone(),
        None => match request("POST", &format!("{base}/session"), Some(&json!({}))) {
            Ok((200, v)) => v["id"].as_str().unwrap_or_default().to_owned(),
            other => fail(&mut host, format!("cannot create a session: {other:?}")),
        },
    };
    let body = json!({"parts": [{"type": "text", "text": prompt}]});
    match request(
        "POST",
        &format!("{base}/session/{session_id}/prompt_async"),
        Some(&body),
    ) {
        Ok((200..=299, _)) => {}
        other => fail(&mut host, format!("the prompt was refused: {other:?}")),
    }
    wait_for_the_end(trace, from, agent, timeout, &mut host, &diagnose);
    let messages = match request("GET", &format!("{base}/session/{session_id}/message"), None) {
        Ok((200, v)) => v,
        other => fail(&mut host, format!("cannot read the messages: {other:?}")),
    };
    let result_text = messages
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["info"]["role"] == "assistant"))
        .map(|m| {
            m["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default();
    (
        host,
        Driven {
            session_id,
            result: messages,
            result_text,
        },
    )
}

fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        s.to_owned()
    } else {
        format!("…{}", s.chars().skip(count - n).collect::<String>())
    }
}
