//! The release packaging, without publishing anything: the repository is named alike in every
//! place a user's command reads it (and `packaging/set-repository.sh` renames it in all of
//! them); the Claude Code plugin carries the crate's version; `packaging/npm-pack.sh --archives` turns a release's checksummed archives into one
//! npm package per release target plus the launcher package, with no install script; a wrong
//! checksum stops it; `packaging/npm-publish.sh` publishes platform packages first and refuses
//! an incomplete set. (The packages installed and run: `e2e_npm`.) Needs bash, Node.js and npm.

use crate::common::assert_exit_ok;
use crate::common::assert_has;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `owner/name` of Cargo.toml's `repository`, of the marketplace entry, and every one the
/// README's marketplace commands name, under `root`.
fn repository_names(root: &Path) -> (String, String, Vec<String>) {
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let repo = cargo
        .lines()
        .find_map(|l| l.strip_prefix("repository = \"https://github.com/"))
        .and_then(|r| r.strip_suffix('"'))
        .expect("repository = \"https://github.com/OWNER/NAME\" in Cargo.toml")
        .to_string();
    let mkt: Value = serde_json::from_slice(
        &std::fs::read(root.join(".claude-plugin/marketplace.json")).unwrap(),
    )
    .unwrap();
    let entry = mkt["plugins"][0]["source"]["repo"]
        .as_str()
        .unwrap()
        .to_string();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut named = Vec::new();
    for marker in ["--marketplace ", "marketplace add "] {
        for (i, _) in readme.match_indices(marker) {
            let word: String = readme[i + marker.len()..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '`' && *c != ')')
                .collect();
            // `codex plugin marketplace add /path/to/checkout` names a directory
            if !word.starts_with('/') && word.contains('/') {
                named.push(word);
            }
        }
    }
    (repo, entry, named)
}

#[test]
fn the_repository_is_named_alike_everywhere_a_user_reads_it() {
    let (repo, entry, readme) = repository_names(repo_root());
    assert_eq!(
        entry, repo,
        ".claude-plugin/marketplace.json against Cargo.toml"
    );
    assert!(
        readme.len() >= 2,
        "the README's marketplace commands: {readme:?}"
    );
    for r in readme {
        assert_eq!(r, repo, "a README marketplace command against Cargo.toml");
    }
}

#[test]
fn set_repository_renames_it_in_every_place() {
    let d = tempfile::tempdir().unwrap();
    for rel in ["Cargo.toml", ".claude-plugin/marketplace.json", "README.md"] {
        std::fs::create_dir_all(d.path().join(rel).parent().unwrap()).unwrap();
        std::fs::copy(repo_root().join(rel), d.path().join(rel)).unwrap();
    }
    let run = |name: &str| {
        Command::new("bash")
            .arg(repo_root().join("packaging/set-repository.sh"))
            .arg(name)
            .arg(d.path())
            .output()
            .unwrap()
    };
    let out = run("acme-labs/agent.hooks");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (repo, entry, readme) = repository_names(d.path());
    assert_eq!(repo, "acme-labs/agent.hooks");
    assert_eq!(entry, repo);
    assert!(
        readme.len() >= 2 && readme.iter().all(|r| *r == repo),
        "{readme:?}"
    );
    // Nothing else of the files changed: only those lines differ.
    let before = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let after = std::fs::read_to_string(d.path().join("README.md")).unwrap();
    let changed = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(before.lines().count(), after.lines().count());
    assert!(
        changed >= 1 && changed <= readme.len(),
        "{changed} README lines changed"
    );
    // Not an OWNER/NAME: refused, nothing written.
    let out = run("not a name");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(repository_names(d.path()).0, "acme-labs/agent.hooks");
}

/// A release's version is Cargo.toml's; the Claude Code plugin's manifest, which the `plugin`
/// branch carries and by whose version the client tells an update, must say the same (the
/// Codex plugin's and the Gemini extension's are generated with it, checked in
/// `cli::agent_install::packaging`; the npm packages take it when packed).
#[test]
fn the_claude_code_plugin_carries_the_crate_version() {
    let v: Value = serde_json::from_slice(
        &std::fs::read(repo_root().join(".claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        v["version"],
        env!("CARGO_PKG_VERSION"),
        ".claude-plugin/plugin.json against Cargo.toml (docs/releasing.md)"
    );
}

/// npm-pack.sh's table: release target → npm platform.
fn npm_platforms() -> Vec<(String, String)> {
    let script = std::fs::read_to_string(repo_root().join("packaging/npm-pack.sh")).unwrap();
    let table = script
        .split("PLATFORMS=(")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("PLATFORMS=( … ) in npm-pack.sh");
    table
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_matches('"');
            let (t, p) = l.split_once(' ')?;
            Some((t.to_string(), p.to_string()))
        })
        .collect()
}

