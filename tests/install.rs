//! `install` / `uninstall` through the real binary: scopes, byte-for-byte round trips of
//! settings files in every layout, no stray files, the registry, `--backup`, `--statusline`,
//! `--disable-omc`, `--gitignore`; and `status --all` / `--watch` over the registry.

use crate::cli::{MIN, NOW, World, our_commands, ralph, read, this_binary};
use crate::common::assert_has;
use crate::common::{BIN, Project};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A typical settings file in Claude Code's own format (2-space pretty JSON, final newline),
/// with a hook of the user's on an event we also use.
const TYPICAL: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
    "deny": []
  },
  "env": {
    "FOO": "bär"
  },
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 30}]
      }
    ]
  },
  "includeCoAuthoredBy": false
}
"#;

/// Every file and directory under `dir` (`.git` left out) with its bytes: what "nothing else
/// changed" is checked against.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if rel == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(base, &p, out);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn registry_path(w: &World) -> PathBuf {
    w.home.path().join(".local/share/omc-hooks/installs.json")
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn install_then_uninstall_gives_back_the_same_bytes() {
    let w = World::new();
    let settings = w.project_settings();
    write(&settings, TYPICAL);

    let out = w.run(&["install", "--scope", "project"]);
    out.ok();
    assert!(out.stdout.contains("14 hooks added"), "{}", out.stdout);
    assert!(
        out.stdout.contains("shared with your team"),
        "{}",
        out.stdout
    );

    // Every manifest hook is there, with this binary's absolute path, timeouts and matchers
    // as in the manifest; the user's own hooks and settings are kept, untouched bytes included.
    let text = std::fs::read_to_string(&settings).unwrap();
    let v = read(&settings);
    let exe = this_binary();
    let ours = our_commands(&v);
    assert_eq!(ours.len(), 14, "{ours:?}");
    for (event, sub) in crate::common::manifest_hooks() {
        assert!(
            ours.contains(&(event.clone(), format!("\"{exe}\" {sub}"))),
            "{event} {sub} missing: {ours:?}"
        );
    }
    assert_eq!(v["hooks"]["Stop"][1]["hooks"][0]["timeout"], 10);
    assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "*");
    assert!(
        text.starts_with(&TYPICAL[..TYPICAL.find("  \"hooks\"").unwrap()]),
        "{text}"
    );
    assert!(
        text.contains(
            "\"hooks\": [{\"type\": \"command\", \"command\": \"~/bin/guard.sh\", \"timeout\": 30}]"
        ),
        "compact entries stay compact: {text}"
    );
    assert!(text.ends_with("  \"includeCoAuthoredBy\": false\n}\n"));
    // No backup unless asked; the install is in the registry.
    assert_eq!(
        std::fs::read_dir(settings.parent().unwrap())
            .unwrap()
            .count(),
        1
    );
    let reg = read(&registry_path(&w));
    assert_valid("installs", &reg);
    assert_eq!(reg["installs"][0]["scope"], "project");
    assert_eq!(reg["installs"][0]["created_file"], false);

    // A second install changes nothing.
    let installed = std::fs::read(&settings).unwrap();
    let again = w.run(&["install", "--scope", "project"]);
    again.ok();
    assert!(
        again.stdout.contains("already installed"),
        "{}",
        again.stdout
    );
    assert_eq!(std::fs::read(&settings).unwrap(), installed);

    // Uninstall (no --scope: both project files): byte-for-byte the original.
    let out = w.run(&["uninstall"]);
    out.ok();
    assert!(out.stdout.contains("Removed 14"), "{}", out.stdout);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), TYPICAL);
    assert!(!registry_path(&w).exists());
    let out = w.run(&["uninstall"]);
    out.ok();
    assert!(out.stdout.contains("not installed"), "{}", out.stdout);
}

