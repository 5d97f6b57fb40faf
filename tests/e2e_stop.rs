//! Persistent modes and tool-failure escalation in the real Claude Code client (issues 5 and 6):
//! a ralph run is continued across consecutive Stops and the model is shown the RALPH reason
//! each time; the completion token ends it; Claude Code's block cap is met by a hand-back, and
//! the run resumes on the next prompt; a cancelled run is not continued; a turn with no run is
//! never continued; a failing Bash call escalates, and the escalation heads the Stop reason.
//!
//! The runs are seeded directly (`<project>/.omc/state/sessions/<sid>/ralph-state.json`, with
//! the session id fixed by `--session-id`) so these scenarios do not depend on the keyword
//! capability.

use crate::e2e::ralph::{assert_continued_to, ralph_feedback};
use crate::e2e::{Run, Sandbox, Scenario, plugin_dir};
use serde_json::{Value, json};

const SID: &str = "5e1f0000-0000-4000-8000-00000000a11f";

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn ralph_file(sb: &Sandbox) -> std::path::PathBuf {
    sb.project()
        .join(".omc/state/sessions")
        .join(SID)
        .join("ralph-state.json")
}

/// An active ralph run for [`SID`], as the keyword capability writes it.
fn seed_ralph(sb: &Sandbox) {
    let now = omc_hooks::time::iso(now_ms());
    let state = json!({
        "schema_version": 1, "mode": "ralph", "active": true, "session_id": SID,
        "project_path": sb.project(), "prompt": "ralph fix the parser",
        "started_at": now, "last_checked_at": now,
        "iteration": 1, "max_iterations": 100, "consecutive_blocks": 0,
    });
    let path = ralph_file(sb);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
}

fn ralph(sb: &Sandbox) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(ralph_file(sb)).unwrap()).unwrap();
    crate::schema::assert_valid("mode-state", &v);
    v
}

const MORE: &str = "I changed the tokenizer; more work remains.";

/// The first run, in a new project holding [`seed_ralph`]'s run, of "ralph fix the parser"
/// with a model following `scenario`.
fn seeded_run(scenario: Scenario) -> (Sandbox, Run) {
    let sb = Sandbox::new();
    seed_ralph(&sb);
    let run = sb.claude_in_session(SID, "ralph fix the parser", scenario);
    (sb, run)
}

/// The person's next `prompt` in [`SID`]: the model says [`MORE`] once and the turn is not
/// continued (a second reply stays unused); the client exited cleanly.
#[track_caller]
fn a_turn_not_continued(sb: &Sandbox, prompt: &str) -> Run {
    let run = sb.claude(
        plugin_dir(),
        prompt,
        more(1).reply_text("unexpected"),
        Some(SID),
    );
    run.assert_success();
    assert_eq!(run.main_loop_requests().len(), 1, "{}", run.diagnostics());
    run
}

/// A model that says [`MORE`] `n` turns in a row.
fn more(n: usize) -> Scenario {
    (0..n).fold(Scenario::new(), |sc, _| sc.reply_text(MORE))
}

#[test]
fn ralph_is_continued_across_consecutive_stops_until_the_completion_token() {
    let (sb, run) = seeded_run(
        more(3)
            .reply_text("The parser is fixed and the tests pass.\n<omc-complete/>")
            .reply_text("unexpected extra turn"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_loop_requests().len(), 4, "{d}");
    assert_eq!(
        run.unused_replies, 1,
        "no continuation after the token: {d}"
    );
    for i in 1..=3 {
        let shown = run.new_text(i);
        assert!(
            shown.contains(&ralph_feedback(i + 1)),
            "request {i}: {shown}"
        );
        assert!(shown.contains("Task: ralph fix the parser"), "{shown}");
    }
    let s = ralph(&sb);
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "completed");
    assert_eq!(s["iteration"], 4);
}

