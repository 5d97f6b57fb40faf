//! The pinned Codex CLI, Gemini CLI, Qwen Code, OpenCode, Kilo Code and Pi clients: installed
//! from npm on first use into
//! `$OMC_E2E_CLIENTS_DIR/<agent>` (default `<checkout>/target/e2e-clients/<agent>`), once per
//! process (`OnceLock`) and once across processes (an exclusive lock on
//! `<agent>/.install.lock`).
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
    /// Served through our plugin (`extensions/`), driven over `opencode serve` / `kilo serve`
    /// (`serve.rs`) and Pi's RPC mode (`pi.rs`).
    OpenCode,
    Kilo,
    Pi,
}

impl Agent {
    pub const ALL: [Agent; 6] = [
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
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
            Agent::OpenCode => "opencode",
            Agent::Kilo => "kilo",
            Agent::Pi => "pi",
        }
    }

    /// The npm package installed. Kilo Code's `@kilocode/cli` 7.8.1 wants a platform package
    /// that does not exist and 7.7.9 is not published (docs/agents-survey.md): its platform
    /// package is installed directly.
    pub fn package(self) -> &'static str {
        match self {
            Agent::Codex => "@openai/codex",
            Agent::Gemini => "@google/gemini-cli",
            Agent::Qwen => "@qwen-code/qwen-code",
            Agent::OpenCode => "opencode-ai",
            Agent::Kilo => kilo_platform_package(),
            Agent::Pi => "@mariozechner/pi-coding-agent",
        }
    }

    /// The pinned version (see tests/README.md for why pinned).
    pub fn version(self) -> &'static str {
        match self {
            Agent::Codex => "0.169.0",
            Agent::Gemini => "0.61.0",
            Agent::Qwen => "0.24.4",
            Agent::OpenCode => "1.18.33",
            Agent::Kilo => "7.7.9",
            Agent::Pi => "0.73.1",
        }
    }

    /// Served through our plugin (`extensions/`): run by `plugin_host.rs`.
    pub fn via_plugin(self) -> bool {
        matches!(self, Agent::OpenCode | Agent::Kilo | Agent::Pi)
    }

    pub fn spec(self) -> String {
        format!("{}@{}", self.package(), self.version())
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
    static OPENCODE: OnceLock<Result<Installed, String>> = OnceLock::new();
    static KILO: OnceLock<Result<Installed, String>> = OnceLock::new();
    static PI: OnceLock<Result<Installed, String>> = OnceLock::new();
    let cell = match agent {
        Agent::Codex => &CODEX,
        Agent::Gemini => &GEMINI,
        Agent::Qwen => &QWEN,
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
        Agent::Codex => (codex_native(dir)?, Vec::new()),
        Agent::Gemini => (
            PathBuf::from("node"),
            vec![pkg.join("bundle/gemini.js").into_os_string()],
        ),
        Agent::Qwen => (
            PathBuf::from("node"),
            vec![pkg.join("cli-entry.js").into_os_string()],
        ),
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

/// `Ok` when `dir` holds the pinned version, ready to run.
fn check(agent: Agent, dir: &Path) -> Result<Installed, String> {
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
            "{} is missing (for Codex and OpenCode: did npm skip the optional native dependency?)",
            file.display()
        ));
    }
    Ok(e)
}

/// Asks the client for its version: proves it starts.
fn version_of(e: &Installed) -> Result<String, String> {
    let out = Command::new(&e.program)
        .args(&e.args)
        .arg("--version")
        .env("HOME", std::env::temp_dir())
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
    let v = version_of(&e).map_err(|e| format!("{spec} installed but does not start: {e}"))?;
    if !v.contains(agent.version()) {
        return Err(format!(
            "{spec} installed but reports version {v:?}, want {}",
            agent.version()
        ));
    }
    Ok(e)
}
