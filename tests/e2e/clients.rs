//! The pinned Codex CLI, Gemini CLI, Qwen Code, GitHub Copilot CLI, Factory Droid, CodeBuddy,
//! Cline, Kimi CLI, OpenCode, Kilo Code and Pi clients: installed on first use into
//! `$OMC_E2E_CLIENTS_DIR/<agent>` (default `<checkout>/target/e2e-clients/<agent>`), once per
//! process (`OnceLock`) and once across processes (an exclusive lock on
//! `<agent>/.install.lock`) — from npm, and Kimi CLI from PyPI into a virtual environment of a
//! Python ≥ 3.12 (`kimi_python`), with its dependencies pinned by `kimi-constraints.txt`.
//!
//! A client that cannot be installed fails *its own* tests, loudly, with the package and npm's
//! error ([`require`] panics with the reason); the other clients' tests still run. Nothing is
//! ever skipped silently.

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// A real agent client other than Claude Code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agent {
    Codex,
    Gemini,
    Qwen,
    Copilot,
    Factory,
    CodeBuddy,
    Cline,
    Kimi,
    /// Served through our plugin (`extensions/`), driven over `opencode serve` / `kilo serve`
    /// (`serve.rs`) and Pi's RPC mode (`pi.rs`).
    OpenCode,
    Kilo,
    Pi,
}

impl Agent {
    pub const ALL: [Agent; 11] = [
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Factory,
        Agent::CodeBuddy,
        Agent::Cline,
        Agent::Kimi,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Pi,
    ];

    /// The name `omc-hooks --agent` takes and the install sub-directory.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::Factory => "factory",
            Agent::CodeBuddy => "codebuddy",
            Agent::Cline => "cline",
            Agent::Kimi => "kimi",
            Agent::OpenCode => "opencode",
            Agent::Kilo => "kilo",
            Agent::Pi => "pi",
        }
    }

    /// The npm (Kimi: PyPI) package installed. Factory Droid: the wrapper `@factory/cli` 0.225.1
    /// names a platform package that was never published, so the platform package itself is
    /// installed (its `bin/droid` is the whole client). CodeBuddy: `@tencent-ai/codebuddy-code`
    /// is not served by the registry, and the SDK package ships the whole CLI in `cli/`
    /// (tests/e2e/codebuddy-FINDINGS.md §1). Kilo Code's `@kilocode/cli` 7.8.1 wants a platform
    /// package that does not exist and 7.7.9 is not published (docs/agents-survey.md): its
    /// platform package is installed directly.
    pub fn package(self) -> &'static str {
        match self {
            Agent::Codex => "@openai/codex",
            Agent::Gemini => "@google/gemini-cli",
            Agent::Qwen => "@qwen-code/qwen-code",
            Agent::Copilot => "@github/copilot",
            Agent::Factory => "@factory/cli-linux-x64",
            Agent::CodeBuddy => "@tencent-ai/agent-sdk",
            Agent::Cline => "cline",
            Agent::Kimi => "kimi-cli",
            Agent::OpenCode => "opencode-ai",
            Agent::Kilo => kilo_platform_package(),
            Agent::Pi => "@mariozechner/pi-coding-agent",
        }
    }

    /// The pinned version of the package (see tests/README.md for why pinned).
    pub fn version(self) -> &'static str {
        match self {
            Agent::Codex => "0.171.0",
            Agent::Gemini => "0.61.0",
            Agent::Qwen => "0.24.4",
            Agent::Copilot => "1.0.102",
            Agent::Factory => "0.225.2",
            Agent::CodeBuddy => "0.3.201",
            Agent::Cline => "3.0.65",
            // The last release that runs: 1.52.0 only says the CLI is unmaintained
            // (kimi-FINDINGS.md §1).
            Agent::Kimi => "1.51.0",
            Agent::OpenCode => "1.18.33",
            Agent::Kilo => "7.7.9",
            Agent::Pi => "0.73.1",
        }
    }

    /// The version the client itself reports (`--version`): the package's, but CodeBuddy's
    /// CLI inside the SDK package has its own.
    pub fn client_version(self) -> &'static str {
        match self {
            Agent::CodeBuddy => "2.117.0",
            a => a.version(),
        }
    }

    /// Served through our plugin (`extensions/`): run by `plugin_host.rs`.
    pub fn via_plugin(self) -> bool {
        matches!(self, Agent::OpenCode | Agent::Kilo | Agent::Pi)
    }

    pub fn spec(self) -> String {
        match self {
            Agent::Kimi => format!("{}=={}", self.package(), self.version()),
            _ => format!("{}@{}", self.package(), self.version()),
        }
    }
}

