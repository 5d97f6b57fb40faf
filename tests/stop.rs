//! Persistent modes on Stop (contract §6): every mode's continuation text, every way a run
//! ends, every hold that pauses it, the consecutive-block cap, and the `omc-hooks mode` CLI —
//! through the real binary, with the clock pinned, asserting the answer and the state files.

use crate::common::command_in;
use crate::common::{BIN, Hook, Outcome, Project};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};

/// The pinned clock of `common::Hook` (2026-12-03T13:45:00Z).
pub const NOW: i64 = 1_796_305_500_000;
const MIN: i64 = 60_000;

pub fn iso(ms: i64) -> String {
    omc_hooks::time::iso(ms)
}

/// A fresh run of `mode` in session `sid`, started a minute ago, with `extra` fields merged.
pub fn seed(p: &Project, sid: &str, mode: &str, extra: Value) {
    let mut v = json!({
        "schema_version": 1,
        "mode": mode,
        "active": true,
        "session_id": sid,
        "project_path": p.path(),
        "prompt": "fix the flaky parser tests",
        "started_at": iso(NOW - MIN),
        "last_checked_at": iso(NOW - MIN),
        "iteration": 1,
        "max_iterations": omc_hooks::modes::persistent(mode).unwrap().default_max,
        "consecutive_blocks": 0,
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    p.write_json(&rel(sid, mode), &v);
}

fn rel(sid: &str, mode: &str) -> String {
    format!(".omc/state/sessions/{sid}/{mode}-state.json")
}

/// The state of `mode` in `sid`, validated against its schema.
#[track_caller]
pub fn state(p: &Project, sid: &str, mode: &str) -> Value {
    let v = p.read_json(&rel(sid, mode)).expect("state file");
    assert_valid("mode-state", &v);
    v
}

/// A Stop payload for `sid` in `p`, with `extra` fields merged.
pub fn stop_payload(p: &Project, sid: &str, extra: Value) -> Value {
    let mut v = json!({
        "session_id": sid,
        "cwd": p.path(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": "I made progress; more work remains.",
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

fn stop(p: &Project, extra: Value) -> Outcome {
    Hook::new("stop")
        .payload(stop_payload(p, "s1", extra))
        .cwd(p.path())
        .run()
}

/// The block reason with this build's binary path written as `omc-hooks`.
#[track_caller]
fn reason(out: &Outcome) -> String {
    out.expect_valid();
    let v = out.json();
    assert_eq!(
        v["decision"], "block",
        "expected a block: {v}; {}",
        out.stderr
    );
    v["reason"].as_str().unwrap().replace(BIN, "omc-hooks")
}

#[track_caller]
fn expect_allowed(out: &Outcome) {
    out.expect_valid();
    assert!(
        out.json().get("decision").is_none(),
        "expected no block: {}",
        out.stdout
    );
}

const TAIL: &str = "If you truly cannot go on without the user (a decision, a credential, missing information), end your message with your question to them, or put <omc-needs-input/> in it: the run then waits for their answer.\n\
     If the user wants to abandon the run, they type `cancelomc` (or run `omc-hooks cancel`).";

#[test]
fn ralph_blocks_with_its_text_and_advances_under_the_lock() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    let out = stop(&p, json!({}));
    assert_eq!(
        reason(&out),
        format!(
            "[RALPH LOOP - ITERATION 2/100] The task is not finished — keep working on it.\n\n\
             Task: fix the flaky parser tests\n\n\
             Take the next concrete step and check it (build, run the tests, look at the result) before moving on. \
             Do not stop to summarise progress or to ask whether to continue.\n\
             When the whole task is done and verified, say so and put <omc-complete/> alone on the last line of your final message; \
             nothing else ends the loop.\n{TAIL}"
        )
    );
    assert!(out.json().get("systemMessage").is_none());
    let s = state(&p, "s1", "ralph");
    assert_eq!(s["active"], true);
    assert_eq!(s["iteration"], 2);
    assert_eq!(s["consecutive_blocks"], 1);
    assert_eq!(s["last_checked_at"], iso(NOW));
}

#[test]
fn every_mode_has_its_own_continuation() {
    let cases: [(&str, Value, &str); 6] = [
        (
            "autopilot",
            json!({"phase": "execution"}),
            "[AUTOPILOT - PHASE: execution - ITERATION 2/30] Autopilot has not finished — carry on from where you are.\n\n\
             Task: fix the flaky parser tests\n\n\
             Phases, in order: expansion, planning, execution, qa, validation, complete. Each time you move to another phase, record it:\n\
             `omc-hooks mode phase autopilot <phase> --session s1`\n\
             Recording `complete` once validation has passed ends the run; so does <omc-complete/> alone on the last line of your final message.",
        ),
        (
            "ultrawork",
            json!({}),
            "[ULTRAWORK - ITERATION 2/50] Work remains — keep going at full parallelism.\n\n\
             Task: fix the flaky parser tests\n\n\
             Run independent steps at the same time (several tool calls in one turn, subagents for separate pieces) and keep your task list current.\n\
             When everything is done and verified, put <omc-complete/> alone on the last line of your final message; nothing else ends the run.",
        ),
        (
            "ultraqa",
            json!({"cycle": 3, "all_passing": false}),
            "[ULTRAQA - CYCLE 3/10 - ITERATION 2/30] The tests are not all passing (the last run failed).\n\n\
             Task: fix the flaky parser tests\n\n\
             Each cycle: run the tests, diagnose every failure, fix its cause, and run the tests again. After each test run, record the result:\n\
             `omc-hooks mode tests ultraqa passing --session s1` or `omc-hooks mode tests ultraqa failing --session s1`\n\
             Recording `passing` ends the run; so does <omc-complete/> alone on the last line of your final message. After 10 failing cycles the run gives up.",
        ),
        (
            "ralplan",
            json!({}),
            "[RALPLAN - ITERATION 2/30] The plan is not settled — continue the planning loop.\n\n\
             Task: fix the flaky parser tests\n\n\
             Draft or revise the plan, then review it twice: as an architect (is it sound, what are the risks) and as a critic \
             (what is missing, how will each step be tested). Revise until both reviews pass. Do not start implementing.\n\
             When the plan is agreed, present it and put <omc-complete/> alone on the last line of your final message; nothing else ends the run.",
        ),
        (
            "team",
            json!({"current_phase": "team-exec"}),
            "[TEAM - PHASE: exec - ITERATION 2/30] The team's work is not finished — coordinate the next step.\n\n\
             Task: fix the flaky parser tests\n\n\
             Phases: plan, prd, exec, verify, fix (then verify again), complete; `failed` and `cancelled` also end the run. \
             Each time the team moves to another phase, record it:\n\
             `omc-hooks mode phase team <phase> --session s1`\n\
             Recording `complete` after a passing verify ends the run; so does <omc-complete/> alone on the last line of your final message.",
        ),
        (
            "pipeline",
            json!({"stage": 2, "stage_count": 3}),
            "[PIPELINE - STAGE 2/3 - ITERATION 2/20] The pipeline has stages left — continue with the current one.\n\n\
             Task: fix the flaky parser tests\n\n\
             Work through the stages in order, handing each stage's output to the next. When you start a stage, record it as stage k of n:\n\
             `omc-hooks mode stage pipeline <k>/<n> --session s1`\n\
             After the last stage, `omc-hooks mode stage pipeline done --session s1` ends the run; so does <omc-complete/> alone on the last line of your final message.",
        ),
    ];
    for (mode, extra, want) in cases {
        let p = Project::new();
        seed(&p, "s1", mode, extra);
        let out = stop(&p, json!({}));
        assert_eq!(reason(&out), format!("{want}\n{TAIL}"), "{mode}");
        let s = state(&p, "s1", mode);
        assert_eq!(s["iteration"], 2, "{mode}");
        assert_eq!(s["active"], true, "{mode}");
    }
}

#[test]
fn the_highest_priority_live_run_decides() {
    let p = Project::new();
    for mode in omc_hooks::modes::PERSISTENT {
        seed(&p, "s1", mode, json!({}));
    }
    assert!(reason(&stop(&p, json!({}))).starts_with("[RALPH LOOP"));
    // Only the deciding run advances.
    assert_eq!(state(&p, "s1", "ultrawork")["iteration"], 1);

    seed(
        &p,
        "s1",
        "ralph",
        json!({"active": false, "ended_reason": "cancelled"}),
    );
    seed(&p, "s1", "autopilot", json!({"session_id": "someone-else"}));
    assert!(reason(&stop(&p, json!({}))).starts_with("[ULTRAWORK - ITERATION 2/50]"));
    // Another session's run is left exactly as it was.
    assert_eq!(state(&p, "s1", "autopilot")["iteration"], 1);
    assert_eq!(state(&p, "s1", "autopilot")["active"], true);
}

#[test]
fn consecutive_blocks_continue_up_to_the_clients_cap_then_hand_back() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    // The first Stop of a turn, then seven more while Claude Code continues because of them.
    reason(&stop(&p, json!({})));
    for n in 2..=8 {
        let out = stop(&p, json!({"stop_hook_active": true}));
        assert!(reason(&out).starts_with(&format!("[RALPH LOOP - ITERATION {}/100]", n + 1)));
        assert_eq!(state(&p, "s1", "ralph")["consecutive_blocks"], n);
    }
    // Claude Code would ignore a ninth block: hand back, say so, keep the run.
    let out = stop(&p, json!({"stop_hook_active": true}));
    expect_allowed(&out);
    assert_eq!(
        out.system_message(),
        "omc-hooks: ralph paused — no tool ran in the last 8 continuations (Claude Code allows 8 in a row \
         without one). The task is not finished: the run stays active and resumes with your next message. \
         Type cancelomc to end it instead."
    );
    let s = state(&p, "s1", "ralph");
    assert_eq!(s["active"], true);
    assert_eq!(s["iteration"], 9);
    assert_eq!(s["consecutive_blocks"], 0);
    // Why it was handed back stays with the run (for `status`) until the next prompt.
    assert_eq!(
        s["paused_reason"],
        "no tool ran in the last 8 continuations"
    );
    assert_eq!(s["paused_at"], iso(NOW));
    // The hand-back lasts until the next prompt (issue 35: it used to last one Stop), however
    // the client sends its Stops.
    expect_allowed(&stop(&p, json!({})));
    expect_allowed(&stop(&p, json!({"stop_hook_active": true})));
    // The next prompt's first Stop continues again.
    Hook::new("user-prompt-submit")
        .payload(
            json!({"session_id": "s1", "cwd": p.path(), "hook_event_name": "UserPromptSubmit",
                        "prompt": "go on, please"}),
        )
        .cwd(p.path())
        .run()
        .expect_valid();
    assert!(reason(&stop(&p, json!({}))).starts_with("[RALPH LOOP - ITERATION 10/100]"));
}

#[test]
fn the_block_cap_follows_the_clients_setting_and_resets_on_a_new_turn() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({"consecutive_blocks": 5}));
    let run = |active: bool| {
        Hook::new("stop")
            .payload(stop_payload(&p, "s1", json!({"stop_hook_active": active})))
            .env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")
            .cwd(p.path())
            .run()
    };
    // A stale count from an earlier turn does not matter: stop_hook_active is false.
    reason(&run(false));
    reason(&run(true));
    reason(&run(true));
    let out = run(true);
    expect_allowed(&out);
    assert!(out.system_message().contains(
        "no tool ran in the last 3 continuations (Claude Code allows 3 in a row without one)"
    ));
}

#[test]
fn the_completion_token_ends_every_live_run() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({"iteration": 4}));
    seed(&p, "s1", "ultrawork", json!({}));
    let done = json!({"last_assistant_message": "All tests pass now.\n<omc-complete/>", "stop_hook_active": true});
    let out = stop(&p, done);
    expect_allowed(&out);
    assert_eq!(
        out.system_message(),
        "omc-hooks: ralph, ultrawork run finished (completed)."
    );
    for mode in ["ralph", "ultrawork"] {
        let s = state(&p, "s1", mode);
        assert_eq!(s["active"], false);
        assert_eq!(s["ended_reason"], "completed");
        assert_eq!(s["ended_at"], iso(NOW));
    }
    assert_eq!(state(&p, "s1", "ralph")["iteration"], 4);
    // Nothing continues afterwards.
    stop(&p, json!({})).expect_noop();
}

