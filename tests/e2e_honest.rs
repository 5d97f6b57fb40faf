//! Issue 18 in the real Claude Code client: a ralph run whose model asks the user a question
//! ends its turn without a continuation, and the user's next prompt resumes the run; the
//! plugin's slash command `/omc-hooks:ultraqa <task>` starts an ultraqa run that the Stop hook
//! then continues; and `omc-hooks mode start`, run by the model through Bash, finds its session
//! from `CLAUDE_CODE_SESSION_ID` without being told.

use crate::e2e::ralph::assert_continued_to;
use crate::e2e::{Sandbox, Scenario, plugin_dir};
use serde_json::{Value, json};

const SID: &str = "5e1f0000-0000-4000-8000-0000000a5c18";

const MORE: &str = "I changed the tokenizer; more work remains.";
const ASKING: &str = "I am blocked: the tests need a DATABASE_URL. Which database should I use?";

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn state_path(sb: &Sandbox, mode: &str) -> std::path::PathBuf {
    sb.project()
        .join(".omc/state/sessions")
        .join(SID)
        .join(format!("{mode}-state.json"))
}

fn state(sb: &Sandbox, mode: &str) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(state_path(sb, mode)).unwrap()).unwrap();
    crate::schema::assert_valid("mode-state", &v);
    v
}

/// An active ralph run for [`SID`], as a keyword writes it.
fn seed_ralph(sb: &Sandbox) {
    let now = omc_hooks::time::iso(now_ms());
    let v = json!({
        "schema_version": 1, "mode": "ralph", "active": true, "session_id": SID,
        "project_path": sb.project(), "prompt": "ralph fix the parser",
        "started_at": now, "last_checked_at": now,
        "iteration": 1, "max_iterations": 100, "consecutive_blocks": 0,
    });
    let path = state_path(sb, "ralph");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn a_ralph_run_whose_model_asks_the_user_hands_back_and_resumes_on_the_next_prompt() {
    let sb = Sandbox::new();
    seed_ralph(&sb);
    let run = sb.claude_in_session(
        SID,
        "ralph fix the parser",
        Scenario::new()
            .reply_text(MORE)
            .reply_text(ASKING)
            .reply_text("unexpected continuation"),
    );
    // One continuation (the first Stop), then the question ends the turn.
    let d = assert_continued_to(&run, 2, 2);
    assert_eq!(
        run.unused_replies, 1,
        "no continuation after the question: {d}"
    );
    assert_eq!(run.result_text(), ASKING, "the user sees the question");
    let s = state(&sb, "ralph");
    assert_eq!(s["active"], true, "paused, not ended");
    assert_eq!(s["iteration"], 2);
    assert!(s["awaiting_input_at"].is_string(), "{s}");

    // The user answers: the run carries on from where it was.
    let next = sb.claude(
        plugin_dir(),
        "Use Postgres; DATABASE_URL=postgres://localhost/test",
        Scenario::new()
            .reply_text(MORE)
            .reply_text("The parser is fixed and the tests pass.\n<omc-complete/>")
            .reply_text("unexpected"),
        Some(SID),
    );
    assert_continued_to(&next, 2, 3);
    let s = state(&sb, "ralph");
    assert_eq!(s["ended_reason"], "completed");
    assert!(s.get("awaiting_input_at").is_none(), "{s}");
}

#[test]
fn the_ultraqa_slash_command_starts_a_run_the_stop_hook_continues() {
    let sb = Sandbox::new();
    let run = sb.claude_in_session(
        SID,
        "/omc-hooks:ultraqa make the login tests pass",
        Scenario::new()
            .reply_text("Ran the suite: 3 failures; fixing the first.")
            .reply_text("All login tests pass now.\n<omc-complete/>")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let first = run.shown_text(0);
    // The command's own text, expanded by the client, and our hook's context.
    assert!(
        first.contains("<command-name>/omc-hooks:ultraqa</command-name>"),
        "{first}"
    );
    assert!(
        first.contains("The user started an omc-hooks **ultraqa** run for this task:\n\nmake the login tests pass"),
        "{first}"
    );
    assert!(
        first.contains("UserPromptSubmit hook additional context: [OMC-HOOKS COMMAND: ULTRAQA]\n\nULTRAQA mode is on"),
        "{first}"
    );
    // `disable-model-invocation: true` keeps the command out of the model's skill list: only
    // the user starts a run.
    assert!(!first.contains("- omc-hooks:ultraqa:"), "{first}");
    assert_eq!(run.main_loop_requests().len(), 2, "{d}");
    assert!(
        run.new_text(1)
            .contains("Stop hook feedback:\n[ULTRAQA - CYCLE 1/10 - ITERATION 2/30]"),
        "{d}"
    );
    assert!(
        run.new_text(1).contains("Task: make the login tests pass"),
        "{d}"
    );
    let s = state(&sb, "ultraqa");
    assert_eq!(s["session_id"], SID);
    assert_eq!(s["ended_reason"], "completed");
}

#[test]
fn mode_start_run_by_the_model_finds_its_own_session() {
    let sb = Sandbox::new();
    let bin = plugin_dir().join("target/release/omc-hooks");
    let command = format!("'{}' mode start team build the auth service", bin.display());
    let run = sb.claude_in_session(
        SID,
        "start a team run for the auth service",
        Scenario::new()
            .reply_tool("Bash", json!({"command": command}))
            .reply_text("Planned the work; the team has more to do.")
            .reply_text("Done.\n<omc-complete/>")
            .reply_text("unexpected"),
    );
    run.assert_success();
    let d = run.diagnostics();
    let results = run.main_loop_requests()[1].tool_results();
    assert!(
        results
            .iter()
            .any(|(_, text, _)| text.contains(&format!("team: run started in session {SID}"))),
        "{results:?}\n{d}"
    );
    assert_eq!(run.main_loop_requests().len(), 3, "{d}");
    assert!(
        run.new_text(2)
            .contains("Stop hook feedback:\n[TEAM - PHASE: not reported yet - ITERATION 2/30]"),
        "{d}"
    );
    assert_eq!(state(&sb, "team")["ended_reason"], "completed");
}