/// How to start an installed client: `program` followed by `args`, then the run's own arguments.
#[derive(Debug)]
pub struct Installed {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// The npm prefix it was installed into.
    pub dir: PathBuf,
}

/// The shared install root: `$OMC_E2E_CLIENTS_DIR` or `<checkout>/target/e2e-clients`.
pub fn clients_dir() -> PathBuf {
    std::env::var_os("OMC_E2E_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e-clients"))
}

/// The installed client, or why it cannot be had. Installs on first call.
pub fn installed(agent: Agent) -> Result<&'static Installed, &'static str> {
    static CODEX: OnceLock<Result<Installed, String>> = OnceLock::new();
    static GEMINI: OnceLock<Result<Installed, String>> = OnceLock::new();
    static QWEN: OnceLock<Result<Installed, String>> = OnceLock::new();
    static COPILOT: OnceLock<Result<Installed, String>> = OnceLock::new();
    static FACTORY: OnceLock<Result<Installed, String>> = OnceLock::new();
    static CODEBUDDY: OnceLock<Result<Installed, String>> = OnceLock::new();
    static CLINE: OnceLock<Result<Installed, String>> = OnceLock::new();
    static KIMI: OnceLock<Result<Installed, String>> = OnceLock::new();
    static OPENCODE: OnceLock<Result<Installed, String>> = OnceLock::new();
    static KILO: OnceLock<Result<Installed, String>> = OnceLock::new();
    static PI: OnceLock<Result<Installed, String>> = OnceLock::new();
    let cell = match agent {
        Agent::Codex => &CODEX,
        Agent::Gemini => &GEMINI,
        Agent::Qwen => &QWEN,
        Agent::Copilot => &COPILOT,
        Agent::Factory => &FACTORY,
        Agent::CodeBuddy => &CODEBUDDY,
        Agent::Cline => &CLINE,
        Agent::Kimi => &KIMI,
        Agent::OpenCode => &OPENCODE,
        Agent::Kilo => &KILO,
        Agent::Pi => &PI,
    };
    cell.get_or_init(|| install(agent, &clients_dir().join(agent.name())))
        .as_ref()
        .map_err(String::as_str)
}

/// The installed client; panics with the reason when it cannot be installed.
#[track_caller]
pub fn require(agent: Agent) -> &'static Installed {
    match installed(agent) {
        Ok(i) => i,
        Err(e) => panic!(
            "E2E {}: the pinned client {} is not available, so this test cannot run:\n{e}",
            agent.name(),
            agent.spec()
        ),
    }
}

/// The Codex native binary inside the npm prefix (the `@openai/codex-<platform>` dependency).
fn codex_native(dir: &Path) -> Result<PathBuf, String> {
    let (pkg, triple) = match std::env::consts::ARCH {
        "x86_64" => ("codex-linux-x64", "x86_64-unknown-linux-musl"),
        "aarch64" => ("codex-linux-arm64", "aarch64-unknown-linux-musl"),
        a => {
            return Err(format!(
                "no native Codex package for {a}-linux is known here"
            ));
        }
    };
    if std::env::consts::OS != "linux" {
        return Err(format!(
            "the Codex e2e harness knows the native binary path on Linux only (this is {})",
            std::env::consts::OS
        ));
    }
    Ok(dir
        .join("node_modules/@openai")
        .join(pkg)
        .join("vendor")
        .join(triple)
        .join("bin/codex"))
}

