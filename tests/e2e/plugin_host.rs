//! The clients served through our plugin (OpenCode, Kilo Code, Pi) stay alive between prompts:
//! `opencode run` ends at the session's first idle, before our plugin's continuation is sent,
//! and `pi -p` ends when its prompt's run ends (opencode-FINDINGS.md, pi-FINDINGS.md). So a run
//! here is a long-lived client driven the way an editor drives it — `opencode serve` /
//! `kilo serve` over HTTP (`serve.rs`), Pi's RPC mode over stdin (`pi.rs`) — with one prompt,
//! and it is over when the plugin has answered the end of a turn without continuing: the
//! plugin appends a line per event it passes on to `OMC_TRACE_FILE`, so the wait counts the
//! end-of-turn lines and needs no sleep. The result is the same [`AgentRun`] as for the other
//! clients.

use super::agent_harness::{AGENT_TIMEOUT, AgentRun, AgentSandbox, AgentScenario};
use super::clients::{Agent, Installed, require};
use super::model::ScriptedModel;
use serde_json::Value;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The event after which the plugin decides whether a run goes on.
pub fn stop_event(agent: Agent) -> &'static str {
    match agent {
        Agent::Pi => "agent_end",
        _ => "session.idle",
    }
}

/// What a driver reports back.
pub struct Driven {
    pub session_id: String,
    /// The session's messages as the client lists them.
    pub result: Value,
    pub result_text: String,
}

/// A client process and what it wrote.
pub struct Host {
    pub child: Child,
    pub stdout: Arc<Mutex<String>>,
    pub stderr: Arc<Mutex<String>>,
    pub started: Instant,
}

impl Host {
    /// Starts `cmd` in its own process group, collecting its output.
    pub fn spawn(mut cmd: Command, agent: Agent, stdin: bool) -> Host {
        cmd.stdin(if stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn the {} client: {e}", agent.name()));
        let collect = |mut r: Box<dyn Read + Send>| {
            let buf = Arc::new(Mutex::new(String::new()));
            let b = buf.clone();
            std::thread::spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(n) = r.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    b.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&chunk[..n]));
                }
            });
            buf
        };
        let stdout = collect(Box::new(child.stdout.take().unwrap()));
        let stderr = collect(Box::new(child.stderr.take().unwrap()));
        Host {
            child,
            stdout,
            stderr,
            started: Instant::now(),
        }
    }

    pub fn stdout(&self) -> String {
        self.stdout.lock().unwrap().clone()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Ends the client and whatever it started (its process group).
    pub fn stop(&mut self) -> ExitStatus {
        let pid = self.child.id();
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{pid}")])
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stderr(Stdio::null())
            .status();
        self.child.wait().unwrap()
    }
}

/// The plugin's trace lines for `event` written after byte `from` of `trace`.
pub fn plugin_lines(trace: &Path, from: usize, agent: Agent, event: &str) -> Vec<Value> {
    let text = std::fs::read(trace).unwrap_or_default();
    let tail = String::from_utf8_lossy(text.get(from..).unwrap_or_default()).into_owned();
    tail.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["plugin"] == agent.name() && v["agent_event"] == event)
        .collect()
}

/// Waits until the plugin answered the end of a turn without continuing (after byte `from` of
/// `trace`), or panics with `diagnose()` after `timeout`; `alive` says whether the client still
/// runs.
pub fn wait_for_the_end(
    trace: &Path,
    from: usize,
    agent: Agent,
    timeout: Duration,
    host: &mut Host,
    diagnose: &dyn Fn(&Host) -> String,
) {
    let started = Instant::now();
    loop {
        let stops = plugin_lines(trace, from, agent, stop_event(agent));
        let last = stops.last().and_then(|v| v["action"].as_str());
        if last.is_some_and(|a| !a.split(',').any(|x| x == "continue")) {
            return;
        }
        if let Ok(Some(st)) = host.child.try_wait() {
            panic!(
                "the {} client exited ({st}) before its run ended\n{}",
                agent.name(),
                diagnose(host)
            );
        }
        if started.elapsed() > timeout {
            host.stop();
            panic!(
                "{} run timed out after {timeout:?} ({} end-of-turn answers seen)\n{}",
                agent.name(),
                stops.len(),
                diagnose(host)
            );
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Runs the client once for `prompt` (see the module doc).
pub fn run(sb: &AgentSandbox, prompt: &str, scenario: AgentScenario) -> AgentRun {
    let agent = sb.agent;
    let inst = require(agent);
    let plugin = sb.hooks_file();
    assert!(
        plugin.is_file(),
        "{}: no plugin at {} (install_hooks or record_hooks first)",
        agent.name(),
        plugin.display()
    );
    let model = ScriptedModel::start(super::agent_harness::wire_of(agent), scenario.steps.clone());
    if let Some(t) = &scenario.default_text {
        model.set_default_text(t);
    }
    match (scenario.prompt_tokens, scenario.prompt_tokens_once) {
        (Some(n), true) => model.set_prompt_tokens_once(n),
        (Some(n), false) => model.set_prompt_tokens(n),
        (None, _) => {}
    }
    // The scenario's own trace file, else one for this run.
    let trace = scenario
        .env
        .iter()
        .find(|(k, _)| k == "OMC_TRACE_FILE")
        .map(|(_, v)| PathBuf::from(v))
        .unwrap_or_else(|| {
            sb.root().join(format!(
                "plugin-trace-{}.jsonl",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos()
            ))
        });
    let from = std::fs::metadata(&trace)
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    let cmd = base_command(sb, inst, &scenario, &trace);
    let started = Instant::now();
    let (mut host, driven) = match agent {
        Agent::Pi => super::pi::drive(sb, cmd, prompt, &scenario, &model, &trace, from),
        _ => super::serve::drive(sb, cmd, prompt, &scenario, &model, &trace, from),
    };
    let duration = started.elapsed();
    let _ = host.stop();
    AgentRun {
        agent,
        result: driven.result,
        session_id: driven.session_id,
        result_text: driven.result_text,
        requests: model.requests(),
        project: sb.project(),
        stdout: host.stdout(),
        stderr: host.stderr(),
        // The client is ended by us once the run is over: the run succeeded.
        status: ExitStatus::from_raw(0),
        duration,
        unused_steps: model.remaining(),
    }
}

/// The client's command line and environment common to every run: the sandbox's home, a
/// scrubbed environment, the scenario's variables, the trace file.
fn base_command(sb: &AgentSandbox, inst: &Installed, sc: &AgentScenario, trace: &Path) -> Command {
    let mut cmd = Command::new(&inst.program);
    cmd.args(&inst.args);
    for (k, _) in std::env::vars_os() {
        if let Some(k) = k.to_str()
            && super::agent_harness::scrub(k)
        {
            cmd.env_remove(k);
        }
    }
    let tmp = sb.root().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    cmd.env("HOME", sb.home())
        .env("TMPDIR", &tmp)
        .env("NO_COLOR", "1")
        .env("OMC_TRACE_FILE", trace)
        .current_dir(sb.project());
    for (k, v) in &sc.env {
        cmd.env(k, v);
    }
    cmd
}

/// How long a run may take.
pub fn timeout_of(sc: &AgentScenario) -> Duration {
    if sc.timeout == Duration::ZERO {
        AGENT_TIMEOUT
    } else {
        sc.timeout
    }
}
