//! Skill guards in the real Claude Code client (contract §7): a protected project skill is
//! invoked, the model tries to stop before finishing, and is sent back with the
//! `[SKILL ACTIVE: …]` reason; completion, the reinforcement cap and the TTL each let it stop.

use crate::e2e::{Run, Sandbox, Scenario, plugin_dir};
use serde_json::{Value, json};

const SKILL: &str = "---\nname: guarded\ndescription: A multi-step workflow for the tests.\n---\n\n\
Step 1: list the files. Step 2: write a summary. Then you are done.\n";
const T0: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

/// A project with the `guarded` skill, configured as `light` (3 reinforcements, 5 min).
fn project() -> Sandbox {
    let sb = Sandbox::new();
    sb.write(".claude/skills/guarded/SKILL.md", SKILL);
    sb.write(
        ".omc/config.json",
        r#"{"skills":{"protection":{"guarded":"light"}}}"#,
    );
    sb
}

fn stack(run: &Run, sid: &str) -> Option<Value> {
    let name = "skill-active-state.json";
    crate::e2e::ralph::session_state_in(&run.omc_dir(), sid, name, "skill-active-state")
}

/// The Stop blocks this run honoured: main-loop requests whose newest message is the
/// guard's reason (earlier requests' text is repeated in later ones, so count only the news).
fn blocks(run: &Run) -> usize {
    (0..run.main_loop_requests().len())
        .filter(|i| {
            run.new_text(*i)
                .contains("Stop hook feedback:\n[SKILL ACTIVE: guarded]")
        })
        .count()
}

#[test]
fn an_early_stop_is_sent_back_until_the_skill_completes() {
    let sb = project();
    let run = sb.claude(
        plugin_dir(),
        "run the guarded workflow",
        Scenario::new()
            .reply_tool("Skill", json!({"skill": "guarded"}))
            .reply_text("That is enough for now.")
            .reply_text("Listed the files and wrote the summary.\n<omc-complete/>")
            .env("OMC_NOW_MS", T0.to_string()),
        None,
    );
    run.assert_success();
    assert_eq!(run.unused_replies, 0, "{}", run.diagnostics());
    let m = run.main_loop_requests();
    assert_eq!(m.len(), 3, "{}", run.diagnostics());
    // The guard announced itself when the skill was invoked…
    assert!(
        run.shown_text(1)
            .contains("PreToolUse:Skill hook additional context: [SKILL GUARD: guarded (light)]"),
        "{}",
        run.shown_text(1)
    );
    // …and the early stop was sent back with the reason and its count.
    let back = run.new_text(2);
    assert!(
        back.contains("Stop hook feedback:\n[SKILL ACTIVE: guarded]"),
        "{back}"
    );
    assert!(back.contains("(reinforcement 1/3,"), "{back}");
    assert_eq!(blocks(&run), 1);
    assert_eq!(
        run.result_text(),
        "Listed the files and wrote the summary.\n<omc-complete/>"
    );
    // Completion released it; SessionEnd found nothing left.
    assert!(stack(&run, &run.session_id).is_none());
}

#[test]
fn the_reinforcement_cap_lets_a_stubborn_model_stop() {
    let sb = project();
    let run = sb.claude(
        plugin_dir(),
        "run the guarded workflow",
        Scenario::new()
            .reply_tool("Skill", json!({"skill": "guarded"}))
            .default_text("I will not continue.")
            .env("OMC_NOW_MS", T0.to_string())
            .env("OMC_SKIP_HOOKS", "session-end"),
        None,
    );
    run.assert_success();
    // The prompt, the skill's result, then one request per honoured block (3), no more.
    assert_eq!(run.main_loop_requests().len(), 5, "{}", run.diagnostics());
    assert_eq!(blocks(&run), 3);
    assert!(run.all_shown_text().contains("(reinforcement 3/3,"));
    assert!(
        stack(&run, &run.session_id).is_none(),
        "released at the cap"
    );
}

