//! omc-hooks from npm, with no Rust toolchain: the packages `packaging/npm-pack.sh` makes,
//! installed offline into an empty prefix (`e2e::npm`), run with no cargo on PATH. The
//! launcher finds the platform package's binary and passes arguments, stdin, stdout, the exit
//! status and signals through; `install --agent codex` run through it writes the binary's own
//! path (no Node.js in any hook), and the real Codex CLI continues a ralph run on those hooks.
//! Without a binary for the machine the launcher says what to do. `.ci/run` also runs the
//! whole real-client suite once against such an install (`OMC_E2E_INSTALLED_BIN`).

use crate::e2e::agent_harness::AgentSandbox;
use crate::e2e::clients::Agent;
use crate::e2e::harness::{assert_commands_run_native, path_without_cargo};
use crate::e2e::npm::{installed, npm_install};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `program args` with `stdin`, no cargo on PATH, in `cwd`.
fn run(program: &Path, args: &[&str], stdin: &str, cwd: &Path) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("PATH", path_without_cargo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_npm_install_runs_without_cargo_and_codex_continues_a_ralph_run_on_its_hooks() {
    let npm = installed();
    let dir = tempfile::tempdir().unwrap();
    let v = run(&npm.bin(), &["--version"], "", dir.path());
    assert!(v.status.success(), "{}", text(&v.stderr));
    assert_eq!(
        text(&v.stdout).trim(),
        format!("omc-hooks {}", env!("CARGO_PKG_VERSION"))
    );

    let sb = AgentSandbox::new(Agent::Codex);
    let out = sb.install_hooks_with(&npm.bin());
    // The hooks run the platform package's binary, in the prefix, not the launcher.
    let hooks: Value =
        serde_json::from_str(&std::fs::read_to_string(sb.hooks_file()).unwrap()).unwrap();
    let native = npm.prefix.join("lib/node_modules").canonicalize().unwrap();
    for p in assert_commands_run_native(&hooks, &sb.hooks_file()) {
        assert!(
            p.starts_with(&native) && p.ends_with("bin/omc-hooks"),
            "{} is not the npm install's binary (under {})\n{}",
            p.display(),
            native.display(),
            text(&out.stdout)
        );
    }
    crate::e2e_agents::a_ralph_run_continues_in(&sb);
}

#[test]
fn the_launcher_passes_stdin_stdout_and_the_exit_status_through() {
    let npm = installed();
    let dir = tempfile::tempdir().unwrap();
    let native = Path::new(env!("CARGO_BIN_EXE_omc-hooks"));
    // stdin in, stdout out: the same bytes as the binary run directly.
    let via = run(
        &npm.bin(),
        &["detect", "--json"],
        "ralph fix the tests",
        dir.path(),
    );
    let direct = run(
        native,
        &["detect", "--json"],
        "ralph fix the tests",
        dir.path(),
    );
    assert!(via.status.success(), "{}", text(&via.stderr));
    assert!(text(&via.stdout).contains("ralph"), "{}", text(&via.stdout));
    assert_eq!(text(&via.stdout), text(&direct.stdout));
    // A usage error: the binary's status and message, unchanged.
    let via = run(&npm.bin(), &["manifest", "extra"], "", dir.path());
    let direct = run(native, &["manifest", "extra"], "", dir.path());
    assert_eq!(via.status.code(), Some(2), "{}", text(&via.stderr));
    assert_eq!(via.status.code(), direct.status.code());
    assert_eq!(text(&via.stderr), text(&direct.stderr));
}

#[test]
fn a_signal_to_the_launcher_ends_the_binary_and_the_launcher_ends_by_it() {
    use std::os::unix::process::ExitStatusExt;
    let npm = installed();
    // `detect` with an open, silent stdin waits for the prompt: a command that runs until told.
    let mut child = Command::new(npm.bin())
        .arg("detect")
        .env("PATH", path_without_cargo())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let children = format!("/proc/{pid}/task/{pid}/children");
    // A child seen between its fork and its exec is still `node`: wait for the exec too.
    let mut native_pid = None;
    let mut seen = None;
    for _ in 0..600 {
        let child = std::fs::read_to_string(&children)
            .ok()
            .and_then(|s| s.split_whitespace().next().map(str::to_owned));
        if let Some(child) = child {
            let exe = std::fs::read_link(format!("/proc/{child}/exe")).ok();
            if exe.as_ref().is_some_and(|e| e.ends_with("bin/omc-hooks")) {
                native_pid = Some(child);
                break;
            }
            seen = exe;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let native_pid = native_pid.unwrap_or_else(|| {
        panic!("the launcher never ran the binary (its child last ran {seen:?})")
    });
    let killed = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Held open until the end: `wait` would close it, and the binary, seeing the end of its
    // input, could finish normally before the forwarded signal reached it.
    let _stdin = child.stdin.take();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(15), "{status}");
    // The binary got it too: gone (a zombie reaped by init at most), not left waiting.
    for _ in 0..100 {
        let gone = std::fs::read_to_string(format!("/proc/{native_pid}/stat"))
            .map_or(true, |s| s.contains(") Z "));
        if gone {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the binary {native_pid} still runs after the launcher's SIGTERM");
}

#[test]
fn without_a_binary_for_the_machine_the_launcher_says_what_to_do() {
    let npm = installed();
    let dir = tempfile::tempdir().unwrap();
    // The launcher package alone: what --omit=optional (or a lockfile from another platform)
    // leaves.
    let prefix = dir.path().join("prefix");
    npm_install(dir.path(), &prefix, true, &[npm.tarball(false)]);
    let out = run(
        &prefix.join("bin/omc-hooks"),
        &["--version"],
        "",
        dir.path(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(text(&out.stdout), "");
    let plat = npm.tarball(true);
    let plat = plat.file_name().unwrap().to_string_lossy();
    let platform = plat
        .trim_start_matches("omc-hooks-")
        .trim_end_matches(&format!("-{}.tgz", env!("CARGO_PKG_VERSION")));
    for want in [
        format!("@omc-hooks/{platform}@{}", env!("CARGO_PKG_VERSION")),
        "--omit=optional".into(),
        "npm install -g omc-hooks --include=optional".into(),
        "cargo install omc-hooks".into(),
    ] {
        assert!(err.contains(&want), "{want:?} in: {err}");
    }

    // A machine no package is built for (here: this one, told it is a 32-bit ARM).
    let preload = dir.path().join("arm.js");
    std::fs::write(
        &preload,
        "Object.defineProperty(process, 'arch', { value: 'arm' });\n",
    )
    .unwrap();
    let launcher = npm
        .prefix
        .join("lib/node_modules/omc-hooks/bin/omc-hooks.js");
    let out = Command::new("node")
        .arg("--require")
        .arg(&preload)
        .arg(&launcher)
        .arg("--version")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no prebuilt binary for this machine"), "{err}");
    assert!(
        err.contains("linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64"),
        "{err}"
    );
    assert!(err.contains("cargo install omc-hooks"), "{err}");
}

#[test]
fn through_npx_install_names_the_cached_binary_and_says_it_lasts_as_the_cache() {
    let npm = installed();
    let dir = tempfile::tempdir().unwrap();
    // npx's layout: ~/.npm/_npx/<key>/node_modules/{omc-hooks,@omc-hooks/<platform>}
    let cache = dir.path().join("_npx/0123abcd");
    npm_install(
        dir.path(),
        &cache,
        false,
        &[npm.tarball(true), npm.tarball(false)],
    );
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let home = dir.path().join("home");
    let out = Command::new(cache.join("node_modules/.bin/omc-hooks"))
        .args(["install", "--agent", "codex", "--project"])
        .arg(&project)
        .env("PATH", path_without_cargo())
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("CODEX_HOME", home.join(".codex"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}\n{}", text(&out.stderr));
    assert!(said.contains("started by npx"), "{said}");
    assert!(said.contains("npm install -g omc-hooks"), "{said}");
    let file = project.join(".codex/hooks.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for p in assert_commands_run_native(&v, &file) {
        assert!(
            p.starts_with(cache.canonicalize().unwrap()),
            "{}",
            p.display()
        );
    }
}

#[test]
fn use_path_refuses_npms_launcher_on_path() {
    let npm = installed();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let home = dir.path().join("home");
    let path = std::env::join_paths(
        std::iter::once(npm.prefix.join("bin")).chain(std::env::split_paths(&path_without_cargo())),
    )
    .unwrap();
    let out = Command::new(npm.bin())
        .args(["install", "--use-path", "--project"])
        .arg(&project)
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a script"), "{err}");
    assert!(err.contains("Leave --use-path out"), "{err}");
    assert!(!project.join(".claude").exists(), "nothing written");
}
