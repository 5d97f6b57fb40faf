//! The real Kimi CLI (pinned 1.51.0, PyPI, in a Python ≥ 3.12 venv) with the scripted
//! chat-completions model (tests/e2e/kimi-FINDINGS.md).
//!
//! First what the client itself does, with the recorder as the only hook: a Stop refusal
//! (`permissionDecision: "deny"`) runs one more turn with the reason as the user's message and
//! the Stop hook does not fire again in that prompt; `decision: "block"` and
//! `additionalContext` are never read. Then omc-hooks installed with `install --agent kimi
//! --user`: a keyword starts a run in state (no context reaches the model) and each prompt gets
//! one continuation carrying the task; the completion token in the model's message (read from
//! the session's file) ends the run; `cancelomc` ends it; a question is inert; five failing
//! commands escalate at the head of the continuation; every installed hook decodes.

use crate::e2e::agent_harness::{AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, DONE, MORE, PROMPT, names, of, ralph_state, recorded_run};
use serde_json::json;

const AGENT: Agent = Agent::Kimi;

/// A responder that refuses every call of `event` with `CONTINUE-<n>`.
fn deny_always(event: &str) -> String {
    format!(
        r#"n=$(ls "$REC_DIR" | grep -c -- '-{event}.json$'); printf '{{"hookSpecificOutput":{{"permissionDecision":"deny","permissionDecisionReason":"CONTINUE-%s"}}}}\n' "$n""#
    )
}

/// A responder that answers Claude Code's context for `event` with `text`.
fn context(event: &str, text: &str) -> String {
    format!(
        r#"printf '{{"hookSpecificOutput":{{"hookEventName":"{event}","additionalContext":"{text}"}}}}\n'"#
    )
}

#[test]
fn a_stop_refusal_continues_once_per_prompt_and_no_context_is_read() {
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "keep going",
        AgentScenario::new()
            .reply_shell("echo hi")
            .reply_text("first answer")
            .reply_text("answer to the continuation")
            .default_text("unexpected"),
        &[
            ("Stop", deny_always("Stop")),
            (
                "UserPromptSubmit",
                context("UserPromptSubmit", "CTX-PROMPT"),
            ),
            ("SessionStart", context("SessionStart", "CTX-START")),
            ("PostToolUse", context("PostToolUse", "CTX-POST")),
        ],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    let stops = of(&events, "Stop");
    assert_eq!(stops.len(), 1, "the Stop hook fires once per prompt: {d}");
    assert_eq!(stops[0]["stop_hook_active"], false, "{d}");
    assert_eq!(run.main_requests().len(), 3, "{d}");
    assert_eq!(run.last_user_text(2), "CONTINUE-1", "{d}");
    assert_eq!(run.unused_steps, 0, "{d}");
    let all = run.all_shown_text();
    assert!(!all.contains("CTX-"), "no context reaches the model: {d}");
    // The continuation is not a prompt event.
    assert_eq!(of(&events, "UserPromptSubmit").len(), 1, "{d}");
}

#[test]
fn a_decision_block_does_not_continue() {
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "keep going",
        AgentScenario::new()
            .reply_text("first answer")
            .default_text("unexpected"),
        &[(
            "Stop",
            r#"printf '{"decision":"block","reason":"NOT-READ"}\n'"#.to_owned(),
        )],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    assert_eq!(of(&events, "Stop").len(), 1, "{d}");
    assert_eq!(run.main_requests().len(), 1, "{d}");
}

// -------------------------------------------------------------- omc-hooks in Kimi CLI ----

/// The one continuation of a prompt: the ralph text with the task, verbatim, as the user's
/// message of the extra turn.
fn assert_continuation(shown: &str, iteration: u32) {
    let head = format!("[RALPH LOOP - ITERATION {iteration}/100]");
    assert!(shown.starts_with(&head), "{head}: {shown}");
    assert!(shown.contains(&format!("Task: {PROMPT}")), "{shown}");
}

