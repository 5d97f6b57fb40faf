//! The command every `hooks.json` entry runs: run under `sh` and `bash` (what Claude Code
//! spawns), with `${CLAUDE_PLUGIN_ROOT}` filled in as the client does, it must find the binary
//! wherever it is installed, in order — the plugin's `bin/omc-hooks`, `target/release`, the
//! plugin's `bin/<target>/` for this machine (linked for next time), PATH, `~/.cargo/bin` —
//! pass stdin and the subcommand through, and, with no binary anywhere, exit 0 with one message.

use crate::common::assert_exit_ok;
use crate::common::assert_has;
use serde_json::Value;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The manifest command for `sub`, as shipped.
fn manifest_command(sub: &str) -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    for groups in v["hooks"].as_object().unwrap().values() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                let c = h["command"].as_str().unwrap();
                if c.split_whitespace().last() == Some(sub) {
                    return c.to_string();
                }
            }
        }
    }
    panic!("no manifest command for {sub}");
}

/// A plugin root, a HOME and a PATH directory, all empty.
struct Box_ {
    _t: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    path: PathBuf,
}

impl Box_ {
    fn new() -> Box_ {
        let t = tempfile::tempdir().unwrap();
        let b = Box_ {
            root: t.path().join("plugin root"),
            home: t.path().join("home"),
            path: t.path().join("path"),
            _t: t,
        };
        for d in [&b.root, &b.home, &b.path] {
            std::fs::create_dir_all(d).unwrap();
        }
        b
    }

    /// A stand-in binary at `rel` under `base` that reports who it is, its arguments and stdin.
    fn fake(&self, base: &Path, rel: &str, name: &str) -> PathBuf {
        let p = base.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(
            &p,
            format!("#!/bin/sh\nprintf '%s|%s|' '{name}' \"$*\"\ncat\n"),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// Runs the manifest command of `sub` with `shell -c`, feeding `stdin`.
    fn run(&self, shell: &str, sub: &str, stdin: &str) -> (i32, String, String) {
        let cmd =
            manifest_command(sub).replace("${CLAUDE_PLUGIN_ROOT}", &self.root.to_string_lossy());
        let mut child = Command::new(shell)
            .arg("-c")
            .arg(cmd)
            .env_clear()
            .current_dir(&self.home)
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.path.display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A command that exits without reading stdin (no binary found) may close the pipe
        // before the write: a broken pipe here is the client's everyday case, not a failure.
        let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        if let Err(e) = written {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        let out = child.wait_with_output().unwrap();
        crate::common::code_out_err(&out)
    }
}

fn this_target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        other => panic!("no release target for {other:?}"),
    }
}

const SHELLS: [&str; 2] = ["sh", "bash"];

#[test]
fn the_binary_is_found_in_order_of_preference() {
    for shell in SHELLS {
        let b = Box_::new();
        b.fake(&b.home, ".cargo/bin/omc-hooks", "cargo-bin");
        assert_eq!(
            b.run(shell, "stop", "{}"),
            (0, "cargo-bin|stop|{}".into(), String::new())
        );
        b.fake(&b.path, "omc-hooks", "on-path");
        assert_eq!(b.run(shell, "stop", "x").1, "on-path|stop|x");
        b.fake(&b.root, "target/release/omc-hooks", "checkout");
        assert_eq!(b.run(shell, "pre-compact", "y").1, "checkout|pre-compact|y");
        b.fake(&b.root, "bin/omc-hooks", "bundled");
        assert_eq!(b.run(shell, "session-end", "z").1, "bundled|session-end|z");
    }
}

#[test]
fn the_prebuilt_binary_for_this_machine_is_linked_on_first_use() {
    for shell in SHELLS {
        let b = Box_::new();
        let t = this_target();
        for other in omc_hooks::hooks::RELEASE_TARGETS
            .iter()
            .filter(|x| **x != t)
        {
            b.fake(&b.root, &format!("bin/{other}/omc-hooks"), "wrong");
        }
        b.fake(&b.root, &format!("bin/{t}/omc-hooks"), "prebuilt");
        assert_eq!(b.run(shell, "stop", "{}").1, "prebuilt|stop|{}");
        let link = b.root.join("bin/omc-hooks");
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            PathBuf::from(format!("{t}/omc-hooks"))
        );
        // The next hook takes the link: the first path tried.
        assert_eq!(b.run(shell, "stop", "again").1, "prebuilt|stop|again");
    }
}