#[test]
fn odd_layouts_come_back_byte_for_byte() {
    let layouts = [
        TYPICAL.replace("  ", "    "),
        TYPICAL.replace("  ", "\t"),
        TYPICAL.replace('\n', "\r\n"),
        r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}"#
            .to_string(),
        "{\"model\": \"opus\", \"hooks\": {}}".to_string(),
        "{\n  \"hooks\": {\n    \"Stop\": [ ],\n    \"SessionEnd\": []\n  }\n}\n".to_string(),
        "{}".to_string(),
        "{ }\n".to_string(),
        "\u{feff}".to_string() + "{\"a\": 1}",
    ];
    for original in layouts {
        let w = World::new();
        let settings = w.p().join(".claude/settings.local.json");
        write(&settings, &original);
        let out = w.run(&["install"]);
        if original.starts_with('\u{feff}') {
            // A byte-order mark is not JSON: refused, untouched.
            out.code(1);
            assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
            continue;
        }
        out.ok();
        let v = read(&settings);
        assert_eq!(our_commands(&v).len(), 14, "{original}");
        if original.contains("\r\n") {
            let t = std::fs::read_to_string(&settings).unwrap();
            assert!(
                !t.replace("\r\n", "").contains('\n'),
                "LF crept into CRLF: {t}"
            );
        }
        w.run(&["uninstall"]).ok();
        assert_eq!(
            std::fs::read_to_string(&settings).unwrap(),
            original,
            "{original:?}"
        );
    }
}

#[test]
fn comments_and_invalid_json_are_refused_and_left_untouched() {
    let w = World::new();
    let settings = w.p().join(".claude/settings.local.json");
    for broken in [
        "{\n  // my settings\n  \"model\": \"opus\"\n}\n",
        "{\n  \"model\": \"opus\",\n}\n",
        "[1, 2]\n",
    ] {
        write(&settings, broken);
        for cmd in ["install", "uninstall"] {
            let out = w.run(&[cmd, "--scope", "local"]);
            out.code(1);
            assert!(out.stderr.contains("nothing was changed"), "{}", out.stderr);
            assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
        }
    }
    write(&settings, "{\n  // mine\n}\n");
    let out = w.run(&["install"]);
    assert!(
        out.stderr.contains("comment at line 2 column 3"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_dir(settings.parent().unwrap())
            .unwrap()
            .count(),
        1,
        "no backup or temporary file left"
    );
    assert!(!registry_path(&w).exists());
}

/// The check the issue asks: five install/uninstall rounds in each scope leave the project
/// and HOME exactly as they were, with no stray file — starting with no settings at all, and
/// with settings of the user's in every file.
#[test]
fn five_rounds_in_each_scope_leave_project_and_home_byte_identical() {
    for seeded in [false, true] {
        for scope in ["project", "local", "user"] {
            let w = World::new();
            if seeded {
                write(&w.project_settings(), TYPICAL);
                write(
                    &w.p().join(".claude/settings.local.json"),
                    "{\"model\":\"haiku\"}",
                );
                write(&w.user_settings(), &TYPICAL.replace("  ", "\t"));
            }
            let (p0, h0) = (snapshot(w.p()), snapshot(w.home.path()));
            for round in 0..5 {
                let args: Vec<&str> = if round % 2 == 0 {
                    vec!["install", "--scope", scope, "--statusline"]
                } else {
                    vec!["install", "--scope", scope]
                };
                w.run(&args).ok();
                let file = match scope {
                    "project" => w.project_settings(),
                    "local" => w.p().join(".claude/settings.local.json"),
                    _ => w.user_settings(),
                };
                assert_eq!(our_commands(&read(&file)).len(), 14);
                assert!(registry_path(&w).exists());
                w.run(&["uninstall", "--scope", scope]).ok();
                assert_eq!(
                    snapshot(w.p()),
                    p0,
                    "{scope} round {round}, seeded {seeded}"
                );
                assert_eq!(
                    snapshot(w.home.path()),
                    h0,
                    "{scope} round {round}, seeded {seeded}"
                );
            }
        }
    }
}

#[test]
fn the_default_scope_is_local_and_use_path_writes_the_bare_name_to_the_project() {
    let w = World::new();
    let out = w.run(&["install"]);
    out.ok();
    let local = w.p().join(".claude/settings.local.json");
    assert_eq!(our_commands(&read(&local)).len(), 14);
    assert!(!w.project_settings().exists());
    assert!(
        out.stdout.contains("local scope: this machine only"),
        "{}",
        out.stdout
    );
    // A new file: 2-space JSON with a final newline.
    let text = std::fs::read_to_string(&local).unwrap();
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \"SessionStart\""),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
    w.run(&["uninstall"]).ok();
    assert!(
        !w.p().join(".claude").exists(),
        "install created .claude/; uninstall removes it"
    );

    // --use-path: needs omc-hooks on PATH; writes `omc-hooks <sub>` into settings.json.
    let out = w.run(&["install", "--use-path"]);
    out.code(1);
    assert!(
        out.stderr.contains("no 'omc-hooks' on PATH"),
        "{}",
        out.stderr
    );
    std::os::unix::fs::symlink(BIN, w.path_dir.path().join("omc-hooks")).unwrap();
    w.run(&["install", "--use-path"]).ok();
    let v = read(&w.project_settings());
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "omc-hooks stop"
    );
    let doctor = w.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("installed, 14 of 14 hooks"),
        "{}",
        doctor.stdout
    );
    w.run(&["uninstall"]).ok();
    assert!(!w.p().join(".claude").exists());
}