#[test]
fn a_mentioned_token_ends_nothing() {
    // Issue 30, item 4: only the token alone on the last line declares completion.
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({"iteration": 4}));
    for (i, message) in [
        "I will not print <omc-complete/> yet: 3 tests still fail.",
        "When the tests pass I will end with `<omc-complete/>`.",
        "You asked me to finish with:\n> <omc-complete/>",
        "The token goes last:\n```\n<omc-complete/>",
        "<omc-complete/>\nActually no: the parser still fails.",
    ]
    .into_iter()
    .enumerate()
    {
        let out = stop(
            &p,
            json!({"last_assistant_message": message, "stop_hook_active": false}),
        );
        assert!(
            reason(&out).starts_with(&format!("[RALPH LOOP - ITERATION {}/100]", 5 + i)),
            "{message:?}: {}",
            out.stdout
        );
        assert_eq!(state(&p, "s1", "ralph")["active"], true, "{message:?}");
    }
}

#[test]
fn a_cancelled_or_corrupt_run_never_blocks() {
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ralph",
        json!({"active": false, "ended_reason": "cancelled"}),
    );
    stop(&p, json!({})).expect_noop();
    assert_eq!(state(&p, "s1", "ralph")["iteration"], 1);

    let q = Project::new();
    std::fs::create_dir_all(q.session_dir("s1")).unwrap();
    std::fs::write(
        q.session_dir("s1").join("ralph-state.json"),
        "{\"active\": tru",
    )
    .unwrap();
    stop(&q, json!({})).expect_noop();
}

