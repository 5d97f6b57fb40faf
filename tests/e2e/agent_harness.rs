//! Drive the real Codex CLI, Gemini CLI, Qwen Code, GitHub Copilot CLI, Factory Droid and
//! CodeBuddy clients (pinned, see `clients.rs`) for one headless turn each, offline, against the
//! [`ScriptedModel`](super::model::ScriptedModel) — the same shape as `harness.rs` does for
//! Claude Code. Droid and CodeBuddy read their prompt from stdin (a JSON-RPC session, a
//! stream-json session: `factory.rs`, `codebuddy.rs`), fed by a [`Driver`].
//!
//! ```ignore
//! let sb = AgentSandbox::new(Agent::Gemini);      // project (git init) + isolated home
//! sb.install_hooks();                             // `omc-hooks install --agent gemini --project …`
//! let run = sb.run("ralph fix the tests",
//!     AgentScenario::new().reply_shell("cargo test").reply_text("all done"));
//! run.assert_success();
//! assert!(run.new_text(1).contains("[RALPH LOOP"));
//! ```
//!
//! Each client gets its own home (`CODEX_HOME`, `GEMINI_CLI_HOME`, `QWEN_HOME`, `COPILOT_HOME`,
//! `CODEBUDDY_CONFIG_DIR`, and `HOME`) with the offline settings of its module; every run is
//! killed (its whole process group) after the scenario's timeout. `OMC_E2E_KEEP=1` keeps
//! sandboxes.

#![allow(dead_code)]

use super::clients::{Agent, require};
use super::harness::Sandbox;
use super::model::{Kind, Recorded, ScriptedModel, Step};
use super::{cline, codebuddy, codex, copilot, factory, gemini, kimi, pi, qwen, serve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Feeds a client that reads its session from stdin: it gets the client's stdin, the lines
/// the client prints (as they come), the run's deadline and the client's process id (which
/// is also its process group's: the client and the hooks it runs), and returns when the
/// session is done; stdin is closed then, and the client ends.
pub type Driver = Box<dyn FnOnce(ChildStdin, &Receiver<String>, Instant, u32)>;

/// Default per-run timeout. Generous: two cores are shared with other builds.
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(180);

/// The omc-hooks binary cargo built for these tests.
pub fn omc_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_omc-hooks"))
}

/// One hook handler written into the client's configuration by the harness (the recorder,
/// [`AgentSandbox::record_hooks`]); `event` is the client's own event name.
#[derive(Clone, Debug)]
pub struct HookSpec {
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    /// Seconds (written as milliseconds for Gemini).
    pub timeout_s: u32,
}

impl HookSpec {
    pub fn new(event: &str, command: impl Into<String>) -> HookSpec {
        HookSpec {
            event: event.to_owned(),
            matcher: None,
            command: command.into(),
            timeout_s: 30,
        }
    }
    pub fn matcher(mut self, m: &str) -> HookSpec {
        self.matcher = Some(m.to_owned());
        self
    }
}

/// The events the recorder subscribes to for each pinned client: every event it was seen to
/// fire headless (the "Events and payloads" sections of tests/e2e/codex-FINDINGS.md,
/// gemini-FINDINGS.md and qwen-FINDINGS.md), plus the few it documents but did not fire there.
pub fn client_events(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Codex => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PreCompact",
            "PostCompact",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "SessionEnd",
            "PreModelRequest",
            "PostModelRequest",
            "StopFailure",
        ],
        Agent::Gemini => &[
            "SessionStart",
            "BeforeAgent",
            "BeforeModel",
            "BeforeToolSelection",
            "AfterModel",
            "BeforeTool",
            "AfterTool",
            "AfterAgent",
            "PreCompress",
            "Notification",
            "SessionEnd",
        ],
        // Our plugin's events (the rows of the agents' table): recorded by the plugin itself.
        Agent::OpenCode | Agent::Kilo => &[
            "session.created",
            "chat.message",
            "tool.execute.before",
            "tool.execute.after",
            "message.part.updated",
            "experimental.session.compacting",
            "session.compacted",
            "session.idle",
            "session.deleted",
        ],
        Agent::Pi => &[
            "session_start",
            "input",
            "tool_call",
            "tool_result",
            "session_before_compact",
            "session_compact",
            "agent_end",
            "session_shutdown",
        ],
        Agent::Qwen => &[
            "InstructionsLoaded",
            "SessionStart",
            "Notification",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "PostToolBatch",
            "MessageDisplay",
            "Stop",
            "StopFailure",
            "PreCompact",
            "PostCompact",
            "SubagentStart",
            "SubagentStop",
            "SessionEnd",
            "PermissionRequest",
        ],
        // Every file name Cline 3.0.65 looks for (its `PreCompact` file is never run).
        Agent::Cline => &[
            "TaskStart",
            "TaskResume",
            "TaskCancel",
            "TaskComplete",
            "TaskError",
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "PreCompact",
            "SessionShutdown",
        ],
        Agent::Kimi => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "Stop",
            "StopFailure",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "PostCompact",
            "Notification",
            "SessionEnd",
        ],
        // Pascal names only: the camelCase ones send another payload (copilot-FINDINGS.md §3).
        Agent::Copilot => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "Stop",
            "SessionEnd",
            "Notification",
            "ErrorOccurred",
        ],
        // The nine events of its settings schema (factory-FINDINGS.md §3).
        Agent::Factory => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Notification",
            "Stop",
            "SubagentStop",
            "PreCompact",
            "SessionEnd",
        ],
        Agent::CodeBuddy => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "Notification",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "SessionEnd",
        ],
    }
}

