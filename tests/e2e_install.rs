//! Installing without a checkout, in the real Claude Code client: the repository's marketplace
//! entry validates, and a marketplace whose plugin is the bundle `packaging/plugin-bundle.sh`
//! makes (prebuilt binary under `bin/<target>/`, checksummed) installs offline with
//! `claude plugin marketplace add` + `claude plugin install`, after which the hooks run that
//! binary — with no `--plugin-dir`, no `target/release`, nothing on PATH.

use crate::common::BIN;
use crate::e2e::{Sandbox, Scenario, client_bin, plugin_dir};
use crate::e2e_foundation::trace;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs the real client's `claude <args>` with the sandbox's HOME; returns its output.
#[track_caller]
fn claude_cli(sb: &Sandbox, args: &[&str]) -> String {
    let out = Command::new(client_bin())
        .args(args)
        .env("HOME", sb.home())
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .current_dir(sb.root())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "claude {args:?}:\n{text}");
    text
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

/// What `dist` would publish for this machine, made from the test binary: the archive and
/// its checksum file.
fn fake_release(dir: &Path, target: &str) {
    crate::common::release_archive(dir, target, Path::new(BIN));
}

fn bundle(out: &Path, artifacts: &Path) -> std::process::Output {
    Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/plugin-bundle.sh"))
        .arg(out)
        .arg(artifacts)
        .output()
        .unwrap()
}

#[test]
fn the_repository_marketplace_entry_validates() {
    let sb = Sandbox::new();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join(".claude-plugin/marketplace.json");
    let out = claude_cli(&sb, &["plugin", "validate", &manifest.to_string_lossy()]);
    assert!(out.contains("Validation passed"), "{out}");
    assert!(!out.contains("warning"), "{out}");
    // The entry installs the branch the release workflow fills, from the repository Cargo.toml
    // names (one place to change when the repository moves).
    let v: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let source = &v["plugins"][0]["source"];
    assert_eq!(source["source"], "github");
    assert_eq!(source["ref"], "plugin");
    let cargo =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let repo = format!(
        "repository = \"https://github.com/{}\"",
        source["repo"].as_str().unwrap()
    );
    assert!(cargo.contains(&repo), "Cargo.toml lacks {repo}");
}

#[test]
fn a_marketplace_install_runs_the_bundled_prebuilt_binary() {
    let sb = Sandbox::new();
    let t = this_target();
    let artifacts = sb.root().join("artifacts");
    fake_release(&artifacts, t);
    let mkt = sb.root().join("marketplace");
    let out = bundle(&mkt.join("omc-hooks"), &artifacts);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sums = Command::new("sha256sum")
        .args(["-c", "SHA256SUMS"])
        .current_dir(mkt.join("omc-hooks/bin"))
        .output()
        .unwrap();
    assert!(
        sums.status.success(),
        "{}",
        String::from_utf8_lossy(&sums.stdout)
    );
    // The repository's marketplace entry, with its source pointed at the local bundle.
    let mut entry: Value = serde_json::from_slice(
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".claude-plugin/marketplace.json"),
        )
        .unwrap(),
    )
    .unwrap();
    entry["plugins"][0]["source"] = Value::String("./omc-hooks".into());
    std::fs::create_dir_all(mkt.join(".claude-plugin")).unwrap();
    std::fs::write(
        mkt.join(".claude-plugin/marketplace.json"),
        serde_json::to_string_pretty(&entry).unwrap(),
    )
    .unwrap();
    claude_cli(&sb, &["plugin", "validate", &mkt.to_string_lossy()]);
    claude_cli(
        &sb,
        &["plugin", "marketplace", "add", &mkt.to_string_lossy()],
    );
    let out = claude_cli(&sb, &["plugin", "install", "omc-hooks@omc-hooks"]);
    assert!(out.contains("Successfully installed"), "{out}");

    let trace_file = sb.root().join("trace.jsonl");
    let run = sb.claude(
        plugin_dir(),
        "hello",
        Scenario::new()
            .without_plugin()
            .reply_text("hi")
            .env("PATH", "/usr/bin:/bin")
            .env("OMC_TRACE_FILE", trace_file.to_string_lossy()),
        None,
    );
    run.assert_success();
    let lines = trace(&trace_file);
    for sub in ["session-start", "user-prompt-submit", "stop", "session-end"] {
        assert!(
            lines
                .iter()
                .any(|l| l["hook"] == sub && l["session_id"] == run.session_id.as_str()),
            "{sub} did not run\n{lines:#?}\n{}",
            run.diagnostics()
        );
    }
    // The first hook linked bin/omc-hooks to this machine's binary in the plugin root the
    // client ran the hooks from (for a marketplace in a local directory, the marketplace's own
    // copy; for a git source, the copy under ~/.claude/plugins/cache).
    let cache = sb.home().join(".claude/plugins/cache/omc-hooks/omc-hooks");
    let mut roots = vec![mkt.join("omc-hooks")];
    roots.extend(
        std::fs::read_dir(&cache)
            .unwrap()
            .flatten()
            .map(|e| e.path()),
    );
    let linked: Vec<_> = roots
        .iter()
        .filter_map(|r| std::fs::read_link(r.join("bin/omc-hooks")).ok())
        .collect();
    assert_eq!(linked, vec![Path::new(t).join("omc-hooks")], "{roots:?}");
}

#[test]
fn the_bundle_refuses_an_archive_whose_checksum_does_not_match() {
    let sb = Sandbox::new();
    let t = this_target();
    let artifacts = sb.root().join("artifacts");
    fake_release(&artifacts, t);
    let sum = artifacts.join(format!("omc-hooks-{t}.tar.xz.sha256"));
    std::fs::write(&sum, format!("{}  omc-hooks-{t}.tar.xz\n", "0".repeat(64))).unwrap();
    let out = bundle(&sb.root().join("bundle"), &artifacts);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("checksum mismatch"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