#[test]
fn ralph_ends_at_its_iteration_limit_and_says_why() {
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ralph",
        json!({"iteration": 100, "max_iterations": 100}),
    );
    let out = stop(&p, json!({}));
    expect_allowed(&out);
    assert_eq!(
        out.system_message(),
        "omc-hooks: ralph stopped at its limit of 100 iterations; the run is over and the task may not be finished. \
         Start a new run to continue."
    );
    let s = state(&p, "s1", "ralph");
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "max_iterations");
    stop(&p, json!({})).expect_noop();

    // One below the limit still continues, showing i/max.
    let q = Project::new();
    seed(
        &q,
        "s1",
        "ralph",
        json!({"iteration": 99, "max_iterations": 100}),
    );
    assert!(reason(&stop(&q, json!({}))).starts_with("[RALPH LOOP - ITERATION 100/100]"));
}

#[test]
fn the_hard_maximum_overrides_a_larger_limit() {
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ralph",
        json!({"iteration": 500, "max_iterations": 100000}),
    );
    let out = stop(&p, json!({}));
    expect_allowed(&out);
    assert!(out.system_message().contains("limit of 500 iterations"));
    assert_eq!(state(&p, "s1", "ralph")["ended_reason"], "max_iterations");

    let q = Project::new();
    seed(&q, "s1", "ralph", json!({"iteration": 3}));
    let out = Hook::new("stop")
        .payload(stop_payload(&q, "s1", json!({})))
        .env("OMC_RALPH_HARD_MAX", "3")
        .cwd(q.path())
        .run();
    expect_allowed(&out);
    assert!(out.system_message().contains("limit of 3 iterations"));
}

