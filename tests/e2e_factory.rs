//! The real Factory Droid (pinned `@factory/cli-linux-x64` 0.225.2) with the scripted
//! chat-completions model, driven through `droid exec`'s JSON-RPC session
//! (tests/e2e/factory-FINDINGS.md).
//!
//! First what the client itself does, with the recorder as the only hook: Claude Code's
//! payloads with `Execute` for the shell, UserPromptSubmit in a JSON-RPC session, no hook at
//! all after a command that fails, and Stop blocks continued verbatim with no cap of its own.
//! Then omc-hooks installed with `install --agent factory` (the shared scenarios of
//! `e2e_agents` that Droid can serve).

use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, names, of};

const AGENT: Agent = Agent::Factory;

#[test]
fn a_shell_turn_round_trips_with_execute_and_the_prompt_event() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let d = names(&events);
    let ups = of(&events, "UserPromptSubmit");
    assert_eq!(
        ups.len(),
        1,
        "the JSON-RPC session sends the prompt event: {d}"
    );
    assert_eq!(ups[0]["prompt"], "say hi using the shell");
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{d}");
    assert_eq!(post[0]["tool_name"], "Execute");
    assert_eq!(post[0]["session_id"], run.session_id.as_str());
    let out = post[0]["tool_response"].as_str().unwrap();
    assert!(out.ends_with("[Process exited with code 0]"), "{out}");
    let stop = of(&events, "Stop");
    assert_eq!(stop.len(), 1, "{d}");
    assert!(
        stop[0].get("last_assistant_message").is_none(),
        "{}",
        stop[0]
    );
    assert!(stop[0]["message_id"].is_string(), "{}", stop[0]);
}

#[test]
fn a_failing_command_fires_no_post_tool_hook() {
    let (run, events, d) = s::a_failing_command(AGENT, &[]);
    assert_eq!(of(&events, "PreToolUse").len(), 1, "{d}");
    assert!(of(&events, "PostToolUse").is_empty(), "{d}");
    assert!(of(&events, "PostToolUseFailure").is_empty(), "{d}");
    let out = run.tool_outputs_of(1).join("\n");
    assert!(
        out.contains("exit code: 3") && out.contains("failing"),
        "the model is told: {out}\n{d}"
    );
}

/// Twelve blocks in a row, no tool between them: each continues with the reason as the next
/// user message, no prompt event repeats it, and Droid does not stop them.
#[test]
fn stop_blocks_continue_verbatim_without_a_cap_of_its_own() {
    let (run, events, d) = crate::e2e_agents::talking_turns_blocked(AGENT, "Stop", "block", 12);
    s::assert_turns_continued(&run, &events, "Stop", 13, &d);
    for i in 1..=12usize {
        assert_eq!(run.last_user_text(i), format!("CONTINUE-{i}"), "{d}");
    }
    assert_eq!(of(&events, "UserPromptSubmit").len(), 1, "{d}");
}

// ------------------------------------------------------------ omc-hooks in Droid ----

crate::e2e_agents::agent_scenarios!(AGENT);

/// Where Claude Code escalates, Droid cannot be told: a command that fails runs no hook, and
/// a PreToolUse hook's context does not reach the model (factory-FINDINGS.md §6). Five failing
/// calls leave no failure record and no guidance; the model sees only the client's own
/// error text.
#[test]
fn a_failing_command_cannot_escalate() {
    let (sb, run, d) = s::fails_five_times(AGENT);
    assert!(!run.all_shown_text().contains("[TOOL ERROR"), "{d}");
    assert!(
        !sb.omc_dir()
            .join("state/sessions")
            .join(&run.session_id)
            .join("last-tool-error.json")
            .exists(),
        "{d}"
    );
}

/// The model running `omc-hooks trust --yes` is refused: the client's own variable in the
/// command's environment says who runs it.
#[test]
fn trust_run_by_the_model_is_refused() {
    crate::e2e_agent_modes::trust_run_by_the_model_is_refused(AGENT);
}
