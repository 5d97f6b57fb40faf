//! Re-records tests/fixtures/claude-code/*.json from the real client.
//!
//! An ignored test of the integration binary (module `claude_recorder` in tests/lib.rs):
//! `tests/e2e/record-fixtures.sh` runs it with FIXTURE_OUT=<dir> (default
//! tests/fixtures/claude-code) and OMC_E2E_CLIENT_DIR pointing at the cached client.

use crate::e2e::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn recorder_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder")
}

use crate::e2e_agents::recorded;

fn responder(rec: &Path, ev: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let d = rec.join("respond");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(ev);
    std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

const SKILL_INLINE: &str = "---\nname: demo\ndescription: Demo skill for hook recording. Use when asked to demo.\n---\n\nDemo skill instructions: run `echo skill-ran` with Bash, then say finished.\n";
const SKILL_FORK: &str = "---\nname: forky\ndescription: Forked demo skill. Use when asked to fork.\ncontext: fork\n---\n\nForked skill instructions: say forked-skill-done.\n";

#[test]
#[ignore = "re-records tests/fixtures/claude-code: tests/e2e/record-fixtures.sh"]
fn record_fixtures() {
    let out = std::env::var_os("FIXTURE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code")
        });
    std::fs::create_dir_all(&out).unwrap();
    let plugin = recorder_dir();
    let sb = Sandbox::new();
    sb.write(".claude/skills/demo/SKILL.md", SKILL_INLINE);
    sb.write(".claude/skills/forky/SKILL.md", SKILL_FORK);
    let f = sb.project().join("hello.txt");

    // run 1: startup, every tool event, skills, subagents
    let rec1 = sb.root().join("rec1");
    let run1 = sb.claude(
        &plugin,
        "record all events",
        Scenario::new()
            .env("REC_DIR", rec1.to_str().unwrap())
            .reply_tool("Bash", json!({"command": "echo hello-e2e", "description": "Print greeting"}))
            .reply_tool("Bash", json!({"command": "echo failing >&2; exit 3", "description": "Fail on purpose"}))
            .reply_tool("Write", json!({"file_path": f, "content": "one\ntwo\n"}))
            .reply_tool("Edit", json!({"file_path": f, "old_string": "two", "new_string": "three"}))
            .reply_tool("Skill", json!({"skill": "demo"}))
            .reply_tool("Bash", json!({"command": "echo skill-ran", "description": "Skill work"}))
            .reply_tool("Skill", json!({"skill": "forky", "args": "some args"}))
            .subagent_tool("Bash", json!({"command": "echo in-subagent", "description": "Subagent work"}))
            .subagent_text("forked-skill-done")
            .reply_tool("Agent", json!({"description": "Sub task", "prompt": "Say sub-done",
                                        "subagent_type": "general-purpose", "run_in_background": false}))
            .subagent_text("sub-done")
            .reply_tool("Agent", json!({"description": "Background task", "prompt": "Sleep then say bg-done",
                                        "subagent_type": "general-purpose"}))
            .subagent_tool("Bash", json!({"command": "sleep 2", "description": "Wait a bit"}))
            .subagent_text("bg-done")
            .reply_text("all done"),
        None,
    );
    run1.assert_success();
    let sid = run1.session_id.clone();

    // run 2: --resume, Stop blocked once (stop_hook_active true on the 2nd Stop)
    let rec2 = sb.root().join("rec2");
    responder(
        &rec2,
        "Stop",
        r#"n=$(ls "$REC_DIR" | grep -c -- '-Stop.json$'); if [ "$n" = 1 ]; then printf '{"decision":"block","reason":"keep going %s"}\n' "$n"; fi"#,
    );
    let run2 = sb.claude(
        &plugin,
        "second turn",
        Scenario::new()
            .env("REC_DIR", rec2.to_str().unwrap())
            .reply_text("second done")
            .reply_text("really done"),
        Some(&sid),
    );
    run2.assert_success();

    // run 3: /compact with custom instructions
    let rec3 = sb.root().join("rec3");
    let run3 = sb.claude(
        &plugin,
        "/compact keep it short",
        Scenario::new().env("REC_DIR", rec3.to_str().unwrap()),
        Some(&sid),
    );
    run3.assert_success();

    let e1 = recorded(&rec1);
    let e2 = recorded(&rec2);
    let e3 = recorded(&rec3);
    let all: Vec<(String, Value)> = e1.iter().chain(&e2).chain(&e3).cloned().collect();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let main = |v: &Value| v.get("agent_id").is_none();
    let tool = |v: &Value| s(v, "tool_name");

    type Pred<'a> = Box<dyn Fn(&str, &Value) -> bool + 'a>;
    let picks: Vec<(&str, Pred)> = vec![
        (
            "SessionStart-startup",
            Box::new(|e, v| e == "SessionStart" && s(v, "source") == "startup"),
        ),
        (
            "SessionStart-resume",
            Box::new(|e, v| e == "SessionStart" && s(v, "source") == "resume"),
        ),
        (
            "SessionStart-compact",
            Box::new(|e, v| e == "SessionStart" && s(v, "source") == "compact"),
        ),
        (
            "UserPromptSubmit",
            Box::new(|e, v| e == "UserPromptSubmit" && !s(v, "prompt").starts_with('<')),
        ),
        (
            "UserPromptSubmit-task-notification",
            Box::new(|e, v| {
                e == "UserPromptSubmit" && s(v, "prompt").starts_with("<task-notification>")
            }),
        ),
        (
            "PreToolUse-Bash",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Bash" && main(v)),
        ),
        (
            "PreToolUse-Bash-subagent",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Bash" && !main(v)),
        ),
        (
            "PreToolUse-Write",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Write"),
        ),
        (
            "PreToolUse-Edit",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Edit"),
        ),
        (
            "PreToolUse-Skill",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Skill"),
        ),
        (
            "PreToolUse-Agent",
            Box::new(|e, v| e == "PreToolUse" && tool(v) == "Agent"),
        ),
        (
            "PostToolUse-Bash",
            Box::new(|e, v| e == "PostToolUse" && tool(v) == "Bash" && main(v)),
        ),
        (
            "PostToolUse-Bash-subagent",
            Box::new(|e, v| e == "PostToolUse" && tool(v) == "Bash" && !main(v)),
        ),
        (
            "PostToolUse-Write",
            Box::new(|e, v| e == "PostToolUse" && tool(v) == "Write"),
        ),
        (
            "PostToolUse-Edit",
            Box::new(|e, v| e == "PostToolUse" && tool(v) == "Edit"),
        ),
        (
            "PostToolUse-Skill",
            Box::new(|e, v| {
                e == "PostToolUse" && tool(v) == "Skill" && v["tool_input"]["skill"] == "demo"
            }),
        ),
        (
            "PostToolUse-Skill-fork",
            Box::new(|e, v| {
                e == "PostToolUse" && tool(v) == "Skill" && v["tool_input"]["skill"] == "forky"
            }),
        ),
        (
            "PostToolUse-Agent",
            Box::new(|e, v| {
                e == "PostToolUse"
                    && tool(v) == "Agent"
                    && v["tool_response"]["status"] == "completed"
            }),
        ),
        (
            "PostToolUse-Agent-background",
            Box::new(|e, v| {
                e == "PostToolUse"
                    && tool(v) == "Agent"
                    && v["tool_response"]["status"] == "async_launched"
            }),
        ),
        (
            "PostToolUseFailure-Bash",
            Box::new(|e, v| e == "PostToolUseFailure" && tool(v) == "Bash"),
        ),
        ("SubagentStart", Box::new(|e, _| e == "SubagentStart")),
        (
            "SubagentStop",
            Box::new(|e, v| e == "SubagentStop" && s(v, "last_assistant_message") == "sub-done"),
        ),
        (
            "SubagentStop-skill-fork",
            Box::new(|e, v| {
                e == "SubagentStop" && s(v, "last_assistant_message") == "forked-skill-done"
            }),
        ),
        (
            "SubagentStop-background",
            Box::new(|e, v| e == "SubagentStop" && s(v, "last_assistant_message") == "bg-done"),
        ),
        (
            "SubagentStop-compact",
            Box::new(|e, v| e == "SubagentStop" && s(v, "agent_type").is_empty()),
        ),
        (
            "PreCompact-manual",
            Box::new(|e, v| e == "PreCompact" && s(v, "trigger") == "manual"),
        ),
        (
            "Stop",
            Box::new(|e, v| {
                e == "Stop"
                    && v["stop_hook_active"] == false
                    && v["background_tasks"]
                        .as_array()
                        .is_some_and(|a| a.is_empty())
            }),
        ),
        (
            "Stop-background-tasks",
            Box::new(|e, v| {
                e == "Stop"
                    && v["background_tasks"]
                        .as_array()
                        .is_some_and(|a| !a.is_empty())
            }),
        ),
        (
            "Stop-hook-active",
            Box::new(|e, v| e == "Stop" && v["stop_hook_active"] == true),
        ),
        ("SessionEnd", Box::new(|e, _| e == "SessionEnd")),
    ];
    let missing = crate::e2e_record::save(&all, &picks, &out);
    eprintln!(
        "runs took {:?} / {:?} / {:?}; wrote {} fixtures to {}",
        run1.duration,
        run2.duration,
        run3.duration,
        picks.len() - missing.len(),
        out.display()
    );
    assert!(missing.is_empty(), "no payload recorded for {missing:?}");
}