// ---------------------------------------------------------------- scenario ----

/// What a client's command line is built from: the sandbox, the prompt, the scenario and the
/// scripted model's URL.
#[derive(Clone, Copy)]
pub struct Launch<'a> {
    pub sb: &'a AgentSandbox,
    pub prompt: &'a str,
    pub sc: &'a AgentScenario,
    pub base_url: &'a str,
}

/// What the scripted model answers, plus per-run client settings.
#[derive(Clone, Debug)]
pub struct AgentScenario {
    pub steps: Vec<Step>,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
    pub timeout: Duration,
    pub default_text: Option<String>,
    /// Continue this client session (Codex `exec resume <id>`, Gemini/Qwen `--resume <id>`).
    pub resume: Option<String>,
    /// Start a session with this id (Gemini and Qwen `--session-id`; Codex has none).
    pub session_id: Option<String>,
    /// Codex: pass `--dangerously-bypass-hook-trust` (default). When false, hooks run only if
    /// trusted in config.toml (see [`AgentSandbox::trust_codex_hooks`]).
    pub bypass_hook_trust: bool,
    /// Input-token usage the model reports (forces compaction when large).
    pub prompt_tokens: Option<u64>,
    /// Report `prompt_tokens` in the first main-loop answer only.
    pub prompt_tokens_once: bool,
}

impl Default for AgentScenario {
    fn default() -> Self {
        AgentScenario {
            steps: Vec::new(),
            env: Vec::new(),
            args: Vec::new(),
            timeout: AGENT_TIMEOUT,
            default_text: None,
            resume: None,
            session_id: None,
            bypass_hook_trust: true,
            prompt_tokens: None,
            prompt_tokens_once: false,
        }
    }
}

impl AgentScenario {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn step(mut self, s: Step) -> Self {
        self.steps.push(s);
        self
    }
    pub fn reply_text(self, t: impl Into<String>) -> Self {
        self.step(Step::Text(t.into()))
    }
    /// One call of the client's tool `tool` with `input`.
    pub fn reply_call(self, tool: &str, input: serde_json::Value) -> Self {
        self.step(Step::Call(tool.into(), input))
    }
    /// One call of the client's shell tool.
    pub fn reply_shell(self, cmd: impl Into<String>) -> Self {
        self.step(Step::Shell(cmd.into()))
    }
    pub fn env(mut self, k: &str, v: impl Into<String>) -> Self {
        self.env.push((k.to_owned(), v.into()));
        self
    }
    pub fn arg(mut self, a: &str) -> Self {
        self.args.push(a.to_owned());
        self
    }
    pub fn timeout(mut self, d: Duration) -> Self {
        self.timeout = d;
        self
    }
    pub fn default_text(mut self, t: &str) -> Self {
        self.default_text = Some(t.to_owned());
        self
    }
    pub fn resume(mut self, id: &str) -> Self {
        self.resume = Some(id.to_owned());
        self
    }
    pub fn session_id(mut self, id: &str) -> Self {
        self.session_id = Some(id.to_owned());
        self
    }
    pub fn prompt_tokens(mut self, n: u64) -> Self {
        self.prompt_tokens = Some(n);
        self
    }
    /// [`prompt_tokens`](Self::prompt_tokens) in the first main-loop answer only.
    pub fn prompt_tokens_once(mut self, n: u64) -> Self {
        self.prompt_tokens = Some(n);
        self.prompt_tokens_once = true;
        self
    }
    pub fn trusted_hooks_only(mut self) -> Self {
        self.bypass_hook_trust = false;
        self
    }
}