#[test]
fn a_file_without_limits_gets_the_default() {
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ralph",
        json!({"max_iterations": 0, "schema_version": 0}),
    );
    assert!(reason(&stop(&p, json!({}))).starts_with("[RALPH LOOP - ITERATION 2/100]"));
}

#[test]
fn a_stale_run_ends_and_a_recent_one_continues() {
    let hours2 = 2 * 60 * MIN;
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ralph",
        json!({"started_at": iso(NOW - hours2 - 1000), "last_checked_at": iso(NOW - hours2 - 1000)}),
    );
    stop(&p, json!({})).expect_noop();
    let s = state(&p, "s1", "ralph");
    assert_eq!(s["active"], false);
    assert_eq!(s["ended_reason"], "stale");

    let q = Project::new();
    seed(
        &q,
        "s1",
        "ralph",
        json!({"started_at": iso(NOW - 5 * hours2), "last_checked_at": iso(NOW - hours2 + 1000)}),
    );
    reason(&stop(&q, json!({})));
}

#[test]
fn another_sessions_or_projects_run_is_left_alone() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({"session_id": "other"}));
    let before = std::fs::read(p.path().join(rel("s1", "ralph"))).unwrap();
    stop(&p, json!({})).expect_noop();
    assert_eq!(
        std::fs::read(p.path().join(rel("s1", "ralph"))).unwrap(),
        before
    );

    let q = Project::new();
    seed(
        &q,
        "s1",
        "ralph",
        json!({"project_path": "/somewhere/else"}),
    );
    let before = std::fs::read(q.path().join(rel("s1", "ralph"))).unwrap();
    stop(&q, json!({})).expect_noop();
    assert_eq!(
        std::fs::read(q.path().join(rel("s1", "ralph"))).unwrap(),
        before
    );

    // A run in session s2 does not hold session s1.
    let r = Project::new();
    seed(&r, "s2", "ralph", json!({"session_id": "s2"}));
    stop(&r, json!({})).expect_noop();
    assert_eq!(state(&r, "s2", "ralph")["iteration"], 1);
}

