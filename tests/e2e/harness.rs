//! Drive the real Claude Code client (pinned version) offline against the
//! scripted [`ModelServer`](super::server::ModelServer).
//!
//! ```ignore
//! let sb = Sandbox::new();                       // project (git init) + HOME
//! let run = sb.claude(plugin_dir(), "do it",
//!     Scenario::new()
//!         .reply_tool("Bash", json!({"command": "ls"}))
//!         .reply_text("all done"),
//!     None);
//! run.assert_success();
//! assert!(run.shown_text(1).contains("hook additional context: ..."));
//! let again = sb.claude(plugin_dir(), "more", Scenario::new(), Some(&run.session_id));
//! ```
//!
//! The client is installed once into `$CARGO_MANIFEST_DIR/target/e2e-client`
//! (override: `OMC_E2E_CLIENT_DIR`; or point `OMC_E2E_CLAUDE_BIN` at an
//! existing `claude` binary of the pinned version). Installation is guarded
//! by an in-process `OnceLock` and a cross-process file lock. If the client
//! cannot be installed the harness panics: e2e tests never skip silently.
//!
//! Set `OMC_E2E_KEEP=1` to keep sandboxes (paths are printed) for debugging.
//!
//! `OMC_E2E_INSTALLED_BIN=/abs/path/omc-hooks` runs the suite against an installed binary
//! (CI: the one `cargo install --path . --root <tmp>` made): wherever a scenario would load
//! [`plugin_dir`](super::plugin::plugin_dir), that binary's `omc-hooks install` writes the hooks
//! into the sandbox project's `.claude/settings.local.json` instead (HOME is the sandbox's), and
//! `--plugin-dir` gets [`commands_only_plugin`]: the plugin's slash commands without its hooks,
//! so every hook that fires is the installed binary's, once.

#![allow(dead_code)]

pub use super::server::{ModelServer, Recorded, Reply};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The pinned client version.
pub const CLIENT_VERSION: &str = "2.1.332";
pub const CLIENT_PACKAGE: &str = "@anthropic-ai/claude-code";

/// Default per-run timeout (the client is killed after it).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

// ------------------------------------------------------------ install ----

/// Path of the pinned `claude` binary, installing it on first use.
pub fn client_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(install_client)
}

