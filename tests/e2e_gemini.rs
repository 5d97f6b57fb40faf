//! The real Gemini CLI (pinned 0.61.0) with the scripted Gemini-API model.
//!
//! First what the client itself does, with the recorder as the only hook — including the
//! AfterAgent bugs reported upstream: gemini-cli#18063 (no AfterAgent after a denied turn's
//! retry) and #20426 (`stop_hook_active` always false on retries), both fixed by PR #20439;
//! #18514 / #15712 (no AfterAgent after a text-only answer in headless mode; BeforeAgent not
//! fired, or fired empty, around a continuation). Then omc-hooks installed with
//! `install --agent gemini` (the shared scenarios of `e2e_agents`).

use crate::e2e::agent_harness::{AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, block_script, names, of, recorded_run};

const AGENT: Agent = Agent::Gemini;

#[test]
fn a_shell_turn_round_trips() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let after = of(&events, "AfterTool");
    assert_eq!(after.len(), 1, "{}", names(&events));
    assert_eq!(after[0]["tool_name"], "run_shell_command");
    let out = after[0]["tool_response"]["llmContent"].as_str().unwrap();
    assert!(out.contains("Output: hi-from-e2e"), "{out}");
    assert_eq!(after[0]["session_id"], run.session_id.as_str());
}

#[test]
fn after_agent_fires_once_after_a_text_only_answer_in_headless_mode() {
    // gemini-cli#18514 (point 3) / #15712, reported against 0.26-era versions.
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "what is ralph?",
        AgentScenario::new().reply_text("A persistent loop mode."),
        &[],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    assert_eq!(run.main_requests().len(), 1, "{d}");
    let after = of(&events, "AfterAgent");
    assert_eq!(after.len(), 1, "{d}");
    assert_eq!(after[0]["prompt"], "what is ralph?");
    assert_eq!(after[0]["prompt_response"], "A persistent loop mode.");
    assert_eq!(after[0]["stop_hook_active"], false);
    assert_eq!(of(&events, "BeforeAgent").len(), 1, "{d}");
}

#[test]
fn after_agent_denials_continue_verbatim_after_agent_refires_and_the_client_has_no_cap() {
    // Ten consecutive denials, the second continuation making a tool call: #18063 (AfterAgent
    // after every retry), #20426 (stop_hook_active on retries), #18514 points 1-2 (BeforeAgent
    // with the reason, never empty), and no client cap (Claude/Qwen stop at 8).
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = recorded_run(
        &sb,
        "keep going",
        AgentScenario::new()
            .reply_text("first answer")
            .reply_text("second answer")
            .reply_shell("echo inside-a-continuation")
            .default_text("more to do"),
        &[("AfterAgent", block_script("AfterAgent", "deny", 10))],
    );
    run.assert_success();
    let d = format!("{}\n{}", names(&events), run.diagnostics());
    let after = of(&events, "AfterAgent");
    assert_eq!(after.len(), 11, "{d}");
    // ten continuations + one model call for the tool result
    assert_eq!(run.main_requests().len(), 12, "{d}");
    // stop_hook_active is true on retries (#20426 fixed) — except on the AfterAgent that ends
    // a continuation in which the model ran a tool (#2 here): the tool round trip goes through
    // a fresh send and the flag is false again. A loop guard cannot count on it.
    let active: Vec<bool> = after
        .iter()
        .map(|a| a["stop_hook_active"] == true)
        .collect();
    let mut want = vec![true; 11];
    want[0] = false;
    want[2] = false;
    assert_eq!(active, want, "{d}");
    for a in &after {
        assert_eq!(a["prompt"], "keep going", "the original prompt: {a}");
    }
    // cumulative answer text
    let last = after[10]["prompt_response"].as_str().unwrap();
    assert!(
        last.starts_with("first answer\nsecond answer"),
        "prompt_response is cumulative: {last}"
    );
    let before: Vec<&str> = of(&events, "BeforeAgent")
        .iter()
        .map(|v| v["prompt"].as_str().unwrap_or("<none>"))
        .collect();
    let want: Vec<String> = std::iter::once("keep going".to_owned())
        .chain((1..=10).map(|n| format!("CONTINUE-{n}")))
        .collect();
    assert_eq!(before, want, "{d}");
    // each continuation reaches the model verbatim, as all that is new in its request
    let conts: Vec<String> = run
        .main_requests()
        .iter()
        .map(|r| r.new_text())
        .filter(|t| t.starts_with("CONTINUE-"))
        .collect();
    let want: Vec<String> = (1..=10).map(|n| format!("CONTINUE-{n}")).collect();
    assert_eq!(conts, want, "{d}");
}
// ------------------------------------------------------------ omc-hooks in Gemini CLI ----

crate::e2e_agents::agent_scenarios!(AGENT, escalates);
