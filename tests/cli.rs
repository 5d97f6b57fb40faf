//! The commands for people — install/uninstall, status, cancel, doctor — driven through the
//! real binary with HOME, CLAUDE_CONFIG_DIR and PATH pointed at throw-away directories and the
//! working directory in a throw-away project.

use crate::common::assert_has;
use crate::common::{BIN, Project};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) const NOW: i64 = 1_796_305_500_000;
pub(crate) const MIN: i64 = 60_000;

fn iso(ms: i64) -> String {
    omc_hooks::time::iso(ms)
}

/// A project, a home directory and an empty PATH directory, all temporary.
pub(crate) struct World {
    pub(crate) project: Project,
    pub(crate) home: tempfile::TempDir,
    pub(crate) path_dir: tempfile::TempDir,
    pub(crate) config_dir: Option<PathBuf>,
}

pub(crate) struct Out {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl World {
    pub(crate) fn new() -> World {
        World {
            project: Project::new(),
            home: tempfile::tempdir().unwrap(),
            path_dir: tempfile::tempdir().unwrap(),
            config_dir: None,
        }
    }

    pub(crate) fn p(&self) -> &Path {
        self.project.path()
    }

    pub(crate) fn project_settings(&self) -> PathBuf {
        self.p().join(".claude/settings.json")
    }

    pub(crate) fn user_settings(&self) -> PathBuf {
        match &self.config_dir {
            Some(d) => d.join("settings.json"),
            None => self.home.path().join(".claude/settings.json"),
        }
    }

