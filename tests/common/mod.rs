//! The test builder: a throw-away project, a payload, environment switches, and assertions on
//! the answer and the state files.
//!
//! ```ignore
//! Hook::new("stop").project(&p).payload(json!({..})).run().expect_block("[RALPH");
//! ```

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_omc-hooks");

/// Puts the test binary at `to`, ready to be run at once. A plain `fs::copy` is not: while the
/// copy is open for writing, a process another test thread forks inherits that descriptor
/// until it execs, and running the copy meanwhile fails with ETXTBSY ("Text file busy"; the
/// install test did so under load). A hard link has no descriptor open for writing at all, so
/// `to` should be on the binary's file system ([`binary_scratch_dir`]); elsewhere the copy is
/// made and [`output_retrying`] waits the window out.
pub fn place_binary(to: &Path) {
    if std::fs::hard_link(BIN, to).is_err() {
        std::fs::copy(BIN, to).unwrap();
    }
}

/// A temporary directory on the test binary's file system (beside it), for [`place_binary`].
pub fn binary_scratch_dir() -> tempfile::TempDir {
    let dir = Path::new(BIN).parent().unwrap();
    tempfile::Builder::new()
        .prefix("omc-moved-bin-")
        .tempdir_in(dir)
        .unwrap()
}

/// `cmd.output()`, tried again while the program cannot be run because another process still
/// holds it open for writing (ETXTBSY, see [`place_binary`]), for at most 10 s.
pub fn output_retrying(cmd: &mut Command) -> std::process::Output {
    let started = Instant::now();
    loop {
        match cmd.output() {
            Err(e)
                if e.raw_os_error() == Some(26) && started.elapsed() < Duration::from_secs(10) =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
}

/// A throw-away project directory with a `.git` marker.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join(".git")).expect(".git");
        Project { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn omc(&self) -> PathBuf {
        self.path().join(".omc")
    }

    pub fn session_dir(&self, sid: &str) -> PathBuf {
        self.omc().join("state/sessions").join(sid)
    }

    /// Writes a JSON file relative to the project.
    /// Writes `name` in the project's `.omc` (made if missing) with `contents`.
    pub fn write_omc(&self, name: &str, contents: impl AsRef<[u8]>) {
        std::fs::create_dir_all(self.omc()).unwrap();
        std::fs::write(self.omc().join(name), contents).unwrap();
    }

    pub fn write_json(&self, rel: &str, value: &Value) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    }

    /// Reads a JSON file relative to the project, if present.
    pub fn read_json(&self, rel: &str) -> Option<Value> {
        let bytes = std::fs::read(self.path().join(rel)).ok()?;
        Some(serde_json::from_slice(&bytes).expect("state file is valid JSON"))
    }

    /// Every file under the project (relative paths), `.git` excluded.
    /// No file of the project answers `is` (the files are shown when one does).
    #[track_caller]
    pub fn assert_no_file(&self, is: impl Fn(&str) -> bool) {
        let files = self.files();
        assert!(!files.iter().any(|f| is(f)), "{files:?}");
    }

    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(self.path(), self.path(), &mut out);
        out.sort();
        out
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        if rel == ".git" {
            continue;
        }
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            walk(base, &p, out);
        } else {
            out.push(rel);
        }
    }
}

/// One invocation of a hook subcommand.
pub struct Hook {
    args: Vec<String>,
    stdin: Vec<u8>,
    env: Vec<(String, String)>,
    cwd: Option<PathBuf>,
    close_stdin: bool,
}

/// What a hook process did.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// This test process's `XDG_STATE_HOME` (projects differ by path, so tests share it).
pub fn test_state_home() -> String {
    static DIR: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("omc-tests-state-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.display().to_string()
    })
    .clone()
}

impl Hook {
    pub fn new(sub: &str) -> Hook {
        Hook::args(&[sub])
    }

    /// An invocation with these arguments (a subcommand and anything after it, or none).
    pub fn args(args: &[&str]) -> Hook {
        Hook {
            args: args.iter().map(|a| a.to_string()).collect(),
            stdin: Vec::new(),
            // No user hooks.toml of the developer's may run in a test (tests that want one
            // point XDG_CONFIG_HOME at their own directory).
            env: vec![
                ("OMC_NOW_MS".into(), "1796305500000".into()),
                (
                    "XDG_CONFIG_HOME".into(),
                    "/nonexistent/omc-hooks-tests".into(),
                ),
                // Session starts of projects without `.omc/` are kept in the user's state
                // directory: one private to this test process, never the developer's.
                ("XDG_STATE_HOME".into(), test_state_home()),
            ],
            cwd: None,
            close_stdin: true,
        }
    }

    /// Runs the hook as installed for another agent: `omc-hooks --agent NAME <sub>`.
    pub fn agent(mut self, name: &str) -> Hook {
        self.args
            .splice(0..0, ["--agent".to_string(), name.to_string()]);
        self
    }

