//! User hooks (`hooks.toml`) through the real binary: script hooks, synchronous webhooks
//! against loopback servers, trust of a project file, `doctor` and the schemas.

mod config;
mod context;
mod http;
mod permission;
mod scripts;
mod trust;
mod verify;
mod webhooks;

use crate::common::{self, BIN, Hook, Outcome, Project};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const SID: &str = "uh-session-1";

/// The variables that say an agent's model runs a command (`src/cli/trust.rs`).
pub const AGENT_MARKERS: &[&str] = &[
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "GEMINI_CLI",
    "QWEN_CODE",
    "QWEN_CODE_SESSION_ID",
    "COPILOT_CLI",
    "COPILOT_AGENT_SESSION_ID",
    "CODEBUDDY",
    "CODEBUDDY_SESSION_ID",
    "FACTORY_DISABLE_SETTINGS_PERSISTENCE",
    "CLINE_CONNECTOR_CLI_LAUNCH",
    "CURSOR_AGENT",
    "KILO",
    "OPENCODE",
    "PI_CODING_AGENT",
    "AI_AGENT",
];

/// A project and a user config directory of its own (`XDG_CONFIG_HOME`).
pub struct Setup {
    pub project: Project,
    pub config: tempfile::TempDir,
}

impl Setup {
    pub fn new() -> Setup {
        Setup {
            project: Project::new(),
            config: tempfile::tempdir().unwrap(),
        }
    }

    pub fn root(&self) -> &Path {
        self.project.path()
    }

    /// The user's hooks.toml (runs without trust).
    pub fn user_hooks(&self, text: &str) {
        let dir = self.config.path().join("omc-hooks");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hooks.toml"), text).unwrap();
    }

    /// The project's `.omc/hooks.toml` (runs only once trusted).
    pub fn project_hooks(&self, text: &str) -> PathBuf {
        std::fs::create_dir_all(self.project.omc()).unwrap();
        let p = self.project.omc().join("hooks.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn hook(&self, sub: &str) -> Hook {
        Hook::new(sub)
            .env("XDG_CONFIG_HOME", &self.config.path().to_string_lossy())
            .env("HOME", &self.config.path().to_string_lossy())
            .cwd(self.root())
    }

    /// Runs hook `sub` for `event` with `extra` payload fields.
    pub fn run(&self, sub: &str, event: &str, extra: Value) -> Outcome {
        self.run_with(sub, event, extra, &[])
    }

    /// `run` with the variables `env` set for the hook.
    pub fn run_with(&self, sub: &str, event: &str, extra: Value, env: &[(&str, &str)]) -> Outcome {
        let mut p = common::payload(event, SID, self.root());
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        let mut hook = self.hook(sub).payload(p);
        for (k, v) in env {
            hook = hook.env(k, v);
        }
        let out = hook.run();
        out.expect_valid();
        out
    }

    pub fn bash(&self, command: &str) -> Outcome {
        self.bash_with(command, &[])
    }

    /// `bash` with the variables `env` set for the hook.
    pub fn bash_with(&self, command: &str, env: &[(&str, &str)]) -> Outcome {
        self.run_with(
            "pre-tool-use",
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
            env,
        )
    }

    /// Runs a human command with this setup's config directory; returns (code, stdout, stderr).
    /// As a person runs it: none of the variables that say an agent's model runs it.
    pub fn cli(&self, args: &[&str]) -> (i32, String, String) {
        self.cli_with(args, &[])
    }

    /// [`Setup::cli`] with extra environment variables.
    pub fn cli_with(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .current_dir(self.root())
            .env("XDG_CONFIG_HOME", self.config.path())
            .env("HOME", self.config.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("OMC_STATE_DIR")
            .env("PATH", "/usr/bin:/bin");
        for var in AGENT_MARKERS {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        crate::common::code_out_err(&out)
    }

    /// Trusts the project's file as a person does at their terminal: `trust --yes` typed into
    /// an interactive shell (a script's `--yes` without a terminal is refused while a session
    /// of the project had a hook in the last minutes, as the tests' sessions have).
    pub fn trust(&self) {
        let (code, out) = self.at_terminal(&format!("'{BIN}' trust --yes"), "", &[]);
        assert_eq!(code, 0, "trust: {out}");
    }

    /// A person at a pseudo-terminal (util-linux `script`, `sh -i` leading its session, `HOME`
    /// and `TERM` set) types `line` and then `answer` at the prompt: (exit code of `line`,
    /// everything shown). `env` is added to the shell's environment.
    pub fn at_terminal(&self, line: &str, answer: &str, env: &[(&str, &str)]) -> (i32, String) {
        use std::io::Write;
        let mut cmd = Command::new("script");
        cmd.args(["-qe", "/dev/null"])
            .current_dir(self.root())
            .env("XDG_CONFIG_HOME", self.config.path())
            .env("HOME", self.config.path())
            .env("USER", "alice")
            .env("SHELL", "/bin/sh")
            .env("TERM", "xterm")
            .env("PATH", "/usr/bin:/bin")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("OMC_STATE_DIR")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        for var in AGENT_MARKERS {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("util-linux script");
        let mut stdin = child.stdin.take().unwrap();
        let answer = if answer.is_empty() {
            String::new()
        } else {
            format!("{answer}\n")
        };
        stdin
            .write_all(format!("{line}; exit $?\n{answer}").as_bytes())
            .unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// The deny reason of a PreToolUse answer, if it denied.
pub fn denied(out: &Outcome) -> Option<String> {
    let v = out.json();
    (v["hookSpecificOutput"]["permissionDecision"] == "deny").then(|| {
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_string()
    })
}

/// Lines of stderr that are ours.
pub fn diags(out: &Outcome) -> Vec<String> {
    out.stderr
        .lines()
        .filter(|l| l.starts_with("omc-hooks:"))
        .map(str::to_string)
        .collect()
}

/// A TOML basic string.
pub fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}
