//! The real Qwen Code (pinned 0.24.4) with the scripted chat-completions model.
//!
//! First what the client itself does, with the recorder as the only hook: the extra prompt
//! events (an empty one before each tool-result send, the continuation as a prompt — only the
//! user's own prompt carries `submitted_prompt`), a failing command reported as
//! PostToolUseFailure, and the cap on consecutive Stop blocks (the 8th block of a prompt ends
//! the turn: 7 continuations, tool calls in between or not). Then omc-hooks installed with
//! `install --agent qwen` (the shared scenarios of `e2e_agents`).

use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, names, of};

const AGENT: Agent = Agent::Qwen;

#[test]
fn a_shell_turn_round_trips_with_an_empty_prompt_event_before_the_tool_result() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let ups = of(&events, "UserPromptSubmit");
    assert_eq!(ups.len(), 2, "{}", names(&events));
    assert_eq!(ups[0]["prompt"], "say hi using the shell");
    assert_eq!(ups[0]["submitted_prompt"], "say hi using the shell");
    assert_eq!(ups[1]["prompt"], "");
    assert!(ups[1].get("submitted_prompt").is_none(), "{}", ups[1]);
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{}", names(&events));
    assert_eq!(post[0]["tool_name"], "run_shell_command");
    assert_eq!(post[0]["session_id"], run.session_id.as_str());
    assert!(
        post[0]["tool_response"]["llmContent"]
            .as_str()
            .unwrap()
            .contains("Exit Code: 0")
    );
}

#[test]
fn a_failing_command_is_reported_as_post_tool_use_failure() {
    let (_run, events, d) = crate::e2e_agents::a_failing_command(AGENT, &[]);
    assert!(of(&events, "PostToolUse").is_empty(), "{d}");
    let fail = of(&events, "PostToolUseFailure");
    assert_eq!(fail.len(), 1, "{d}");
    assert_eq!(fail[0]["tool_name"], "run_shell_command");
    assert!(
        fail[0]["error"].as_str().unwrap().contains("Exit Code: 3"),
        "{}",
        fail[0]
    );
}

#[test]
fn stop_blocks_continue_verbatim_through_a_prompt_event_until_the_eighth_is_refused() {
    let (run, events, d) = crate::e2e_agents::talking_turns_blocked(AGENT, "Stop", "block", 100);
    let stops = of(&events, "Stop");
    // `capped: iterationCount >= cap` in the bundle: the 8th block is refused.
    assert_eq!(stops.len(), 8, "7 blocks honoured, the 8th refused: {d}");
    assert_eq!(run.main_requests().len(), 8, "{d}");
    // The headless result concatenates every answer of the turn, with no separator and no
    // word about the cap (its warning is a hook system message, not in the JSON result).
    assert_eq!(run.result_text, "more to do".repeat(8), "{d}");
    assert_eq!(stops[0]["stop_hook_active"], false);
    assert!(
        stops[1..].iter().all(|v| v["stop_hook_active"] == true),
        "{d}"
    );
    for i in 1..=7usize {
        assert_eq!(run.new_text(i), format!("CONTINUE-{i}"), "{d}");
    }
    let ups: Vec<(&str, bool)> = of(&events, "UserPromptSubmit")
        .iter()
        .map(|v| {
            (
                v["prompt"].as_str().unwrap_or("<none>"),
                v.get("submitted_prompt").is_some(),
            )
        })
        .collect();
    let mut want = vec![("keep going", true)];
    let conts: Vec<String> = (1..=7).map(|n| format!("CONTINUE-{n}")).collect();
    want.extend(conts.iter().map(|c| (c.as_str(), false)));
    assert_eq!(ups, want, "{d}");
}

#[test]
fn a_tool_call_between_stop_blocks_does_not_restart_the_clients_count() {
    // Each continuation runs a command before answering: the client counts blocks per prompt
    // id, so the tool round trips do not reset it and the 8th block still ends the turn.
    let (run, events, d) = s::stop_blocks_with_a_command_in_each(AGENT, 11);
    assert_eq!(of(&events, "Stop").len(), 8, "{d}");
    assert_eq!(of(&events, "PostToolUse").len(), 7, "{d}");
    assert_eq!(run.unused_steps, 23 - 15, "{d}");
}
// ------------------------------------------------------------ omc-hooks in Qwen Code ----

crate::e2e_agents::agent_scenarios!(AGENT, escalates);
