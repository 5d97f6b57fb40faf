//! Project rules in the real Codex CLI, Gemini CLI and Qwen Code (contract §9): what each
//! pinned client loads of a project's rule files by itself, and the path rule omc-hooks gives
//! when a file under the rule's paths is read or edited.

use crate::e2e::agent_harness::{AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::model::Step;
use crate::e2e_agents::recorded;
use serde_json::json;

/// A project with every kind of rule file, each holding its own marker.
fn lay_out(sb: &AgentSandbox) {
    sb.write("AGENTS.md", "Root instructions. ROOT-AGENTS-MARKER\n");
    sb.write(
        "src/api/AGENTS.md",
        "API instructions. NESTED-AGENTS-MARKER\n",
    );
    sb.write("src/api/GEMINI.md", "API notes. NESTED-GEMINI-MARKER\n");
    sb.write("src/api/QWEN.md", "API notes. NESTED-QWEN-MARKER\n");
    sb.write("src/api/CLAUDE.md", "API notes. NESTED-CLAUDE-MARKER\n");
    sb.write(
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**\"\n---\nAPI rule. CLAUDE-RULES-MARKER\n",
    );
    sb.write("src/api/handler.py", "x = 1\n");
}

fn edit_steps(agent: Agent, sb: &AgentSandbox) -> Vec<Step> {
    let file = sb.project().join("src/api/handler.py");
    let file = file.to_string_lossy().into_owned();
    match agent {
        Agent::Codex => vec![
            Step::Shell("cat src/api/handler.py".into()),
            Step::Shell(
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/api/handler.py\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF".into(),
            ),
        ],
        Agent::Gemini => vec![
            Step::Call("read_file".into(), json!({"file_path": file})),
            Step::Call(
                "replace".into(),
                json!({"file_path": file, "old_string": "x = 1", "new_string": "x = 2", "instruction": "bump x"}),
            ),
        ],
        Agent::Qwen => vec![
            Step::Call("read_file".into(), json!({"absolute_path": file})),
            Step::Call(
                "edit".into(),
                json!({"file_path": file, "old_string": "x = 1", "new_string": "x = 2"}),
            ),
        ],
    }
}

pub fn probe(agent: Agent) {
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    lay_out(&sb);
    let rec = sb.root().join("rec");
    let mut sc = AgentScenario::new().env("REC_DIR", rec.to_string_lossy());
    for s in edit_steps(agent, &sb) {
        sc = sc.step(s);
    }
    let run = sb.run("update the handler", sc.reply_text("done"));
    run.assert_success();
    for m in [
        "ROOT-AGENTS-MARKER",
        "NESTED-AGENTS-MARKER",
        "NESTED-GEMINI-MARKER",
        "NESTED-QWEN-MARKER",
        "NESTED-CLAUDE-MARKER",
        "CLAUDE-RULES-MARKER",
    ] {
        let first = run.shown_text(0).contains(m);
        let any = run.all_shown_text().contains(m);
        println!("{agent:?} {m}: first request {first}, any request {any}");
    }
    for (ev, v) in recorded(&rec) {
        if ev.contains("Tool") {
            println!("{ev}: tool {} input {}", v["tool_name"], v["tool_input"]);
        }
    }
    println!(
        "file now: {:?}",
        std::fs::read_to_string(sb.project().join("src/api/handler.py"))
    );
    println!("{}", run.diagnostics().chars().take(0).collect::<String>());
}

#[test]
fn probe_codex() {
    probe(Agent::Codex)
}
#[test]
fn probe_gemini() {
    probe(Agent::Gemini)
}
#[test]
fn probe_qwen() {
    probe(Agent::Qwen)
}

#[test]
fn probe_claude() {
    use crate::e2e::harness::{Sandbox, Scenario};
    let sb = Sandbox::new();
    sb.write("AGENTS.md", "Root instructions. ROOT-AGENTS-MARKER\n");
    sb.write(
        "src/api/AGENTS.md",
        "API instructions. NESTED-AGENTS-MARKER\n",
    );
    sb.write("src/api/CLAUDE.md", "API notes. NESTED-CLAUDE-MARKER\n");
    sb.write(
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**\"\n---\nAPI rule. CLAUDE-RULES-MARKER\n",
    );
    sb.write(
        ".claude/rules/general.md",
        "General rule. ALWAYS-RULE-MARKER\n",
    );
    sb.write("src/api/handler.py", "x = 1\n");
    let file = sb
        .project()
        .join("src/api/handler.py")
        .to_string_lossy()
        .into_owned();
    let run = sb.claude(
        crate::e2e::plugin::plugin_dir(),
        "update the handler",
        Scenario::new()
            .without_plugin()
            .reply_tool("Read", json!({"file_path": file}))
            .reply_tool(
                "Edit",
                json!({"file_path": file, "old_string": "x = 1", "new_string": "x = 2"}),
            )
            .reply_text("done"),
        None,
    );
    for m in [
        "ROOT-AGENTS-MARKER",
        "NESTED-AGENTS-MARKER",
        "NESTED-CLAUDE-MARKER",
        "CLAUDE-RULES-MARKER",
        "ALWAYS-RULE-MARKER",
    ] {
        let shown: Vec<bool> = (0..run.main_loop_requests().len())
            .map(|i| run.shown_text(i).contains(m))
            .collect();
        println!("Claude {m}: per request {shown:?}");
    }
    println!(
        "file now: {:?}",
        std::fs::read_to_string(sb.project().join("src/api/handler.py"))
    );
}