#[test]
fn a_payload_without_a_session_uses_the_session_less_run() {
    let p = Project::new();
    let mut v = json!({
        "schema_version": 1, "mode": "ralph", "active": true, "prompt": "tidy up",
        "started_at": iso(NOW - MIN), "last_checked_at": iso(NOW - MIN),
        "iteration": 1, "max_iterations": 100,
    });
    p.write_json(".omc/state/ralph-state.json", &v);
    let payload = json!({"cwd": p.path(), "hook_event_name": "Stop", "session_id": "../../etc"});
    let out = Hook::new("stop").payload(payload).cwd(p.path()).run();
    let r = reason(&out);
    assert!(r.contains("Task: tidy up"));
    assert_lacks(&r, "--session");
    assert!(!p.path().join(".omc/state/sessions").exists());
    v = p.read_json(".omc/state/ralph-state.json").unwrap();
    assert_eq!(v["iteration"], 2);
}

#[test]
fn holds_pause_the_run_without_ending_it() {
    let cases = [
        (
            json!({"stop_reason": "context_limit"}),
            "the context limit was reached",
        ),
        (
            json!({"stopReason": "Context window exceeded"}),
            "the context limit was reached",
        ),
        (json!({"stop_reason": "rate_limit"}), "rate limiting"),
        (
            json!({"stop_reason": "429 Too Many Requests"}),
            "rate limiting",
        ),
        (json!({"stop_reason": "overloaded_error"}), "overloaded"),
        (
            json!({"end_turn_reason": "oauth_token_expired"}),
            "authentication",
        ),
        (json!({"stop_reason": "aborted"}), "you interrupted it"),
        (json!({"user_requested": true}), "you interrupted it"),
        (
            json!({"last_assistant_message": "API Error: 529 {\"type\":\"overloaded_error\"}"}),
            "overloaded",
        ),
    ];
    for (extra, why) in cases {
        let p = Project::new();
        seed(&p, "s1", "ralph", json!({}));
        let out = stop(&p, extra.clone());
        expect_allowed(&out);
        let note = out.system_message();
        assert!(
            note.starts_with("omc-hooks: ralph paused — "),
            "{extra}: {note}"
        );
        assert!(note.contains(why), "{extra}: {note}");
        let s = state(&p, "s1", "ralph");
        assert_eq!(s["active"], true, "{extra}");
        assert_eq!(s["iteration"], 1, "{extra}");
    }
}

fn assistant_line(tokens: u64, model: &str) -> String {
    json!({
        "type": "assistant",
        "message": {"role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": tokens - 10, "output_tokens": 50}}
    })
    .to_string()
}