// ----------------------------------------------------------------- sandbox ----

/// A [`Sandbox`] (project with `git init`, home, tmp) set up for one client.
pub struct AgentSandbox {
    pub agent: Agent,
    pub sb: Sandbox,
}

impl AgentSandbox {
    /// A fresh sandbox with the client's offline user settings written into its home.
    pub fn new(agent: Agent) -> AgentSandbox {
        let sb = Sandbox::new();
        let s = AgentSandbox { agent, sb };
        prepare(&s);
        s
    }

    /// The same sandbox (project, home, `.omc`) set up for `agent` as well: its offline user
    /// settings are written beside the other client's (each client has its own home directory),
    /// so a run can be started in one client and carried on in another.
    pub fn switch_to(self, agent: Agent) -> AgentSandbox {
        let s = AgentSandbox { agent, sb: self.sb };
        prepare(&s);
        s
    }

    pub fn root(&self) -> &Path {
        self.sb.root()
    }
    pub fn project(&self) -> PathBuf {
        self.sb.project()
    }
    pub fn home(&self) -> PathBuf {
        self.sb.home()
    }
    /// The client's own home (`CODEX_HOME`, `GEMINI_CLI_HOME/.gemini`, `QWEN_HOME`,
    /// `COPILOT_HOME`, `~/.factory`, `CODEBUDDY_CONFIG_DIR`, OpenCode's and Kilo Code's
    /// `~/.config/<name>`, `PI_CODING_AGENT_DIR`).
    pub fn client_home(&self) -> PathBuf {
        match self.agent {
            Agent::OpenCode | Agent::Kilo => self.home().join(".config").join(self.agent.name()),
            Agent::Pi => pi::agent_dir(self),
            _ => self.home().join(format!(".{}", self.agent.name())),
        }
    }
    pub fn write(&self, rel: &str, contents: &str) -> PathBuf {
        self.sb.write(rel, contents)
    }
    pub fn omc_dir(&self) -> PathBuf {
        self.project().join(".omc")
    }

    /// The project hook configuration file of this client (for Copilot, the one `install`
    /// writes among its hook files; for OpenCode, Kilo Code and Pi, the plugin file `install
    /// --agent` writes).
    pub fn hooks_file(&self) -> PathBuf {
        match self.agent {
            Agent::Codex => self.project().join(".codex/hooks.json"),
            Agent::Gemini => self.project().join(".gemini/settings.json"),
            Agent::Qwen => self.project().join(".qwen/settings.json"),
            Agent::Copilot => self.project().join(".github/hooks/omc-hooks.json"),
            Agent::Factory => self.project().join(".factory/settings.json"),
            Agent::CodeBuddy => self.project().join(".codebuddy/settings.json"),
            // A folder of one script per event.
            Agent::Cline => self.project().join(".clinerules/hooks"),
            // No project file: the user's config.toml.
            Agent::Kimi => self.client_home().join("config.toml"),
            Agent::OpenCode => self.project().join(".opencode/plugins/omc-hooks.js"),
            Agent::Kilo => self.project().join(".kilo/plugins/omc-hooks.js"),
            Agent::Pi => self.project().join(".pi/extensions/omc-hooks.js"),
        }
    }

    /// Writes `specs` as the project's hook configuration (replacing the file; for Copilot, a
    /// hook file of the harness's own beside the one `install` writes).
    pub fn write_hooks(&self, specs: &[HookSpec]) {
        match self.agent {
            Agent::Kimi => return kimi::write_hooks(self, specs),
            Agent::Cline => return cline::write_hooks(self, specs),
            _ => {}
        }
        let v = match self.agent {
            Agent::Codex => codex::hooks_json(specs),
            Agent::Gemini => gemini::hooks_json(specs),
            Agent::Qwen => qwen::hooks_json(specs),
            Agent::Copilot => copilot::hooks_json(specs),
            Agent::Factory => factory::hooks_json(specs),
            Agent::CodeBuddy => codebuddy::hooks_json(specs),
            Agent::Cline | Agent::Kimi => unreachable!(),
            a => panic!("{}: hooks come from our plugin, not a hooks file", a.name()),
        };
        let p = match self.agent {
            Agent::Copilot => self.project().join(".github/hooks/e2e-recorder.json"),
            _ => self.hooks_file(),
        };
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }

