//! Magic keywords in the real Claude Code client (contract §5): `ralph fix …` reaches the model
//! as UserPromptSubmit context and starts a run on disk; so do a bare `ulw` and a name used as
//! the verb of the request (`ralplan the schema change`); a question about ralph injects
//! nothing; `cancelomc` typed in a later turn of the same session (`--resume`) ends the run.
//!
//! The Stop hook is skipped in these runs (`OMC_SKIP_HOOKS=stop`): what is tested here is the
//! prompt side, independent of how the Stop side then enforces the run. The exception is issue
//! 26's stop in a person's own words (`turn off ralph`, `stop the loop, it's burning tokens`):
//! there the Stop hook runs in the turn that says stop, and the turn ends without a block.

use crate::e2e::{Run, Sandbox, Scenario, plugin_dir};
use serde_json::Value;

const CONTEXT: &str = "UserPromptSubmit hook additional context: [MAGIC KEYWORD: RALPH]";

fn scenario(reply: &str) -> Scenario {
    Scenario::new()
        .reply_text(reply)
        .env("OMC_SKIP_HOOKS", "stop")
}

fn mode_state(run: &Run, sid: &str, mode: &str) -> Option<Value> {
    crate::e2e::ralph::mode_state_in(&run.omc_dir(), sid, mode)
}

fn ralph_state(run: &Run, sid: &str) -> Option<Value> {
    mode_state(run, sid, "ralph")
}

/// `prompt` alone starts `mode` in the real client: the model is shown the mode's header and
/// the request, and the session's state holds an active run of it with the prompt as its task.
fn starts_mode_in_the_real_client(prompt: &str, mode: &str) {
    let sb = Sandbox::new();
    let run = sb.claude(plugin_dir(), prompt, scenario("On it."), None);
    run.assert_success();
    let shown = run.shown_text(0);
    let header = format!(
        "UserPromptSubmit hook additional context: [MAGIC KEYWORD: {}]",
        mode.to_uppercase()
    );
    assert!(shown.contains(&header), "{}", run.diagnostics());
    assert!(shown.contains("`<omc-complete/>`"), "{shown}");
    assert!(
        shown.contains(&format!(
            "User request (as typed; the prompt itself stays authoritative):\n{prompt}"
        )),
        "{shown}"
    );
    let s = mode_state(&run, &run.session_id, mode)
        .unwrap_or_else(|| panic!("{mode}-state.json for the session\n{}", run.diagnostics()));
    assert_eq!(s["active"], true);
    assert_eq!(s["mode"], mode);
    assert_eq!(s["iteration"], 1);
    assert_eq!(s["session_id"], run.session_id.as_str());
    assert_eq!(s["prompt"], prompt);
    // nothing else was started
    let others: Vec<_> = ["ralph", "autopilot", "ultrawork", "ralplan"]
        .into_iter()
        .filter(|m| *m != mode && mode_state(&run, &run.session_id, m).is_some())
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

#[test]
fn a_bare_ulw_starts_ultrawork() {
    starts_mode_in_the_real_client("ulw", "ultrawork");
}

#[test]
fn ralplan_used_as_the_verb_starts_ralplan() {
    starts_mode_in_the_real_client("ralplan the schema change", "ralplan");
}

#[test]
fn ralph_fix_injects_the_ralph_context_and_starts_a_run() {
    let sb = Sandbox::new();
    let run = sb.claude(
        plugin_dir(),
        "ralph fix the failing parser test",
        scenario("Working on it."),
        None,
    );
    run.assert_success();
    let shown = run.shown_text(0);
    assert!(shown.contains(CONTEXT), "{}", run.diagnostics());
    assert!(shown.contains("`<omc-complete/>`"), "{shown}");
    assert!(
        shown.contains("User request (as typed; the prompt itself stays authoritative):\nralph fix the failing parser test"),
        "{shown}"
    );
    let s = ralph_state(&run, &run.session_id).expect("ralph-state.json for the session");
    assert_eq!(s["active"], true);
    assert_eq!(s["iteration"], 1);
    assert_eq!(s["session_id"], run.session_id.as_str());
    assert_eq!(s["prompt"], "ralph fix the failing parser test");
}

#[test]
fn a_question_about_ralph_injects_nothing() {
    let sb = Sandbox::new();
    let run = sb.claude(
        plugin_dir(),
        "what is ralph?",
        scenario("A persistent loop mode."),
        None,
    );
    run.assert_success();
    let all = run.all_shown_text();
    assert!(!all.contains("[MAGIC KEYWORD"), "{all}");
    assert!(
        !all.contains("UserPromptSubmit hook additional context"),
        "{all}"
    );
    assert!(
        !run.omc_dir()
            .join("state/sessions")
            .join(&run.session_id)
            .join("ralph-state.json")
            .exists()
    );
}

/// A first turn of `sb` that starts a ralph run (checked active); its session id.
fn a_ralph_run_started(sb: &Sandbox) -> String {
    let first = sb.claude(
        plugin_dir(),
        "ralph fix the failing parser test",
        scenario("Started."),
        None,
    );
    first.assert_success();
    let sid = first.session_id.clone();
    assert_eq!(ralph_state(&first, &sid).unwrap()["active"], true);
    sid
}

#[test]
fn cancelomc_in_a_later_turn_ends_the_run() {
    let sb = Sandbox::new();
    let sid = a_ralph_run_started(&sb);

    let second = sb.claude(plugin_dir(), "cancelomc", scenario("Stopped."), Some(&sid));
    second.assert_success();
    assert_eq!(second.session_id, sid, "--resume keeps the session");
    let news = second.new_text(0);
    let shown = second.shown_text(0);
    assert!(
        shown.contains("UserPromptSubmit hook additional context: [MAGIC KEYWORD: CANCEL]"),
        "{}",
        second.diagnostics()
    );
    assert!(shown.contains("Ended: ralph."), "{shown}\n--- new: {news}");
    let s = ralph_state(&second, &sid).unwrap();
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "cancelled");
}

