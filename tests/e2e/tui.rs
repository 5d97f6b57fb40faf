//! The real client in its interactive terminal UI, inside a private tmux server.
//!
//! Some of Claude Code only exists in the TUI — the status line command is never run by
//! `claude -p`. This drives the same pinned binary as [`super::harness`], offline against the
//! same [`ModelServer`], in a detached tmux pane: keys are typed with `send-keys`, the screen is
//! read with `capture-pane`. The sandbox's `~/.claude.json` is seeded so that no first-run
//! dialog (onboarding, folder trust, "use this API key?") waits for an answer.
//!
//! ```ignore
//! let tui = Tui::start(&sb, Some(plugin_dir()), &settings, &[("NO_COLOR", "1")]);
//! tui.wait_for("the prompt", |s| s.contains("❯"), Duration::from_secs(60));
//! tui.type_line("ralph fix the tests");
//! ```
//!
//! Needs `tmux` on PATH; without it the test fails loudly (e2e tests never skip).

use super::harness::{Sandbox, client_bin};
use super::server::ModelServer;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Pane size: wide enough that nothing the tests look for wraps.
const COLUMNS: u32 = 160;
const ROWS: u32 = 45;

/// One interactive client session. The tmux server (and with it the client) is killed on drop.
pub struct Tui {
    socket: String,
    pub server: ModelServer,
}

impl Tui {
    /// Starts the client in `sb`'s project with `settings` as its user settings
    /// (`~/.claude/settings.json`), `plugin` as `--plugin-dir`, and `env` added to the
    /// harness's offline environment. The model server answers every turn with its default
    /// text until told otherwise through [`Tui::server`].
    pub fn start(
        sb: &Sandbox,
        plugin: Option<&Path>,
        settings: &Value,
        env: &[(&str, &str)],
    ) -> Tui {
        let bin = client_bin();
        let tmux_ok = Command::new("tmux")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            tmux_ok,
            "E2E: the TUI tests need tmux on PATH (apt-get install tmux)"
        );
        let server = ModelServer::start(Vec::new());
        let project = sb.project().canonicalize().unwrap();
        let home = sb.home();
        let tmp = sb.root().join("tmp");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        std::fs::write(
            home.join(".claude/settings.json"),
            serde_json::to_vec_pretty(settings).unwrap(),
        )
        .unwrap();
        // First-run answers: onboarding done, this folder trusted, the key "test" approved
        // (the client stores the key's last 20 characters).
        let mut projects = serde_json::Map::new();
        projects.insert(
            project.to_string_lossy().into_owned(),
            json!({"hasTrustDialogAccepted": true}),
        );
        std::fs::write(
            home.join(".claude.json"),
            serde_json::to_vec_pretty(&json!({
                "hasCompletedOnboarding": true,
                "customApiKeyResponses": {"approved": ["test"], "rejected": []},
                "projects": projects,
            }))
            .unwrap(),
        )
        .unwrap();

        // The pane runs a script with a clean environment: nothing from the test process
        // (ANTHROPIC_*, CLAUDE*, a developer's NO_COLOR) reaches the client by accident.
        let mut vars: Vec<(String, String)> = vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), home.to_string_lossy().into_owned()),
            ("TMPDIR".into(), tmp.to_string_lossy().into_owned()),
            ("TERM".into(), "xterm-256color".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("ANTHROPIC_BASE_URL".into(), server.base_url()),
            ("ANTHROPIC_API_KEY".into(), "test".into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("IS_SANDBOX".into(), "1".into()),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
        ];
        vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let mut script = String::from("#!/bin/sh\nexec env -i");
        for (k, v) in &vars {
            script.push_str(&format!(" {}={}", k, shell_quote(v)));
        }
        script.push_str(&format!(" {}", shell_quote(&bin.to_string_lossy())));
        if let Some(p) = plugin {
            script.push_str(&format!(
                " --plugin-dir {}",
                shell_quote(&p.to_string_lossy())
            ));
        }
        script.push('\n');
        let run = sb.root().join("run-tui.sh");
        std::fs::write(&run, script).unwrap();

        let socket = format!(
            "omc-e2e-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let tui = Tui { socket, server };
        let started = tui
            .tmux()
            .args(["new-session", "-d", "-s", "e2e", "-x"])
            .arg(COLUMNS.to_string())
            .arg("-y")
            .arg(ROWS.to_string())
            .arg("-c")
            .arg(&project)
            .arg(format!("sh {}", shell_quote(&run.to_string_lossy())))
            .status()
            .expect("run tmux");
        assert!(started.success(), "tmux new-session failed");
        tui
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c.stdin(Stdio::null());
        c
    }

    /// The visible screen as text (no escape sequences).
    pub fn screen(&self) -> String {
        self.capture(false)
    }

    /// The visible screen with its escape sequences (colours).
    pub fn screen_ansi(&self) -> String {
        self.capture(true)
    }

    fn capture(&self, ansi: bool) -> String {
        let mut c = self.tmux();
        c.args(["capture-pane", "-p", "-t", "e2e"]);
        if ansi {
            c.arg("-e");
        }
        let out = c.output().expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        let ok = self
            .tmux()
            .args(["send-keys", "-t", "e2e", "-l", text])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux send-keys failed");
        // Let the input box take the text before Enter submits it.
        std::thread::sleep(Duration::from_millis(300));
        let ok = self
            .tmux()
            .args(["send-keys", "-t", "e2e", "Enter"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux send-keys Enter failed");
    }

    /// Polls the screen until `done` holds, and returns that screen; panics with the screen
    /// after `timeout`.
    pub fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if done(&s) {
                return s;
            }
            if start.elapsed() > timeout {
                panic!("TUI: waited {timeout:?} for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self
            .tmux()
            .arg("kill-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