/// The npm platform suffix of a native package (`linux-x64`, …) on this machine.
fn platform() -> Result<&'static str, String> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Ok("linux-x64"),
        ("linux", "aarch64") => Ok("linux-arm64"),
        (os, arch) => Err(format!(
            "no native package of this client is known here for {arch}-{os}"
        )),
    }
}

/// Where a client keeps the package it unpacks from its own binary on first start (GitHub
/// Copilot CLI: `$XDG_CACHE_HOME/copilot/pkg`, 235 MB). Shared by every sandbox, so it is
/// unpacked once, at install ([`version_of`]), not once per test.
pub fn cache_dir(agent: Agent) -> PathBuf {
    clients_dir().join(agent.name()).join("cache")
}

/// Kilo Code's platform package for this machine.
fn kilo_platform_package() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "@kilocode/cli-linux-arm64",
        _ => "@kilocode/cli-linux-x64",
    }
}

/// OpenCode's native binary: the `opencode-<platform>` dependency of `opencode-ai` (npm may not
/// run the wrapper's postinstall, which only links the same file).
fn opencode_native(dir: &Path) -> PathBuf {
    let pkg = match std::env::consts::ARCH {
        "aarch64" => "opencode-linux-arm64",
        _ => "opencode-linux-x64",
    };
    dir.join("node_modules").join(pkg).join("bin/opencode")
}

fn entry(agent: Agent, dir: &Path) -> Result<Installed, String> {
    let pkg = dir.join("node_modules").join(agent.package());
    let (program, args) = match agent {
        Agent::Copilot => (
            dir.join("node_modules/@github")
                .join(format!("copilot-{}", platform()?))
                .join("copilot"),
            Vec::new(),
        ),
        Agent::Factory => {
            if platform()? != "linux-x64" {
                return Err(format!(
                    "the pinned Factory Droid package is {}; this machine needs another platform's",
                    agent.package()
                ));
            }
            (pkg.join("bin/droid"), Vec::new())
        }
        Agent::CodeBuddy => (
            PathBuf::from("node"),
            vec![pkg.join("cli/bin/codebuddy").into_os_string()],
        ),
        Agent::Codex => (codex_native(dir)?, Vec::new()),
        Agent::Gemini => (
            PathBuf::from("node"),
            vec![pkg.join("bundle/gemini.js").into_os_string()],
        ),
        Agent::Qwen => (
            PathBuf::from("node"),
            vec![pkg.join("cli-entry.js").into_os_string()],
        ),
        // `cline`'s own bin is a node launcher of the platform package's bun-compiled binary.
        Agent::Cline => (cline_native(dir)?, Vec::new()),
        Agent::Kimi => (dir.join("venv/bin/kimi"), Vec::new()),
        Agent::OpenCode => (opencode_native(dir), Vec::new()),
        Agent::Kilo => (pkg.join("bin/kilo"), Vec::new()),
        Agent::Pi => (
            PathBuf::from("node"),
            vec![pkg.join("dist/cli.js").into_os_string()],
        ),
    };
    Ok(Installed {
        program,
        args,
        dir: dir.to_owned(),
    })
}

/// Cline's platform binary inside the npm prefix (the `@cline/cli-<platform>` dependency).
fn cline_native(dir: &Path) -> Result<PathBuf, String> {
    let pkg = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "cli-linux-x64",
        ("linux", "aarch64") => "cli-linux-arm64",
        (os, a) => return Err(format!("no Cline platform package is known for {a}-{os}")),
    };
    Ok(dir.join("node_modules/@cline").join(pkg).join("bin/cline"))
}