#[test]
fn install_from_a_subdirectory_targets_the_project_root() {
    let w = World::new();
    let sub = w.p().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    w.run_in(&sub, &["install"]).ok();
    assert_eq!(
        our_commands(&read(&w.p().join(".claude/settings.local.json"))).len(),
        14
    );
    assert!(!sub.join(".claude").exists());
}

#[test]
fn user_scope_honours_home_and_claude_config_dir() {
    let mut w = World::new();
    let existing = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}]}}\n";
    write(&w.user_settings(), existing);
    w.run(&["install", "--user"]).ok();
    let v = read(&w.user_settings());
    assert_eq!(our_commands(&v).len(), 14);
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "mine");
    assert!(
        !w.p().join(".claude").exists(),
        "--user must not touch the project"
    );

    let cfg = tempfile::tempdir().unwrap();
    w.config_dir = Some(cfg.path().join("claude-config"));
    w.run(&["install", "--scope", "user"]).ok();
    assert_eq!(
        our_commands(&read(&cfg.path().join("claude-config/settings.json"))).len(),
        14
    );
    w.run(&["uninstall", "--user"]).ok();
    assert!(
        !cfg.path().join("claude-config").exists(),
        "the file and directory install created are gone"
    );
    // The HOME one is untouched by the CLAUDE_CONFIG_DIR runs.
    w.config_dir = None;
    assert_eq!(our_commands(&read(&w.user_settings())).len(), 14);
    w.run(&["uninstall", "--scope", "user"]).ok();
    assert_eq!(
        std::fs::read_to_string(w.user_settings()).unwrap(),
        existing
    );
}

#[test]
fn options_and_usage_errors() {
    let w = World::new();
    let other = Project::new();
    w.run(&["install", "--project", other.path().to_str().unwrap()])
        .ok();
    assert_eq!(
        our_commands(&read(&other.path().join(".claude/settings.local.json"))).len(),
        14
    );
    assert!(!w.p().join(".claude").exists());
    for (args, msg) in [
        (
            vec!["install", "--user", "--project", "."],
            "the user scope has none",
        ),
        (
            vec!["install", "--scope", "team"],
            "--scope is project, local or user",
        ),
        (vec!["install", "--scope", "local", "--user"], "choose one"),
        (
            vec!["install", "--force"],
            "--force only applies to --statusline",
        ),
        (
            vec!["uninstall", "--statusline"],
            "unknown option '--statusline'",
        ),
    ] {
        let out = w.run(&args);
        out.code(2);
        assert!(out.stderr.contains(msg), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("Usage: omc-hooks {}", args[0]))
        );
    }
    let out = w.run(&["install", "--project", "/no/such/dir"]);
    out.code(1);
    assert!(out.stderr.contains("not a directory"), "{}", out.stderr);
}

