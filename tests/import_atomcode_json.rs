//! AtomCode's JSON hooks file (`$ATOMCODE_HOME/hooks.json`, `~/.atomcode/hooks.json` by default;
//! the form AtomCode's own hooks documentation says still fires) imported by `omc-hooks
//! import-atomcode` into the user's `hooks.toml` (issue 46), beside the TOML form, and then run
//! by the hooks: an entry that blocks a push, one on StopFailure, one disabled, one left out;
//! `doctor` offers the import until it is done.

use crate::common::assert_has;
use crate::user_hooks::{SID, Setup};
use serde_json::json;

const JSON: &str = r#"{
  // AtomCode allows comments in its JSON files
  "hooks": {
    "no-force-push": {
      "event": "PreToolUse",
      "matcher": "Bash",
      "command": "cat > /dev/null; echo '{\"action\":\"block\",\"reason\":\"no force push\"}'",
      "timeout_ms": 5000
    },
    "on-api-error": {"event": "stop_failure", "command": "cat > \"$HOME/api-error.json\""},
    "off": {"event": "SessionStart", "command": "echo hi", "disabled": true},
    /* not one of AtomCode's eight events */
    "odd": {"event": "Notification", "command": "true"}
  }
}"#;

fn import(s: &Setup, env: &[(&str, &str)], args: &[&str]) -> String {
    let home = s.config.path();
    let mut cmd = std::process::Command::new(crate::common::BIN);
    cmd.arg("import-atomcode")
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env_remove("ATOMCODE_HOME")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(s.root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn atomcodes_json_hooks_file_is_imported_and_its_entries_run() {
    let s = Setup::new();
    let home = s.config.path().to_path_buf();
    std::fs::create_dir_all(home.join(".atomcode")).unwrap();
    std::fs::write(home.join(".atomcode/hooks.json"), JSON).unwrap();
    let said = import(&s, &[], &[]);
    assert_has(
        &said,
        &format!("from {}:", home.join(".atomcode/hooks.json").display()),
    );
    for line in [
        "hooks.\"no-force-push\": converted to a script entry on pre-tool-use",
        "hooks.\"on-api-error\": converted to a script entry on stop-failure",
        "hooks.\"off\": converted to a script entry on session-start",
        "hooks.\"odd\": not converted: unknown event \"Notification\"",
        "not written",
    ] {
        assert!(said.contains(line), "{line}\n{said}");
    }
    let target = home.join("omc-hooks/hooks.toml");
    assert!(!target.exists(), "nothing written without --write");
    let file = home.join(".atomcode/hooks.json");
    // `doctor` offers the import, and says once it is done.
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert!(
        doctor.contains(&format!(
            "AtomCode hooks file {}: not read by these hooks; `omc-hooks import-atomcode`",
            file.display()
        )),
        "{doctor}"
    );
    let said = import(&s, &[], &["--write"]);
    assert_has(&said, "appended to");
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_has(
        &doctor,
        &format!(
            "AtomCode hooks file {}: imported into your hooks.toml",
            file.display()
        ),
    );
    let written = std::fs::read_to_string(&target).unwrap();
    assert_has(&written, "enabled = false");
    // What was written runs: the push is refused, the API error reaches the script.
    let out = s.bash("git push --force");
    assert_eq!(
        out.json()["hookSpecificOutput"]["permissionDecisionReason"],
        "no force push",
        "{}",
        out.stdout
    );
    s.run(
        "stop-failure",
        "StopFailure",
        json!({"error": "rate_limit"}),
    );
    let got: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.join("api-error.json")).unwrap()).unwrap();
    assert_eq!(got["hook_event_name"], "StopFailure", "{got}");
    assert_eq!(got["session_id"], SID, "{got}");
}

#[test]
fn atomcode_home_names_where_the_json_file_is_and_both_forms_are_imported() {
    let s = Setup::new();
    let home = s.config.path().to_path_buf();
    let elsewhere = home.join("ac");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("hooks.json"), JSON).unwrap();
    std::fs::create_dir_all(home.join(".atomcode/hooks")).unwrap();
    std::fs::write(
        home.join(".atomcode/hooks/hooks.toml"),
        "[[hooks]]\nname = \"pre-check\"\ntrigger = \"pre_tool\"\nscript = \"check.sh\"\n",
    )
    .unwrap();
    let said = import(&s, &[("ATOMCODE_HOME", &elsewhere.to_string_lossy())], &[]);
    assert_has(
        &said,
        "[[hooks]] \"pre-check\": converted to a script entry on pre-tool-use",
    );
    assert_has(
        &said,
        &format!("from {}:", elsewhere.join("hooks.json").display()),
    );
    // A JSON file that does not parse is reported, nothing written.
    std::fs::write(elsewhere.join("hooks.json"), "{\"hooks\": {,}}").unwrap();
    let out = std::process::Command::new(crate::common::BIN)
        .args(["import-atomcode", "--write"])
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &home)
        .env("ATOMCODE_HOME", &elsewhere)
        .current_dir(s.root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not JSON"),
        "{out:?}"
    );
    assert!(!home.join("omc-hooks/hooks.toml").exists());
}
