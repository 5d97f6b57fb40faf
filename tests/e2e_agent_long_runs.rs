//! Long runs (issue 24) in the real Codex CLI, Gemini CLI and Qwen Code after a fresh
//! `omc-hooks install --agent <agent>`, the same scenarios as `e2e_long_runs` runs in Claude
//! Code, as shared functions taking the [`Agent`] with one `#[test]` per agent at the end:
//!
//! * a model that runs a command every turn is continued turn after turn, far past eight, in
//!   one headless run without input (Qwen Code counts every continuation of a prompt, tool calls
//!   or not; `install --agent qwen` raises its cap to 100);
//! * a model that only talks is handed back after 8 continuations, the run paused with why;
//! * a run started with `ralph --max 12 …` ends at iteration 12;
//! * a run left unfinished when one session ends is continued by the next new session (no
//!   `--resume`): suspended by SessionEnd in Codex and Gemini CLI, left open at the end of its
//!   turn in Qwen Code, which fires no SessionEnd headless (qwen-FINDINGS.md §3).
//!
//! `OMC_E2E_LONG_TURNS` sets the number of working turns of the first scenario (default 12,
//! enough to pass every client's default cap; the issue's own scenario is 30, which takes a
//! few minutes per client here).

use crate::e2e::agent_harness::{AgentRun, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e_agent_modes::{assert_continuation, continuations_of};
use crate::e2e_agents::{DONE, MORE, PROMPT, ralph_state, read_back, with_omc};

fn working_turns() -> usize {
    std::env::var("OMC_E2E_LONG_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(12)
}

/// `n` turns that each run one command (each a different one: Gemini CLI and Qwen Code stop a
/// run of identical calls) and end with text.
fn working(agent: Agent, mut sc: AgentScenario, n: usize) -> AgentScenario {
    for i in 0..n {
        sc = sc
            .reply_shell(read_back(agent, &format!("echo step-{i}")))
            .reply_text(format!("Step {i} is done; more work remains."));
    }
    sc
}

fn ralph_continuations(run: &AgentRun) -> Vec<String> {
    continuations_of(run, "RALPH LOOP - ITERATION")
}

pub fn a_model_that_works_is_continued_turn_after_turn_without_the_user(agent: Agent) {
    let n = working_turns();
    let sb = with_omc(agent);
    let run = sb.run(
        PROMPT,
        working(agent, AgentScenario::new(), n)
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run);
    assert_eq!(conts.len(), n, "{d}");
    assert_continuation(
        agent,
        &conts[n - 1],
        &format!("[RALPH LOOP - ITERATION {}/100]", n + 1),
        PROMPT,
    );
    assert_eq!(run.unused_steps, 1, "ended by the token: {d}");
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["iteration"], n as u64 + 1, "{s:#}");
}

pub fn a_model_that_only_talks_is_handed_back_after_eight(agent: Agent) {
    let sb = with_omc(agent);
    let run = sb.run(PROMPT, AgentScenario::new().default_text(MORE));
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(ralph_continuations(&run).len(), 8, "{d}");
    assert_eq!(run.main_requests().len(), 9, "{d}");
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "paused, not ended: {s:#}");
    assert_eq!(
        s["paused_reason"], "no tool ran in the last 8 continuations",
        "{s:#}"
    );
    // Where the person reads the note headless: Gemini CLI prints a hook's `systemMessage` on
    // stderr; Codex (`exec --json`) and Qwen Code (JSON output) were not seen to show it, and
    // the run's `paused_reason`, shown by `status`, is what says why there.
    if agent == Agent::Gemini {
        assert!(
            run.stderr
                .contains("ralph paused — no tool ran in the last 8 continuations"),
            "{d}\n{}",
            run.stderr
        );
    }
}

pub fn a_run_with_a_limit_of_twelve_ends_at_twelve(agent: Agent) {
    let sb = with_omc(agent);
    let run = sb.run(
        "ralph --max 12 fix the failing parser test",
        working(agent, AgentScenario::new(), 14),
    );
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run);
    assert_eq!(conts.len(), 11, "{d}");
    assert_continuation(agent, &conts[10], "[RALPH LOOP - ITERATION 12/12]", PROMPT);
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "max_iterations", "{s:#}");
    assert_eq!(s["iteration"], 12, "{s:#}");
    assert_eq!(
        s["prompt"], PROMPT,
        "the budget is not part of the task: {s:#}"
    );
}

pub fn a_run_left_at_the_end_of_one_session_is_continued_by_a_new_session(agent: Agent) {
    let sb = with_omc(agent);
    let first = sb.run(
        PROMPT,
        working(agent, AgentScenario::new(), 1).default_text(MORE),
    );
    first.assert_success();
    let old = first.session_id.clone();
    let s = ralph_state(&sb, &old).unwrap_or_else(|| panic!("{}", first.diagnostics()));
    assert_eq!(s["active"], true, "{s:#}");
    let it = s["iteration"].as_u64().unwrap();
    assert_eq!(it, 9, "{s:#}\n{}", first.diagnostics());
    match agent {
        Agent::Qwen => assert!(s.get("suspended_at").is_none(), "no SessionEnd: {s:#}"),
        _ => assert!(
            s["suspended_at"].is_string(),
            "SessionEnd suspended it: {s:#}"
        ),
    }

    let second = sb.run(
        "what does the tokenizer do?",
        AgentScenario::new()
            .reply_text("It splits the input into tokens.")
            .reply_text(DONE)
            .reply_text("unexpected"),
    );
    second.assert_success();
    let d = second.diagnostics();
    assert_ne!(second.session_id, old, "a new session: {d}");
    let all = second.all_shown_text();
    assert!(
        all.contains(&format!(
            "[RALPH LOOP RESUMED] The run from session {old}, left unfinished"
        )) && all.contains(&format!("Task: {PROMPT}")),
        "the model is told its task at start: {d}"
    );
    let conts = ralph_continuations(&second);
    assert_eq!(conts.len(), 1, "{d}");
    assert_continuation(
        agent,
        &conts[0],
        &format!("[RALPH LOOP - ITERATION {}/100]", it + 1),
        PROMPT,
    );
    let moved = ralph_state(&sb, &second.session_id).unwrap_or_else(|| panic!("{d}"));
    assert_eq!(moved["resumed_from"], old.as_str(), "{moved:#}");
    assert_eq!(moved["ended_reason"], "completed", "{moved:#}");
    assert_eq!(ralph_state(&sb, &old).unwrap()["ended_reason"], "resumed");
}

macro_rules! agent_suite {
    ($m:ident, $agent:expr) => {
        mod $m {
            use super::*;

            #[test]
            fn a_model_that_works_is_continued_turn_after_turn_without_the_user() {
                super::a_model_that_works_is_continued_turn_after_turn_without_the_user($agent);
            }

            #[test]
            fn a_model_that_only_talks_is_handed_back_after_eight() {
                super::a_model_that_only_talks_is_handed_back_after_eight($agent);
            }

            #[test]
            fn a_run_with_a_limit_of_twelve_ends_at_twelve() {
                super::a_run_with_a_limit_of_twelve_ends_at_twelve($agent);
            }

            #[test]
            fn a_run_left_at_the_end_of_one_session_is_continued_by_a_new_session() {
                super::a_run_left_at_the_end_of_one_session_is_continued_by_a_new_session($agent);
            }
        }
    };
}

agent_suite!(codex, Agent::Codex);
agent_suite!(gemini, Agent::Gemini);
agent_suite!(qwen, Agent::Qwen);
