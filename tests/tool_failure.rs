//! Tool-failure escalation (contract §8) through the real binary: the record, its count within
//! the 60 s window (clock pinned), the two levels of guidance, clearing on success, the noise
//! that is ignored, and exact counting under 32 concurrent hook processes.

use crate::common::{BIN, Hook, Outcome, Project};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

const NOW: i64 = 1_796_305_500_000;

fn failure(p: &Project, tool: &str, extra: Value) -> Value {
    let mut v = json!({
        "session_id": "s1",
        "cwd": p.path(),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_input": {"command": "npm test"},
        "tool_use_id": "toolu_01",
        "error": "Exit code 1\nnpm ERR! missing script: test",
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

fn fail_at(p: &Project, tool: &str, at: i64) -> Outcome {
    Hook::new("post-tool-use-failure")
        .payload(failure(p, tool, json!({})))
        .now(at)
        .cwd(p.path())
        .run()
}

fn record(p: &Project) -> Option<Value> {
    let v = p.read_json(".omc/state/sessions/s1/last-tool-error.json")?;
    assert_valid("last-tool-error", &v);
    Some(v)
}

#[test]
fn one_to_four_failures_say_fix_and_continue_the_fifth_says_stop_retrying() {
    let p = Project::new();
    for n in 1..=4 {
        let out = fail_at(&p, "Bash", NOW + n * 1_000);
        out.expect_valid();
        assert_eq!(
            out.json(),
            json!({"hookSpecificOutput": {
                "hookEventName": "PostToolUseFailure",
                "additionalContext": format!(
                    "[TOOL ERROR - RETRY {n}] Tool \"Bash\" failed. Analyse the error, fix what caused it, and continue working.\n\
                     Error: Exit code 1\nnpm ERR! missing script: test")
            }})
        );
    }
    let out = fail_at(&p, "Bash", NOW + 5_000);
    assert_eq!(
        out.context(),
        "[TOOL ERROR - ALTERNATIVE APPROACH NEEDED] Tool \"Bash\" has failed 5 times — stop retrying the same approach. \
         Step back: try a different command or tool, check prerequisites (dependencies, paths, permissions, configuration), \
         or ask the user for guidance.\nLast error: Exit code 1\nnpm ERR! missing script: test"
    );
    let r = record(&p).unwrap();
    assert_eq!(
        r,
        json!({
            "schema_version": 1,
            "tool_name": "Bash",
            "tool_input_preview": "{\"command\":\"npm test\"}",
            "error": "Exit code 1\nnpm ERR! missing script: test",
            "timestamp": omc_hooks::time::iso(NOW + 5_000),
            "retry_count": 5,
        })
    );
    fail_at(&p, "Bash", NOW + 6_000).expect_context("has failed 6 times");
}

#[test]
fn a_different_tool_or_a_gap_over_60_seconds_restarts_the_count() {
    let p = Project::new();
    fail_at(&p, "Bash", NOW);
    fail_at(&p, "Bash", NOW + 60_000).expect_context("[TOOL ERROR - RETRY 2]");
    fail_at(&p, "Edit", NOW + 61_000).expect_context("[TOOL ERROR - RETRY 1] Tool \"Edit\"");
    fail_at(&p, "Edit", NOW + 62_000).expect_context("[TOOL ERROR - RETRY 2]");
    fail_at(&p, "Edit", NOW + 62_000 + 60_001).expect_context("[TOOL ERROR - RETRY 1]");
    assert_eq!(record(&p).unwrap()["retry_count"], 1);
}

#[test]
fn a_success_of_that_tool_clears_the_record() {
    let p = Project::new();
    fail_at(&p, "Bash", NOW);
    let success = |tool: &str| {
        Hook::new("post-tool-use")
            .payload(json!({
                "session_id": "s1", "cwd": p.path(), "hook_event_name": "PostToolUse",
                "tool_name": tool, "tool_input": {}, "tool_response": {"stdout": "ok"},
            }))
            .cwd(p.path())
            .run()
    };
    // Another tool's success does not clear it.
    success("Read").expect_noop();
    assert!(record(&p).is_some());
    success("Bash").expect_noop();
    assert!(record(&p).is_none());
    fail_at(&p, "Bash", NOW + 1_000).expect_context("[TOOL ERROR - RETRY 1]");
}

#[test]
fn a_success_without_any_failure_writes_nothing() {
    let p = Project::new();
    Hook::new("post-tool-use")
        .payload(json!({"session_id": "s1", "cwd": p.path(), "tool_name": "Bash"}))
        .cwd(p.path())
        .run()
        .expect_noop();
    assert!(!p.omc().exists());
}

#[test]
fn interrupts_and_refusals_are_ignored() {
    let p = Project::new();
    let ignored = [
        json!({"is_interrupt": true}),
        json!({"error": ""}),
        json!({"error": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}),
        json!({"error": "[Request interrupted by user for tool use]"}),
        json!({"tool_name": ""}),
    ];
    for extra in ignored {
        Hook::new("post-tool-use-failure")
            .payload(failure(&p, "Bash", extra.clone()))
            .cwd(p.path())
            .run()
            .expect_noop();
        assert!(!p.omc().exists(), "{extra}");
    }
    // An interrupt does not count towards a streak either.
    fail_at(&p, "Bash", NOW);
    Hook::new("post-tool-use-failure")
        .payload(failure(&p, "Bash", json!({"is_interrupt": true})))
        .now(NOW + 1)
        .cwd(p.path())
        .run()
        .expect_noop();
    assert_eq!(record(&p).unwrap()["retry_count"], 1);
}

#[test]
fn long_inputs_and_errors_are_clipped() {
    let p = Project::new();
    let out = Hook::new("post-tool-use-failure")
        .payload(failure(
            &p,
            "Write",
            json!({"tool_input": {"file_path": "/x", "content": "é".repeat(5_000)}, "error": "ü".repeat(5_000)}),
        ))
        .cwd(p.path())
        .run();
    out.expect_context("[TOOL ERROR - RETRY 1]");
    let r = record(&p).unwrap();
    assert_eq!(
        r["tool_input_preview"].as_str().unwrap().chars().count(),
        200
    );
    assert_eq!(r["error"].as_str().unwrap().chars().count(), 500);
    assert!(r["error"].as_str().unwrap().ends_with("..."));
}

#[test]
fn without_a_session_the_record_is_session_less() {
    let p = Project::new();
    let mut v = failure(&p, "Bash", json!({}));
    v.as_object_mut().unwrap().remove("session_id");
    Hook::new("post-tool-use-failure")
        .payload(v)
        .cwd(p.path())
        .run()
        .expect_context("RETRY 1");
    let r = p.read_json(".omc/state/last-tool-error.json").unwrap();
    assert_valid("last-tool-error", &r);
    assert!(!p.path().join(".omc/state/sessions").exists());
}

#[test]
fn thirty_two_concurrent_failures_count_exactly() {
    let p = Project::new();
    let payload = serde_json::to_vec(&failure(&p, "Bash", json!({}))).unwrap();
    let children: Vec<_> = (0..32)
        .map(|_| {
            let mut c = Command::new(BIN)
                .arg("post-tool-use-failure")
                .current_dir(p.path())
                .env("OMC_NOW_MS", NOW.to_string())
                .env_remove("CLAUDE_PROJECT_DIR")
                .env_remove("OMC_STATE_DIR")
                .env_remove("DISABLE_OMC")
                .env_remove("OMC_SKIP_HOOKS")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            c.stdin.take().unwrap().write_all(&payload).unwrap();
            c
        })
        .collect();
    let mut counts: Vec<u32> = Vec::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "no answer; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let ctx = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string();
        // Every process saw a distinct count: 1..=4 as RETRY n, 5.. as "has failed n times".
        let n = ctx
            .strip_prefix("[TOOL ERROR - RETRY ")
            .and_then(|r| r.split(']').next())
            .or_else(|| {
                ctx.split("has failed ")
                    .nth(1)
                    .and_then(|r| r.split(' ').next())
            })
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected context {ctx}"));
        counts.push(n);
    }
    counts.sort();
    assert_eq!(counts, (1..=32).collect::<Vec<u32>>());
    assert_eq!(record(&p).unwrap()["retry_count"], 32);
}
