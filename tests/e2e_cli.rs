//! `omc-hooks install` / `uninstall` in the real Claude Code client: hooks written into a
//! settings file (no `--plugin-dir`) fire for every event, once each even when both the
//! project and the user settings carry them, and nothing fires after `uninstall`.

use crate::common::BIN;
use crate::e2e::{Sandbox, Scenario, plugin_dir};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

use crate::e2e_foundation::{SKILL, trace};

/// Runs the CLI in the sandbox's project with the sandbox's HOME.
#[track_caller]
fn cli(sb: &Sandbox, args: &[&str]) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(sb.project())
        .env("HOME", sb.home())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "omc-hooks {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One prompt that fires SessionStart, UserPromptSubmit, PreToolUse (Bash, Skill), PostToolUse,
/// PostToolUseFailure, Stop and SessionEnd — without the plugin directory.
fn run_session(sb: &Sandbox, trace_file: &Path) -> crate::e2e::Run {
    sb.write(".claude/skills/demo/SKILL.md", SKILL);
    let run = sb.claude(
        plugin_dir(),
        "set the project up",
        Scenario::new()
            .without_plugin()
            .reply_tool("Bash", json!({"command": "echo failing >&2; exit 3"}))
            .reply_tool("Skill", json!({"skill": "demo"}))
            .reply_text("all set")
            .env("OMC_TRACE_FILE", trace_file.to_string_lossy()),
        None,
    );
    run.assert_success();
    run
}

const EXPECTED: [&str; 7] = [
    "session-start",
    "user-prompt-submit",
    "pre-tool-use",
    "post-tool-use",
    "post-tool-use-failure",
    "stop",
    "session-end",
];

#[test]
fn installed_hooks_fire_once_each_and_uninstall_removes_them() {
    let sb = Sandbox::new();
    cli(&sb, &["install"]);
    cli(&sb, &["install", "--user"]);
    let trace_file = sb.root().join("trace.jsonl");
    let run = run_session(&sb, &trace_file);
    let lines = trace(&trace_file);
    for sub in EXPECTED {
        let mine: Vec<&Value> = lines.iter().filter(|l| l["hook"] == sub).collect();
        // The same command in project and user settings is deduplicated by the client.
        // PreToolUse matches every tool (user hooks may name any): once per call, two calls.
        let want = if sub == "pre-tool-use" { 2 } else { 1 };
        assert!(
            mine.len() == want,
            "{sub} ran {} times\ntrace: {lines:#?}\n{}",
            mine.len(),
            run.diagnostics()
        );
        for l in mine {
            assert_eq!(l["session_id"], run.session_id.as_str(), "{l}");
            assert!(
                matches!(l["outcome"].as_str(), Some("answer" | "noop")),
                "{l}"
            );
        }
    }

    cli(&sb, &["uninstall"]);
    cli(&sb, &["uninstall", "--user"]);
    let trace_after = sb.root().join("trace-after.jsonl");
    run_session(&sb, &trace_after);
    assert_eq!(trace(&trace_after), Vec::<Value>::new());
}