#[test]
fn the_npm_packages_are_the_release_targets() {
    let platforms = npm_platforms();
    let targets: BTreeSet<&str> = platforms.iter().map(|(t, _)| t.as_str()).collect();
    let release: BTreeSet<&str> = omc_hooks::hooks::RELEASE_TARGETS.into_iter().collect();
    assert_eq!(
        targets, release,
        "npm-pack.sh against src/hooks.rs RELEASE_TARGETS"
    );
    let dist = std::fs::read_to_string(repo_root().join("dist-workspace.toml")).unwrap();
    let line = dist.lines().find(|l| l.starts_with("targets = ")).unwrap();
    for t in release {
        assert!(
            line.contains(&format!("\"{t}\"")),
            "{t} in dist-workspace.toml: {line}"
        );
    }
    // `${process.platform}-${process.arch}`, what the launcher asks for.
    for (t, p) in &platforms {
        let os = if t.contains("linux") {
            "linux"
        } else if t.contains("-windows-") {
            "win32"
        } else {
            "darwin"
        };
        let cpu = if t.starts_with("x86_64") {
            "x64"
        } else {
            "arm64"
        };
        assert_eq!(*p, format!("{os}-{cpu}"), "{t}");
    }
    // Every publish job dist runs has its workflow.
    let jobs = dist
        .lines()
        .find(|l| l.starts_with("publish-jobs = "))
        .unwrap();
    for job in jobs.split('"').filter(|w| w.starts_with("./")) {
        let wf = repo_root().join(format!(".github/workflows/{}.yml", &job[2..]));
        assert!(wf.is_file(), "{}", wf.display());
    }
}

/// What dist publishes for `target` (`common::release_archive`), its binary a small stand-in
/// program; returns the stand-in's bytes.
fn fake_archive(dir: &Path, target: &str) -> Vec<u8> {
    let body = format!("#!/bin/sh\necho 'omc-hooks for {target}'\n").into_bytes();
    let stand_in = dir.join(format!("stand-in-{target}"));
    std::fs::write(&stand_in, &body).unwrap();
    crate::common::release_archive(dir, target, &stand_in);
    std::fs::remove_file(&stand_in).unwrap();
    body
}

fn pack(out: &Path, args: &[&Path]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(repo_root().join("packaging/npm-pack.sh")).arg(out);
    cmd.arg("--archives").args(args);
    cmd.output().unwrap()
}