fn with_transcript(p: &Project, lines: &[String]) -> Value {
    let path = p.path().join("transcript.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    json!({"transcript_path": path})
}

#[test]
fn a_nearly_full_context_pauses_the_run() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    // 96 % of the default 200k window in the last assistant message; an early message was low.
    let t = with_transcript(
        &p,
        &[
            assistant_line(20_000, "claude-opus-4-1"),
            assistant_line(192_000, "claude-opus-4-1"),
        ],
    );
    let out = stop(&p, t);
    expect_allowed(&out);
    assert!(
        out.system_message()
            .contains("the context window is 96% full")
    );
    assert_eq!(state(&p, "s1", "ralph")["iteration"], 1);

    // 94 % continues.
    let t = with_transcript(&p, &[assistant_line(188_000, "claude-opus-4-1")]);
    reason(&stop(&p, t));

    // The same tokens in a 1M window (the model id says so) are far from full.
    let t = with_transcript(&p, &[assistant_line(192_000, "claude-sonnet-4-5[1m]")]);
    reason(&stop(&p, t));
    // More tokens than 200k can only be a 1M window: 30 %.
    let t = with_transcript(&p, &[assistant_line(300_000, "claude-sonnet-4-5")]);
    reason(&stop(&p, t));
}

#[test]
fn only_the_transcript_tail_is_read() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    let path = p.path().join("big.jsonl");
    let filler = json!({"type": "user", "message": {"content": "x".repeat(1000)}}).to_string();
    let fill = |text: &mut String, n: usize| {
        for _ in 0..n {
            text.push_str(&filler);
            text.push('\n');
        }
    };
    // A full context far back, then 3 MB, then a 96 % message near the end: it is found.
    let mut text = assistant_line(199_000, "m") + "\n";
    fill(&mut text, 3_000);
    text.push_str(&(assistant_line(192_000, "m") + "\n"));
    fill(&mut text, 20);
    std::fs::write(&path, &text).unwrap();
    let out = stop(&p, json!({"transcript_path": path}));
    expect_allowed(&out);
    assert!(out.system_message().contains("96% full"));

    // The same 96 % message followed by more than the 64 KB tail of other lines: a whole-file
    // read would still find it; the tail read does not, so the run continues.
    let mut text = assistant_line(192_000, "m") + "\n";
    fill(&mut text, 100);
    std::fs::write(&path, &text).unwrap();
    reason(&stop(&p, json!({"transcript_path": path})));
}

#[test]
fn an_unsafe_transcript_path_is_not_opened() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    let real = p.path().join("real.jsonl");
    std::fs::write(&real, assistant_line(199_000, "m") + "\n").unwrap();
    let link = p.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    // Through a symlink, or relative: not read, so no hold.
    reason(&stop(&p, json!({"transcript_path": link})));
    reason(&stop(&p, json!({"transcript_path": "real.jsonl"})));
    expect_allowed(&stop(&p, json!({"transcript_path": real})));
}

#[test]
fn a_mode_that_reports_its_own_end_finishes_and_the_next_run_decides() {
    let p = Project::new();
    seed(&p, "s1", "autopilot", json!({"phase": "complete"}));
    seed(&p, "s1", "ultrawork", json!({}));
    let out = stop(&p, json!({}));
    assert!(reason(&out).starts_with("[ULTRAWORK"));
    assert_eq!(
        out.system_message(),
        "omc-hooks: autopilot run finished (completed)."
    );
    assert_eq!(state(&p, "s1", "autopilot")["ended_reason"], "completed");

    for (mode, extra, why) in [
        ("ultraqa", json!({"all_passing": true}), "tests_passing"),
        (
            "pipeline",
            json!({"stage": 4, "stage_count": 3}),
            "completed",
        ),
        ("team", json!({"phase": "failed"}), "failed"),
    ] {
        let q = Project::new();
        seed(&q, "s1", mode, extra);
        expect_allowed(&stop(&q, json!({})));
        assert_eq!(state(&q, "s1", mode)["ended_reason"], why, "{mode}");
    }
}

#[test]
fn ultraqa_gives_up_after_its_cycles() {
    let p = Project::new();
    seed(
        &p,
        "s1",
        "ultraqa",
        json!({"cycle": 11, "max_cycles": 10, "all_passing": false}),
    );
    let out = stop(&p, json!({}));
    expect_allowed(&out);
    assert!(
        out.system_message()
            .contains("ultraqa stopped at its limit of 10 QA cycles")
    );
    assert_eq!(state(&p, "s1", "ultraqa")["ended_reason"], "max_cycles");
}