/// `ralph …` starts a run in state (Kimi shows no context); the prompt's Stop continues it once
/// with the task; the next prompt's Stop once more; a message with the completion token — read
/// from the session's `context.jsonl`, which Kimi's Stop payload lacks — ends it.
#[test]
fn a_ralph_run_continues_once_per_prompt_until_the_completion_token() {
    let sb = s::with_omc(AGENT);
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert!(
        !run.all_shown_text().contains("[MAGIC KEYWORD"),
        "Kimi reads no prompt context: {d}"
    );
    assert_eq!(run.main_requests().len(), 2, "one continuation: {d}");
    assert_continuation(&run.new_text(1), 2);
    assert_eq!(run.unused_steps, 1, "{d}");
    let sid = run.session_id.clone();
    let st = ralph_state(&sb, &sid).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(st["active"], true, "{st:#}");
    assert_eq!(st["iteration"], 2, "{st:#}");

    let next = sb.run(
        "go on",
        AgentScenario::new()
            .resume(&sid)
            .reply_text(MORE)
            .reply_text(MORE)
            .reply_text("unexpected"),
    );
    next.assert_success();
    let d = next.diagnostics();
    assert_eq!(next.main_requests().len(), 2, "{d}");
    assert_continuation(&next.new_text(1), 3);

    let last = sb.run(
        "finish it",
        AgentScenario::new()
            .resume(&sid)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    last.assert_success();
    let d = last.diagnostics();
    assert_eq!(last.main_requests().len(), 1, "not continued: {d}");
    let st = ralph_state(&sb, &sid).unwrap();
    assert_eq!(st["active"], false, "{st:#}\n{d}");
    assert_eq!(st["ended_reason"], "completed", "{st:#}");
    assert_eq!(st["iteration"], 3, "{st:#}");
}

/// `cancelomc` in the session ends its run, and that prompt's Stop does not continue.
#[test]
fn cancelomc_ends_the_run() {
    let sb = s::with_omc(AGENT);
    let run = sb.run(
        PROMPT,
        AgentScenario::new().reply_text(MORE).reply_text(MORE),
    );
    run.assert_success();
    assert_eq!(run.main_requests().len(), 2, "{}", run.diagnostics());
    let sid = run.session_id.clone();
    s::cancelled_in(&sb, &sid, "Stopped.");
}

#[test]
fn a_question_about_ralph_is_inert() {
    s::a_question_about_ralph_is_inert(AGENT);
}

/// Five failing commands in a ralph run: Kimi shows nothing after a tool, so the guidance
/// reaches the model at the head of the prompt's continuation — escalated at the fifth.
#[test]
fn a_failing_command_escalates_at_the_head_of_the_continuation() {
    let sb = s::with_omc(AGENT);
    sb.write("notes.txt", "parser notes\n");
    let mut sc = AgentScenario::new();
    for n in 1..=5 {
        sc = sc.reply_shell(s::failing(n));
    }
    // Another tool before the answer: its PreToolUse hook is awaited, so the fifth failure's
    // PostToolUse hook (which Kimi does not await) has run before the Stop hook reads it.
    let run = sb.run(
        PROMPT,
        sc.reply_call("ReadFile", json!({"path": "notes.txt"}))
            .reply_text(MORE)
            .reply_text(MORE),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 8, "{d}");
    let back = run.new_text(7);
    assert!(
        back.starts_with("[TOOL ERROR - ALTERNATIVE APPROACH NEEDED]"),
        "the escalation heads the continuation:\n{back}\n{d}"
    );
    assert!(back.contains("[RALPH LOOP - ITERATION 2/100]"), "{back}");
    assert!(
        back.contains("Shell"),
        "named as Kimi names the tool: {back}"
    );
    let rec = crate::e2e_agents::last_tool_error(&sb, &run.session_id, &d);
    assert_eq!(rec["retry_count"], 5, "{rec:#}");
    assert_eq!(rec["tool_name"], "Shell", "{rec:#}");
}

#[test]
fn every_installed_hook_fires_and_decodes_the_payload() {
    s::every_installed_hook_fires_and_decodes_the_payload(AGENT);
}

/// A user hook on `Bash` refuses `rm -rf` in Kimi: its `Shell` arrives as `Bash`, the refusal is
/// Kimi's `permissionDecision: deny`, and the model reads the reason as the call's error.
#[test]
fn a_user_hook_on_bash_refuses_a_shell_command() {
    crate::e2e_agent_guards::a_user_hook_on_bash_refuses_a_shell_command(AGENT);
}

/// A subagent (Kimi's `Agent` tool) runs its own turns and its own Stop hook in the session:
/// while it runs (SubagentStart to SubagentStop, the subagent named by its type) that Stop is
/// held, so the subagent is not sent the run's continuation; the session's own Stop after it
/// is continued once, as ever.
#[test]
fn a_subagents_own_stop_is_not_continued() {
    let sb = s::with_omc(AGENT);
    let run = sb.run(
        PROMPT,
        AgentScenario::new()
            .reply_call(
                "Agent",
                json!({"description": "look around", "prompt": "List the files.",
                       "subagent_type": "coder"}),
            )
            .default_text(MORE),
    );
    run.assert_success();
    let d = run.diagnostics();
    let continued: Vec<String> = run
        .main_requests()
        .iter()
        .map(|r| r.new_text())
        .filter(|t| t.contains("[RALPH LOOP - ITERATION"))
        .collect();
    assert_eq!(continued.len(), 1, "only the session's Stop: {d}");
    assert_continuation(&continued[0], 2);
    let last = run.main_requests().len() - 1;
    assert_continuation(&run.new_text(last), 2);
    let st = ralph_state(&sb, &run.session_id).unwrap();
    assert_eq!(st["iteration"], 2, "{st:#}\n{d}");
}
