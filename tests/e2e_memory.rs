//! Compaction, memory and suspended runs in the real Claude Code client (contract §9).
//!
//! * A ralph run (seeded directly) survives `/compact`: PreCompact writes the checkpoint and
//!   the notepad entry, and the next request of the resumed session shows the restored run.
//! * A ralph run whose process ends is suspended by SessionEnd; a fresh `claude -p` in the same
//!   project is told about it, and the documented word re-binds it to the new session.

use crate::e2e::{Run, Sandbox, Scenario, plugin_dir};
use crate::schema::assert_valid;
use serde_json::{Value, json};

const T0: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

fn iso(ms: i64) -> String {
    omc_hooks::time::iso(ms)
}

fn seed_ralph(sb: &Sandbox, sid: &str, iteration: u32) {
    sb.write(
        &format!(".omc/state/sessions/{sid}/ralph-state.json"),
        &serde_json::to_string_pretty(&json!({
            "schema_version": 1, "mode": "ralph", "active": true, "session_id": sid,
            "project_path": sb.project(), "prompt": "make the parser tests pass",
            "started_at": iso(T0 - 10 * MIN), "last_checked_at": iso(T0 - MIN),
            "iteration": iteration, "max_iterations": 100
        }))
        .unwrap(),
    );
}

fn read(sb: &Sandbox, rel: &str) -> Option<Value> {
    let bytes = std::fs::read(sb.project().join(".omc").join(rel)).ok()?;
    Some(serde_json::from_slice(&bytes).expect("state file is JSON"))
}

fn at(ms: i64) -> Scenario {
    Scenario::new().env("OMC_NOW_MS", ms.to_string())
}

/// The session's checkpoints, oldest first.
fn checkpoints(run: &Run, sid: &str) -> Vec<Value> {
    crate::e2e::ralph::checkpoints_in(&run.omc_dir(), sid)
}

#[test]
fn a_ralph_run_survives_compact_and_the_next_request_shows_it() {
    let sb = Sandbox::new();
    let file = sb.project().join("hello.txt");
    let first = sb.claude(
        plugin_dir(),
        "write the file",
        at(T0)
            .reply_tool("Write", json!({"file_path": file, "content": "one\ntwo\n"}))
            .reply_text("written"),
        None,
    );
    first.assert_success();
    let sid = first.session_id.clone();
    seed_ralph(&sb, &sid, 3);

    let compact = sb.claude(plugin_dir(), "/compact", at(T0 + MIN), Some(&sid));
    compact.assert_success();
    assert_eq!(
        compact.compaction_requests().len(),
        1,
        "{}",
        compact.diagnostics()
    );
    let cps = checkpoints(&compact, &sid);
    assert_eq!(cps.len(), 1, "one checkpoint");
    assert_valid("checkpoint", &cps[0]);
    assert_eq!(cps[0]["trigger"], "manual");
    assert_eq!(cps[0]["active_modes"][0]["mode"], "ralph");
    assert_eq!(cps[0]["active_modes"][0]["iteration"], 3);
    assert_eq!(cps[0]["edited_files"][0]["path"], json!(file));
    assert_eq!(cps[0]["edited_files"][0]["added"], 2);
    let notepad = std::fs::read_to_string(compact.omc_dir().join("notepad.md")).unwrap();
    assert!(notepad.contains("Compaction (manual)"), "{notepad}");
    // The compaction's own process ended: the run is suspended, not deleted.
    let r = read(&sb, &format!("state/sessions/{sid}/ralph-state.json")).unwrap();
    assert_valid("mode-state", &r);
    assert_eq!(
        (r["active"].as_bool(), r["suspended_at"].is_string()),
        (Some(true), true)
    );

    // The next request of the same session: the run is back, without asking.
    let next = sb.claude(
        plugin_dir(),
        "carry on",
        at(T0 + 2 * MIN).reply_text("Parser tests pass now.\n<omc-complete/>"),
        Some(&sid),
    );
    next.assert_success();
    let shown = next.shown_text(0);
    assert!(
        shown.contains(
            "SessionStart hook additional context: [RALPH LOOP RESTORED] Iteration 3/100"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("Task: make the parser tests pass"),
        "{shown}"
    );
    assert!(
        shown.contains("[CHECKPOINT BEFORE COMPACTION]"),
        "the compact-time checkpoint context is kept in the compacted conversation: {shown}"
    );
}

#[test]
fn a_suspended_run_is_offered_to_a_fresh_session_and_resumed_on_the_word() {
    let sb = Sandbox::new();
    let old = "7d9f1c2a-1111-4a4a-9b9b-0123456789ab";
    seed_ralph(&sb, old, 7);
    let first = sb.claude(
        plugin_dir(),
        "hello",
        at(T0).arg("--session-id").arg(old).reply_text("hi"),
        None,
    );
    first.assert_success();
    assert_eq!(first.session_id, old);
    let r = read(&sb, &format!("state/sessions/{old}/ralph-state.json")).unwrap();
    assert_eq!(r["suspended_at"], iso(T0), "SessionEnd suspended the run");
    assert_eq!(r["active"], true);
    // Stop kept the run going for a while (up to the client's block cap) before the process
    // ended; whatever iteration it reached is kept across the resume.
    let it = r["iteration"].as_u64().unwrap();
    assert!(it >= 7, "{r:#}");
    let summary = read(&sb, &format!("sessions/{old}.json")).unwrap();
    assert_valid("session-summary", &summary);
    assert_eq!(summary["suspended"], json!(["ralph"]));

    // Three hours later: past the resume bound (2 h), so offered only, and resumed on the word.
    let fresh = sb.claude(
        plugin_dir(),
        "omc resume",
        at(T0 + 180 * MIN).reply_text("Picking the parser work back up.\n<omc-complete/>"),
        None,
    );
    fresh.assert_success();
    let new = fresh.session_id.clone();
    assert_ne!(new, old);
    let shown = fresh.shown_text(0);
    assert!(
        shown.contains("SessionStart hook additional context: [SUSPENDED RUN]"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("[RALPH LOOP] iteration {it}/100 — session {old}")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "UserPromptSubmit hook additional context: [RALPH LOOP RESUMED] Re-bound to this session from session {old}; iteration {it}/100."
        )),
        "{shown}"
    );
    // Re-bound: the new session owns the run, the old one is ended as "resumed".
    let moved = read(&sb, &format!("state/sessions/{new}/ralph-state.json")).unwrap();
    assert_valid("mode-state", &moved);
    assert_eq!(moved["session_id"], json!(new));
    assert_eq!(moved["resumed_from"], old);
    assert!(moved["iteration"].as_u64().unwrap() >= it);
    // Either the run is still going (suspended again when this process ended) or the Stop
    // capability saw the completion token and ended it.
    let still = moved["active"] == true && moved["suspended_at"].is_string();
    let done = moved["active"] == false && moved["ended_reason"] == "completed";
    assert!(still || done, "{moved:#}");
    let was = read(&sb, &format!("state/sessions/{old}/ralph-state.json")).unwrap();
    assert_eq!(
        (was["active"].as_bool(), was["ended_reason"].as_str()),
        (Some(false), Some("resumed"))
    );
}