    /// Installs the recorder (`tests/e2e/recorder/record.sh <Event>`) on every event the client
    /// fires; payloads land in `$REC_DIR` (set it in the scenario). For the clients served by
    /// our plugin, the plugin itself with the recorder in place of the binary (its files are
    /// named by the hook subcommand: `stop`, `pre-tool-use`, …).
    pub fn record_hooks(&self) {
        if self.agent.via_plugin() {
            self.install_hooks();
            let script =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder/plugin-record.sh");
            self.set_plugin_bin(&script);
            return;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder/record.sh");
        let specs: Vec<HookSpec> = client_events(self.agent)
            .iter()
            .map(|ev| {
                let s = HookSpec::new(ev, format!("sh '{}' {ev}", script.display()));
                match *ev {
                    "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest"
                    | "BeforeTool" | "AfterTool" => s.matcher("*"),
                    _ => s,
                }
            })
            .collect();
        self.write_hooks(&specs);
    }

    /// Points the installed plugin at another program instead of this omc-hooks.
    pub fn set_plugin_bin(&self, program: &Path) {
        let file = self.hooks_file();
        let text = std::fs::read_to_string(&file).unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with("const CONFIG = "))
            .expect("a plugin file install wrote")
            .to_owned();
        let mut c: Value = serde_json::from_str(
            line.trim_start_matches("const CONFIG = ")
                .trim_end_matches(';'),
        )
        .unwrap();
        c["bin"] = json!(program);
        std::fs::write(&file, text.replace(&line, &format!("const CONFIG = {c};"))).unwrap();
    }