/// `Ok` when `dir` holds the pinned version, ready to run.
fn check(agent: Agent, dir: &Path) -> Result<Installed, String> {
    if agent == Agent::Kimi {
        return kimi_check(dir);
    }
    let pkg_json = dir
        .join("node_modules")
        .join(agent.package())
        .join("package.json");
    let text =
        std::fs::read_to_string(&pkg_json).map_err(|e| format!("{}: {e}", pkg_json.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", pkg_json.display()))?;
    if v["version"] != agent.version() {
        return Err(format!(
            "{} is version {}, want {}",
            pkg_json.display(),
            v["version"],
            agent.version()
        ));
    }
    let e = entry(agent, dir)?;
    let file = if e.args.is_empty() {
        e.program.clone()
    } else {
        PathBuf::from(&e.args[0])
    };
    if !file.is_file() {
        return Err(format!(
            "{} is missing (for Codex, Copilot and OpenCode: did npm skip the optional native dependency?)",
            file.display()
        ));
    }
    Ok(e)
}

/// Asks the client for its version: proves it starts.
fn version_of(agent: Agent, e: &Installed) -> Result<String, String> {
    let out = Command::new(&e.program)
        .args(&e.args)
        .arg("--version")
        .env("HOME", std::env::temp_dir())
        .env("XDG_CACHE_HOME", cache_dir(agent))
        .env("COPILOT_AUTO_UPDATE", "false")
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot run {}: {err}", e.program.display()))?;
    // Pi 0.73.1 prints its version on stderr.
    let text = format!(
        "{} {}",
        String::from_utf8_lossy(&out.stdout).trim(),
        String::from_utf8_lossy(&out.stderr).trim()
    )
    .trim()
    .to_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "`{} --version` failed ({}): {} {}",
            e.program.display(),
            out.status,
            text,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn install(agent: Agent, dir: &Path) -> Result<Installed, String> {
    if agent == Agent::Kimi {
        return kimi_install(dir);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".install.lock"))
        .map_err(|e| format!("cannot open {}/.install.lock: {e}", dir.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}/.install.lock: {e}", dir.display()))?;
    if let Ok(e) = check(agent, dir) {
        if agent == Agent::Copilot && !cache_dir(agent).join("copilot/pkg").is_dir() {
            // a copy installed before the cache was shared: unpack it there once
            version_of(agent, &e).map_err(|e| format!("{} does not start: {e}", agent.spec()))?;
        }
        return Ok(e);
    }
    let spec = agent.spec();
    eprintln!("[e2e] installing {spec} into {} ...", dir.display());
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(dir)
        .arg(&spec)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!("cannot run npm to install {spec} (is Node.js/npm installed?): {e}")
        })?;
    if !out.status.success() {
        return Err(format!(
            "`npm install --prefix {} {spec}` failed ({}):\n{}\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let e = check(agent, dir).map_err(|e| format!("{spec} installed but unusable: {e}"))?;
    let v =
        version_of(agent, &e).map_err(|e| format!("{spec} installed but does not start: {e}"))?;
    if !v.contains(agent.client_version()) {
        return Err(format!(
            "{spec} installed but reports version {v:?}, want {}",
            agent.client_version()
        ));
    }
    Ok(e)
}

// ------------------------------------------------------------------ Kimi CLI ----

/// The pinned Kimi CLI's dependencies, as the venv it was tested with held them (`pip freeze`):
/// a constraints file, so that a new release of one of its 128 dependencies cannot change the
/// client under test.
const KIMI_CONSTRAINTS: &str = "tests/e2e/kimi-constraints.txt";

/// Kimi CLI needs Python ≥ 3.12 (its `requires-python`).
const KIMI_PYTHON_MIN: (u32, u32) = (3, 12);

/// `Ok` when `dir/venv` holds the pinned kimi-cli.
fn kimi_check(dir: &Path) -> Result<Installed, String> {
    let venv = dir.join("venv");
    let lib = venv.join("lib");
    let want = format!("kimi_cli-{}.dist-info", Agent::Kimi.version());
    let found = std::fs::read_dir(&lib)
        .map_err(|e| format!("{}: {e}", lib.display()))?
        .flatten()
        .any(|py| py.path().join("site-packages").join(&want).is_dir());
    if !found {
        return Err(format!("{} has no {want}", venv.display()));
    }
    let e = entry(Agent::Kimi, dir)?;
    if !e.program.is_file() {
        return Err(format!("{} is missing", e.program.display()));
    }
    Ok(e)
}

/// The `(major, minor)` a Python interpreter reports, or `None` when it does not run.
fn python_version(python: &Path) -> Option<(u32, u32)> {
    let out = Command::new(python)
        .args([
            "-c",
            "import sys; print(sys.version_info[0], sys.version_info[1])",
        ])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace().map(|n| n.parse::<u32>().ok());
    Some((it.next()??, it.next()??))
}

/// A Python ≥ 3.12 for Kimi CLI's venv: `$OMC_E2E_PYTHON`, else `python3.14`…`python3.12` or
/// `python3` on PATH, else the newest one pyenv keeps (`$PYENV_ROOT/versions/*`, default
/// `~/.pyenv`: this machine kind's Python installer, whose default is 3.11). An error lists
/// what was tried.
pub fn kimi_python() -> Result<PathBuf, String> {
    let ok = |p: &Path| python_version(p).filter(|v| *v >= KIMI_PYTHON_MIN);
    let mut tried = Vec::new();
    if let Some(p) = std::env::var_os("OMC_E2E_PYTHON") {
        let p = PathBuf::from(p);
        return match python_version(&p) {
            Some(v) if v >= KIMI_PYTHON_MIN => Ok(p),
            Some((a, b)) => Err(format!(
                "OMC_E2E_PYTHON={} is Python {a}.{b}; kimi-cli needs 3.12 or newer",
                p.display()
            )),
            None => Err(format!("OMC_E2E_PYTHON={} does not run", p.display())),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["python3.14", "python3.13", "python3.12", "python3"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                if ok(&p).is_some() {
                    return Ok(p);
                }
                tried.push(p.display().to_string());
            }
        }
    }
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(root) = pyenv {
        let mut found: Vec<((u32, u32), PathBuf)> = std::fs::read_dir(root.join("versions"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|d| d.path().join("bin/python3"))
            .filter(|p| p.is_file())
            .filter_map(|p| {
                tried.push(p.display().to_string());
                ok(&p).map(|v| (v, p))
            })
            .collect();
        found.sort();
        if let Some((_, p)) = found.pop() {
            return Ok(p);
        }
    }
    Err(format!(
        "kimi-cli {} needs Python >= 3.12 and none was found (tried: {}). Install one (e.g. \
         `pyenv install 3.12`) or point OMC_E2E_PYTHON at it.",
        Agent::Kimi.version(),
        if tried.is_empty() {
            "nothing on PATH, no pyenv".to_string()
        } else {
            tried.join(", ")
        }
    ))
}

/// `python -m venv <dir>/venv`, then `pip install kimi-cli==<pinned> -c kimi-constraints.txt`.
fn kimi_install(dir: &Path) -> Result<Installed, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".install.lock"))
        .map_err(|e| format!("cannot open {}/.install.lock: {e}", dir.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}/.install.lock: {e}", dir.display()))?;
    if let Ok(e) = kimi_check(dir) {
        return Ok(e);
    }
    let python = kimi_python()?;
    let venv = dir.join("venv");
    let spec = Agent::Kimi.spec();
    eprintln!(
        "[e2e] installing {spec} into {} with {} ...",
        venv.display(),
        python.display()
    );
    let run = |cmd: &mut Command, what: &str| -> Result<(), String> {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {what}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "`{what}` failed ({}):\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    };
    run(
        Command::new(&python).args(["-m", "venv"]).arg(&venv),
        &format!("{} -m venv {}", python.display(), venv.display()),
    )?;
    let constraints = Path::new(env!("CARGO_MANIFEST_DIR")).join(KIMI_CONSTRAINTS);
    run(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--disable-pip-version-check", "--quiet", "-c"])
            .arg(&constraints)
            .arg(&spec),
        &format!("pip install -c {KIMI_CONSTRAINTS} {spec}"),
    )?;
    let e = kimi_check(dir).map_err(|e| format!("{spec} installed but unusable: {e}"))?;
    let v = version_of(Agent::Kimi, &e)
        .map_err(|e| format!("{spec} installed but does not start: {e}"))?;
    if !v.contains(Agent::Kimi.version()) {
        return Err(format!(
            "{spec} installed but reports version {v:?}, want {}",
            Agent::Kimi.version()
        ));
    }
    Ok(e)
}