    #[track_caller]
    pub(crate) fn run_in(&self, cwd: &Path, args: &[&str]) -> Out {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .current_dir(cwd)
            .env("HOME", self.home.path())
            .env("PATH", self.path_dir.path())
            .env("OMC_NOW_MS", NOW.to_string())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("OMC_STATE_DIR")
            .env_remove("DISABLE_OMC")
            .env_remove("OMC_SKIP_HOOKS")
            .env_remove("XDG_DATA_HOME");
        if let Some(d) = &self.config_dir {
            cmd.env("CLAUDE_CONFIG_DIR", d);
        }
        let out = cmd.output().expect("run omc-hooks");
        Out {
            code: out.status.code().expect("exit code"),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    #[track_caller]
    pub(crate) fn run(&self, args: &[&str]) -> Out {
        self.run_in(self.p(), args)
    }

    /// Seeds a state file under `.omc/state/sessions/<sid>/` (or `.omc/state/` for `None`).
    pub(crate) fn seed(&self, sid: Option<&str>, name: &str, v: Value) {
        let rel = match sid {
            Some(s) => format!(".omc/state/sessions/{s}/{name}"),
            None => format!(".omc/state/{name}"),
        };
        self.project.write_json(&rel, &v);
    }

    pub(crate) fn state(&self, sid: &str, name: &str) -> Value {
        self.project
            .read_json(&format!(".omc/state/sessions/{sid}/{name}"))
            .unwrap_or(Value::Null)
    }
}

impl Out {
    #[track_caller]
    pub(crate) fn ok(&self) -> &Out {
        assert_eq!(
            self.code, 0,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub(crate) fn code(&self, code: i32) -> &Out {
        assert_eq!(
            self.code, code,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
}

pub(crate) fn this_binary() -> String {
    Path::new(BIN)
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The `"<binary>" <sub>` commands our entries carry, per event, read from a settings value.
pub(crate) fn our_commands(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().into_iter().flatten() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let c = h["command"].as_str().unwrap_or("");
                if c.contains("omc-hooks\" ") {
                    out.push((event.clone(), c.to_string()));
                }
            }
        }
    }
    out.sort();
    out
}

pub(crate) fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

// ---------------------------------------------------------------- status

pub(crate) fn ralph(sid: &str, started: i64, checked: i64, iteration: u32) -> Value {
    json!({
        "schema_version": 1, "mode": "ralph", "active": true, "session_id": sid,
        "prompt": "fix the flaky tests", "started_at": iso(started),
        "last_checked_at": iso(checked), "iteration": iteration, "max_iterations": 100
    })
}

fn seed_busy_project(w: &World) {
    w.seed(
        Some("s1"),
        "ralph-state.json",
        ralph("s1", NOW - 30 * MIN, NOW - 10 * MIN, 3),
    );
    let guards = json!({"schema_version": 1, "session_id": "s1", "stack": [
        {"skill_name": "plan", "level": "medium", "started_at": iso(NOW - 5 * MIN),
         "expires_at": iso(NOW + 10 * MIN), "stale_ttl_ms": 15 * MIN,
         "reinforcement_count": 2, "max_reinforcements": 5}]});
    assert_valid("skill-active-state", &guards);
    w.seed(Some("s1"), "skill-active-state.json", guards);
    w.seed(
        Some("s1"),
        "last-tool-error.json",
        json!({"tool_name": "Bash", "error": "npm ERR! missing script: tset",
               "retry_count": 3, "timestamp": iso(NOW - 2 * MIN)}),
    );
    w.seed(
        Some("s2"),
        "autopilot-state.json",
        json!({"schema_version": 1, "mode": "autopilot", "active": true, "session_id": "s2",
               "prompt": "build the CLI", "started_at": iso(NOW - 200 * MIN),
               "last_checked_at": iso(NOW - 150 * MIN), "iteration": 4, "max_iterations": 30,
               "suspended_at": iso(NOW - 150 * MIN)}),
    );
    // An empty session shows nothing; an ended run only in the list of recent ends, with its
    // reason (issue 34).
    w.seed(
        Some("s3"),
        "ultrawork-state.json",
        json!({"schema_version": 1, "mode": "ultrawork", "active": false, "prompt": "x",
               "started_at": iso(NOW - 60 * MIN), "iteration": 2, "max_iterations": 50,
               "ended_reason": "completed", "ended_at": iso(NOW - 50 * MIN)}),
    );
    std::fs::create_dir_all(w.project.session_dir("s4")).unwrap();
}

#[test]
fn status_on_an_empty_project_says_so() {
    let w = World::new();
    let out = w.run(&["status"]);
    out.ok();
    assert_eq!(
        out.stdout,
        format!("No active runs in {}.\n", w.p().display())
    );
    let out = w.run(&["status", "--json"]);
    out.ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["active"], false);
    assert_eq!(v["sessions"], json!([]));
    assert!(!w.project.omc().exists(), "status must not create .omc");
}

#[test]
fn status_shows_modes_guards_failures_and_suspended_runs() {
    let w = World::new();
    seed_busy_project(&w);
    let out = w.run(&["status"]);
    out.ok();
    let t = &out.stdout;
    assert_has(t, "session s1");
    assert_has(t, "session s2");
    assert!(
        !t.lines().any(|l| l.starts_with("session s3")) && !t.contains("session s4"),
        "{t}"
    );
    let ended = t
        .split_once("Ended in the last 24 h:\n")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("no recent ends:\n{t}"));
    let first = ended.lines().next().unwrap();
    assert!(first.trim_start().starts_with("ultrawork"), "{t}");
    assert!(first.contains("iter 2/50"), "{t}");
    assert!(first.contains("ended 50m 00s ago"), "{t}");
    assert!(first.contains("completed (not verified)"), "{t}");
    assert!(first.contains("(session s3)"), "{t}");
    let line = |needle: &str| {
        t.lines()
            .find(|l| l.trim_start().starts_with(needle))
            .unwrap_or_else(|| panic!("no line starting with {needle:?}:\n{t}"))
            .to_string()
    };
    let r = line("ralph");
    for part in [
        "iter 3/100",
        "started 30m 00s ago",
        "stale in 1h 50m",
        "\"fix the flaky tests\"",
    ] {
        assert!(r.contains(part), "{part:?} in {r:?}");
    }
    let g = line("skill guard");
    for part in [
        "plan (medium)",
        "10m 00s left",
        "3 of 5 reinforcements left",
    ] {
        assert!(g.contains(part), "{part:?} in {g:?}");
    }
    let f = line("last failure");
    assert_has(
        &f,
        "Bash failed 3× (last 2m 00s ago): npm ERR! missing script: tset",
    );
    let s = line("suspended");
    for part in ["autopilot", "iter 4/30", "\"build the CLI\""] {
        assert!(s.contains(part), "{part:?} in {s:?}");
    }
    // Nothing was changed by looking.
    assert_eq!(
        w.state("s1", "ralph-state.json"),
        ralph("s1", NOW - 30 * MIN, NOW - 10 * MIN, 3)
    );

    let out = w.run(&["status", "--json"]);
    out.ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["active"], true);
    assert_eq!(v["project"], w.p().to_str().unwrap());
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    let s1 = &sessions[0];
    assert_eq!(s1["session_id"], "s1");
    let m = &s1["modes"][0];
    assert_eq!(m["mode"], "ralph");
    assert_eq!(m["iteration"], 3);
    assert_eq!(m["max_iterations"], 100);
    assert_eq!(m["age_ms"], 30 * MIN);
    assert_eq!(m["stale"], false);
    assert_eq!(m["stale_in_ms"], 110 * MIN);
    let g = &s1["skill_guards"][0];
    assert_eq!(g["skill"], "plan");
    assert_eq!(g["expires_in_ms"], 10 * MIN);
    assert_eq!(g["reinforcements_left"], 3);
    assert_eq!(s1["last_failure"]["retry_count"], 3);
    assert_eq!(s1["last_failure"]["age_ms"], 2 * MIN);
    let s2 = &sessions[1];
    assert_eq!(s2["session_id"], "s2");
    assert_eq!(s2["modes"], json!([]));
    assert_eq!(s2["suspended"][0]["mode"], "autopilot");
}

#[test]
fn status_marks_stale_runs_and_expired_guards() {
    let w = World::new();
    w.seed(
        Some("old"),
        "ralph-state.json",
        ralph("old", NOW - 300 * MIN, NOW - 121 * MIN, 9),
    );
    w.seed(
        Some("old"),
        "skill-active-state.json",
        json!({"stack": [{"skill": "deep-interview", "expires_at": iso(NOW - MIN)}]}),
    );
    let out = w.run(&["status"]);
    out.ok();
    assert!(
        out.stdout.contains("STALE (ignored by Stop)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("expired"), "{}", out.stdout);
    let v: Value = serde_json::from_str(&w.run(&["status", "--json"]).stdout).unwrap();
    assert_eq!(v["active"], false);
    assert_eq!(v["sessions"][0]["modes"][0]["stale"], true);
    assert_eq!(v["sessions"][0]["modes"][0]["stale_in_ms"], 0);
    assert_eq!(v["sessions"][0]["skill_guards"][0]["expired"], true);
    w.run(&["status", "--yaml"]).code(2);
    // A state file that does not parse is named, and left where it is.
    std::fs::write(
        w.project.session_dir("old").join("team-state.json"),
        "{oops",
    )
    .unwrap();
    let out = w.run(&["status"]);
    out.ok();
    assert!(
        out.stdout.contains("unreadable   team-state.json"),
        "{}",
        out.stdout
    );
    assert!(
        w.project
            .session_dir("old")
            .join("team-state.json")
            .exists()
    );
}

// ---------------------------------------------------------------- cancel

#[track_caller]
fn assert_cancelled(w: &World, sid: &str, mode: &str) {
    let v = w.state(sid, &format!("{mode}-state.json"));
    assert_eq!(v["active"], false, "{v}");
    assert_eq!(v["ended_reason"], "cancelled", "{v}");
    assert_eq!(v["ended_at"], iso(NOW));
    assert_valid("mode-state", &v);
}

#[test]
fn cancel_with_one_active_session_cancels_it() {
    let w = World::new();
    w.seed(
        Some("only"),
        "ralph-state.json",
        ralph("only", NOW - MIN, NOW - MIN, 2),
    );
    w.seed(
        Some("only"),
        "skill-active-state.json",
        json!({"stack": [{"skill": "plan"}]}),
    );
    w.seed(
        Some("done"),
        "ultrawork-state.json",
        json!({"schema_version": 1, "mode": "ultrawork", "active": false, "prompt": "",
               "started_at": iso(NOW), "iteration": 1, "max_iterations": 5}),
    );
    let out = w.run(&["cancel"]);
    out.ok();
    assert_eq!(
        out.stdout,
        "Cancelled in session only: ralph; skill guards released.\n"
    );
    assert_cancelled(&w, "only", "ralph");
    assert!(
        !w.project
            .session_dir("only")
            .join("skill-active-state.json")
            .exists()
    );
    let out = w.run(&["cancel"]);
    out.ok();
    assert!(
        out.stdout.starts_with("Nothing to cancel"),
        "{}",
        out.stdout
    );
}

#[test]
fn cancel_with_several_sessions_asks_which() {
    let w = World::new();
    w.seed(
        Some("a1"),
        "ralph-state.json",
        ralph("a1", NOW - MIN, NOW - MIN, 2),
    );
    w.seed(
        Some("b2"),
        "ralph-state.json",
        ralph("b2", NOW - MIN, NOW - MIN, 5),
    );
    let out = w.run(&["cancel"]);
    out.code(1);
    assert!(
        out.stderr.contains("2 sessions have something active"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--session ID") && out.stderr.contains("--all"));
    assert!(out.stderr.contains("a1") && out.stderr.contains("b2"));
    assert_eq!(w.state("a1", "ralph-state.json")["active"], true);
    assert_eq!(w.state("b2", "ralph-state.json")["active"], true);

    let out = w.run(&["cancel", "--session", "b2"]);
    out.ok();
    assert_eq!(out.stdout, "Cancelled in session b2: ralph.\n");
    assert_cancelled(&w, "b2", "ralph");
    assert_eq!(w.state("a1", "ralph-state.json")["active"], true);
}

#[test]
fn cancel_all_reaches_every_session_and_the_session_less_state() {
    let w = World::new();
    w.seed(
        Some("a1"),
        "ralph-state.json",
        ralph("a1", NOW - MIN, NOW - MIN, 2),
    );
    w.seed(
        Some("b2"),
        "ultrawork-state.json",
        json!({"schema_version": 1, "mode": "ultrawork", "active": true, "prompt": "go",
               "started_at": iso(NOW), "iteration": 1, "max_iterations": 50}),
    );
    w.seed(None, "autopilot-state.json", {
        let mut v = ralph("x", NOW, NOW, 1);
        v["mode"] = json!("autopilot");
        v.as_object_mut().unwrap().remove("session_id");
        v
    });
    let out = w.run(&["cancel", "--all"]);
    out.ok();
    assert!(
        out.stdout
            .contains("Cancelled in no session (session-less state): autopilot."),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Cancelled in session a1: ralph."));
    assert!(out.stdout.contains("Cancelled in session b2: ultrawork."));
    assert_cancelled(&w, "a1", "ralph");
    assert_cancelled(&w, "b2", "ultrawork");
    let g = w
        .project
        .read_json(".omc/state/autopilot-state.json")
        .unwrap();
    assert_eq!(g["ended_reason"], "cancelled");
    let out = w.run(&["cancel", "--all"]);
    out.ok();
    assert!(
        out.stdout.starts_with("Nothing to cancel"),
        "{}",
        out.stdout
    );
}

#[test]
fn cancel_refuses_bad_and_unknown_sessions() {
    let w = World::new();
    w.seed(Some("a1"), "ralph-state.json", ralph("a1", NOW, NOW, 1));
    let out = w.run(&["cancel", "--session", "../../etc"]);
    out.code(1);
    assert!(out.stderr.contains("is not a session id"), "{}", out.stderr);
    let out = w.run(&["cancel", "--session", "nope"]);
    out.code(1);
    assert!(out.stderr.contains("no session 'nope'"), "{}", out.stderr);
    w.run(&["cancel", "--all", "--session", "a1"]).code(2);
    w.run(&["cancel", "a1"]).code(2);
    assert_eq!(w.state("a1", "ralph-state.json")["active"], true);
}

// ---------------------------------------------------------------- doctor

/// A fake `claude` on PATH that prints a version.
pub(crate) fn fake_claude(w: &World, body: &str) {
    let p = w.path_dir.path().join("claude");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn doctor_is_happy_with_a_fresh_install() {
    let w = World::new();
    fake_claude(&w, "echo '2.1.999 (Claude Code)'");
    w.run(&["install"]).ok();
    w.seed(
        Some("s1"),
        "ralph-state.json",
        ralph("s1", NOW - MIN, NOW - MIN, 1),
    );
    let out = w.run(&["doctor"]);
    out.ok();
    let t = &out.stdout;
    assert_has(t, &format!("omc-hooks {}", env!("CARGO_PKG_VERSION")));
    assert_has(t, "installed, 14 of 14 hooks");
    assert_has(t, &format!("{} (ok)", this_binary()));
    assert_has(t, "2.1.999 (Claude Code)");
    assert_has(t, "1 session(s), 1 active run(s), 0 corrupt file(s)");
    assert_has(t, "No problems found.");
}

#[test]
fn doctor_finds_a_corrupt_file_and_a_broken_install() {
    let w = World::new();
    // A broken user install: the binary it names is gone.
    std::fs::create_dir_all(w.home.path().join(".claude")).unwrap();
    let mut v = json!({});
    for (event, sub) in crate::common::manifest_hooks() {
        v["hooks"][event] = json!([{"hooks": [
            {"type": "command", "command": format!("\"/gone/bin/omc-hooks\" {sub}")}]}]);
    }
    std::fs::write(w.user_settings(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    // A corrupt state file moved aside by a hook, an orphan temp file, a stale run, a lock.
    let dir = w.project.session_dir("s1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ralph-state.json.corrupt-20261202T000000000Z"),
        "{oops",
    )
    .unwrap();
    std::fs::write(dir.join(".ralph-state.json.lock"), "").unwrap();
    let tmp = std::fs::File::create(dir.join(".tmp-abc123")).unwrap();
    tmp.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    w.seed(
        Some("s2"),
        "ralph-state.json",
        ralph("s2", NOW - 300 * MIN, NOW - 200 * MIN, 4),
    );

    let out = w.run(&["doctor"]);
    out.code(1);
    let t = &out.stdout;
    assert_has(t, "/gone/bin/omc-hooks (MISSING)");
    assert_has(t, "which is not an existing executable");
    assert_has(t, "fix: run 'omc-hooks install --user'");
    assert_has(t, "ralph-state.json.corrupt-20261202T000000000Z");
    assert_has(t, ".tmp-abc123");
    assert_has(t, "session s2 has a stale ralph run");
    assert_has(t, "fix: end it: omc-hooks cancel --session s2");
    assert!(!t.contains(".lock"), "lock files are fine: {t}");
    assert_has(t, "4 problems found");
    assert_has(t, "not found on PATH");
    // Doctor changes nothing.
    assert!(
        dir.join("ralph-state.json.corrupt-20261202T000000000Z")
            .exists()
    );
    assert_eq!(w.state("s2", "ralph-state.json")["active"], true);
}

/// Hook entries that run a script named omc-hooks (npm's Node.js launcher, found on PATH by an
/// earlier `install --use-path`): every hook would start it first. A problem, with the fix.
#[test]
fn doctor_reports_hooks_that_run_a_script() {
    let w = World::new();
    fake_claude(&w, "echo '2.1.999 (Claude Code)'");
    let launcher = w.path_dir.path().join("omc-hooks");
    std::fs::write(&launcher, "#!/usr/bin/env node\nrequire('./x')\n").unwrap();
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(w.home.path().join(".claude")).unwrap();
    let mut v = json!({});
    for (event, sub) in crate::common::manifest_hooks() {
        v["hooks"][event] = json!([{"hooks": [
            {"type": "command", "command": format!("omc-hooks {sub}")}]}]);
    }
    std::fs::write(w.user_settings(), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = w.run(&["doctor"]);
    out.code(1);
    let t = &out.stdout;
    assert_has(t, "omc-hooks (a script)");
    assert_has(t, "a script that every hook starts before omc-hooks");
    assert_has(t, "without --use-path");
}

#[test]
fn doctor_reports_an_unreadable_settings_file_and_a_hung_claude() {
    let w = World::new();
    fake_claude(&w, "exec /bin/sleep 30");
    std::fs::create_dir_all(w.p().join(".claude")).unwrap();
    std::fs::write(w.project_settings(), "{ nope").unwrap();
    let started = std::time::Instant::now();
    let out = w.run(&["doctor"]);
    out.code(1);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(25),
        "claude --version must time out"
    );
    assert!(out.stdout.contains("not valid JSON"), "{}", out.stdout);
    assert!(out.stdout.contains("did not answer"), "{}", out.stdout);
    w.run(&["doctor", "--fix"]).code(2);
}

// ---------------------------------------------------------------- help

#[test]
fn every_command_has_help_and_unknown_ones_fail() {
    let w = World::new();
    for cmd in [
        "install",
        "uninstall",
        "status",
        "cancel",
        "doctor",
        "manifest",
    ] {
        let a = w.run(&["help", cmd]);
        a.ok();
        assert!(
            a.stdout.starts_with(&format!("Usage: omc-hooks {cmd}")),
            "{}",
            a.stdout
        );
        let b = w.run(&[cmd, "--help"]);
        b.ok();
        assert_eq!(a.stdout, b.stdout);
        assert!(w.run(&["help"]).stdout.contains(&format!("  {cmd} ")));
    }
    for (_, sub) in crate::common::manifest_hooks() {
        let out = w.run(&["help", &sub]);
        out.ok();
        assert!(out.stdout.starts_with(&format!("Usage: omc-hooks {sub}")));
    }
    // At a terminal an unknown command is a usage error; as a hook (stdin not a terminal) it
    // is a one-line no-op with exit 0 (see wire::unknown_subcommand_is_an_error_for_people_not_a_hook).
    let (code, text) = crate::common::at_terminal(&["frobnicate"]);
    assert_eq!(code, 2, "{text}");
    assert_has(&text, "unknown command 'frobnicate'");
    let out = w.run(&["frobnicate"]);
    out.code(0);
    assert!(
        out.stderr.contains("unknown subcommand 'frobnicate'"),
        "{}",
        out.stderr
    );
    // `help help` explains help; a help request into a closed pipe is quiet.
    let out = w.run(&["help", "help"]);
    out.ok();
    assert!(
        out.stdout.starts_with("Usage: omc-hooks help [command]"),
        "{}",
        out.stdout
    );
}

#[test]
fn help_into_a_closed_pipe_does_not_panic() {
    // `omc-hooks status --help | head -0`: the reader is gone before the help is written.
    for args in [
        vec!["status", "--help"],
        vec!["help"],
        vec!["--version"],
        vec!["help", "status"],
        vec!["manifest"],
    ] {
        // A pipe whose read end is already closed, as `head -0` leaves it: every write fails
        // with EPIPE, deterministically.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The same through a real shell pipeline.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{BIN}' status --help | head -0"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
}

/// Where build.rs laid the hooks' functions out together (`link/hot-functions.txt`), the list
/// still names the executable's functions: a list gone stale costs every hook its speed
/// silently, so it fails here instead. Symbol names carry a hash of the crate's build, which
/// changes with a new toolchain and with any change of the dependencies or their features
/// (Cargo.toml, Cargo.lock), besides renamed functions. `python3 benches/hot_functions.py`
/// writes the list anew.
#[cfg(target_os = "linux")]
#[test]
fn the_hot_function_list_names_the_executables_functions() {
    if option_env!("OMC_BUILD_ORDERED") != Some("1") {
        return; // not linked with the list (another linker, another target): nothing to check
    }
    let list = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/link/hot-functions.txt"
    ))
    .unwrap();
    let nm = std::process::Command::new("nm")
        .arg(BIN)
        .output()
        .expect("nm (binutils)");
    assert!(
        nm.status.success(),
        "nm {BIN}: {}",
        String::from_utf8_lossy(&nm.stderr)
    );
    let symbols: std::collections::HashSet<&str> = std::str::from_utf8(&nm.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let listed: std::collections::HashSet<&str> = list.lines().collect();
    // The list holds the names of two builds (the release and the bench profiles: the same
    // code, other symbol hashes), so this executable has only some of them; the functions
    // every hook runs must be among those it has.
    let every_hook_runs = ["9omc_hooks8dispatch8run_hook17h", "9omc_hooks3cli3run17h"];
    for part in every_hook_runs {
        let ours: Vec<&&str> = symbols.iter().filter(|s| s.contains(part)).collect();
        assert!(!ours.is_empty(), "no symbol of {part} in {BIN}");
        assert!(
            ours.iter().all(|s| listed.contains(**s)),
            "{ours:?} are not in link/hot-functions.txt: the list is stale; run \
             `python3 benches/hot_functions.py`"
        );
    }
}

/// The executable is linked the way build.rs says it linked it: static (no program
/// interpreter, not position-independent: nothing to relocate at start-up) where the build
/// could, or a static PIE when asked (`OMC_STATIC_PIE=1`), else dynamic.
#[cfg(target_os = "linux")]
#[test]
fn the_executable_is_linked_as_the_build_says() {
    let elf = std::fs::read(BIN).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[32..40].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(54), u16_at(56));
    const ET_DYN: usize = 3;
    const PT_INTERP: u32 = 3;
    let pie = u16_at(16) == ET_DYN;
    let interpreter = (0..count).any(|i| {
        let at = phoff + i * size;
        u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) == PT_INTERP
    });
    match env!("OMC_BUILD_LINKAGE") {
        "static" => assert!(!pie && !interpreter, "pie {pie}, interpreter {interpreter}"),
        "static-pie" => assert!(pie && !interpreter, "pie {pie}, interpreter {interpreter}"),
        "dynamic" => assert!(interpreter, "a dynamic executable names its interpreter"),
        other => assert_eq!(other, "default"),
    }
    // Its relative relocations packed (`DT_RELR` in its dynamic section) where build.rs
    // found that the linkers and the C library support it (issue 44).
    if option_env!("OMC_BUILD_RELR") == Some("1") {
        const PT_DYNAMIC: u32 = 2;
        const DT_RELR: u64 = 36;
        let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
        let dynamic = (0..count)
            .map(|i| phoff + i * size)
            .find(|at| u32::from_le_bytes(elf[*at..*at + 4].try_into().unwrap()) == PT_DYNAMIC)
            .expect("a dynamic section");
        let (offset, len) = (u64_at(dynamic + 8) as usize, u64_at(dynamic + 32) as usize);
        let tags: Vec<u64> = (offset..offset + len).step_by(16).map(u64_at).collect();
        assert!(tags.contains(&DT_RELR), "no DT_RELR among {tags:?}");
    }
}
