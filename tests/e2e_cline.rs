//! The real Cline CLI (pinned 3.0.65, npm) with the scripted chat-completions model
//! (tests/e2e/cline-FINDINGS.md).
//!
//! First what the client itself does, with the recorder as its only hook scripts: the tool
//! hooks are awaited and their `contextModification` reaches the model after the tool; the
//! task's start and end hooks are not read (no context at start, no continuation), and no
//! prompt hook fires for a headless prompt; a PreToolUse `cancel` ends the whole task. Then
//! omc-hooks installed with `install --agent cline`: what works there — tool-failure
//! escalation, a user hook's refusal on `Bash` — and that a keyword starts and continues
//! nothing.

use crate::e2e::agent_harness::{AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, MORE, PROMPT, names, of, ralph_state, recorded_run};

const AGENT: Agent = Agent::Cline;

/// The recorded events' names, sorted: the hooks Cline does not wait for may be recorded in
/// any order, but each must be there exactly as often as it fired.
fn fired_once(events: &[(String, serde_json::Value)]) -> Vec<&str> {
    let mut n: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    n.sort_unstable();
    n
}

#[test]
fn only_the_tool_hooks_are_read_and_nothing_continues() {
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "say hi using the shell",
        AgentScenario::new()
            .reply_shell("echo hi-from-e2e")
            .reply_text("first answer")
            .default_text("unexpected"),
        &[
            (
                "TaskStart",
                r#"printf '{"contextModification":"CTX-START"}'"#.into(),
            ),
            (
                "PreToolUse",
                r#"printf '{"contextModification":"CTX-PRE"}'"#.into(),
            ),
            (
                "PostToolUse",
                r#"printf '{"contextModification":"CTX-POST"}'"#.into(),
            ),
            (
                "TaskComplete",
                r#"printf '{"contextModification":"CTX-END"}'"#.into(),
            ),
        ],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    // The tool hooks are awaited, in order; TaskStart and TaskComplete are not (above).
    assert_eq!(
        fired_once(&events),
        ["PostToolUse", "PreToolUse", "TaskComplete", "TaskStart"],
        "{d}"
    );
    let tool_hooks: Vec<&str> = events
        .iter()
        .map(|(e, _)| e.as_str())
        .filter(|e| e.ends_with("ToolUse"))
        .collect();
    assert_eq!(tool_hooks, ["PreToolUse", "PostToolUse"], "{d}");
    assert_eq!(run.main_requests().len(), 2, "no continuation: {d}");
    let after_tool = run.new_text(1);
    assert!(after_tool.contains("hi-from-e2e"), "{d}");
    for ctx in ["CTX-PRE", "CTX-POST"] {
        assert!(
            after_tool.contains(ctx),
            "{ctx} reaches the model after the tool: {after_tool}\n{d}"
        );
    }
    assert!(
        after_tool.contains("<hook_context source=\"PostToolUse\""),
        "{after_tool}"
    );
    let all = run.all_shown_text();
    assert!(!all.contains("CTX-START"), "{d}");
    assert!(!all.contains("CTX-END"), "{d}");
    assert!(of(&events, "UserPromptSubmit").is_empty(), "{d}");
    let post = of(&events, "PostToolUse");
    assert_eq!(post[0]["hookName"], "tool_result", "{d}");
}

#[test]
fn a_pre_tool_use_cancel_ends_the_whole_task() {
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "make a file",
        AgentScenario::new()
            .reply_shell("touch made-by-the-model")
            .reply_text("unexpected")
            .default_text("unexpected"),
        &[(
            "PreToolUse",
            r#"printf '{"cancel":true,"errorMessage":"CANCELLED-BY-HOOK"}'"#.into(),
        )],
    );
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    assert!(!sb.project().join("made-by-the-model").exists(), "{d}");
    assert_eq!(run.main_requests().len(), 1, "the task ended: {d}");
    assert!(
        run.stdout.contains(r#""finishReason":"aborted""#),
        "reported as an aborted run: {d}"
    );
    // Headless, the reason goes nowhere: not to the model, not into the JSON output.
    assert!(!run.stdout.contains("CANCELLED-BY-HOOK"), "{d}");
    // The abort fires the shutdown hook, which a finished headless task does not. TaskStart is
    // started and not waited for (cline-FINDINGS.md §4), so its record may land after the
    // tool hook's: each event once, in whichever order the hook processes wrote them.
    assert_eq!(
        fired_once(&events),
        ["PreToolUse", "SessionShutdown", "TaskStart"],
        "{d}"
    );
}

// ---------------------------------------------------------------- omc-hooks in Cline ----

#[test]
fn a_failing_command_escalates() {
    s::a_failing_command_escalates(AGENT);
}

/// No prompt hook is installed (Cline awaits none, and fires none for a headless prompt) and
/// nothing continues a turn: `ralph …` starts no run and the turn ends with the model's answer.
#[test]
fn a_keyword_starts_nothing_and_the_turn_is_not_continued() {
    let sb = s::with_omc(AGENT);
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 1, "{d}");
    assert!(!run.all_shown_text().contains("[MAGIC KEYWORD"), "{d}");
    assert!(ralph_state(&sb, &run.session_id).is_none(), "{d}");
    // The hook scripts are not read as rules.
    let system = run.main_requests()[0].shown_text();
    assert!(!system.contains("omc-hooks"), "{system}");
}

/// A user hook on `Bash` (the person's hooks.toml) refuses `rm -rf`: Cline's `run_commands`
/// arrives as `Bash`, the refusal is Cline's `cancel`, which ends the task (its reason is not
/// shown headless), and the command never runs.
#[test]
fn a_user_hook_on_bash_refuses_a_command_and_ends_the_task() {
    let sb = s::with_omc(AGENT);
    let config = crate::e2e_agent_guards::a_user_hook_refusing_rm_rf(&sb);
    let run = sb.run(
        "clean the build directory",
        AgentScenario::new()
            .env("XDG_CONFIG_HOME", config.to_string_lossy())
            .reply_shell("rm -rf build")
            .reply_text("unexpected"),
    );
    let d = run.diagnostics();
    assert!(sb.project().join("build").is_dir(), "rm -rf ran: {d}");
    assert_eq!(run.main_requests().len(), 1, "the task ended: {d}");
    assert!(
        run.stdout.contains(r#""finishReason":"aborted""#),
        "reported as an aborted run: {d}"
    );
}

#[test]
fn every_installed_hook_fires_and_decodes_the_payload() {
    s::every_installed_hook_fires_and_decodes_the_payload(AGENT);
}

/// The model runs `omc-hooks trust --yes`: Cline sets `CLINE_CONNECTOR_CLI_LAUNCH` for the
/// model's commands, so trust refuses, nothing is recorded and the file's hook never runs.
#[test]
fn trust_run_by_the_model_is_refused() {
    crate::e2e_agent_modes::trust_run_by_the_model_is_refused(AGENT);
}