/// A marketplace bundle with an `omc-hooks` on PATH too — npm's Node.js launcher, say, for
/// another agent: the bundle's own binary runs (and is linked), not the one on PATH, so no hook
/// starts Node.js. A plugin without `bin/` (a checkout) goes on to PATH without asking `uname`.
#[test]
fn the_bundled_binary_wins_over_path_and_a_checkout_never_asks_uname() {
    for shell in SHELLS {
        let b = Box_::new();
        let t = this_target();
        b.fake(&b.path, "omc-hooks", "on-path");
        // A `uname` that leaves a mark when it is run (PATH's first directory).
        let mark = b.home.join("uname-ran");
        std::fs::write(
            b.path.join("uname"),
            format!(
                "#!/bin/sh\ntouch '{}'\nexec /usr/bin/uname \"$@\"\n",
                mark.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(b.path.join("uname"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        assert_eq!(b.run(shell, "stop", "a").1, "on-path|stop|a");
        assert!(
            !mark.exists(),
            "{shell}: uname ran for a plugin without bin/"
        );

        b.fake(&b.root, &format!("bin/{t}/omc-hooks"), "prebuilt");
        assert_eq!(b.run(shell, "stop", "b").1, "prebuilt|stop|b");
        assert!(
            mark.exists(),
            "{shell}: the bundle's target is found with uname"
        );
        assert_eq!(
            std::fs::read_link(b.root.join("bin/omc-hooks")).unwrap(),
            PathBuf::from(format!("{t}/omc-hooks"))
        );
        std::fs::remove_file(&mark).unwrap();
        assert_eq!(b.run(shell, "stop", "c").1, "prebuilt|stop|c");
        assert!(!mark.exists(), "{shell}: the link is taken without uname");
    }
}

/// Git Bash on Windows (what Claude Code runs a hook's command with there): `uname -sm` says
/// `MINGW64_NT-… x86_64` (MSYS2: `MSYS_NT-…`, Cygwin: `CYGWIN_NT-…`) and the bundle's binary is
/// `bin/x86_64-pc-windows-msvc/omc-hooks.exe`: it runs and is linked as `bin/omc-hooks.exe`,
/// which the next hook takes first. `cargo install` puts `~/.cargo/bin/omc-hooks.exe`. Here a
/// `uname` stand-in on PATH answers as Git Bash's does, under `sh` and `bash`.
#[test]
fn under_git_bash_the_windows_binary_omc_hooks_exe_is_found() {
    for shell in SHELLS {
        for system in [
            "MINGW64_NT-10.0-22631",
            "MSYS_NT-10.0-19045",
            "CYGWIN_NT-10.0",
        ] {
            let b = Box_::new();
            std::fs::write(
                b.path.join("uname"),
                format!("#!/bin/sh\necho '{system} x86_64'\n"),
            )
            .unwrap();
            std::fs::set_permissions(b.path.join("uname"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            let t = "x86_64-pc-windows-msvc";
            b.fake(&b.root, "bin/x86_64-unknown-linux-musl/omc-hooks", "wrong");
            b.fake(&b.root, &format!("bin/{t}/omc-hooks.exe"), "windows");
            assert_eq!(
                b.run(shell, "stop", "{}"),
                (0, "windows|stop|{}".into(), String::new()),
                "{shell} {system}"
            );
            assert_eq!(
                std::fs::read_link(b.root.join("bin/omc-hooks.exe")).unwrap(),
                PathBuf::from(format!("{t}/omc-hooks.exe"))
            );
            assert!(!b.root.join("bin/omc-hooks").exists());
            // The next hook takes the link, without uname.
            std::fs::remove_file(b.path.join("uname")).unwrap();
            assert_eq!(b.run(shell, "stop", "x").1, "windows|stop|x");
        }
        // No bundle: `cargo install`'s ~/.cargo/bin/omc-hooks.exe.
        let b = Box_::new();
        b.fake(&b.home, ".cargo/bin/omc-hooks.exe", "cargo-exe");
        assert_eq!(b.run(shell, "stop", "y").1, "cargo-exe|stop|y");
        // A checkout built on Windows: target/release/omc-hooks.exe.
        b.fake(&b.root, "target/release/omc-hooks.exe", "checkout-exe");
        assert_eq!(b.run(shell, "stop", "z").1, "checkout-exe|stop|z");
    }
}

#[test]
fn with_no_binary_anywhere_hooks_fail_open_and_session_start_says_how_to_get_it() {
    for shell in SHELLS {
        let b = Box_::new();
        let (code, out, err) = b.run(shell, "session-start", "{}");
        assert_eq!(code, 0);
        assert_eq!(err, "");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        let msg = v["systemMessage"].as_str().unwrap();
        assert_has(msg, "cargo install omc-hooks");
        assert_eq!(out.lines().count(), 1);
        for (_, sub) in crate::common::manifest_hooks() {
            if sub != "session-start" {
                assert_eq!(
                    b.run(shell, &sub, "{}"),
                    (0, String::new(), String::new()),
                    "{sub}"
                );
            }
        }
        assert!(
            !b.root.join("bin").exists(),
            "nothing written into the plugin"
        );
    }
}

#[test]
fn the_real_binary_answers_through_the_launcher() {
    let b = Box_::new();
    std::os::unix::fs::symlink(crate::common::BIN, b.path.join("omc-hooks")).unwrap();
    let (code, out, _) = b.run("sh", "stop", "not json");
    assert_eq!((code, out.as_str()), (0, ""));
}

/// The npm package's Node.js launcher (`packaging/npm/omc-hooks.js`): which platform package
/// and which binary in it each machine runs — `bin/omc-hooks.exe` on Windows.
#[test]
fn the_npm_launcher_maps_each_platform_to_its_package_and_binary() {
    let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/npm/omc-hooks.js");
    let out = Command::new("node")
        .arg("-e")
        .arg(
            "const { binaryFor } = require(process.argv[1]);\
             for (const [p, a] of [['linux','x64'],['linux','arm64'],['darwin','x64'],\
               ['darwin','arm64'],['win32','x64'],['win32','arm64']]) {\
               const b = binaryFor(p, a); console.log(`${b.pkg} ${b.file}`); }",
        )
        .arg(&js)
        .output()
        .expect("node");
    assert_exit_ok(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "@omc-hooks/linux-x64 bin/omc-hooks\n\
         @omc-hooks/linux-arm64 bin/omc-hooks\n\
         @omc-hooks/darwin-x64 bin/omc-hooks\n\
         @omc-hooks/darwin-arm64 bin/omc-hooks\n\
         @omc-hooks/win32-x64 bin/omc-hooks.exe\n\
         @omc-hooks/win32-arm64 bin/omc-hooks.exe\n"
    );
}

/// The launcher run as npm installs it, on a machine that says it is `win32`/`x64` (Node's
/// `process.platform` and `arch` set before the script starts): it runs the win32-x64
/// package's `bin/omc-hooks.exe` (a stand-in here) with the arguments and stdin, ending as it
/// ends; with only a `bin/omc-hooks` there, it says the binary is not installed.
#[test]
fn the_npm_launcher_runs_omc_hooks_exe_on_win32() {
    let t = tempfile::tempdir().unwrap();
    let modules = t.path().join("node_modules");
    let main = modules.join("omc-hooks");
    std::fs::create_dir_all(main.join("bin")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/npm/omc-hooks.js"),
        main.join("bin/omc-hooks.js"),
    )
    .unwrap();
    std::fs::write(
        main.join("package.json"),
        r#"{"name":"omc-hooks","version":"9.9.9","optionalDependencies":{"@omc-hooks/linux-x64":"9.9.9","@omc-hooks/win32-x64":"9.9.9"}}"#,
    )
    .unwrap();
    let win = modules.join("@omc-hooks/win32-x64");
    std::fs::create_dir_all(win.join("bin")).unwrap();
    std::fs::write(
        win.join("package.json"),
        r#"{"name":"@omc-hooks/win32-x64","version":"9.9.9"}"#,
    )
    .unwrap();
    let pretend = t.path().join("pretend-win32.js");
    std::fs::write(
        &pretend,
        "Object.defineProperty(process, 'platform', { value: 'win32' });\n\
         Object.defineProperty(process, 'arch', { value: 'x64' });\n",
    )
    .unwrap();
    let run = || {
        let mut child = Command::new("node")
            .arg("-r")
            .arg(&pretend)
            .arg(main.join("bin/omc-hooks.js"))
            .args(["stop", "--flag"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node");
        let _ = child.stdin.take().unwrap().write_all(b"{}");
        let out = child.wait_with_output().unwrap();
        crate::common::code_out_err(&out)
    };
    // The Unix name alone is not the Windows binary.
    let b = Box_::new();
    b.fake(&win, "bin/omc-hooks", "unix-name");
    let (code, out, err) = run();
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert_has(&err, "not installed: @omc-hooks/win32-x64@9.9.9");
    b.fake(&win, "bin/omc-hooks.exe", "windows-exe");
    let (code, out, err) = run();
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "windows-exe|stop --flag|{}", "")
    );
}