    /// The omc-hooks handlers in the project's hook configuration: (client event, subcommand).
    pub fn installed_omc_hooks(&self) -> Vec<(String, String)> {
        if self.agent.via_plugin() {
            let text = std::fs::read_to_string(self.hooks_file()).unwrap();
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix("const CONFIG = "))
                .expect("a plugin file install wrote");
            let c: Value = serde_json::from_str(line.trim_end_matches(';')).unwrap();
            return c["hooks"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(ev, v)| (ev.clone(), v[0].as_str().unwrap().to_owned()))
                .collect();
        }
        if matches!(self.agent, Agent::Kimi | Agent::Cline) {
            return self
                .installed_commands()
                .into_iter()
                .filter(|(_, cmd)| cmd.contains("omc-hooks"))
                .map(|(event, cmd)| {
                    let sub = cmd.split_whitespace().last().unwrap_or("").to_owned();
                    (event, sub)
                })
                .collect();
        }
        let v: Value = serde_json::from_str(&std::fs::read_to_string(self.hooks_file()).unwrap())
            .expect("the hook configuration is JSON");
        let mut out = Vec::new();
        for (event, groups) in v["hooks"].as_object().into_iter().flatten() {
            for g in groups.as_array().into_iter().flatten() {
                // Copilot's handlers sit directly under the event.
                let handlers = match g["hooks"].as_array() {
                    Some(hs) => hs.iter().collect::<Vec<_>>(),
                    None => vec![g],
                };
                for h in handlers {
                    let cmd = h["command"].as_str().unwrap_or("");
                    if cmd.contains("omc-hooks") {
                        let sub = cmd.split_whitespace().last().unwrap_or("").to_owned();
                        out.push((event.clone(), sub));
                    }
                }
            }
        }
        out
    }

    /// `omc-hooks install --agent <agent> --project <project>`: the configuration users get,
    /// from the installed binary under `OMC_E2E_INSTALLED_BIN` (say npm's launcher), else from
    /// the test build. Panics (with the command's output) when it fails.
    pub fn install_hooks(&self) -> std::process::Output {
        self.install_hooks_with(super::harness::installed_bin().unwrap_or(omc_bin()))
    }

    /// The same with the `omc-hooks` at `bin`, run as a person without Rust runs it (no cargo
    /// on PATH); every hook command written must run the omc-hooks binary itself, not a script.
    pub fn install_hooks_with(&self, bin: &Path) -> std::process::Output {
        let mut cmd = Command::new(bin);
        let mut dirs = Vec::new();
        if self.agent == Agent::Codex {
            // install reads `codex --version` to decide on the feature switch: the pinned one
            dirs.push(require(Agent::Codex).program.parent().unwrap().to_owned());
        }
        dirs.extend(std::env::split_paths(&super::harness::path_without_cargo()));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
        cmd.args(["install", "--agent", self.agent.name()]);
        if self.agent == Agent::Kimi {
            // Kimi reads hooks from the user's config.toml only.
            cmd.arg("--user");
        } else {
            cmd.arg("--project").arg(self.project());
        }
        let out = cmd
            .env("HOME", self.home())
            // install notes the project in the user's registry: the sandbox's, not ours
            .env("XDG_DATA_HOME", self.home().join(".local/share"))
            .env("CODEX_HOME", self.home().join(".codex"))
            .env("GEMINI_CLI_HOME", self.home())
            .env("QWEN_HOME", self.home().join(".qwen"))
            .env("COPILOT_HOME", self.home().join(".copilot"))
            .env("CODEBUDDY_CONFIG_DIR", self.home().join(".codebuddy"))
            .env("KIMI_SHARE_DIR", self.home().join(".kimi"))
            .env("CLINE_DIR", self.home().join(".cline"))
            .current_dir(self.project())
            .stdin(Stdio::null())
            .output()
            .expect("run omc-hooks install");
        assert!(
            out.status.success(),
            "{} install --agent {} failed ({}):\n{}\n{}",
            bin.display(),
            self.agent.name(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = match self.agent {
            // TOML tables, or a folder of scripts: their commands, in the JSON shape checked.
            Agent::Kimi | Agent::Cline => {
                let commands: Vec<Value> = self
                    .installed_commands()
                    .into_iter()
                    .map(|(_, c)| json!({ "command": c }))
                    .collect();
                json!({ "hooks": commands })
            }
            // Our plugin runs the binary its CONFIG line names, with `--agent NAME <hook>`.
            a if a.via_plugin() => {
                let text = std::fs::read_to_string(self.hooks_file()).unwrap();
                let line = text
                    .lines()
                    .find_map(|l| l.strip_prefix("const CONFIG = "))
                    .expect("the plugin's CONFIG line");
                let c: Value = serde_json::from_str(line.trim_end_matches(';')).unwrap();
                json!({"hooks": {"plugin": [{"command": format!("\"{}\" --agent {}",
                    c["bin"].as_str().unwrap(), a.name())}]}})
            }
            _ => {
                serde_json::from_str(&std::fs::read_to_string(self.hooks_file()).unwrap()).unwrap()
            }
        };
        super::harness::assert_commands_run_native(&v, &self.hooks_file());
        out
    }

    /// Claude Code's own install in the project, shared through git (`omc-hooks install
    /// --scope project`: `.claude/settings.json`), which some clients run too. Returns its
    /// output; panics when it fails.
    pub fn install_claude_project(&self) -> std::process::Output {
        let bin = super::harness::installed_bin().unwrap_or(omc_bin());
        let out = Command::new(bin)
            .args(["install", "--scope", "project"])
            .env("PATH", super::harness::path_without_cargo())
            .env("HOME", self.home())
            .env("XDG_DATA_HOME", self.home().join(".local/share"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_PROJECT_DIR")
            .current_dir(self.project())
            .stdin(Stdio::null())
            .output()
            .expect("run omc-hooks install");
        assert!(
            out.status.success(),
            "install --scope project failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(self.project().join(".claude/settings.json").is_file());
        out
    }

    /// (client event, command) of every hook of Kimi's `config.toml` or Cline's hooks folder.
    fn installed_commands(&self) -> Vec<(String, String)> {
        match self.agent {
            Agent::Kimi => kimi::hooks_in(&std::fs::read_to_string(self.hooks_file()).unwrap()),
            Agent::Cline => cline::hooks_in(&self.hooks_file())
                .into_iter()
                .map(|(e, c)| (e, c.trim_start_matches("exec ").to_owned()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Codex: pre-write `trusted_hash` entries for every handler of the project's
    /// `.codex/hooks.json` into `$CODEX_HOME/config.toml` (codex-FINDINGS.md §3), so that a run
    /// with [`AgentScenario::trusted_hooks_only`] fires them.
    pub fn trust_codex_hooks(&self) {
        assert_eq!(self.agent, Agent::Codex);
        codex::trust_hooks(self);
    }

    /// Runs the client's own command line `args` (e.g. `extensions link …`) outside a turn, with
    /// the sandbox's homes and the scrubbed environment of [`run`](Self::run), in the project;
    /// killed after [`AGENT_TIMEOUT`]. Returns (status, stdout, stderr).
    pub fn client_command(&self, args: &[&std::ffi::OsStr]) -> (ExitStatus, String, String) {
        let inst = require(self.agent);
        let mut cmd = Command::new(&inst.program);
        cmd.args(&inst.args).args(args);
        for (k, _) in std::env::vars_os() {
            if let Some(k) = k.to_str() {
                if scrub(k) {
                    cmd.env_remove(k);
                }
            }
        }
        let tmp = self.root().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        cmd.env("HOME", self.home())
            // the person's omc-hooks config (hooks.toml, config.json, trusted.json) is looked
            // for here, never in the developer's own
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("TMPDIR", &tmp)
            .env("NO_COLOR", "1")
            .current_dir(self.project());
        match self.agent {
            Agent::Codex => cmd.env("CODEX_HOME", self.client_home()),
            Agent::Gemini => cmd.env("GEMINI_CLI_HOME", self.home()),
            Agent::Qwen => cmd.env("QWEN_HOME", self.client_home()),
            Agent::Copilot => cmd
                .env("COPILOT_HOME", self.client_home())
                .env("XDG_CACHE_HOME", super::clients::cache_dir(Agent::Copilot)),
            Agent::Factory => &mut cmd,
            Agent::CodeBuddy => cmd.env("CODEBUDDY_CONFIG_DIR", self.client_home()),
            Agent::Cline => cmd.env("CLINE_DIR", self.client_home()),
            Agent::Kimi => cmd.env("KIMI_SHARE_DIR", self.client_home()),
            Agent::Pi => cmd.env("PI_CODING_AGENT_DIR", self.client_home()),
            Agent::OpenCode | Agent::Kilo => &mut cmd,
        };
        // no model is asked; the server only lends its request log to a timeout's panic
        let idle = ScriptedModel::start(wire_of(self.agent), Vec::new());
        let (status, stdout, stderr, _) =
            spawn_with_timeout(cmd, AGENT_TIMEOUT, self.agent, &idle, None);
        if self.agent == Agent::Cline {
            cline::reap_hub_daemons(self);
        }
        (status, stdout, stderr)
    }

    /// Runs the client once: `prompt`, answered by `scenario`'s script.
    pub fn run(&self, prompt: &str, scenario: AgentScenario) -> AgentRun {
        if self.agent.via_plugin() {
            return super::plugin_host::run(self, prompt, scenario);
        }
        let inst = require(self.agent);
        let model = Arc::new(ScriptedModel::start(
            wire_of(self.agent),
            scenario
                .steps
                .iter()
                .map(|s| as_client_calls(self.agent, s))
                .collect(),
        ));
        if let Some(t) = &scenario.default_text {
            model.set_default_text(t);
        }
        if let Some(n) = scenario.prompt_tokens {
            model.set_prompt_tokens(n);
        }
        let mut cmd = Command::new(&inst.program);
        cmd.args(&inst.args);
        let base_url = model.base_url();
        let l = Launch {
            sb: self,
            prompt,
            sc: &scenario,
            base_url: &base_url,
        };
        let args: fn(&mut Command, &Launch) = match self.agent {
            Agent::Codex => codex::args,
            Agent::Gemini => gemini::args,
            Agent::Qwen => qwen::args,
            Agent::Copilot => copilot::args,
            Agent::Factory => factory::args,
            Agent::CodeBuddy => codebuddy::args,
            Agent::Cline => cline::args,
            Agent::Kimi => kimi::args,
            _ => unreachable!("run through plugin_host"),
        };
        args(&mut cmd, &l);
        cmd.args(&scenario.args);
        for (k, _) in std::env::vars_os() {
            if let Some(k) = k.to_str() {
                if scrub(k) {
                    cmd.env_remove(k);
                }
            }
        }
        let tmp = self.root().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        cmd.env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("TMPDIR", &tmp);
        for (k, v) in &scenario.env {
            cmd.env(k, v);
        }
        cmd.current_dir(self.project());
        let driver = match self.agent {
            Agent::Factory => Some(factory::driver(self, prompt, &scenario)),
            Agent::CodeBuddy => Some(codebuddy::driver(self, prompt, Arc::clone(&model))),
            _ => None,
        };
        let (status, stdout, stderr, duration) =
            spawn_with_timeout(cmd, scenario.timeout, self.agent, &model, driver);
        if self.agent == Agent::Cline {
            cline::reap_hub_daemons(self);
        }
        let (result, session_id, result_text) = match self.agent {
            Agent::Codex => codex::parse_output(&stdout),
            Agent::Gemini => gemini::parse_output(&stdout),
            Agent::Qwen => qwen::parse_output(&stdout),
            Agent::Copilot => copilot::parse_output(&stdout),
            Agent::Factory => factory::parse_output(&stdout, &scenario),
            Agent::CodeBuddy => codebuddy::parse_output(&stdout),
            Agent::Cline => cline::parse_output(&stdout, &self.client_home()),
            Agent::Kimi => kimi::parse_output(&stdout, &stderr),
            _ => unreachable!("run through plugin_host"),
        };
        AgentRun {
            agent: self.agent,
            result,
            session_id,
            result_text,
            requests: model.requests(),
            project: self.project(),
            stdout,
            stderr,
            status,
            duration,
            unused_steps: model.remaining(),
        }
    }
}

/// The scripted model's wire for a client.
pub fn wire_of(agent: Agent) -> std::sync::Arc<dyn super::model::Wire> {
    match agent {
        Agent::Codex => codex::wire(),
        Agent::Gemini => gemini::wire(),
        Agent::Qwen => qwen::wire(),
        Agent::Cline => cline::wire(),
        Agent::Kimi => kimi::wire(),
        Agent::Copilot => copilot::wire(),
        Agent::Factory => factory::wire(),
        Agent::CodeBuddy => codebuddy::wire(),
        Agent::OpenCode | Agent::Kilo => serve::wire(),
        Agent::Pi => pi::wire(),
    }
}

/// The client's offline user settings (OpenCode, Kilo Code and Pi get theirs with each run).
fn prepare(s: &AgentSandbox) {
    match s.agent {
        Agent::Codex => codex::prepare(s),
        Agent::Gemini => gemini::prepare(s),
        Agent::Qwen => qwen::prepare(s),
        Agent::Cline => cline::prepare(s),
        Agent::Kimi => kimi::prepare(s),
        Agent::Copilot => copilot::prepare(s),
        Agent::Factory => factory::prepare(s),
        Agent::CodeBuddy => codebuddy::prepare(s),
        Agent::OpenCode | Agent::Kilo | Agent::Pi => {}
    }
}

/// A script step as the client's tools take it: the chat-completions wire answers
/// [`Step::Shell`] with Qwen's `run_shell_command`; Kimi's shell is `Shell {command}` and
/// Cline's `run_commands {commands}`.
fn as_client_calls(agent: Agent, step: &Step) -> Step {
    match (agent, step) {
        (Agent::Kimi, Step::Shell(cmd)) => kimi::shell_step(cmd),
        (Agent::Cline, Step::Shell(cmd)) => cline::shell_step(cmd),
        (_, Step::Parallel(calls)) => {
            Step::Parallel(calls.iter().map(|c| as_client_calls(agent, c)).collect())
        }
        (_, other) => other.clone(),
    }
}

/// Env vars a developer's shell or CI may carry that would change a client's behaviour.
pub(super) fn scrub(name: &str) -> bool {
    [
        "ANTHROPIC_",
        "CLAUDE",
        "OPENAI_",
        "CODEX_",
        "GEMINI_",
        "GOOGLE_",
        "VERTEX",
        "QWEN_",
        "DASHSCOPE_",
        "COPILOT_",
        "GH_",
        "GITHUB_",
        "FACTORY_",
        "DROID_",
        "CODEBUDDY_",
        "KIMI_",
        "CLINE_",
        "OPENCODE",
        "KILO_",
        "PI_",
        "OTEL_",
        "AWS_",
        "OMC_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || name == "DISABLE_OMC"
        || name == "NO_PROXY"
        || name.eq_ignore_ascii_case("http_proxy")
        || name.eq_ignore_ascii_case("https_proxy")
        || name.eq_ignore_ascii_case("all_proxy")
}

fn spawn_with_timeout(
    mut cmd: Command,
    timeout: Duration,
    agent: Agent,
    model: &ScriptedModel,
    driver: Option<Driver>,
) -> (ExitStatus, String, String, Duration) {
    use std::os::unix::process::CommandExt;
    cmd.stdin(if driver.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .process_group(0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn the {} client: {e}", agent.name()));
    let so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let (line_tx, line_rx) = std::sync::mpsc::channel::<String>();
    let t_out = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut s = String::new();
        for line in std::io::BufReader::new(so).lines() {
            let Ok(line) = line else { break };
            s.push_str(&line);
            s.push('\n');
            let _ = line_tx.send(line);
        }
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut se, &mut s);
        s
    });
    if let (Some(drive), Some(stdin)) = (driver, child.stdin.take()) {
        drive(stdin, &line_rx, start + timeout, child.id());
    }
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for the client") {
            break st;
        }
        if start.elapsed() > timeout {
            kill_group(child.id());
            let st = child.wait().unwrap();
            let stdout = t_out.join().unwrap_or_default();
            let stderr = t_err.join().unwrap_or_default();
            panic!(
                "{} run timed out after {timeout:?} (killed, {st})\nstdout:\n{stdout}\nstderr:\n{stderr}\nrequests:\n{}",
                agent.name(),
                describe(&model.requests())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let duration = start.elapsed();
    // hooks or helpers the client left behind must not outlive the run
    kill_group(child.id());
    (
        status,
        t_out.join().unwrap_or_default(),
        t_err.join().unwrap_or_default(),
        duration,
    )
}

fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

pub(super) fn describe(reqs: &[Recorded]) -> String {
    reqs.iter()
        .map(|r| {
            format!(
                "  #{} {} {} {:?} step={:?}\n    new: {:?}",
                r.seq,
                r.method,
                r.path,
                r.kind,
                r.step,
                truncate(&r.new_text(), 400)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

// --------------------------------------------------------------------- run ----

/// The outcome of one headless client run.
#[derive(Debug)]
pub struct AgentRun {
    pub agent: Agent,
    /// The client's JSON output (Codex: the JSONL events as an array).
    pub result: Value,
    /// The client's session id, from its output ("" when not found).
    pub session_id: String,
    /// The final answer text the client reported.
    pub result_text: String,
    /// Every HTTP request the client sent to the model server.
    pub requests: Vec<Recorded>,
    pub project: PathBuf,
    pub stdout: String,
    pub stderr: String,
    pub status: ExitStatus,
    pub duration: Duration,
    /// Script steps the client never asked for.
    pub unused_steps: usize,
}

impl AgentRun {
    /// Main-loop model calls, in arrival order.
    pub fn main_requests(&self) -> Vec<&Recorded> {
        self.requests
            .iter()
            .filter(|r| r.kind == Kind::Main)
            .collect()
    }
    pub fn compaction_requests(&self) -> Vec<&Recorded> {
        self.requests
            .iter()
            .filter(|r| r.kind == Kind::Compaction)
            .collect()
    }
    #[track_caller]
    fn main(&self, i: usize) -> &Recorded {
        let m = self.main_requests();
        m.get(i).copied().unwrap_or_else(|| {
            panic!(
                "no main-loop request #{i} (only {})\n{}",
                m.len(),
                self.diagnostics()
            )
        })
    }
    /// Everything but the model's own turns in main request `i`.
    #[track_caller]
    pub fn shown_text(&self, i: usize) -> String {
        self.main(i).shown_text()
    }
    /// What is new in main request `i` (after the model's last turn).
    #[track_caller]
    pub fn new_text(&self, i: usize) -> String {
        self.main(i).new_text()
    }
    /// The last user message of main request `i`.
    #[track_caller]
    pub fn last_user_text(&self, i: usize) -> String {
        self.main(i).last_user_text()
    }
    /// Tool results new in main request `i`.
    #[track_caller]
    pub fn tool_outputs_of(&self, i: usize) -> Vec<String> {
        self.main(i).tool_outputs()
    }
    /// Shown text of every main request, joined.
    pub fn all_shown_text(&self) -> String {
        self.main_requests()
            .iter()
            .map(|r| r.shown_text())
            .collect::<Vec<_>>()
            .join("\n")
    }
    pub fn omc_dir(&self) -> PathBuf {
        self.project.join(".omc")
    }
    /// Panics with diagnostics unless the client exited 0.
    #[track_caller]
    pub fn assert_success(&self) {
        if !self.status.success() {
            panic!("{} run failed: {}", self.agent.name(), self.diagnostics());
        }
    }
    pub fn diagnostics(&self) -> String {
        format!(
            "{} status={} duration={:?} session={:?}\nstdout:\n{}\nstderr:\n{}\nrequests:\n{}",
            self.agent.name(),
            self.status,
            self.duration,
            self.session_id,
            truncate(&self.stdout, 6000),
            truncate(&self.stderr, 6000),
            describe(&self.requests)
        )
    }
}

/// Parses a JSON document, or failing that the last JSON line of `stdout`.
pub(super) fn parse_json_output(stdout: &str) -> Value {
    if let Ok(v) = serde_json::from_str::<Value>(stdout.trim()) {
        return v;
    }
    stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v.is_object() || v.is_array())
        .unwrap_or(Value::Null)
}

/// Every JSON line of a client's output, in order.
pub(super) fn parse_jsonl(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .collect()
}

/// The hook-handler list of one `HookSpec` in the Claude-shaped configuration most share.
pub(super) fn grouped(specs: &[HookSpec], handler: impl Fn(&HookSpec) -> Value) -> Value {
    let mut hooks = serde_json::Map::new();
    for s in specs {
        let mut group = json!({"hooks": [handler(s)]});
        if let Some(m) = &s.matcher {
            group["matcher"] = json!(m);
        }
        hooks
            .entry(s.event.clone())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(group);
    }
    Value::Object(hooks)
}