#[test]
fn the_client_cap_is_met_by_a_hand_back_and_the_run_resumes_on_the_next_prompt() {
    let (sb, run) = seeded_run(more(12));
    // Eight blocks honoured (FINDINGS §7), then our hook lets the ninth Stop through itself.
    assert_continued_to(&run, 9, 9);
    assert_eq!(
        run.result_text(),
        MORE,
        "the turn ended normally, not cut off"
    );
    let s = ralph(&sb);
    assert_eq!(s["active"], true, "paused, not finished");
    assert_eq!(s["iteration"], 9);
    assert_eq!(s["consecutive_blocks"], 0);

    let next = sb.claude(
        plugin_dir(),
        "carry on",
        Scenario::new()
            .reply_text(MORE)
            .reply_text("Done now.\n<omc-complete/>"),
        Some(SID),
    );
    assert_continued_to(&next, 2, 10);
    assert_eq!(ralph(&sb)["ended_reason"], "completed");
}

#[test]
fn a_cancelled_run_is_not_continued_on_the_next_turn() {
    let (sb, run) = seeded_run(more(3).env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2"));
    run.assert_success();
    assert_eq!(run.main_loop_requests().len(), 3, "{}", run.diagnostics());
    assert_eq!(ralph(&sb)["active"], true);

    // The user cancels on the next turn; that turn itself is not continued.
    let cancel = a_turn_not_continued(&sb, "cancelomc");
    assert!(
        cancel.shown_text(0).contains("ralph"),
        "the cancel context names the run"
    );
    assert_eq!(ralph(&sb)["active"], false);

    a_turn_not_continued(&sb, "what is left?");
    assert_eq!(ralph(&sb)["ended_reason"], "cancelled");
}

#[test]
fn a_turn_without_a_run_is_never_continued() {
    let sb = Sandbox::new();
    let run = sb.claude_in_session(
        SID,
        "what does ralph do?",
        Scenario::new()
            .reply_text("It keeps working until the task is done; more work remains for you.")
            .reply_text("unexpected"),
    );
    run.assert_success();
    assert_eq!(run.main_loop_requests().len(), 1, "{}", run.diagnostics());
    assert!(!run.all_shown_text().contains("Stop hook feedback"));
    assert!(!ralph_file(&sb).exists());
}

#[test]
fn a_failing_bash_call_escalates_and_heads_the_stop_reason() {
    let failing = json!({"command": "echo 'cannot find module parser' >&2; exit 1"});
    let mut sc = Scenario::new();
    for _ in 0..6 {
        sc = sc.reply_tool("Bash", failing.clone());
    }
    let (sb, run) = seeded_run(
        sc.reply_text("The build keeps failing; more work remains.")
            .reply_text("Tried another way; it works now.\n<omc-complete/>"),
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_loop_requests().len(), 8, "{d}");
    for i in 1..=6usize {
        let shown = run.shown_text(i);
        let want = if i < 5 {
            format!("PostToolUseFailure:Bash hook additional context: [TOOL ERROR - RETRY {i}]")
        } else {
            format!(
                "PostToolUseFailure:Bash hook additional context: [TOOL ERROR - ALTERNATIVE APPROACH NEEDED] \
                 Tool \"Bash\" has failed {i} times — stop retrying the same approach."
            )
        };
        assert!(
            shown.contains(&want),
            "request {i} lacks {want:?}:\n{shown}"
        );
    }
    let stop_reason = run.new_text(7);
    assert!(
        stop_reason.contains(
            "Stop hook feedback:\n[TOOL ERROR - ALTERNATIVE APPROACH NEEDED] Tool \"Bash\" has failed 6 times"
        ),
        "{stop_reason}"
    );
    assert!(
        stop_reason.contains("[RALPH LOOP - ITERATION 2/100]"),
        "{stop_reason}"
    );
    let rec: Value = serde_json::from_slice(
        &std::fs::read(ralph_file(&sb).with_file_name("last-tool-error.json")).unwrap(),
    )
    .unwrap();
    crate::schema::assert_valid("last-tool-error", &rec);
    assert_eq!(rec["retry_count"], 6);
    assert_eq!(ralph(&sb)["ended_reason"], "completed");
}
