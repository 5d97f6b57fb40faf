//! Deliverables (contract §6): at SubagentStop the files the subagent's task named as outputs
//! are checked; the parent is told on its next PostToolUse or prompt which are missing, once.

use crate::common::{Hook, Project, payload};
use crate::schema::assert_valid;
use serde_json::{Value, json};

const SID: &str = "deliv-1";

fn subagent_stop(p: &Project, task: &str) {
    let t = p.path().join("agent-a1.jsonl");
    let first = json!({"type": "user", "message": {"role": "user", "content": task}});
    let reply = json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}});
    std::fs::write(&t, format!("{first}\n{reply}\n")).unwrap();
    let mut v = payload("SubagentStop", SID, p.path());
    v["agent_id"] = json!("a1");
    v["agent_type"] = json!("general-purpose");
    v["agent_transcript_path"] = json!(t.to_string_lossy());
    v["last_assistant_message"] = json!("done");
    let out = Hook::new("subagent-stop").cwd(p.path()).payload(v).run();
    out.expect_valid();
    assert!(
        !out.stdout.contains("additionalContext"),
        "nothing for the subagent: {}",
        out.stdout
    );
}

/// PostToolUse of `tool` in session `sid` with `input` and `response` (by subagent `agent_id`
/// when given): the context the hook adds, or nothing.
fn post_tool(
    p: &Project,
    sid: &str,
    tool: &str,
    input: Value,
    response: Value,
    agent_id: Option<&str>,
) -> String {
    let mut v = payload("PostToolUse", sid, p.path());
    v["tool_name"] = json!(tool);
    v["tool_input"] = input;
    v["tool_response"] = response;
    if let Some(a) = agent_id {
        v["agent_id"] = json!(a);
    }
    let out = Hook::new("post-tool-use").cwd(p.path()).payload(v).run();
    out.expect_valid();
    if out.stdout.trim().is_empty() {
        return String::new();
    }
    out.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn parent_tool(p: &Project, agent_id: Option<&str>) -> String {
    let input = json!({"prompt": "x", "description": "x"});
    post_tool(
        p,
        SID,
        "Agent",
        input,
        json!({"status": "completed"}),
        agent_id,
    )
}

#[test]
fn missing_outputs_are_told_to_the_parent_once_and_present_ones_are_not() {
    let p = Project::new();
    std::fs::create_dir_all(p.omc()).unwrap();
    std::fs::create_dir_all(p.path().join("docs")).unwrap();
    std::fs::write(p.path().join("docs/audit.md"), "# Audit\n").unwrap();
    std::fs::write(p.path().join("docs/empty.md"), "").unwrap();
    subagent_stop(
        &p,
        "Read src/lib.rs and audit it. Write the findings to `docs/audit.md`, the summary to docs/empty.md and the data to out/audit.json.",
    );
    let pending: Value = serde_json::from_slice(
        &std::fs::read(p.session_dir(SID).join("deliverables.json")).unwrap(),
    )
    .unwrap();
    assert_valid("deliverables", &pending);
    // A tool call inside a subagent is not the parent.
    assert_eq!(parent_tool(&p, Some("a2")), "");
    assert_eq!(
        parent_tool(&p, None),
        "[DELIVERABLES MISSING] The general-purpose subagent finished, but 2 of the 3 files its task named as outputs are missing or empty: `docs/empty.md`, `out/audit.json`. Check its result before relying on it; hand the work back or produce the files."
    );
    assert_eq!(parent_tool(&p, None), "", "told once");
    assert!(!p.session_dir(SID).join("deliverables.json").exists());
}

#[test]
fn a_task_whose_outputs_all_exist_or_that_names_none_says_nothing() {
    let p = Project::new();
    std::fs::create_dir_all(p.omc()).unwrap();
    std::fs::write(p.path().join("report.txt"), "ok\n").unwrap();
    subagent_stop(&p, "Produce report.txt with the totals.");
    subagent_stop(&p, "Look at Cargo.toml and tell me the version.");
    assert_eq!(parent_tool(&p, None), "");
    // The background subagent's result arrives as a prompt: told there too.
    subagent_stop(&p, "Save the table as tables/t1.csv.");
    let mut v = payload("UserPromptSubmit", SID, p.path());
    v["prompt"] = json!("<task-notification><result>done</result></task-notification>");
    let out = Hook::new("user-prompt-submit")
        .cwd(p.path())
        .payload(v)
        .run();
    out.expect_valid();
    assert!(out.stdout.contains("`tables/t1.csv`"), "{}", out.stdout);
}

/// The delegation reminder (contract §6): opt-in, in team and autopilot runs, once per file,
/// never for a subagent's write or for state and instruction files.
mod delegation {
    use super::*;

    const SID: &str = "deleg-1";

    fn write(p: &Project, file: &str, agent_id: Option<&str>) -> String {
        let input = json!({"file_path": p.path().join(file).to_string_lossy(), "content": "x"});
        post_tool(p, SID, "Write", input, json!({"type": "create"}), agent_id)
    }

    fn start(p: &Project, prompt: &str) {
        let mut v = payload("UserPromptSubmit", SID, p.path());
        v["prompt"] = json!(prompt);
        Hook::new("user-prompt-submit")
            .cwd(p.path())
            .payload(v)
            .run()
            .expect_valid();
    }

    #[test]
    fn an_orchestrator_writing_source_is_reminded_once_per_file_when_switched_on() {
        let p = Project::new();
        std::fs::create_dir_all(p.omc()).unwrap();
        start(&p, "autopilot build a todo app");
        assert!(p.session_dir(SID).join("autopilot-state.json").exists());
        // Off by default.
        assert_eq!(write(&p, "src/app.ts", None), "");
        std::fs::write(
            p.omc().join("config.json"),
            r#"{"delegation": {"enforce": true}}"#,
        )
        .unwrap();
        assert_eq!(
            write(&p, "src/main.ts", None),
            "[DELEGATION] This autopilot run has you orchestrating, and you just wrote `src/main.ts` yourself. Hand implementation work to a subagent and keep to planning, review and integration."
        );
        assert_eq!(write(&p, "src/main.ts", None), "", "once per file");
        assert_eq!(
            write(&p, "src/other.ts", Some("sub-1")),
            "",
            "a subagent's write is its job"
        );
        for f in [
            ".omc/notepad.md",
            ".claude/agents/x.sh",
            "CLAUDE.md",
            "docs/AGENTS.md",
            "README.md",
        ] {
            assert_eq!(write(&p, f, None), "", "{f}");
        }
        let reminded: Value = serde_json::from_slice(
            &std::fs::read(p.session_dir(SID).join("delegation-reminded.json")).unwrap(),
        )
        .unwrap();
        assert_valid("delegation-reminded", &reminded);
    }

    #[test]
    fn no_reminder_outside_team_and_autopilot() {
        let p = Project::new();
        p.write_omc("config.json", r#"{"delegation": {"enforce": true}}"#);
        assert_eq!(write(&p, "src/main.rs", None), "");
        start(&p, "ralph fix the parser");
        assert_eq!(write(&p, "src/main.rs", None), "");
    }
}
