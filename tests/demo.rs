//! `omc-hooks demo`: the README's first command replays the scripted session through the real
//! hook subcommands; every milestone of the story must show in its output.

use crate::common::BIN;
use std::process::Command;

#[test]
fn the_demo_tells_the_whole_story() {
    let out = Command::new(BIN)
        .arg("demo")
        .env_remove("DISABLE_OMC")
        .env_remove("OMC_SKIP_HOOKS")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let milestones = [
        // A keyword activates ralph and its state file appears.
        "[MAGIC KEYWORD: RALPH]",
        "+ .omc/state/sessions/demo-session-0001/ralph-state.json (new)",
        // Stops are continued, the iteration advancing in the state diff.
        "answer: BLOCK",
        "[RALPH LOOP - ITERATION 2/100]",
        "+   \"iteration\": 2,",
        // A tool fails five times and escalates; the Stop reason carries the guidance.
        "\"retry_count\": 1",
        "+   \"retry_count\": 5",
        "has failed 5 times",
        // Success clears the failure record.
        "- .omc/state/sessions/demo-session-0001/last-tool-error.json (removed)",
        // Compaction: a checkpoint, then the run restored.
        "checkpoints/",
        "[RALPH LOOP RESTORED]",
        "[CHECKPOINT BEFORE COMPACTION]",
        // The run completes.
        "+   \"ended_reason\": \"completed\"",
        // SessionEnd writes the summary.
        "+ .omc/sessions/demo-session-0001.json (new)",
    ];
    let mut at = 0;
    for m in milestones {
        match text[at..].find(m) {
            Some(i) => at += i,
            None => panic!("demo output lacks {m:?} (in order) — output:\n{text}"),
        }
    }
}

#[test]
fn the_demo_rejects_unknown_arguments() {
    let out = Command::new(BIN)
        .args(["demo", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: omc-hooks demo"));
}