fn version_ok(bin: &Path) -> Result<(), String> {
    let out = Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let v = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && v.trim_start().starts_with(CLIENT_VERSION) {
        Ok(())
    } else {
        Err(format!(
            "{} --version gave {:?} (stderr {:?}), want {CLIENT_VERSION}",
            bin.display(),
            v.trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn install_client() -> PathBuf {
    if let Ok(b) = std::env::var("OMC_E2E_CLAUDE_BIN") {
        let b = PathBuf::from(b);
        if let Err(e) = version_ok(&b) {
            panic!("OMC_E2E_CLAUDE_BIN unusable: {e}");
        }
        return b;
    }
    let dir = std::env::var_os("OMC_E2E_CLIENT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target")
                .join("e2e-client")
        });
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let pkg = dir.join("node_modules").join(CLIENT_PACKAGE);
    let bin = pkg.join("bin").join("claude.exe");

    // cross-process lock: parallel test binaries / cargo invocations
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".install.lock"))
        .expect("open install lock");
    lock.lock().expect("lock e2e client install dir");

    if version_ok(&bin).is_ok() {
        return bin;
    }
    let spec = format!("{CLIENT_PACKAGE}@{CLIENT_VERSION}");
    eprintln!("[e2e] installing {spec} into {} ...", dir.display());
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&dir)
        .arg(&spec)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("E2E: cannot run npm (is Node.js/npm installed?): {e}"));
    if !out.status.success() {
        panic!(
            "E2E: `npm install --prefix {} {spec}` failed ({}):\n{}\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // npm may skip the postinstall script; it copies the native binary for
    // this platform over the bin/claude.exe placeholder. Idempotent.
    let out = Command::new("node")
        .arg("install.cjs")
        .current_dir(&pkg)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("E2E: cannot run node install.cjs: {e}"));
    if !out.status.success() {
        panic!(
            "E2E: `node install.cjs` in {} failed ({}):\n{}\n{}",
            pkg.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if let Err(e) = version_ok(&bin) {
        panic!("E2E: client installed but unusable: {e}");
    }
    bin
}

// ----------------------------------------------------------- sandbox ----

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A throw-away `root/` with `root/project` (a git repository) and
/// `root/home` (the client's HOME) and `root/tmp` (its TMPDIR). Removed on drop unless `OMC_E2E_KEEP`
/// is set.
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let root = std::env::temp_dir().join(format!(
            "omc-e2e-{}-{}-{nanos:x}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let project = root.join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .stdin(Stdio::null())
            .status();
        if !matches!(git, Ok(s) if s.success()) {
            // good enough for the client's project-root detection
            std::fs::create_dir_all(project.join(".git")).unwrap();
        }
        if std::env::var_os("OMC_E2E_KEEP").is_some() {
            eprintln!("[e2e] sandbox kept at {}", root.display());
        }
        Sandbox { root }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn project(&self) -> PathBuf {
        self.root.join("project")
    }
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// Write a file relative to the project (parents created).
    pub fn write(&self, rel: &str, contents: &str) -> PathBuf {
        let p = self.project().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, contents).unwrap();
        p
    }

    /// Run the client in this sandbox with omc-hooks' plugin, in a new session whose id is
    /// `sid` (`--session-id`).
    pub fn claude_in_session(&self, sid: &str, prompt: &str, scenario: Scenario) -> Run {
        self.claude(
            super::plugin_dir(),
            prompt,
            scenario.arg("--session-id").arg(sid),
            None,
        )
    }

    /// Run the client in this sandbox. See [`claude`].
    pub fn claude(
        &self,
        plugin_dir: &Path,
        prompt: &str,
        scenario: Scenario,
        resume: Option<&str>,
    ) -> Run {
        claude_in(
            plugin_dir,
            &self.project(),
            &self.home(),
            prompt,
            scenario,
            resume,
        )
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if std::env::var_os("OMC_E2E_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

// ---------------------------------------------------------- scenario ----

/// What the scripted model will answer, plus per-run client settings.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub replies: Vec<Reply>,
    pub subagent_replies: Vec<Reply>,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
    pub timeout: Duration,
    pub default_text: Option<String>,
    pub plugin: bool,
    /// `usage.input_tokens` every answer reports (default 10; output is 5 tokens a call).
    pub input_tokens: Option<u64>,
    /// Run without `--dangerously-skip-permissions`, so the client's permission rules (and
    /// its PermissionRequest hook) decide each call.
    pub ask_permissions: bool,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            replies: Vec::new(),
            subagent_replies: Vec::new(),
            env: Vec::new(),
            args: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            default_text: None,
            plugin: true,
            input_tokens: None,
            ask_permissions: false,
        }
    }
}

impl Scenario {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn reply(mut self, r: Reply) -> Self {
        self.replies.push(r);
        self
    }
    /// A text turn (`end_turn`).
    pub fn reply_text(self, t: impl Into<String>) -> Self {
        self.reply(Reply::Text(t.into()))
    }
    /// One tool call (`tool_use`).
    pub fn reply_tool(self, name: &str, input: Value) -> Self {
        self.reply(Reply::ToolUse(vec![(name.to_owned(), input)]))
    }
    /// Several tool calls in one assistant turn.
    pub fn reply_tools(self, calls: Vec<(&str, Value)>) -> Self {
        self.reply(Reply::ToolUse(
            calls.into_iter().map(|(n, v)| (n.to_owned(), v)).collect(),
        ))
    }
    /// A reply for subagent requests (one queue shared by all subagents;
    /// unscripted subagent turns answer "subagent done").
    pub fn subagent_reply(mut self, r: Reply) -> Self {
        self.subagent_replies.push(r);
        self
    }
    pub fn subagent_text(self, t: impl Into<String>) -> Self {
        self.subagent_reply(Reply::Text(t.into()))
    }
    pub fn subagent_tool(self, name: &str, input: Value) -> Self {
        self.subagent_reply(Reply::ToolUse(vec![(name.to_owned(), input)]))
    }
    /// Extra environment variable for the client (and so for its hooks).
    pub fn env(mut self, k: &str, v: impl Into<String>) -> Self {
        self.env.push((k.to_owned(), v.into()));
        self
    }
    /// Extra command-line argument for the client.
    /// See [`Scenario::ask_permissions`].
    pub fn ask_permissions(mut self) -> Self {
        self.ask_permissions = true;
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
    /// Text answered when the script is exhausted (default "done").
    pub fn default_text(mut self, t: &str) -> Self {
        self.default_text = Some(t.to_owned());
        self
    }
    /// Every answer reports `n` input tokens in its usage (the `message_start` event of a
    /// streamed answer, the `usage` of a plain one): what the client records per message in its
    /// transcript. Large values make the client compact; 30 000 is 15 % of its window.
    pub fn input_tokens(mut self, n: u64) -> Self {
        self.input_tokens = Some(n);
        self
    }
    /// Do not pass `--plugin-dir` (baseline runs without hooks).
    pub fn without_plugin(mut self) -> Self {
        self.plugin = false;
        self
    }
}

// --------------------------------------------------------------- run ----

/// The outcome of one `claude -p` invocation.
#[derive(Debug)]
pub struct Run {
    /// The client's `--output-format json` result object (`Null` if stdout
    /// was not JSON).
    pub result: Value,
    pub session_id: String,
    /// Every HTTP request the client sent to the model server.
    pub requests: Vec<Recorded>,
    pub project: PathBuf,
    pub home: PathBuf,
    pub stdout: String,
    pub stderr: String,
    pub status: ExitStatus,
    pub duration: Duration,
    /// Main-script items the client never asked for.
    pub unused_replies: usize,
    pub unused_subagent_replies: usize,
}

impl Run {
    /// Messages requests carrying tools (main agent loop and subagent loops),
    /// in arrival order.
    pub fn main_loop_requests(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.main_loop).collect()
    }
    /// Requests of subagent loops (any agent id), in arrival order.
    pub fn subagent_requests(&self) -> Vec<&Recorded> {
        self.requests
            .iter()
            .filter(|r| r.agent_id.is_some())
            .collect()
    }
    /// Compaction (summary) requests.
    pub fn compaction_requests(&self) -> Vec<&Recorded> {
        self.requests.iter().filter(|r| r.compaction).collect()
    }
    /// Messages requests that are neither main loop, subagent nor
    /// compaction (titles etc.).
    pub fn side_requests(&self) -> Vec<&Recorded> {
        self.requests
            .iter()
            .filter(|r| r.is_messages() && !r.main_loop && r.agent_id.is_none() && !r.compaction)
            .collect()
    }
    /// Everything (non-assistant) the model was shown in main-loop request `i`.
    pub fn shown_text(&self, i: usize) -> String {
        let m = self.main_loop_requests();
        m.get(i)
            .unwrap_or_else(|| panic!("no main-loop request #{i} (only {})", m.len()))
            .user_text()
    }
    /// Only the newest user message of main-loop request `i`.
    pub fn new_text(&self, i: usize) -> String {
        self.main_loop_requests()[i].last_user_text()
    }
    /// Shown text of all main-loop requests joined (for `contains` checks).
    pub fn all_shown_text(&self) -> String {
        self.main_loop_requests()
            .iter()
            .map(|r| r.user_text())
            .collect::<Vec<_>>()
            .join("\n")
    }
    /// The final `result` string.
    pub fn result_text(&self) -> &str {
        self.result
            .get("result")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    pub fn is_error(&self) -> bool {
        self.result
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }
    /// `<project>/.omc`
    pub fn omc_dir(&self) -> PathBuf {
        self.project.join(".omc")
    }
    /// Panic with diagnostics unless the client exited 0 with a non-error result.
    pub fn assert_success(&self) {
        if !self.status.success() || self.is_error() {
            panic!("claude run failed: {}", self.diagnostics());
        }
    }
    pub fn diagnostics(&self) -> String {
        let reqs: Vec<String> = self
            .requests
            .iter()
            .map(|r| {
                format!(
                    "  #{} {} {} main_loop={} agent={:?} compaction={} reply={:?}",
                    r.seq, r.method, r.path, r.main_loop, r.agent_id, r.compaction, r.reply
                )
            })
            .collect();
        format!(
            "status={} duration={:?}\nstdout:\n{}\nstderr:\n{}\nrequests:\n{}",
            self.status,
            self.duration,
            self.stdout,
            self.stderr,
            reqs.join("\n")
        )
    }
}

/// Run `claude -p <prompt> --output-format json --plugin-dir <plugin_dir>`
/// in `project`, with HOME = `<project>/../home` (created if missing; a
/// [`Sandbox`] lays things out that way). `resume` adds `--resume <id>`
/// (same HOME needed). Panics if the client hangs past the timeout.
pub fn claude(
    plugin_dir: &Path,
    project: &Path,
    prompt: &str,
    scenario: Scenario,
    resume: Option<&str>,
) -> Run {
    let home = project
        .parent()
        .expect("project has a parent dir")
        .join("home");
    std::fs::create_dir_all(&home).unwrap();
    claude_in(plugin_dir, project, &home, prompt, scenario, resume)
}

/// Env vars the parent (a developer's shell, or a Claude Code session running
/// `cargo test`) may carry that would change the client's behaviour.
fn scrub(name: &str) -> bool {
    name.starts_with("ANTHROPIC_")
        || name.starts_with("CLAUDE")
        || name.starts_with("OTEL_")
        || name.starts_with("AWS_")
        || name.starts_with("GOOGLE_")
        || name.starts_with("VERTEX_")
        || name == "MCP_TIMEOUT"
        || name == "DISABLE_AUTOUPDATER"
}

/// The installed binary the suite runs against, from `OMC_E2E_INSTALLED_BIN`. Panics on an
/// unusable value: the switch never degrades silently to the plugin directory.
pub fn installed_bin() -> Option<&'static Path> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let b = PathBuf::from(std::env::var_os("OMC_E2E_INSTALLED_BIN")?);
        let out = Command::new(&b)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("OMC_E2E_INSTALLED_BIN={}: {e}", b.display()));
        assert!(
            b.is_absolute() && out.status.success(),
            "OMC_E2E_INSTALLED_BIN={} is not an absolute path to a working omc-hooks",
            b.display()
        );
        Some(b)
    })
    .as_deref()
}