#[test]
fn the_instructions_loaded_post_tool_use_keeps_the_guard_and_the_ttl_releases_it() {
    let sb = project();
    // Run 1: the skill is invoked; Stop and SessionEnd are switched off so the guard outlives
    // the run exactly as the client's own PostToolUse left it.
    let first = sb.claude(
        plugin_dir(),
        "run the guarded workflow",
        Scenario::new()
            .reply_tool("Skill", json!({"skill": "guarded"}))
            .reply_text("paused")
            .env("OMC_NOW_MS", T0.to_string())
            .env("OMC_SKIP_HOOKS", "stop,session-end"),
        None,
    );
    first.assert_success();
    let sid = first.session_id.clone();
    let s = stack(&first, &sid).expect("guard kept after PostToolUse(Skill)");
    let g = &s["stack"][0];
    assert_eq!(g["skill_name"], "guarded");
    assert_eq!(g["reinforcement_count"], 0);
    assert_eq!(
        g["loaded_at"], "2026-12-03T13:45:00.000Z",
        "PostToolUse marked it loaded, not released"
    );

    // Run 2, one minute later: still guarded.
    let second = sb.claude(
        plugin_dir(),
        "go on",
        Scenario::new()
            .reply_text("stopping")
            .reply_text("Done.\n<omc-complete/>")
            .env("OMC_NOW_MS", (T0 + MIN).to_string())
            .env("OMC_SKIP_HOOKS", "session-end"),
        Some(&sid),
    );
    second.assert_success();
    assert_eq!(blocks(&second), 1, "{}", second.diagnostics());

    // Re-invoke, then come back past the light TTL (5 min): the stop goes through.
    let third = sb.claude(
        plugin_dir(),
        "again",
        Scenario::new()
            .reply_tool("Skill", json!({"skill": "guarded"}))
            .reply_text("paused")
            .env("OMC_NOW_MS", (T0 + 2 * MIN).to_string())
            .env("OMC_SKIP_HOOKS", "stop,session-end"),
        Some(&sid),
    );
    third.assert_success();
    assert!(stack(&third, &sid).is_some());
    let fourth = sb.claude(
        plugin_dir(),
        "anything else?",
        Scenario::new()
            .reply_text("nothing")
            .env("OMC_NOW_MS", (T0 + 7 * MIN).to_string())
            .env("OMC_SKIP_HOOKS", "session-end"),
        Some(&sid),
    );
    fourth.assert_success();
    assert_eq!(blocks(&fourth), 0, "{}", fourth.diagnostics());
    assert_eq!(fourth.main_loop_requests().len(), 1);
    assert!(
        stack(&fourth, &sid).is_none(),
        "the expired guard was dropped"
    );
}

#[test]
fn a_forked_skill_is_released_when_its_agent_has_finished() {
    let sb = Sandbox::new();
    sb.write(
        ".claude/skills/forky/SKILL.md",
        "---\nname: forky\ndescription: A forked workflow for the tests.\ncontext: fork\n---\n\nDo the work and report.\n",
    );
    sb.write(
        ".omc/config.json",
        r#"{"skills":{"protection":{"forky":"medium"}}}"#,
    );
    let run = sb.claude(
        plugin_dir(),
        "run forky",
        Scenario::new()
            .reply_tool("Skill", json!({"skill": "forky"}))
            .subagent_text("forked work done")
            .reply_text("forky reported back")
            .env("OMC_NOW_MS", T0.to_string())
            .env("OMC_SKIP_HOOKS", "session-end"),
        None,
    );
    run.assert_success();
    assert!(
        run.all_shown_text()
            .contains("PreToolUse:Skill hook additional context: [SKILL GUARD: forky (medium)]"),
        "the guard was pushed: {}",
        run.diagnostics()
    );
    assert_eq!(run.subagent_requests().len(), 1, "{}", run.diagnostics());
    assert!(
        !run.all_shown_text().contains("[SKILL ACTIVE: forky]"),
        "{}",
        run.diagnostics()
    );
    assert_eq!(run.result_text(), "forky reported back");
    assert!(stack(&run, &run.session_id).is_none());
}