/// `package/<rel>` of a tarball.
fn tar_file(tgz: &Path, rel: &str) -> Vec<u8> {
    let out = Command::new("tar")
        .args(["-xzOf"])
        .arg(tgz)
        .arg(format!("package/{rel}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{rel} in {}", tgz.display());
    out.stdout
}

/// `tar -tzv` lines of a tarball.
fn tar_listing(tgz: &Path) -> String {
    text(
        &Command::new("tar")
            .arg("-tzvf")
            .arg(tgz)
            .output()
            .unwrap()
            .stdout,
    )
}

fn tarballs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn npm_pack_turns_release_archives_into_one_package_per_target_and_the_launcher() {
    let d = tempfile::tempdir().unwrap();
    let artifacts = d.path().join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let mut bodies = Vec::new();
    for (t, p) in npm_platforms() {
        bodies.push((p, fake_archive(&artifacts, &t)));
    }
    let out_dir = d.path().join("npm");
    let out = pack(&out_dir, &[&artifacts]);
    assert_exit_ok(&out);
    let n = bodies.len();
    assert!(
        bodies.iter().any(|(p, _)| p == "win32-x64"),
        "a Windows package: {:?}",
        npm_platforms()
    );
    assert_eq!(tarballs(&out_dir).len(), n + 1, "{:?}", tarballs(&out_dir));

    for (platform, body) in &bodies {
        let tgz = out_dir.join(format!("omc-hooks-{platform}-{version}.tgz"));
        let pkg: Value = serde_json::from_slice(&tar_file(&tgz, "package.json")).unwrap();
        assert_eq!(pkg["name"], format!("@omc-hooks/{platform}"));
        assert_eq!(pkg["version"], version);
        let (os, cpu) = platform.split_once('-').unwrap();
        assert_eq!(pkg["os"], serde_json::json!([os]));
        assert_eq!(pkg["cpu"], serde_json::json!([cpu]));
        assert!(pkg.get("scripts").is_none(), "no install script: {pkg}");
        assert!(
            pkg.get("bin").is_none(),
            "only the launcher is on PATH: {pkg}"
        );
        // The archive's binary, byte for byte, executable: `omc-hooks.exe` on Windows (from
        // the release's .zip), `omc-hooks` elsewhere, and nothing else under bin/.
        let exe = if os == "win32" {
            "bin/omc-hooks.exe"
        } else {
            "bin/omc-hooks"
        };
        assert_eq!(pkg["files"], serde_json::json!([exe]), "{platform}");
        assert_eq!(&tar_file(&tgz, exe), body, "{platform}");
        let listing = tar_listing(&tgz);
        let bins: Vec<&str> = listing
            .lines()
            .filter(|l| l.contains("package/bin/"))
            .collect();
        assert_eq!(bins.len(), 1, "{listing}");
        assert!(bins[0].ends_with(&format!("package/{exe}")), "{listing}");
        assert!(bins[0].starts_with("-rwxr-xr-x"), "{}", bins[0]);
    }

    let main = out_dir.join(format!("omc-hooks-{version}.tgz"));
    let pkg: Value = serde_json::from_slice(&tar_file(&main, "package.json")).unwrap();
    assert_eq!(pkg["name"], "omc-hooks");
    assert_eq!(pkg["version"], version);
    assert!(pkg.get("scripts").is_none(), "no install script: {pkg}");
    assert!(pkg.get("dependencies").is_none(), "{pkg}");
    assert_eq!(pkg["bin"]["omc-hooks"], "bin/omc-hooks.js");
    let optional = pkg["optionalDependencies"].as_object().unwrap();
    assert_eq!(optional.len(), n, "{pkg}");
    for (platform, _) in &bodies {
        assert_eq!(optional[&format!("@omc-hooks/{platform}")], version);
    }
    assert_eq!(
        tar_file(&main, "bin/omc-hooks.js"),
        std::fs::read(repo_root().join("packaging/npm/omc-hooks.js")).unwrap()
    );
    let cargo = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    let url = pkg["repository"]["url"].as_str().unwrap();
    let repo = url.trim_start_matches("git+").trim_end_matches(".git");
    assert!(cargo.contains(&format!("repository = \"{repo}\"")), "{url}");

    // The publish dry run: platform packages first, then the launcher; no registry reached
    // (the one configured here does not exist).
    let publish = |dir: &Path, dry: bool| {
        let mut cmd = Command::new("bash");
        cmd.arg(repo_root().join("packaging/npm-publish.sh"))
            .arg(dir);
        if dry {
            cmd.arg("--dry-run");
        }
        cmd.env("npm_config_registry", "http://127.0.0.1:9/")
            .env("npm_config_userconfig", d.path().join("no-npmrc"))
            .output()
            .unwrap()
    };
    let out = publish(&out_dir, true);
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}\n{}", text(&out.stderr));
    let order: Vec<&str> = said
        .lines()
        .filter_map(|l| l.strip_prefix("npm publish "))
        .collect();
    assert_eq!(order.len(), n + 1, "{said}");
    assert!(
        order[n].starts_with(&format!("omc-hooks@{version} ")),
        "{said}"
    );
    assert!(
        order[..n].iter().all(|l| l.starts_with("@omc-hooks/")),
        "{said}"
    );

    // Without one platform package a real publish is refused before anything is sent.
    let first = out_dir.join(format!("omc-hooks-{}-{version}.tgz", bodies[0].0));
    std::fs::remove_file(&first).unwrap();
    let out = publish(&out_dir, false);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_has(&err, "not publishing");
    assert_has(&err, &format!("@omc-hooks/{}@{version}", bodies[0].0));
    assert!(
        !text(&out.stdout).contains("npm publish"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn npm_pack_stops_at_an_archive_whose_checksum_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    let artifacts = d.path().join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let platforms = npm_platforms();
    for (t, _) in &platforms {
        fake_archive(&artifacts, t);
    }
    let bad = &platforms[1].0;
    let sum = artifacts.join(format!("omc-hooks-{bad}.tar.xz.sha256"));
    // The Windows archive (a .zip) is checked alike: its checksum file must be there.
    let win = platforms
        .iter()
        .find(|(t, _)| t.contains("-windows-"))
        .map(|(t, _)| t.clone())
        .expect("a Windows target");
    let win_sum = artifacts.join(format!("omc-hooks-{win}.zip.sha256"));
    let kept = std::fs::read(&win_sum).unwrap();
    std::fs::remove_file(&win_sum).unwrap();
    let out = pack(&d.path().join("npm-win"), &[&artifacts]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert_has(&err, &format!("missing {}", win_sum.display()));
    std::fs::write(&win_sum, kept).unwrap();
    std::fs::write(&sum, format!("{} x\n", "0".repeat(64))).unwrap();
    let out_dir = d.path().join("npm");
    let out = pack(&out_dir, &[&artifacts]);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("checksum mismatch") && err.contains(bad.as_str()),
        "{err}"
    );
    assert!(tarballs(&out_dir).is_empty(), "{:?}", tarballs(&out_dir));
}

/// `packaging/plugin-bundle.sh` on a release's archives: every release target's binary under
/// `bin/<target>/`, byte for byte — Windows' as `omc-hooks.exe` from its `.zip`, which
/// hooks.json's command runs under Git Bash — each listed in `bin/SHA256SUMS`, whether the
/// targets are named (as the release workflow names them all) or found.
#[test]
fn the_plugin_bundle_holds_every_release_target_windows_as_omc_hooks_exe() {
    let d = tempfile::tempdir().unwrap();
    let artifacts = d.path().join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let bodies: Vec<(&str, Vec<u8>)> = omc_hooks::hooks::RELEASE_TARGETS
        .iter()
        .map(|t| (*t, fake_archive(&artifacts, t)))
        .collect();
    let workflow =
        std::fs::read_to_string(repo_root().join(".github/workflows/publish-plugin.yml")).unwrap();
    let named: Vec<&str> = workflow
        .split("packaging/plugin-bundle.sh target/plugin target/distrib")
        .nth(1)
        .unwrap()
        .split("- name:")
        .next()
        .unwrap()
        .split_whitespace()
        .filter(|w| *w != "\\")
        .collect();
    let mut sorted = named.clone();
    sorted.sort();
    let mut release = omc_hooks::hooks::RELEASE_TARGETS.to_vec();
    release.sort();
    assert_eq!(
        sorted, release,
        "publish-plugin.yml names every release target"
    );

    for (how, targets) in [("named", named.clone()), ("found", vec![])] {
        let out_dir = d.path().join(format!("plugin-{how}"));
        let out = Command::new("bash")
            .arg(repo_root().join("packaging/plugin-bundle.sh"))
            .arg(&out_dir)
            .arg(&artifacts)
            .args(&targets)
            .output()
            .unwrap();
        assert!(out.status.success(), "{how}: {}", text(&out.stderr));
        let sums = std::fs::read_to_string(out_dir.join("bin/SHA256SUMS")).unwrap();
        assert_eq!(sums.lines().count(), bodies.len(), "{how}: {sums}");
        for (t, body) in &bodies {
            let exe = if t.contains("-windows-") {
                "omc-hooks.exe"
            } else {
                "omc-hooks"
            };
            let rel = format!("{t}/{exe}");
            assert_eq!(
                &std::fs::read(out_dir.join("bin").join(&rel)).unwrap(),
                body,
                "{how}: {rel}"
            );
            assert!(
                sums.lines().any(|l| l.ends_with(&format!("  {rel}"))),
                "{how}: {rel} in {sums}"
            );
            let other = if exe == "omc-hooks" {
                "omc-hooks.exe"
            } else {
                "omc-hooks"
            };
            assert!(
                !out_dir.join("bin").join(t).join(other).exists(),
                "{how}: {t}"
            );
        }
    }
}