#[test]
fn a_fresh_tool_failure_heads_the_reason() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    let fail = |at: i64| {
        Hook::new("post-tool-use-failure")
            .payload(json!({
                "session_id": "s1", "cwd": p.path(), "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash", "tool_input": {"command": "cargo test"}, "error": "Exit code 101",
            }))
            .now(at)
            .cwd(p.path())
            .run()
    };
    fail(NOW - 60_000);
    let r = reason(&stop(&p, json!({})));
    assert!(
        r.starts_with(
            "[TOOL ERROR - RETRY 1] Tool \"Bash\" failed. Analyse the error, fix what caused it, and continue working.\n\
             Error: Exit code 101\n\n[RALPH LOOP - ITERATION 2/100]"
        ),
        "{r}"
    );
    for i in 0..4 {
        fail(NOW - 50_000 + i);
    }
    let r = reason(&stop(&p, json!({"stop_hook_active": true})));
    assert!(
        r.starts_with("[TOOL ERROR - ALTERNATIVE APPROACH NEEDED] Tool \"Bash\" has failed 5 times — stop retrying the same approach."),
        "{r}"
    );
    // 61 s after the last failure: no guidance.
    let out = Hook::new("stop")
        .payload(stop_payload(&p, "s1", json!({"stop_hook_active": true})))
        .now(NOW - 50_000 + 3 + 61_000)
        .cwd(p.path())
        .run();
    assert!(reason(&out).starts_with("[RALPH LOOP - ITERATION 4/100]"));
}

#[test]
fn no_run_no_answer() {
    let p = Project::new();
    stop(&p, json!({})).expect_noop();
    assert!(
        !p.omc().exists(),
        "a Stop with nothing to do writes nothing"
    );
}

// ---- omc-hooks mode ----

fn mode_cli(p: &Project, args: &[&str]) -> (i32, String, String) {
    let out = command_in(p.path())
        .arg("mode")
        .args(args)
        .env("OMC_NOW_MS", NOW.to_string())
        .output()
        .unwrap();
    crate::common::code_out_err(&out)
}