#[test]
fn reinstall_from_a_moved_binary_replaces_the_old_entries() {
    let w = World::new();
    // Not a plain copy run at once: that failed with "Text file busy" under load (issue 30).
    let old_dir = crate::common::binary_scratch_dir();
    let old = old_dir.path().join("omc-hooks");
    crate::common::place_binary(&old);
    let st = crate::common::output_retrying(
        Command::new(&old)
            .arg("install")
            .current_dir(w.p())
            .env("HOME", w.home.path())
            .env_remove("XDG_DATA_HOME")
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CLAUDE_CONFIG_DIR"),
    );
    assert!(st.status.success());
    let local = w.p().join(".claude/settings.local.json");
    let out = w.run(&["install"]);
    out.ok();
    assert!(out.stdout.contains("14 updated"), "{}", out.stdout);
    let exe = this_binary();
    let ours = our_commands(&read(&local));
    assert_eq!(ours.len(), 14);
    assert!(
        ours.iter()
            .all(|(_, c)| c.starts_with(&format!("\"{exe}\"")))
    );
    // The registry still knows install created the file: uninstall deletes it.
    w.run(&["uninstall"]).ok();
    assert!(!local.exists());
}

/// Issue 30, item 10: a binary put in place while other threads start processes runs at once.
/// Each round places the test binary under a new name and runs it straight away, with no
/// retry, while four threads keep forking; a plain `fs::copy` fails here with ETXTBSY.
#[test]
fn a_placed_binary_runs_at_once_while_other_threads_spawn() {
    let dir = crate::common::binary_scratch_dir();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let forkers: Vec<_> = (0..4)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = Command::new("true").status();
                }
            })
        })
        .collect();
    let mut failures = Vec::new();
    for i in 0..40 {
        let bin = dir.path().join(format!("omc-hooks-{i}"));
        crate::common::place_binary(&bin);
        match Command::new(&bin).arg("--version").output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => failures.push(format!("{i}: {:?}", o.status)),
            Err(e) => failures.push(format!("{i}: {e}")),
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for f in forkers {
        f.join().unwrap();
    }
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn a_symlinked_settings_file_is_written_through() {
    let w = World::new();
    let dotfiles = tempfile::tempdir().unwrap();
    let real = dotfiles.path().join("claude-settings.json");
    std::fs::write(&real, TYPICAL).unwrap();
    std::fs::create_dir_all(w.home.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&real, w.user_settings()).unwrap();
    w.run(&["install", "--user"]).ok();
    assert!(
        std::fs::symlink_metadata(w.user_settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(our_commands(&read(&real)).len(), 14);
    w.run(&["uninstall", "--user"]).ok();
    assert_eq!(std::fs::read_to_string(&real).unwrap(), TYPICAL);
}

#[test]
fn backup_is_one_file_replaced_each_time_and_listed_by_uninstall() {
    let w = World::new();
    let settings = w.project_settings();
    write(&settings, TYPICAL);
    // An old version's backups are listed too.
    write(
        &settings.with_file_name("settings.json.bak-20261101T000000000Z"),
        "{}",
    );
    w.run(&["install", "--scope", "project", "--backup"]).ok();
    let bak = settings.with_file_name("settings.json.omc-hooks.bak");
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), TYPICAL);
    let installed = std::fs::read_to_string(&settings).unwrap();
    let out = w.run(&["uninstall", "--scope", "project", "--backup"]);
    out.ok();
    assert_eq!(
        std::fs::read_to_string(&bak).unwrap(),
        installed,
        "replaced"
    );
    assert!(out.stdout.contains("Backups beside it"), "{}", out.stdout);
    assert!(
        out.stdout.contains("settings.json.omc-hooks.bak"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("settings.json.bak-20261101T000000000Z"));
    assert_eq!(
        std::fs::read_dir(settings.parent().unwrap())
            .unwrap()
            .count(),
        3
    );
}

#[test]
fn the_statusline_is_added_refused_forced_and_given_back() {
    let w = World::new();
    let local = w.p().join(".claude/settings.local.json");
    w.run(&["install", "--statusline"]).ok();
    let v = read(&local);
    assert_eq!(
        v["statusLine"],
        json!({"type": "command", "command": format!("\"{}\" statusline", this_binary())})
    );
    w.run(&["uninstall"]).ok();
    assert!(!local.exists());

    let mine = "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/line.sh\", \"padding\": 0}\n}\n";
    write(&local, mine);
    let out = w.run(&["install", "--statusline"]);
    out.code(1);
    assert!(
        out.stderr
            .contains("already has a status line (~/bin/line.sh)"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&local).unwrap(), mine);
    let out = w.run(&["install", "--statusline", "--force"]);
    out.ok();
    assert!(
        out.stdout.contains("Also set: statusLine"),
        "{}",
        out.stdout
    );
    assert_eq!(
        read(&local)["statusLine"]["command"],
        format!("\"{}\" statusline", this_binary())
    );
    let out = w.run(&["uninstall"]);
    out.ok();
    assert!(
        out.stdout.contains("Restored /statusLine"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read_to_string(&local).unwrap(), mine);
}

#[test]
fn oh_my_claudecode_is_pointed_out_and_switched_off_on_request() {
    let w = World::new();
    // OMC as a plugin in the user's settings, and OMC's standalone hook in the project's.
    write(
        &w.user_settings(),
        "{\n  \"enabledPlugins\": {\n    \"oh-my-claudecode@omc\": true\n  }\n}\n",
    );
    let project = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"node ~/.claude/hooks/persistent-mode.mjs\"}]}]}}";
    write(&w.project_settings(), project);
    let out = w.run(&["install"]);
    out.ok();
    assert!(
        out.stdout.contains("oh-my-claudecode is also active here"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("--disable-omc"), "{}", out.stdout);
    let local = w.p().join(".claude/settings.local.json");
    assert!(read(&local).get("enabledPlugins").is_none());
    let doctor = w.run(&["doctor"]);
    doctor.code(1);
    assert!(
        doctor.stdout.contains("omc-hooks install --disable-omc"),
        "{}",
        doctor.stdout
    );

    let out = w.run(&["install", "--disable-omc"]);
    out.ok();
    let v = read(&local);
    assert_eq!(v["enabledPlugins"]["oh-my-claudecode@omc"], false);
    assert_eq!(
        v["env"]["OMC_SKIP_HOOKS"],
        "keyword-detector,persistent-mode"
    );
    // The names are OMC's alone: they must not switch our own keyword detection off.
    assert_eq!(v["env"]["OMC_SKIP_HOOKS_OMC_ONLY"], "1");
    let doctor = w.run(&["doctor"]);
    assert!(
        !doctor.stdout.contains("--disable-omc"),
        "{}",
        doctor.stdout
    );
    // The user's own files were not touched; uninstall puts everything back.
    assert_eq!(
        std::fs::read_to_string(w.project_settings()).unwrap(),
        project
    );
    w.run(&["uninstall"]).ok();
    assert!(!local.exists());
    assert_eq!(
        std::fs::read_to_string(w.project_settings()).unwrap(),
        project
    );
}

#[test]
fn the_gitignore_line_is_offered_and_added_only_on_request() {
    let w = World::new();
    let out = w.run(&["install"]);
    assert!(
        out.stdout
            .contains(".omc/ and .claude/settings.local.json not ignored"),
        "{}",
        out.stdout
    );
    assert!(!w.p().join(".gitignore").exists(), "never silently");
    write(&w.p().join(".gitignore"), "target");
    w.run(&["install", "--gitignore"]).ok();
    assert_eq!(
        std::fs::read_to_string(w.p().join(".gitignore")).unwrap(),
        "target\n.omc/\n.claude/settings.local.json\n"
    );
    let out = w.run(&["install", "--gitignore"]);
    assert!(!out.stdout.contains("not ignored"), "{}", out.stdout);
    // The project scope's file is meant for git: only .omc/ is offered.
    let w = World::new();
    let out = w.run(&["install", "--scope", "project"]);
    assert!(
        out.stdout.contains("Git: .omc/ not ignored"),
        "{}",
        out.stdout
    );
}

#[test]
fn uninstall_gives_the_gitignore_back_byte_for_byte() {
    // Issue 30, item 10. A .gitignore without a final newline: install adds one and two lines.
    let w = World::new();
    let gi = w.p().join(".gitignore");
    write(&gi, "target\n*.log");
    w.run(&["install", "--gitignore"]).ok();
    assert_eq!(
        std::fs::read_to_string(&gi).unwrap(),
        "target\n*.log\n.omc/\n.claude/settings.local.json\n"
    );
    let reg: Value = serde_json::from_str(
        &std::fs::read_to_string(w.home.path().join(".local/share/omc-hooks/installs.json"))
            .unwrap(),
    )
    .unwrap();
    crate::schema::assert_valid("installs", &reg);
    let out = w.run(&["uninstall"]);
    out.ok();
    assert!(
        out.stdout
            .contains("Removed .omc/ and .claude/settings.local.json from"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read_to_string(&gi).unwrap(), "target\n*.log");

    // No .gitignore before: the one install created goes again.
    let w = World::new();
    let gi = w.p().join(".gitignore");
    w.run(&["install", "--gitignore"]).ok();
    assert!(gi.exists());
    w.run(&["uninstall"]).ok();
    assert!(!gi.exists(), "{:?}", std::fs::read_to_string(&gi));

    // Changed after install where install wrote: left as it is, and said so.
    let w = World::new();
    let gi = w.p().join(".gitignore");
    write(&gi, "target\n");
    w.run(&["install", "--gitignore"]).ok();
    let edited = "target\n.omc/\n.claude/settings.local.json\nnode_modules/\n";
    write(&gi, edited);
    let out = w.run(&["uninstall"]);
    out.ok();
    assert!(
        out.stdout.contains("are no longer its last ones"),
        "{}",
        out.stdout
    );
    assert_eq!(std::fs::read_to_string(&gi).unwrap(), edited);
}

// ---------------------------------------------------------------- status --all / --watch

#[test]
fn status_all_shows_the_runs_of_every_installed_project() {
    let w = World::new();
    let second = Project::new();
    let third = Project::new();
    w.run(&["install"]).ok();
    w.run(&["install", "--project", second.path().to_str().unwrap()])
        .ok();
    w.run(&[
        "install",
        "--scope",
        "project",
        "--project",
        third.path().to_str().unwrap(),
    ])
    .ok();
    w.seed(
        Some("s1"),
        "ralph-state.json",
        ralph("s1", NOW - 10 * MIN, NOW - 5 * MIN, 3),
    );
    let mut suspended = ralph("s9", NOW - 100 * MIN, NOW - 90 * MIN, 7);
    suspended["mode"] = json!("autopilot");
    suspended["suspended_at"] = json!(omc_hooks::time::iso(NOW - 80 * MIN));
    suspended["agent"] = json!("codex");
    second.write_json(".omc/state/sessions/s9/autopilot-state.json", &suspended);
    // The third project is deleted: pruned from the registry.
    let third_path = third.path().canonicalize().unwrap();
    drop(third);

    let out = w.run(&["status", "--all"]);
    out.ok();
    let t = &out.stdout;
    assert_has(t, "2 project(s)");
    assert!(
        t.contains(&w.p().canonicalize().unwrap().display().to_string()),
        "{t}"
    );
    let line = |sid: &str| {
        t.lines()
            .find(|l| l.trim_start().starts_with(sid))
            .unwrap_or_else(|| panic!("no row for {sid}: {t}"))
            .to_string()
    };
    let s1 = line("s1");
    for part in ["claude", "ralph", "3/100", "5m 00s ago", "active"] {
        assert!(s1.contains(part), "{part}: {s1}");
    }
    let s9 = line("s9");
    for part in ["codex", "autopilot", "7/100", "1h 30m ago", "suspended"] {
        assert!(s9.contains(part), "{part}: {s9}");
    }
    assert_has(t, &format!("forgot {}", third_path.display()));
    let reg = read(&registry_path(&w));
    assert_eq!(reg["installs"].as_array().unwrap().len(), 2);

    let out = w.run(&["status", "--all", "--json"]);
    out.ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let projects = v["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 2);
    let runs: Vec<&Value> = projects
        .iter()
        .flat_map(|p| p["runs"].as_array().unwrap())
        .collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["agent"], "claude");
    assert_eq!(runs[0]["mode"], "ralph");
    assert_eq!(runs[0]["iteration"], 3);
    assert_eq!(runs[0]["suspended"], false);
    assert_eq!(runs[1]["suspended"], true);
    assert_eq!(runs[1]["session_id"], "s9");
    assert!(
        v["pruned"].as_array().unwrap().is_empty(),
        "pruned once already"
    );
}

/// Issue 34: a run's end and a hand-back are listed with their reason.
#[test]
fn status_all_names_why_runs_ended_or_were_handed_back() {
    let w = World::new();
    w.run(&["install"]).ok();
    let mut paused = ralph("s1", NOW - 10 * MIN, NOW - 5 * MIN, 12);
    paused["paused_at"] = json!(omc_hooks::time::iso(NOW - 5 * MIN));
    paused["pause_kind"] = json!("no_progress");
    paused["paused_reason"] =
        json!("no progress in the last 8 continuations: ran `ls` again with the same output");
    w.seed(Some("s1"), "ralph-state.json", paused);
    let mut ended = ralph("s2", NOW - 60 * MIN, NOW - 30 * MIN, 4);
    ended["active"] = json!(false);
    ended["ended_reason"] = json!("max_tokens");
    ended["ended_at"] = json!(omc_hooks::time::iso(NOW - 30 * MIN));
    ended["max_tokens"] = json!(100_000);
    ended["tokens_used"] = json!(120_020);
    w.seed(Some("s2"), "ralph-state.json", ended);
    let mut old = ralph("s3", NOW - 3000 * MIN, NOW - 2900 * MIN, 2);
    old["active"] = json!(false);
    old["ended_reason"] = json!("completed");
    old["ended_at"] = json!(omc_hooks::time::iso(NOW - 2900 * MIN));
    w.seed(Some("s3"), "ralph-state.json", old);
    let out = w.run(&["status", "--all"]);
    out.ok();
    let t = &out.stdout;
    let line = |sid: &str| {
        t.lines()
            .find(|l| l.trim_start().starts_with(sid))
            .unwrap_or_else(|| panic!("no row for {sid}: {t}"))
            .to_string()
    };
    assert!(
        line("s1").contains("paused: no progress in the last 8 continuations: ran `ls` again"),
        "{t}"
    );
    assert!(
        line("s2").contains("ended: token budget spent; 120k/100k tokens"),
        "{t}"
    );
    assert!(
        !t.lines().any(|l| l.trim_start().starts_with("s3")),
        "a day old: {t}"
    );
    let out = w.run(&["status", "--all", "--json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let runs = v["projects"][0]["runs"].as_array().unwrap();
    let s2 = runs.iter().find(|r| r["session_id"] == "s2").unwrap();
    assert_eq!(s2["ended_reason"], "max_tokens");
    assert_eq!(s2["tokens_used"], 120_020);
    let s1 = runs.iter().find(|r| r["session_id"] == "s1").unwrap();
    assert_eq!(s1["pause_kind"], "no_progress");
}

#[test]
fn status_watch_redraws_until_stopped() {
    let w = World::new();
    w.run(&["install"]).ok();
    w.seed(
        Some("s1"),
        "ralph-state.json",
        ralph("s1", NOW - MIN, NOW - MIN, 2),
    );
    let mut child = Command::new(BIN)
        .args(["status", "--all", "--watch", "--interval", "0.05"])
        .current_dir(w.p())
        .env("HOME", w.home.path())
        .env("OMC_NOW_MS", NOW.to_string())
        .env_remove("XDG_DATA_HOME")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let frames = text.matches("omc-hooks status --all").count();
    assert!(frames >= 2, "{frames} frame(s):\n{text}");
    assert_has(&text, "ralph");
    assert!(
        !text.contains('\u{1b}'),
        "no escape codes when not on a terminal"
    );
    let out = w.run(&["status", "--interval", "1"]);
    out.code(2);
}

// ---------------------------------------------------------------- coming from OMC

#[test]
fn doctor_says_what_of_an_omc_directory_carries_over() {
    let w = World::new();
    let omc = w.p().join(".omc");
    let put =
        |rel: &str, v: Value| write(&omc.join(rel), &serde_json::to_string_pretty(&v).unwrap());
    // OMC's ralph state (no schema_version, OMC's own fields), its skill ledger, its HUD, a
    // mode omc-hooks does not have, its per-session failure record, notepad and memory.
    put(
        "state/sessions/s1/ralph-state.json",
        json!({"active": true, "iteration": 3, "max_iterations": 100, "started_at": omc_hooks::time::iso(NOW - MIN),
               "last_checked_at": omc_hooks::time::iso(NOW - MIN), "prompt": "fix it", "session_id": "s1",
               "linked_ultrawork": true, "awaiting_confirmation": true}),
    );
    put(
        "state/sessions/s1/skill-active-state.json",
        json!({"version": 2, "active_skills": {"plan": {"skill_name": "plan"}}}),
    );
    put("state/sessions/s1/hud-state.json", json!({"x": 1}));
    put(
        "state/sessions/s1/last-tool-error-state.json",
        json!({"tool_name": "Bash"}),
    );
    put("state/ultragoal-state.json", json!({"active": true}));
    put(
        "project-memory.json",
        json!({"version": "1.0.0", "techStack": {}, "customNotes": [{"content": "Requires LOCAL_API_BASE"}]}),
    );
    write(
        &omc.join("notepad.md"),
        "## Priority Context\nUse pnpm.\n\n## MANUAL\nmine\n",
    );
    write(&omc.join("notepad.md.lock"), "{}");
    write(&omc.join("plans/p.md"), "# plan");
    // Issue 46: OMC's learned skills and wiki are read here now, and say so.
    write(
        &omc.join("skills/deploy.md"),
        "---\nname: deploy\ntriggers: [deploy it]\n---\nmake deploy\n",
    );
    write(&omc.join("wiki/index.md"), "# Wiki\n");
    write(&omc.join("wiki/arch/storage.md"), "# Storage\n");
    put("deliverables.json", json!({"x": 1}));
    let before = snapshot(&omc);

    let out = w.run(&["doctor"]);
    let t = &out.stdout;
    assert_has(
        t,
        "was written by oh-my-claudecode: 5 file(s) carry over, 7 do not",
    );
    for part in [
        "read here: state/sessions/s1/ralph-state.json: an active ralph run (iteration 3/100)",
        "read here: project-memory.json: 1 facts and directives",
        "read here: notepad.md: sections Priority Context, MANUAL",
        "not used here: state/sessions/s1/skill-active-state.json: OMC's skill ledger",
        "not used here: state/sessions/s1/hud-state.json: OMC's HUD; omc-hooks has 'omc-hooks statusline' instead",
        "not used here: state/sessions/s1/last-tool-error-state.json",
        "not used here: state/ultragoal-state.json: OMC's ultragoal mode",
        "not used here: notepad.md.lock: a lock file OMC left behind",
        "not used here: plans/: OMC's plans",
        "read here: skills/: 1 learned skill(s), given on their triggers",
        "read here: wiki/: 2 page(s), named to the model at session start",
        "not used here: deliverables.json: OMC's list of expected files, not read",
    ] {
        assert!(t.contains(part), "{part}\n{t}");
    }
    assert_eq!(snapshot(&omc), before, "doctor changes nothing");

    // A project of omc-hooks' own is not taken for OMC's.
    let w = World::new();
    w.seed(
        Some("s1"),
        "ralph-state.json",
        ralph("s1", NOW - MIN, NOW - MIN, 1),
    );
    let out = w.run(&["doctor"]);
    assert!(!out.stdout.contains("oh-my-claudecode"), "{}", out.stdout);
}

#[test]
fn a_closed_stdout_cuts_no_gitignore_edit_from_its_note() {
    // Issue 35: `install --gitignore | head -1` wrote the lines, then died printing before the
    // registry noted them, so uninstall left them. The reader here is gone from the start.
    let w = World::new();
    let gi = w.p().join(".gitignore");
    write(&gi, "target\n");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = std::process::Command::new(crate::common::BIN)
        .args(["install", "--gitignore"])
        .current_dir(w.p())
        .env("HOME", w.home.path())
        .env("PATH", w.path_dir.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .env_remove("XDG_DATA_HOME")
        .stdout(writer)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&gi).unwrap(),
        "target\n.omc/\n.claude/settings.local.json\n",
        "the install's .gitignore edit is done whatever reads its output"
    );
    let out = w.run(&["uninstall"]);
    out.ok();
    assert_eq!(
        std::fs::read_to_string(&gi).unwrap(),
        "target\n",
        "{}",
        out.stdout
    );
}
