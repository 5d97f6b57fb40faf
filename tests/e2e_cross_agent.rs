//! One run, two agents: a ralph run started in one real client and suspended when its session
//! ends is resumed by the resume word in another client working in the same project, with its
//! task and iteration, and the new client's end-of-turn hook carries it on. Claude Code (pinned
//! 2.1.332, `harness.rs`) ⇄ Codex CLI (pinned 0.171.0, `agent_harness.rs`).

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::{Run, Scenario, plugin_dir};
use crate::e2e_agents::{DONE, MORE, PROMPT, continuations, ralph_state, with_omc};
use serde_json::Value;

/// The suspended run of `sid`: active, `suspended_at` set, listed in the index.
fn assert_suspended(sb: &AgentSandbox, sid: &str) -> Value {
    let s = ralph_state(sb, sid).expect("ralph-state.json of the first session");
    assert_eq!(s["active"], true, "{s:#}");
    assert!(
        s["suspended_at"].is_string(),
        "SessionEnd suspended it: {s:#}"
    );
    assert_eq!(s["prompt"], PROMPT, "{s:#}");
    s
}

/// The run re-bound to `new` from `old`: same task, iteration carried on, the old one ended.
fn assert_rebound(sb: &AgentSandbox, old: &str, new: &str, iteration: u64) -> Value {
    assert_ne!(old, new);
    let moved = ralph_state(sb, new).expect("ralph-state.json of the resuming session");
    assert_eq!(moved["session_id"], new, "{moved:#}");
    assert_eq!(moved["resumed_from"], old, "{moved:#}");
    assert_eq!(moved["prompt"], PROMPT, "the task is intact: {moved:#}");
    let was = ralph_state(sb, old).unwrap();
    assert_eq!(
        (was["active"].as_bool(), was["ended_reason"].as_str()),
        (Some(false), Some("resumed")),
        "{was:#}"
    );
    assert!(
        moved["iteration"].as_u64().unwrap() > iteration,
        "continued past {iteration}: {moved:#}"
    );
    moved
}

fn resume_texts(shown: &str, old: &str, it: u64) {
    crate::e2e_agent_modes::assert_offered_and_rebound(shown, old, it);
}

/// The resume word's path: with the resume bound at 0 a suspended run is only offered (within
/// the default bound the next session takes it up at its start: `e2e_long_runs`).
fn word_only(sb: &AgentSandbox) {
    sb.write(".omc/config.json", r#"{"resume": {"within_minutes": 0}}"#);
}

#[test]
fn a_run_suspended_in_claude_code_is_resumed_in_codex() {
    let sb = with_omc(Agent::Codex);
    word_only(&sb);
    // Claude Code: the keyword starts the run, the model never finishes, the client's cap of 8
    // is met by our hand-back, and SessionEnd suspends the run.
    let claude: Run = sb.sb.claude(
        plugin_dir(),
        PROMPT,
        Scenario::new().default_text(MORE),
        None,
    );
    claude.assert_success();
    let old = claude.session_id.clone();
    let s = assert_suspended(&sb, &old);
    let it = s["iteration"].as_u64().unwrap();
    assert_eq!(it, 9, "{s:#}\n{}", claude.diagnostics());

    // Codex, same project, a new session: offered at SessionStart, re-bound on the word, and
    // Codex's Stop carries the run on until the token.
    let codex: AgentRun = sb.run(
        "omc resume",
        AgentScenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    codex.assert_success();
    let d = codex.diagnostics();
    resume_texts(&codex.shown_text(0), &old, it);
    let conts = continuations(&codex);
    assert_eq!(conts.len(), 1, "{d}");
    assert!(
        conts[0].contains(&format!("[RALPH LOOP - ITERATION {}/100]", it + 1)),
        "{}",
        conts[0]
    );
    assert!(
        conts[0].contains(&format!("Task: {PROMPT}")),
        "{}",
        conts[0]
    );
    let moved = assert_rebound(&sb, &old, &codex.session_id, it);
    assert_eq!(moved["iteration"], it + 1, "{moved:#}");
    assert_eq!(moved["active"], false, "{moved:#}");
    assert_eq!(moved["ended_reason"], "completed", "{moved:#}");
}

#[test]
fn a_run_suspended_in_codex_is_resumed_in_claude_code() {
    let sb = with_omc(Agent::Codex);
    word_only(&sb);
    // Codex: the keyword starts the run, the model never finishes, our own cap pauses it (Codex
    // has none), and Codex's SessionEnd suspends it.
    let codex = sb.run(PROMPT, AgentScenario::new().default_text(MORE));
    codex.assert_success();
    let old = codex.session_id.clone();
    let s = assert_suspended(&sb, &old);
    let it = s["iteration"].as_u64().unwrap();
    assert_eq!(it, 9, "{s:#}\n{}", codex.diagnostics());

    let claude = sb.sb.claude(
        plugin_dir(),
        "omc resume",
        Scenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
        None,
    );
    claude.assert_success();
    let d = claude.diagnostics();
    resume_texts(&claude.shown_text(0), &old, it);
    assert_eq!(claude.main_loop_requests().len(), 2, "{d}");
    let back = claude.new_text(1);
    assert!(
        back.contains(&format!(
            "Stop hook feedback:\n[RALPH LOOP - ITERATION {}/100]",
            it + 1
        )),
        "{back}"
    );
    assert!(back.contains(&format!("Task: {PROMPT}")), "{back}");
    let moved = assert_rebound(&sb, &old, &claude.session_id, it);
    assert_eq!(moved["iteration"], it + 1, "{moved:#}");
    assert_eq!(moved["ended_reason"], "completed", "{moved:#}");
}
