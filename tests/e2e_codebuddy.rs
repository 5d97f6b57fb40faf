//! The real CodeBuddy Code (pinned 2.117.0, inside `@tencent-ai/agent-sdk` 0.3.201) with the
//! scripted chat-completions model, in its headless multi-turn mode (`-p --input-format
//! stream-json`; tests/e2e/codebuddy-FINDINGS.md).
//!
//! First what the client itself does, with the recorder as the only hook: Claude Code's
//! payloads with CodeBuddy's own fields, a failing command in PostToolUse with its
//! `exitCode`, and a Stop block continued — as `Stop hook: REASON`, through a new
//! UserPromptSubmit — only while the session's input stays open (a plain `-p` run exits
//! first), with no cap of its own. Then omc-hooks installed with `install --agent codebuddy`
//! (the shared scenarios of `e2e_agents`).

use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, names, of};

const AGENT: Agent = Agent::CodeBuddy;

#[test]
fn a_shell_turn_round_trips_with_the_exit_code_in_the_tool_response() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let d = names(&events);
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{d}");
    assert_eq!(post[0]["tool_name"], "Bash");
    assert_eq!(post[0]["session_id"], run.session_id.as_str());
    assert_eq!(post[0]["tool_response"]["exitCode"], 0);
    assert_eq!(post[0]["client"], "CLI");
    assert_eq!(post[0]["version"], "2.117.0");
}

#[test]
fn a_failing_command_is_post_tool_use_with_its_exit_code() {
    let (_run, events, d) = crate::e2e_agents::a_failing_command(AGENT, &[]);
    assert!(of(&events, "PostToolUseFailure").is_empty(), "{d}");
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{d}");
    assert_eq!(post[0]["tool_response"]["exitCode"], 3, "{}", post[0]);
    assert_eq!(post[0]["tool_response"]["is_error"], true, "{}", post[0]);
}

/// Twelve blocks in a row: each continues with `Stop hook: CONTINUE-n` as the next user
/// message, announced by a UserPromptSubmit carrying the same text; CodeBuddy does not stop
/// them.
#[test]
fn stop_blocks_continue_as_labelled_prompts_without_a_cap_of_its_own() {
    let (run, events, d) = crate::e2e_agents::talking_turns_blocked(AGENT, "Stop", "block", 12);
    s::assert_turns_continued(&run, &events, "Stop", 13, &d);
    for i in 1..=12usize {
        assert_eq!(
            run.last_user_text(i),
            format!("<user_query>Stop hook: CONTINUE-{i}</user_query>"),
            "{d}"
        );
    }
    let prompts: Vec<&str> = of(&events, "UserPromptSubmit")
        .iter()
        .map(|v| v["prompt"].as_str().unwrap_or("<none>"))
        .collect();
    let mut want = vec!["keep going".to_owned()];
    want.extend((1..=12).map(|n| format!("Stop hook: CONTINUE-{n}")));
    assert_eq!(prompts, want, "{d}");
}

// ------------------------------------------------------------ omc-hooks in CodeBuddy ----

crate::e2e_agents::agent_scenarios!(AGENT, escalates);

/// The model running `omc-hooks trust --yes` is refused: the client's own variable in the
/// command's environment says who runs it.
#[test]
fn trust_run_by_the_model_is_refused() {
    crate::e2e_agent_modes::trust_run_by_the_model_is_refused(AGENT);
}