#[test]
fn mode_cli_records_autopilot_phases_and_completion() {
    let p = Project::new();
    seed(&p, "s1", "autopilot", json!({}));
    let (code, out, err) = mode_cli(&p, &["phase", "autopilot", "Execution"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "autopilot: phase execution (session s1)\n"),
        "{err}"
    );
    let s = state(&p, "s1", "autopilot");
    assert_eq!(s["phase"], "execution");
    assert_eq!(s["last_checked_at"], iso(NOW));
    assert!(reason(&stop(&p, json!({}))).starts_with("[AUTOPILOT - PHASE: execution"));

    let (code, out, _) = mode_cli(&p, &["phase", "autopilot", "complete", "--session", "s1"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "autopilot: phase complete — run finished (session s1)\n"
    );
    let s = state(&p, "s1", "autopilot");
    assert_eq!(
        (s["active"].clone(), s["ended_reason"].clone()),
        (json!(false), json!("completed"))
    );
    stop(&p, json!({})).expect_noop();
    // Nothing left to update.
    let (code, _, err) = mode_cli(&p, &["phase", "autopilot", "qa"]);
    assert_eq!(code, 1);
    assert_has(&err, "no active autopilot run in");
}

#[test]
fn mode_cli_records_ultraqa_results() {
    let p = Project::new();
    seed(&p, "s1", "ultraqa", json!({}));
    let (code, out, _) = mode_cli(&p, &["tests", "ultraqa", "failing"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "ultraqa: tests failing; cycle 2/10 next (session s1)\n")
    );
    let s = state(&p, "s1", "ultraqa");
    assert_eq!(
        (s["cycle"].clone(), s["all_passing"].clone()),
        (json!(2), json!(false))
    );
    assert!(reason(&stop(&p, json!({}))).starts_with("[ULTRAQA - CYCLE 2/10"));
    let (code, out, _) = mode_cli(&p, &["tests", "ultraqa", "--passing"]);
    assert_eq!(code, 0);
    assert!(out.contains("run finished"));
    assert_eq!(state(&p, "s1", "ultraqa")["ended_reason"], "tests_passing");
}

#[test]
fn mode_cli_records_pipeline_stages_and_team_phases() {
    let p = Project::new();
    seed(&p, "s1", "pipeline", json!({}));
    assert_eq!(mode_cli(&p, &["stage", "pipeline", "2/3"]).0, 0);
    assert!(reason(&stop(&p, json!({}))).starts_with("[PIPELINE - STAGE 2/3"));
    assert_eq!(mode_cli(&p, &["stage", "pipeline", "done"]).0, 0);
    let s = state(&p, "s1", "pipeline");
    assert_eq!(
        (s["stage"].clone(), s["ended_reason"].clone()),
        (json!(4), json!("completed"))
    );

    seed(&p, "s1", "team", json!({}));
    assert_eq!(mode_cli(&p, &["phase", "team", "team-verify"]).0, 0);
    assert_eq!(state(&p, "s1", "team")["phase"], "verify");
    assert_eq!(mode_cli(&p, &["phase", "team", "cancelled"]).0, 0);
    assert_eq!(state(&p, "s1", "team")["active"], false);
}

#[test]
fn mode_cli_refuses_with_the_fix() {
    let p = Project::new();
    let (code, _, err) = mode_cli(&p, &["phase", "autopilot", "qa"]);
    assert_eq!(code, 1);
    assert_has(&err, "Start one with a prompt such as 'autopilot <task>'");

    seed(&p, "s1", "autopilot", json!({}));
    seed(&p, "s2", "autopilot", json!({"session_id": "s2"}));
    let (code, _, err) = mode_cli(&p, &["phase", "autopilot", "qa"]);
    assert_eq!(code, 2);
    assert_has(
        &err,
        "several sessions have an active autopilot run (s1, s2); pass --session ID",
    );
    assert_eq!(
        mode_cli(&p, &["phase", "autopilot", "qa", "--session=s2"]).0,
        0
    );
    assert_eq!(state(&p, "s2", "autopilot")["phase"], "qa");
    assert!(state(&p, "s1", "autopilot").get("phase").is_none());

    for bad in [
        &["phase", "autopilot", "launch", "--session", "s1"][..],
        &["phase", "ralph", "qa"],
        &["tests", "autopilot", "passing"],
        &["stage", "pipeline", "5/3"],
        &["phase", "autopilot", "qa", "--session", "../x"],
        &["frobnicate"],
    ] {
        let (code, _, err) = mode_cli(&p, bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
    }
}

#[test]
fn mode_cli_shows_the_runs() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({"iteration": 3}));
    seed(&p, "s1", "pipeline", json!({"stage": 1, "stage_count": 2}));
    let (code, out, _) = mode_cli(&p, &["show"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "s1  ralph  iteration 3/100  fix the flaky parser tests\n\
         s1  pipeline  iteration 1/20  stage 1/2  fix the flaky parser tests\n"
    );
}

#[test]
fn skill_guards_rank_after_persistent_modes() {
    let p = Project::new();
    seed(&p, "s1", "ralph", json!({}));
    Hook::new("pre-tool-use")
        .payload(json!({
            "session_id": "s1", "cwd": p.path(), "hook_event_name": "PreToolUse",
            "tool_name": "Skill", "tool_input": {"skill": "plan"}, "tool_use_id": "toolu_1",
        }))
        .cwd(p.path())
        .run()
        .expect_valid();
    assert!(p.session_dir("s1").join("skill-active-state.json").exists());
    assert!(reason(&stop(&p, json!({}))).starts_with("[RALPH LOOP"));
    seed(
        &p,
        "s1",
        "ralph",
        json!({"active": false, "ended_reason": "cancelled"}),
    );
    assert!(reason(&stop(&p, json!({}))).contains("[SKILL ACTIVE: plan]"));
    // A hold pauses the guard too.
    expect_allowed(&stop(&p, json!({"stop_reason": "rate_limit"})));
}
