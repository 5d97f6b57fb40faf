//! The real Codex CLI (pinned 0.171.0) with the scripted Responses-API model.
//!
//! First what the client itself does, with the recorder as the only hook (what the adapter
//! relies on; a client upgrade that changes it fails here first): the harness round trip, Stop
//! blocks continued with a `<hook_prompt>` wrapper and no cap of the client's own, no exit
//! status in PostToolUse (the rollout transcript has it), and hooks skipped silently unless
//! trusted. Then omc-hooks installed with `install --agent codex` (the shared scenarios of
//! `e2e_agents`).

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agents::{self as s, names, of, recorded_run};
use serde_json::Value;

const AGENT: Agent = Agent::Codex;

#[test]
fn a_shell_turn_round_trips() {
    let (run, events) = s::a_shell_turn_round_trips(AGENT);
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{}", names(&events));
    assert_eq!(post[0]["tool_name"], "Bash");
    assert_eq!(post[0]["tool_input"]["command"], "echo hi-from-e2e");
    assert_eq!(post[0]["tool_response"], "hi-from-e2e\n");
    assert_eq!(post[0]["session_id"], run.session_id.as_str());
}

#[test]
fn stop_blocks_continue_the_turn_wrapped_in_hook_prompt_and_the_client_has_no_cap() {
    // Twelve consecutive blocks: more than Claude Code's or Qwen Code's cap of 8.
    let (run, events, d) = crate::e2e_agents::talking_turns_blocked(AGENT, "Stop", "block", 12);
    let stops = of(&events, "Stop");
    assert_eq!(stops.len(), 13, "{d}");
    assert_eq!(run.main_requests().len(), 13, "{d}");
    assert_eq!(stops[0]["stop_hook_active"], false);
    for (i, stop) in stops.iter().enumerate().skip(1) {
        assert_eq!(stop["stop_hook_active"], true, "Stop #{i}: {stop}");
        let last = run.last_user_text(i);
        assert!(
            last.starts_with("<hook_prompt hook_run_id=\"stop:")
                && last.ends_with(&format!(">CONTINUE-{i}</hook_prompt>")),
            "request {i}: {last}"
        );
    }
}

#[test]
fn post_tool_use_has_no_exit_status_but_the_rollout_transcript_does() {
    let sb = AgentSandbox::new(AGENT);
    let copy = sb.root().join("transcript-at-post-tool-use.jsonl");
    // Copy the transcript as it is while PostToolUse runs.
    let script = format!(
        r#"t=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p'); cp "$t" '{}'"#,
        copy.display()
    );
    let (run, events) = recorded_run(
        &sb,
        "fail once",
        AgentScenario::new()
            .reply_shell("echo failing >&2; exit 3")
            .reply_text("it failed"),
        &[("PostToolUse", script)],
    );
    run.assert_success();
    let post = of(&events, "PostToolUse");
    assert_eq!(post.len(), 1, "{}", names(&events));
    // The payload: only the output text, nothing says the command failed.
    assert_eq!(post[0]["tool_response"], "failing\n", "{}", post[0]);
    // The model is told (function_call_output) ...
    let out = run.main_requests()[1].tool_outputs().join("\n");
    assert!(out.contains("Process exited with code 3"), "{out}");
    // ... and the rollout already holds the command's completion record, keyed by the id.
    let id = post[0]["tool_use_id"].as_str().unwrap();
    let lines: Vec<Value> = std::fs::read_to_string(&copy)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let done = lines
        .iter()
        .rev()
        .find(|l| {
            l["type"] == "event_msg"
                && l["payload"]["type"] == "item_completed"
                && l["payload"]["item"]["id"] == id
        })
        .unwrap_or_else(|| panic!("no item_completed for {id} in the transcript"));
    let item = &done["payload"]["item"];
    assert_eq!(item["type"], "CommandExecution", "{item}");
    assert_eq!(item["exit_code"], 3, "{item}");
    assert_eq!(item["status"], "failed", "{item}");
    // What is *not* there yet when the hook runs: the model-facing output record.
    assert!(
        !lines
            .iter()
            .any(|l| l["payload"]["type"] == "function_call_output"
                || l["payload"]["type"] == "exec_command_end"),
        "the rollout now has function_call_output/exec_command_end at PostToolUse time"
    );
}

/// "hello" in `sb` with the recorder as the only hook, Codex running only trusted hooks; the
/// client exited cleanly. Returns the run and the recorded events.
fn hello_with_trusted_hooks_only(sb: &AgentSandbox) -> (AgentRun, Vec<(String, Value)>) {
    let (run, events) = recorded_run(
        sb,
        "hello",
        AgentScenario::new().reply_text("hi").trusted_hooks_only(),
        &[],
    );
    run.assert_success();
    (run, events)
}

#[test]
fn untrusted_hooks_are_skipped_silently_and_pre_written_trust_runs_them() {
    let sb = AgentSandbox::new(AGENT);
    let (run, events) = hello_with_trusted_hooks_only(&sb);
    assert!(events.is_empty(), "untrusted hooks ran: {}", names(&events));
    assert_eq!(run.main_requests().len(), 1, "{}", run.diagnostics());

    // The same hooks.json with trusted_hash entries in config.toml (codex-FINDINGS.md §3).
    sb.trust_codex_hooks();
    let (_, events) = hello_with_trusted_hooks_only(&sb);
    for ev in ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"] {
        assert_eq!(of(&events, ev).len(), 1, "{ev}: {}", names(&events));
    }
}

// ------------------------------------------------------------ omc-hooks in Codex ----

crate::e2e_agents::agent_scenarios!(AGENT, escalates);
