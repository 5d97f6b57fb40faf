//! `omc-hooks demo`: the README's first command replays the scripted session through the real
//! hook subcommands; every milestone of the story must show in its output.

use crate::common::BIN;
use crate::common::assert_lacks;
use std::process::Command;

#[test]
fn the_demo_tells_the_whole_story() {
    let out = Command::new(BIN)
        .arg("demo")
        .env_remove("DISABLE_OMC")
        .env_remove("OMC_SKIP_HOOKS")
        .output()
        .unwrap();
    crate::common::assert_exit_ok(&out);
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
    // Issue 30, item 10: the summary is the story's own — 210 s from the first SessionStart
    // (before `.omc/` existed) to SessionEnd, the five failures of `cargo test` although the
    // last success cleared the failure record.
    assert!(
        text.contains(
            "Session summary (.omc/sessions/demo-session-0001.json): 3m 30s long; ralph \
             completed after 3 iterations; 5 tool failure(s) (Bash 5); 1 file(s) edited."
        ),
        "{text}"
    );
    assert_lacks(&text, "omc-hooks: omc-hooks:");
    // The files a person is shown are state: not the lock files and spares beside them.
    assert_lacks(&text, ".lock");
    assert_lacks(&text, ".spare");
}

fn demo_with_path(path: &str) -> String {
    let out = Command::new(BIN)
        .arg("demo")
        .env("PATH", path)
        .env_remove("DISABLE_OMC")
        .env_remove("OMC_SKIP_HOOKS")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().last().unwrap_or_default().to_string()
}

#[test]
fn the_demo_says_how_to_run_the_binary_it_is() {
    // After `cargo run -- demo` nothing named omc-hooks need be on PATH: the advice names this
    // binary by its path, and how to install it.
    let empty = tempfile::tempdir().unwrap();
    let last = demo_with_path(empty.path().to_str().unwrap());
    assert_eq!(
        last,
        format!(
            "Run `{BIN} help` for the commands (omc-hooks is not on your PATH; `cargo install \
             --path .` in the checkout puts this one there), and see the README to load the \
             plugin into Claude Code."
        )
    );
    // Installed: by its name.
    let bin_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(BIN, bin_dir.path().join("omc-hooks")).unwrap();
    let last = demo_with_path(bin_dir.path().to_str().unwrap());
    assert!(
        last.starts_with("Run `omc-hooks help` for the commands, and see the README"),
        "{last}"
    );
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