/// PATH without the directories that hold a `cargo` (cargo's and rustup's `bin/`): how a person
/// without Rust runs an installed omc-hooks, so that nothing it does can lean on cargo.
pub fn path_without_cargo() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("cargo").exists())
        .collect();
    std::env::join_paths(kept).unwrap()
}

/// Every hook command in `config` (a settings or hook file, any agent's shape: objects with a
/// `command` under `hooks`) that names omc-hooks runs the omc-hooks binary itself — an
/// executable program, not a script like npm's Node.js launcher, which would start Node for
/// every hook. Returns the programs.
pub fn assert_commands_run_native(config: &Value, file: &Path) -> Vec<PathBuf> {
    fn commands(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(c)) = m.get("command") {
                    out.push(c.clone());
                }
                m.values().for_each(|x| commands(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| commands(x, out)),
            _ => {}
        }
    }
    let mut cmds = Vec::new();
    commands(&config["hooks"], &mut cmds);
    let mut programs = Vec::new();
    for c in cmds.iter().filter(|c| c.contains("omc-hooks")) {
        // `"<path>" …`, `'<path>' …` or `<path> …`: the first word.
        let program = match c.chars().next() {
            Some(q @ ('"' | '\'')) => c[1..].split(q).next().unwrap_or(""),
            _ => c.split_whitespace().next().unwrap_or(""),
        };
        let head = std::fs::read(program).unwrap_or_else(|e| {
            panic!(
                "{}: the hook command {c:?} runs {program}: {e}",
                file.display()
            )
        });
        assert!(
            head.starts_with(b"\x7fELF") || head.starts_with(&[0xcf, 0xfa, 0xed, 0xfe]),
            "{}: the hook command {c:?} does not run the omc-hooks binary itself ({program} is not \
             an executable program{})",
            file.display(),
            if head.starts_with(b"#!") {
                ": a script"
            } else {
                ""
            }
        );
        programs.push(PathBuf::from(program));
    }
    assert!(
        !programs.is_empty(),
        "{}: no omc-hooks hook command",
        file.display()
    );
    programs
}

