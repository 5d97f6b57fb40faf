//! Long runs in the real Claude Code client (issue 24).
//!
//! First what the client itself does with an always-blocking Stop hook (the recorder plugin as
//! the only hook): its consecutive-block cap counts only blocks after which the model used no
//! tool (tests/e2e/FINDINGS.md §7). Then omc-hooks in it: a working model is continued far past
//! eight continuations, a model that only talks is handed back within eight (even with the
//! client's own cap raised), a run ends at its `max_iterations` and at its time budget and says
//! so, and a run suspended at the end of one session is continued by the next new session.

use crate::e2e::ralph::{
    DONE, PROMPT, continuations, ralph, status, working_turns, works_then_claims,
};
use crate::e2e::{Run, Sandbox, Scenario};

use std::path::{Path, PathBuf};

fn recorder_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder")
}

/// The Stop payloads the recorder saved in `rec`.
fn stops(rec: &Path) -> usize {
    crate::e2e_agents::of(&crate::e2e_agents::recorded(rec), "Stop").len()
}

/// Runs the client with the recorder plugin only, its Stop hook always blocking.
fn always_blocking(sb: &Sandbox, scenario: Scenario) -> (Run, PathBuf) {
    let rec = sb.root().join("rec");
    crate::e2e_agents::respond(
        &rec,
        "Stop",
        r#"printf '{"decision":"block","reason":"keep going"}\n'"#,
    );
    let run = sb.claude(
        &recorder_dir(),
        "probe the stop cap",
        scenario.env("REC_DIR", rec.to_string_lossy()),
        None,
    );
    (run, rec)
}

#[test]
fn the_clients_cap_counts_only_blocks_without_a_tool_call() {
    // Only talking: the default cap of 8 honoured blocks, the 9th Stop ends the turn.
    let sb = Sandbox::new();
    let mut sc = Scenario::new();
    for _ in 0..14 {
        sc = sc.reply_text("still thinking");
    }
    let (run, rec) = always_blocking(&sb, sc);
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(stops(&rec), 9, "{d}");
    assert_eq!(run.main_loop_requests().len(), 9, "{d}");

    // A tool call before every stop: the count restarts with each one, so 20 working turns are
    // all continued; then the model only talks, and the client honours 7 more blocks — 8 in a
    // row since the last turn that used a tool, the block right after that turn included — and
    // ends the turn at the 9th. (This is the "37 continuations": 30 working turns, then 7.)
    let sb = Sandbox::new();
    let mut sc = working_turns(Scenario::new(), 20);
    for _ in 0..10 {
        sc = sc.reply_text("still thinking");
    }
    let (run, rec) = always_blocking(&sb, sc);
    run.assert_success();
    let d = run.diagnostics();
    let events = crate::e2e_agents::recorded(&rec);
    let stop_payloads = crate::e2e_agents::of(&events, "Stop");
    assert_eq!(stop_payloads.len(), 20 + 8, "{d}");
    assert_eq!(run.main_loop_requests().len(), 2 * 20 + 7 + 1, "{d}");
    assert_eq!(run.unused_replies, 2, "{d}");
    // `stop_hook_active` stays true across the tool turns once a block was made.
    assert_eq!(stop_payloads[0]["stop_hook_active"], false);
    assert!(
        stop_payloads[1..]
            .iter()
            .all(|p| p["stop_hook_active"] == true),
        "{d}"
    );
}

// ----------------------------------------------------------------- omc-hooks ----

const MORE: &str = "I changed the tokenizer; more work remains.";

#[test]
fn a_model_that_works_is_continued_thirty_times_without_the_user() {
    let o = works_then_claims(30);
    let d = o.run.diagnostics();
    assert!(
        o.conts[29].contains("[RALPH LOOP - ITERATION 31/100]"),
        "{d}"
    );
    assert_eq!(o.state["iteration"], 31, "{:#}", o.state);
}

#[test]
fn a_model_that_only_talks_is_handed_back_within_eight_even_with_the_clients_cap_raised() {
    let sb = Sandbox::new();
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        Scenario::new()
            .default_text(MORE)
            .env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "20"),
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(continuations(&run).len(), 8, "{d}");
    assert_eq!(run.main_loop_requests().len(), 9, "{d}");
    assert_eq!(run.result_text(), MORE, "the turn ended normally: {d}");
    let s = ralph(&sb, &run.session_id);
    assert_eq!(s["active"], true, "{s:#}");
    assert_eq!(
        s["paused_reason"], "no tool ran in the last 8 continuations",
        "{s:#}"
    );
    // The session ended (headless), so the run is suspended; `status` says why it stopped.
    let status = status(&sb);
    assert!(
        status.contains("(paused: no tool ran in the last 8 continuations)"),
        "{status}"
    );
}

#[test]
fn a_run_with_twelve_iterations_ends_at_twelve() {
    let sb = Sandbox::new();
    sb.write(".omc/config.json", r#"{"ralph": {"max_iterations": 12}}"#);
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        working_turns(Scenario::new(), 16),
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    let conts = continuations(&run);
    assert_eq!(conts.len(), 11, "{d}");
    assert!(conts[10].contains("[RALPH LOOP - ITERATION 12/12]"), "{d}");
    let s = ralph(&sb, &run.session_id);
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "max_iterations", "{s:#}");
    assert_eq!(s["iteration"], 12, "{s:#}");
}

#[test]
fn a_run_left_at_the_end_of_one_session_is_continued_by_a_new_session() {
    let sb = Sandbox::new();
    // Session 1: two working turns, then the model only talks and is handed back; the session
    // ends (headless) and SessionEnd suspends the run.
    let first = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        working_turns(Scenario::new(), 2).default_text(MORE),
        None,
    );
    first.assert_success();
    let old = first.session_id.clone();
    let s = ralph(&sb, &old);
    assert!(
        s["suspended_at"].is_string(),
        "{s:#}\n{}",
        first.diagnostics()
    );
    let it = s["iteration"].as_u64().unwrap();
    // A continuation after each working turn, then 7 more while it talks: 8 in a row since its
    // last tool call, the one right after it included.
    assert_eq!(it, 10, "{s:#}");

    // Session 2, new (no --resume), with an unrelated question: the model is told the task at
    // start, answers, and the Stop continues the run.
    let second = sb.claude(
        crate::e2e::plugin_dir(),
        "what does the tokenizer do?",
        Scenario::new()
            .reply_text("It splits the input into tokens.")
            .reply_text(DONE)
            .reply_text("unexpected"),
        None,
    );
    second.assert_success();
    let d = second.diagnostics();
    assert_ne!(second.session_id, old);
    let shown = second.shown_text(0);
    assert!(
        shown.contains(&format!(
            "[RALPH LOOP RESUMED] The run from session {old}, left unfinished"
        )),
        "{d}"
    );
    assert!(shown.contains(&format!("Task: {PROMPT}")), "{d}");
    let conts = continuations(&second);
    assert_eq!(conts.len(), 1, "{d}");
    assert!(
        conts[0].contains(&format!("[RALPH LOOP - ITERATION {}/100]", it + 1)),
        "{d}"
    );
    let moved = ralph(&sb, &second.session_id);
    assert_eq!(moved["resumed_from"], old.as_str(), "{moved:#}");
    assert_eq!(moved["ended_reason"], "completed", "{moved:#}");
    assert_eq!(ralph(&sb, &old)["ended_reason"], "resumed");
}