#[test]
fn a_keyword_run_is_enforced_from_the_first_stop_without_a_skill_call() {
    let sb = Sandbox::new();
    let run = sb.claude(
        plugin_dir(),
        "ralph fix the failing parser test",
        Scenario::new()
            .reply_text("I changed the tokenizer; more work remains.")
            .reply_text("The parser is fixed and the tests pass.\n<omc-complete/>")
            .reply_text("unexpected extra turn"),
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_loop_requests().len(), 2, "{d}");
    assert_eq!(run.unused_replies, 1, "{d}");
    let back = run.new_text(1);
    assert!(back.contains("Stop hook feedback:\n[RALPH LOOP"), "{back}");
    assert!(back.contains("ralph fix the failing parser test"), "{back}");
    let s = ralph_state(&run, &run.session_id).unwrap();
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "completed");
}

/// Issue 26: during a ralph run, a person says stop in their own words, in a later turn of the
/// same session; the run ends as `cancelomc` ends it and that turn's Stop lets it end (one
/// request to the model, not a block and a second). A limit on the loop, in the same setting,
/// is not a stop: the run stays and its Stop blocks — so the test can tell the two apart.
#[test]
fn a_stop_in_the_persons_own_words_ends_the_run_and_its_stop_no_longer_blocks() {
    for phrase in [
        "turn off ralph",
        "stop the loop, it's burning tokens",
        "ok stop, that's enough looping",
        "그만해, 이제 충분해",
    ] {
        let sb = Sandbox::new();
        let sid = a_ralph_run_started(&sb);

        let second = sb.claude(
            plugin_dir(),
            phrase,
            Scenario::new()
                .reply_text("Stopping here.")
                .reply_text("unexpected extra turn"),
            Some(&sid),
        );
        second.assert_success();
        let d = second.diagnostics();
        let shown = second.shown_text(0);
        assert!(
            shown.contains("UserPromptSubmit hook additional context: [MAGIC KEYWORD: CANCEL]"),
            "{phrase}: {d}"
        );
        assert!(shown.contains("Ended: ralph."), "{phrase}: {shown}");
        assert_eq!(
            second.main_loop_requests().len(),
            1,
            "{phrase}: the Stop blocked\n{d}"
        );
        assert_eq!(second.unused_replies, 1, "{phrase}: {d}");
        let s = ralph_state(&second, &sid).unwrap();
        assert_eq!(s["active"], false, "{phrase}");
        assert_eq!(s["ended_reason"], "cancelled", "{phrase}");
    }

    // the control: a limit on the loop leaves the run on, and its Stop blocks
    let sb = Sandbox::new();
    let sid = a_ralph_run_started(&sb);
    let second = sb.claude(
        plugin_dir(),
        "stop ralph from touching the migrations folder",
        Scenario::new()
            .reply_text("Understood, the migrations stay as they are.")
            .reply_text("The parser test passes.\n<omc-complete/>"),
        Some(&sid),
    );
    second.assert_success();
    let d = second.diagnostics();
    // (the first turn's context is in the history the client resends; the new turn adds none)
    assert_eq!(
        second.shown_text(0).matches("[MAGIC KEYWORD").count(),
        1,
        "{d}"
    );
    assert_eq!(
        second.main_loop_requests().len(),
        2,
        "the Stop blocked once: {d}"
    );
    assert!(second.new_text(1).contains("[RALPH LOOP"), "{d}");
    let s = ralph_state(&second, &sid).unwrap();
    assert_eq!(s["ended_reason"], "completed", "{d}");
}