/// The plugin with its slash commands (`commands/`) and no hooks: what `--plugin-dir` loads when
/// the hooks come from an installed binary's settings entries.
pub fn commands_only_plugin() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = std::env::temp_dir().join(format!("omc-e2e-commands-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
        let mut manifest: Value = serde_json::from_slice(
            &std::fs::read(checkout.join(".claude-plugin/plugin.json")).unwrap(),
        )
        .unwrap();
        manifest.as_object_mut().unwrap().remove("hooks");
        manifest.as_object_mut().unwrap().remove("icon");
        std::fs::write(
            dir.join(".claude-plugin/plugin.json"),
            serde_json::to_vec_pretty(&manifest).unwrap(),
        )
        .unwrap();
        let commands = checkout.join("commands");
        if commands.is_dir() {
            std::fs::create_dir_all(dir.join("commands")).unwrap();
            for e in std::fs::read_dir(&commands).unwrap().flatten() {
                std::fs::copy(e.path(), dir.join("commands").join(e.file_name())).unwrap();
            }
        }
        dir
    })
}

/// `<bin> install` in `project` with `home` as HOME: the hooks in its settings.local.json.
fn install_hooks(bin: &Path, project: &Path, home: &Path) {
    let out = Command::new(bin)
        .arg("install")
        .current_dir(project)
        .env("HOME", home)
        // as a person without Rust runs it (the binary may be npm's launcher)
        .env("PATH", path_without_cargo())
        .env_remove("XDG_DATA_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("run the installed omc-hooks");
    assert!(
        out.status.success(),
        "{} install failed: {}",
        bin.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let settings = project.join(".claude/settings.local.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_commands_run_native(&v, &settings);
    // As Claude Code does for the settings.local.json it creates: kept out of git (here in the
    // sandbox's own .git/info/exclude), so the git status the model is shown is the same as
    // with --plugin-dir.
    let exclude = project.join(".git/info/exclude");
    if let Ok(text) = std::fs::read_to_string(&exclude)
        && !text.lines().any(|l| l == ".claude/settings.local.json")
    {
        let _ = std::fs::write(&exclude, format!("{text}\n.claude/settings.local.json\n"));
    }
}

pub fn claude_in(
    plugin_dir: &Path,
    project: &Path,
    home: &Path,
    prompt: &str,
    scenario: Scenario,
    resume: Option<&str>,
) -> Run {
    let bin = client_bin();
    let installed =
        installed_bin().filter(|_| scenario.plugin && plugin_dir == super::plugin::plugin_dir());
    if let Some(b) = installed {
        install_hooks(b, project, home);
    }
    let server = ModelServer::start(scenario.replies.clone());
    server.push_subagent(scenario.subagent_replies.clone());
    if let Some(t) = &scenario.default_text {
        server.set_default_text(t);
    }
    if let Some(n) = scenario.input_tokens {
        server.set_input_tokens(n);
    }

    let mut cmd = Command::new(bin);
    cmd.arg("-p").arg(prompt).args(["--output-format", "json"]);
    if !scenario.ask_permissions {
        // as root this needs IS_SANDBOX=1 (set below)
        cmd.arg("--dangerously-skip-permissions");
    }
    if scenario.plugin {
        match installed {
            None => cmd.arg("--plugin-dir").arg(plugin_dir),
            Some(_) => cmd.arg("--plugin-dir").arg(commands_only_plugin()),
        };
    }
    if let Some(id) = resume {
        cmd.args(["--resume", id]);
    }
    cmd.args(&scenario.args);
    for (k, _) in std::env::vars_os() {
        if let Some(k) = k.to_str() {
            if scrub(k) {
                cmd.env_remove(k);
            }
        }
    }
    // the client writes task output / probes under $TMPDIR/claude-<uid>/:
    // keep that inside the sandbox
    let tmp = home.parent().unwrap_or(home).join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    cmd.env("HOME", home)
        // the user hooks.toml is looked for here, not in the developer's own config
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("TMPDIR", &tmp)
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "test")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        // lets --dangerously-skip-permissions run as root
        .env("IS_SANDBOX", "1")
        .env("DISABLE_AUTOUPDATER", "1");
    for (k, v) in &scenario.env {
        cmd.env(k, v);
    }
    cmd.current_dir(project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }

    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", bin.display()));
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut so, &mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut se, &mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for claude") {
            break st;
        }
        if start.elapsed() > scenario.timeout {
            kill_group(child.id());
            let _ = child.kill();
            let st = child.wait().unwrap();
            let stdout = t_out.join().unwrap_or_default();
            let stderr = t_err.join().unwrap_or_default();
            let reqs: Vec<String> = server
                .requests()
                .iter()
                .map(|r| {
                    format!(
                        "  #{} {} main_loop={} reply={:?}",
                        r.seq, r.path, r.main_loop, r.reply
                    )
                })
                .collect();
            panic!(
                "claude -p timed out after {:?} (killed, {st})\nstdout:\n{stdout}\nstderr:\n{stderr}\nrequests:\n{}",
                scenario.timeout,
                reqs.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let duration = start.elapsed();
    // hooks the client left behind (async hooks) must not outlive the run
    kill_group(child.id());
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let result = parse_result(&stdout);
    let session_id = result
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Run {
        result,
        session_id,
        requests: server.requests(),
        project: project.to_owned(),
        home: home.to_owned(),
        stdout,
        stderr,
        status,
        duration,
        unused_replies: server.remaining(),
        unused_subagent_replies: server.remaining_subagent(),
    }
}

fn kill_group(pid: u32) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn parse_result(stdout: &str) -> Value {
    if let Ok(v) = serde_json::from_str::<Value>(stdout.trim()) {
        return v;
    }
    // fall back to the last line that is a JSON object
    stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(Value::is_object)
        .unwrap_or(Value::Null)
}
