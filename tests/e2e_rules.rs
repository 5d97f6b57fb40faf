//! Project rules in the real Codex CLI, Gemini CLI and Qwen Code (contract §9): what each
//! pinned client loads of a project's rule files by itself, and the path rule omc-hooks gives
//! when a file under the rule's paths is read or edited.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::model::Step;
use serde_json::json;

/// A project with every kind of rule file, each holding its own marker.
pub(crate) fn lay_out(sb: &AgentSandbox) {
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
            Step::Call("read_file".into(), json!({"file_path": file})),
            Step::Call(
                "edit".into(),
                json!({"file_path": file, "old_string": "x = 1", "new_string": "x = 2"}),
            ),
        ],
        // Their file tools are not Claude Code's: project rules are not served there (the
        // capability table says so).
        Agent::Cline | Agent::Kimi => unreachable!("not run for {}", agent.name()),
        // OpenCode refuses an edit of a file not read first in the session
        Agent::OpenCode | Agent::Kilo => vec![
            Step::Call("read".into(), json!({"filePath": file})),
            Step::Call(
                "edit".into(),
                json!({"filePath": file, "oldString": "x = 1", "newString": "x = 2"}),
            ),
        ],
        Agent::Pi => vec![
            Step::Call("read".into(), json!({"path": file})),
            Step::Call(
                "edit".into(),
                json!({"path": file, "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
            ),
        ],
        other => panic!("project rules not exercised in {other:?}"),
    }
}

/// Runs the read-and-edit scenario (hook payloads recorded under `rec/`).
pub(crate) fn read_and_edit(
    agent: Agent,
    sb: &AgentSandbox,
) -> crate::e2e::agent_harness::AgentRun {
    let rec = sb.root().join("rec");
    let mut sc = AgentScenario::new().env("REC_DIR", rec.to_string_lossy());
    for s in edit_steps(agent, sb) {
        sc = sc.step(s);
    }
    sb.run("update the handler", sc.reply_text("done"))
}

const MARKERS: [&str; 6] = [
    "ROOT-AGENTS-MARKER",
    "NESTED-AGENTS-MARKER",
    "NESTED-GEMINI-MARKER",
    "NESTED-QWEN-MARKER",
    "NESTED-CLAUDE-MARKER",
    "CLAUDE-RULES-MARKER",
];

/// What the client gives the model of the rule files by itself (no omc-hooks): the markers
/// seen in any request of a run that read and edited `src/api/handler.py`.
fn natively_loaded(agent: Agent) -> Vec<&'static str> {
    let sb = AgentSandbox::new(agent);
    sb.record_hooks();
    lay_out(&sb);
    let run = read_and_edit(agent, &sb);
    run.assert_success();
    MARKERS
        .iter()
        .copied()
        .filter(|m| run.all_shown_text().contains(m))
        .collect()
}

#[test]
fn codex_loads_the_top_agents_md_only() {
    assert_eq!(natively_loaded(Agent::Codex), vec!["ROOT-AGENTS-MARKER"]);
}

#[test]
fn gemini_loads_a_nested_gemini_md_and_no_agents_md_or_claude_rule() {
    assert_eq!(natively_loaded(Agent::Gemini), vec!["NESTED-GEMINI-MARKER"]);
}

#[test]
fn qwen_loads_the_top_agents_md_only() {
    assert_eq!(natively_loaded(Agent::Qwen), vec!["ROOT-AGENTS-MARKER"]);
}

/// With omc-hooks installed, an edit of `src/api/handler.py` (Codex: `apply_patch` through the
/// shell; Gemini: `replace`) shows the model the path rule and the nested `AGENTS.md`, once.
fn a_path_rule_reaches_the_model_when_the_file_is_edited(agent: Agent) {
    let sb = crate::e2e_agents::with_omc(agent);
    lay_out(&sb);
    let edit = edit_steps(agent, &sb).pop().unwrap();
    let run = sb.run(
        "update the handler",
        AgentScenario::new().step(edit).reply_text("done"),
    );
    let after = assert_the_rule_reached_the_model_once(&sb, &run, "the edit");
    assert!(
        after.contains("[PROJECT RULE: .claude/rules/api.md, for paths matching src/api/**]"),
        "{after}"
    );
}

/// The edit of `src/api/handler.py` in `run` ran; the model saw the path rule and the nested
/// `AGENTS.md` in the request after the first tool call (`after`, for the message), and no rule
/// before it nor twice. Returns what the request after the first call showed.
#[track_caller]
fn assert_the_rule_reached_the_model_once(
    sb: &AgentSandbox,
    run: &AgentRun,
    after: &str,
) -> String {
    let d = assert_the_edit_ran_with_no_rule_before(sb, run);
    let shown = run.shown_text(1);
    for m in ["CLAUDE-RULES-MARKER", "NESTED-AGENTS-MARKER"] {
        assert!(shown.contains(m), "{m} after {after}: {shown}\n{d}");
    }
    assert_the_rule_shown_once_at_the_end(run, &d);
    shown
}

/// The client exited cleanly, the edit of `src/api/handler.py` ran, and the first request
/// showed the model no rule. Returns the run's diagnostics.
#[track_caller]
pub(crate) fn assert_the_edit_ran_with_no_rule_before(sb: &AgentSandbox, run: &AgentRun) -> String {
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(
        std::fs::read_to_string(sb.project().join("src/api/handler.py")).unwrap(),
        "x = 2\n",
        "the edit ran: {d}"
    );
    assert!(!run.shown_text(0).contains("CLAUDE-RULES-MARKER"), "{d}");
    d
}

/// The last request, which holds the whole conversation, shows the path rule once.
#[track_caller]
pub(crate) fn assert_the_rule_shown_once_at_the_end(run: &AgentRun, d: &str) {
    let last = run.shown_text(run.main_requests().len() - 1);
    assert_eq!(
        last.matches("[PROJECT RULE: .claude/rules/api.md").count(),
        1,
        "{d}"
    );
}

#[test]
fn codex_a_path_rule_reaches_the_model_when_the_file_is_edited() {
    a_path_rule_reaches_the_model_when_the_file_is_edited(Agent::Codex);
}

#[test]
fn gemini_a_path_rule_reaches_the_model_when_the_file_is_edited() {
    a_path_rule_reaches_the_model_when_the_file_is_edited(Agent::Gemini);
}

#[test]
fn qwen_a_path_rule_reaches_the_model_when_the_file_is_read_and_edited() {
    // Qwen Code's `edit` wants the file read first in the session: read, then edit.
    let sb = crate::e2e_agents::with_omc(Agent::Qwen);
    lay_out(&sb);
    let run = read_and_edit(Agent::Qwen, &sb);
    assert_the_rule_reached_the_model_once(&sb, &run, "the read");
}

#[test]
fn claude_code_loads_path_rules_and_nested_claude_md_but_no_nested_agents_md() {
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