    pub fn payload(mut self, v: Value) -> Hook {
        self.stdin = serde_json::to_vec(&v).unwrap();
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Hook {
        self.stdin = bytes.into();
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Hook {
        self.env.retain(|(key, _)| key != k);
        self.env.push((k.into(), v.into()));
        self
    }

    pub fn now(self, ms: i64) -> Hook {
        self.env("OMC_NOW_MS", &ms.to_string())
    }

    pub fn cwd(mut self, dir: &Path) -> Hook {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    /// Keeps stdin open after writing the payload (a client that never closes it).
    pub fn keep_stdin_open(mut self) -> Hook {
        self.close_stdin = false;
        self
    }

    #[track_caller]
    pub fn run(self) -> Outcome {
        let mut cmd = hook_command();
        cmd.args(&self.args)
            // The terminal a session runs in is recorded: the tests' own is not theirs.
            .env_remove("TERM_PROGRAM")
            .env_remove("TMUX")
            .env("OMC_TTY", "");
        for (name, _) in omc_hooks::env::TERMINAL_LOCATORS {
            cmd.env_remove(name);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        let started = Instant::now();
        let mut child = cmd.spawn().expect("spawn omc-hooks");
        let mut stdin = child.stdin.take().unwrap();
        let data = self.stdin.clone();
        let keep_open = !self.close_stdin;
        let writer = std::thread::spawn(move || {
            // The hook may stop reading early (size cap); a broken pipe is expected then.
            let _ = stdin.write_all(&data);
            if keep_open {
                std::thread::sleep(Duration::from_secs(20));
            }
            drop(stdin);
        });
        let out = child.wait_with_output().expect("wait");
        let elapsed = started.elapsed();
        if self.close_stdin {
            let _ = writer.join();
        }
        Outcome {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed,
        }
    }
}

impl Outcome {
    /// Exit 0 and stdout is empty or exactly one JSON object and a newline.
    #[track_caller]
    pub fn expect_valid(&self) -> &Outcome {
        assert_eq!(self.code, Some(0), "exit code; stderr: {}", self.stderr);
        if !self.stdout.is_empty() {
            assert!(
                self.stdout.ends_with('\n'),
                "stdout must end with a newline"
            );
            let body = self.stdout.trim_end_matches('\n');
            assert!(!body.contains('\n'), "one line of JSON: {body}");
            let v: Value = serde_json::from_str(body).expect("stdout is JSON");
            assert!(v.is_object(), "stdout is a JSON object: {body}");
        }
        self
    }

    #[track_caller]
    pub fn expect_noop(&self) -> &Outcome {
        self.expect_valid();
        assert_eq!(
            self.stdout, "",
            "expected no output; stderr: {}",
            self.stderr
        );
        self
    }

    pub fn json(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(self.stdout.trim()).expect("stdout is JSON")
    }

    /// The `systemMessage` (what the person is shown), or "" when absent.
    pub fn system_message(&self) -> String {
        self.json()["systemMessage"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// The `additionalContext`, or "" when absent.
    pub fn context(&self) -> String {
        self.json()["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    #[track_caller]
    pub fn expect_block(&self, needle: &str) -> &Outcome {
        self.expect_valid();
        let v = self.json();
        assert_eq!(v["decision"], "block", "expected a block, got {v}");
        assert!(
            v.get("continue").is_none(),
            "a block never carries continue"
        );
        let reason = v["reason"].as_str().unwrap_or("");
        assert!(reason.contains(needle), "reason lacks {needle:?}: {reason}");
        self
    }

    #[track_caller]
    pub fn expect_context(&self, needle: &str) -> &Outcome {
        self.expect_valid();
        let ctx = self.context();
        assert!(
            ctx.contains(needle),
            "context lacks {needle:?}: {ctx}\nstderr: {}",
            self.stderr
        );
        self
    }
}

/// A minimal payload of `event` for a session in `project`.
pub fn payload(event: &str, sid: &str, project: &Path) -> Value {
    json!({
        "session_id": sid,
        "transcript_path": project.join("transcript.jsonl"),
        "cwd": project,
        "hook_event_name": event,
        "permission_mode": "default",
    })
}

/// The recorded fixtures from the real client: (file name, payload).
pub fn fixtures() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code");
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") {
                let v: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap())
                    .unwrap_or_else(|err| panic!("fixture {name}: {err}"));
                out.push((name, v));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The hook subcommands and their events, read from the shipped manifest.
pub fn manifest_hooks() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let cmd = h["command"].as_str().unwrap();
                out.push((
                    event.clone(),
                    cmd.split_whitespace().last().unwrap().to_string(),
                ));
            }
        }
    }
    out
}

/// Runs the binary with `args` at a pseudo-terminal (util-linux `script`), as a person would:
/// (exit code, everything it printed).
pub fn at_terminal(args: &[&str]) -> (i32, String) {
    let line = std::iter::once(BIN)
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script (to run at a pseudo-terminal)");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// What `dist` publishes for `target`, in `dir`: `omc-hooks-<target>.tar.xz` holding
/// `omc-hooks-<target>/omc-hooks` (the file at `binary`, executable) and its `.sha256` file —
/// the input of `packaging/plugin-bundle.sh` and `packaging/npm-pack.sh --archives`. For a
/// Windows target, as dist makes it there: `omc-hooks-<target>.zip` holding `omc-hooks.exe`.
pub fn release_archive(dir: &Path, target: &str, binary: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let windows = target.contains("-windows-");
    let stage = dir.join(format!("omc-hooks-{target}"));
    std::fs::create_dir_all(&stage).unwrap();
    let bin = stage.join(if windows {
        "omc-hooks.exe"
    } else {
        "omc-hooks"
    });
    std::fs::copy(binary, &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let archive = if windows {
        let archive = format!("omc-hooks-{target}.zip");
        let st = Command::new("zip")
            .args(["-q", "-X", &format!("../{archive}"), "omc-hooks.exe"])
            .current_dir(&stage)
            .status()
            .expect("zip (to make a Windows release archive)");
        assert!(st.success());
        archive
    } else {
        let archive = format!("omc-hooks-{target}.tar.xz");
        let st = Command::new("tar")
            .args(["-cJf", &archive, &format!("omc-hooks-{target}")])
            .env("XZ_OPT", "-0")
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(st.success());
        archive
    };
    std::fs::remove_dir_all(&stage).unwrap();
    let sum = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(dir)
        .output()
        .unwrap();
    std::fs::write(dir.join(format!("{archive}.sha256")), sum.stdout).unwrap();
}

/// The binary with piped stdio and none of the switches a test's own environment may hold
/// (`CLAUDE_PROJECT_DIR`, `OMC_STATE_DIR`, `DISABLE_OMC`, `OMC_SKIP_HOOKS`, `OMC_TEAM_WORKER`).
pub fn hook_command() -> Command {
    let mut cmd = without_switches();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The binary without the switches a test's own environment may hold (see `hook_command`).
fn without_switches() -> Command {
    let mut cmd = Command::new(BIN);
    for switch in [
        "CLAUDE_PROJECT_DIR",
        "OMC_STATE_DIR",
        "DISABLE_OMC",
        "OMC_SKIP_HOOKS",
        "OMC_TEAM_WORKER",
    ] {
        cmd.env_remove(switch);
    }
    cmd
}

/// The binary run by a person in `dir` (a command, not a hook): without the switches a test's
/// own environment may hold; the caller adds its arguments and environment.
pub fn command_in(dir: impl AsRef<Path>) -> Command {
    let mut cmd = without_switches();
    cmd.current_dir(dir);
    cmd
}

/// Runs `cmd` with `stdin` written to it and closed; its output.
pub fn output_with_stdin(cmd: &mut Command, stdin: &[u8]) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// The command exited 0; its stderr is the failure's message otherwise.
#[track_caller]
pub fn assert_exit_ok(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A finished command's (exit code, stdout, stderr); -1 when a signal ended it.
pub fn code_out_err(out: &std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The person's configuration directory (`XDG_CONFIG_HOME`) for hooks run as that person.
pub struct PersonConfig {
    dir: tempfile::TempDir,
    home: String,
}

impl PersonConfig {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The environment a hook run as this person gets.
    pub fn env(&self) -> [(&str, &str); 1] {
        [("XDG_CONFIG_HOME", self.home.as_str())]
    }
}

/// Writes `config` as the project's `.omc/config.json` and trusts it as the person does with
/// `trust --yes` (its verify commands are used only then, issue 41); returns the person's
/// configuration directory that holds the trust.
pub fn trusted_verify(p: &Project, config: &Value) -> PersonConfig {
    p.write_json(".omc/config.json", config);
    let dir = tempfile::tempdir().unwrap();
    trust_as_person(p.path(), dir.path());
    let home = dir.path().to_string_lossy().into_owned();
    PersonConfig { dir, home }
}

/// Trusts the project's `.omc/hooks.toml` and the verify commands of its `.omc/config.json` as
/// a person's own script does (`omc-hooks trust --yes`, none of the variables that say an
/// agent's model runs it), recording the trust under `config_home` — the `XDG_CONFIG_HOME`
/// the test then gives the hooks.
#[track_caller]
pub fn trust_as_person(project: &Path, config_home: &Path) {
    let mut cmd = Command::new(BIN);
    cmd.args(["trust", "--yes"])
        .current_dir(project)
        .env("XDG_CONFIG_HOME", config_home)
        .env("HOME", config_home)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR");
    for var in crate::user_hooks::AGENT_MARKERS {
        cmd.env_remove(var);
    }
    let out = cmd.output().unwrap();
    assert_exit_ok(&out);
}

/// Asserts that `text` contains `needle`, showing both when it does not.
#[track_caller]
pub fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} is not in: {text}");
}

/// Asserts that `text` does not contain `needle`, showing both when it does.
#[track_caller]
pub fn assert_lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "{needle:?} is in: {text}");
}
