//! Pi 0.73.1 specifics of the agent harness: the provider in `$PI_CODING_AGENT_DIR/models.json`
//! (an `openai-completions` provider on the scripted model), and the client started in RPC
//! mode (`pi --mode rpc`, JSON lines on stdin and stdout), as an editor drives it: `pi -p` ends
//! when its prompt's run ends, before our extension's continuation could run
//! (pi-FINDINGS.md §3). `PI_OFFLINE=1` keeps it from the network; a resumed run passes
//! `--session <id>`.

use super::agent_harness::{AgentSandbox, AgentScenario};
use super::model::{ChatWire, ScriptedModel, Wire};
use super::plugin_host::{Driven, Host, timeout_of, wait_for_the_end};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) fn wire() -> Arc<dyn Wire> {
    Arc::new(ChatWire::pi())
}

/// Pi's agent folder in the sandbox.
pub(super) fn agent_dir(sb: &AgentSandbox) -> PathBuf {
    sb.home().join(".pi/agent")
}

/// The provider for a scripted model at `base_url`.
fn models(base_url: &str) -> Value {
    json!({"providers": {"mock": {
        "baseUrl": format!("{base_url}/v1"),
        "api": "openai-completions",
        "apiKey": "sk-mock",
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
        "models": [{"id": "mock"}]
    }}})
}

/// The JSON lines Pi wrote so far, parsed.
fn events(host: &Host) -> Vec<Value> {
    host.stdout()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits for the response to the command `id`.
fn response(
    host: &mut Host,
    id: &str,
    deadline: Instant,
    diagnose: &dyn Fn(&Host) -> String,
) -> Value {
    loop {
        if let Some(r) = events(host)
            .into_iter()
            .find(|e| e["type"] == "response" && e["id"] == id)
        {
            return r;
        }
        if let Ok(Some(st)) = host.child.try_wait() {
            panic!("pi exited ({st}) before answering {id}\n{}", diagnose(host));
        }
        if Instant::now() > deadline {
            host.stop();
            panic!("pi did not answer {id} in time\n{}", diagnose(host));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts Pi in RPC mode, sends `prompt` and waits for the run to end.
pub(super) fn drive(
    sb: &AgentSandbox,
    mut cmd: Command,
    prompt: &str,
    scenario: &AgentScenario,
    model: &ScriptedModel,
    trace: &Path,
    from: usize,
) -> (Host, Driven) {
    let dir = agent_dir(sb);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("models.json"),
        serde_json::to_string_pretty(&models(&model.base_url())).unwrap(),
    )
    .unwrap();
    cmd.args(["--mode", "rpc", "--provider", "mock", "--model", "mock"]);
    if let Some(id) = &scenario.resume {
        cmd.args(["--session", id]);
    }
    cmd.args(&scenario.args)
        .env("PI_CODING_AGENT_DIR", &dir)
        .env("PI_OFFLINE", "1");
    for (k, v) in &scenario.env {
        cmd.env(k, v);
    }
    let timeout = timeout_of(scenario);
    let mut host = Host::spawn(cmd, sb.agent, true);
    let diagnose = |h: &Host| {
        let quiet: Vec<String> = events(h)
            .iter()
            .filter(|e| e["type"] != "message_update")
            .map(|e| {
                let s = e.to_string();
                s.chars().take(300).collect()
            })
            .collect();
        format!(
            "events:\n{}\nstderr:\n{}\nrequests:\n{}\nplugin trace:\n{}",
            quiet.join("\n"),
            h.stderr(),
            super::agent_harness::describe(&model.requests()),
            std::fs::read_to_string(trace).unwrap_or_default()
        )
    };
    let mut stdin = host.child.stdin.take().unwrap();
    for cmd in [
        json!({"id": "state", "type": "get_state"}),
        json!({"id": "prompt", "type": "prompt", "message": prompt}),
    ] {
        writeln!(stdin, "{cmd}").unwrap();
    }
    let deadline = Instant::now() + timeout;
    let state = response(&mut host, "state", deadline, &diagnose);
    let session_id = state["data"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let accepted = response(&mut host, "prompt", deadline, &diagnose);
    if accepted["success"] != true {
        host.stop();
        panic!("pi refused the prompt: {accepted}\n{}", diagnose(&host));
    }
    wait_for_the_end(trace, from, sb.agent, timeout, &mut host, &diagnose);
    // Pi compacts after a run's end has gone through the extensions, in the same step that
    // prints `agent_end` (its `_processAgentEvent`): once that line is out, `get_state` says
    // whether a compaction runs, and `compaction_end` says when it is over.
    let ends = super::plugin_host::plugin_lines(trace, from, sb.agent, "agent_end").len();
    let deadline = Instant::now() + timeout;
    let count = |h: &Host, t: &str| events(h).iter().filter(|e| e["type"] == t).count();
    while count(&host, "agent_end") < ends {
        if Instant::now() > deadline {
            host.stop();
            panic!(
                "pi printed fewer agent_end events than its runs\n{}",
                diagnose(&host)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for round in 0.. {
        let id = format!("settle-{round}");
        writeln!(stdin, "{}", json!({"id": id, "type": "get_state"})).unwrap();
        if response(&mut host, &id, deadline, &diagnose)["data"]["isCompacting"] != true {
            break;
        }
        while count(&host, "compaction_end") < count(&host, "compaction_start") {
            if Instant::now() > deadline {
                host.stop();
                panic!("pi's compaction did not end\n{}", diagnose(&host));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    writeln!(
        stdin,
        "{}",
        json!({"id": "messages", "type": "get_messages"})
    )
    .unwrap();
    let messages =
        response(&mut host, "messages", Instant::now() + timeout, &diagnose)["data"]["messages"]
            .clone();
    // End of input: Pi shuts down by itself (session_shutdown runs its hooks), then exits.
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline && matches!(host.child.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let result_text = messages
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "assistant"))
        .map(|m| {
            m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["type"] == "text")
                .filter_map(|c| c["text"].as_str())
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
