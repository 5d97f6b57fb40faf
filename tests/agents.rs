//! The same modes and loop on every agent (issue 16), through the real binary as installed for
//! each agent (`omc-hooks --agent NAME <hook>`), with the payloads each client sends and the
//! clock pinned: a run continues by the agent's own mechanism until our cap pauses it (Codex
//! and Gemini have no cap of their own); the continuation each agent echoes back as a prompt,
//! and Qwen's empty tool-result prompts, change nothing; failed commands escalate from the
//! post-tool event where there is no failure event; Gemini's every-turn PreCompress only
//! checkpoints a change; a run suspended in one agent resumes in another; and the agent each
//! session runs in is recorded and shown.

use crate::common::assert_has;
use crate::common::command_in;
use crate::common::{BIN, Hook, Outcome, Project};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::process::Command;

const TASK: &str = "fix the failing tests in src/parser";

/// Runs `sub` as installed for `agent`.
fn hook(p: &Project, agent: &str, sub: &str, payload: Value) -> Outcome {
    Hook::new(sub)
        .agent(agent)
        .payload(payload)
        .cwd(p.path())
        .run()
}

fn hook_env(p: &Project, agent: &str, sub: &str, payload: Value, env: &[(&str, &str)]) -> Outcome {
    let mut h = Hook::new(sub).agent(agent).payload(payload).cwd(p.path());
    for (k, v) in env {
        h = h.env(k, v);
    }
    h.run()
}

fn with(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

fn gemini(p: &Project, sid: &str, event: &str, extra: Value) -> Value {
    with(
        json!({"session_id": sid, "transcript_path": p.path().join("chat.jsonl"), "cwd": p.path(),
               "hook_event_name": event, "timestamp": "2026-12-03T08:38:50.314Z"}),
        extra,
    )
}

fn qwen(p: &Project, sid: &str, event: &str, extra: Value) -> Value {
    with(
        json!({"session_id": sid, "transcript_path": p.path().join("chat.jsonl"), "cwd": p.path(),
               "hook_event_name": event, "timestamp": "2026-12-03T08:43:48.906Z",
               "permission_mode": "yolo", "prompt_id": format!("{sid}########0")}),
        extra,
    )
}

fn codex(p: &Project, sid: &str, event: &str, extra: Value) -> Value {
    with(
        json!({"session_id": sid, "turn_id": "turn-1", "transcript_path": p.path().join("rollout.jsonl"),
               "cwd": p.path(), "hook_event_name": event, "model": "mock-model",
               "permission_mode": "bypassPermissions"}),
        extra,
    )
}

fn claude(p: &Project, sid: &str, event: &str, extra: Value) -> Value {
    with(
        json!({"session_id": sid, "transcript_path": p.path().join("t.jsonl"), "cwd": p.path(),
               "hook_event_name": event, "permission_mode": "default", "prompt_id": "p1"}),
        extra,
    )
}

fn cursor(p: &Project, conversation: &str, event: &str, extra: Value) -> Value {
    with(
        json!({"conversation_id": conversation, "generation_id": "g1", "model": "claude-sonnet-4",
               "hook_event_name": event, "cursor_version": "1.7.2", "workspace_roots": [p.path()],
               "user_email": null, "transcript_path": null}),
        extra,
    )
}

fn ralph_state(p: &Project, sid: &str) -> Value {
    let v = p
        .read_json(&format!(".omc/state/sessions/{sid}/ralph-state.json"))
        .expect("ralph-state.json");
    assert_valid("mode-state", &v);
    v
}

/// The continuation text of an answer in any agent's shape (`reason` or `followup_message`).
#[track_caller]
fn continuation(out: &Outcome) -> String {
    out.expect_valid();
    let v = out.json();
    v["reason"]
        .as_str()
        .or_else(|| v["followup_message"].as_str())
        .unwrap_or_else(|| panic!("expected a continuation, got {v}; {}", out.stderr))
        .to_string()
}

#[track_caller]
fn no_continuation(out: &Outcome) -> Value {
    out.expect_valid();
    let v = out.json();
    assert!(
        v.get("decision").is_none() && v.get("followup_message").is_none(),
        "expected the turn to end, got {v}"
    );
    v
}

fn note(v: &Value) -> String {
    v["systemMessage"].as_str().unwrap_or("").to_string()
}

#[test]
fn gemini_loop_holds_our_cap_and_its_echoed_prompts_change_nothing() {
    let p = Project::new();
    let sid = "g-loop";
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(
            &p,
            sid,
            "BeforeAgent",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_context("[MAGIC KEYWORD: RALPH]");
    for i in 0..8 {
        let out = hook(
            &p,
            "gemini",
            "stop",
            gemini(
                &p,
                sid,
                "AfterAgent",
                json!({
            "prompt": format!("ralph {TASK}"), "prompt_response": "progress", "stop_hook_active": i > 0}),
            ),
        );
        assert_eq!(
            out.json()["decision"],
            "deny",
            "AfterAgent {i}: {}",
            out.stdout
        );
        let reason = continuation(&out);
        assert!(reason.contains(TASK));
        // Gemini fires BeforeAgent with our reason as the prompt: left alone, not a new turn,
        // and its words (it names ralph and cancelomc) are not read as keywords.
        hook(
            &p,
            "gemini",
            "user-prompt-submit",
            gemini(&p, sid, "BeforeAgent", json!({"prompt": reason})),
        )
        .expect_noop();
        let s = ralph_state(&p, sid);
        assert_eq!(s["active"], true);
        assert_eq!(
            s["consecutive_blocks"],
            i + 1,
            "the echo must not reset the count"
        );
        assert_eq!(s["iteration"], i + 2);
        assert_eq!(s["prompt"], format!("ralph {TASK}"));
    }
    let out = hook(
        &p,
        "gemini",
        "stop",
        gemini(
            &p,
            sid,
            "AfterAgent",
            json!({"prompt_response": "more", "stop_hook_active": true}),
        ),
    );
    let v = no_continuation(&out);
    assert!(
        note(&v).contains(
            "no tool ran in the last 8 continuations (omc-hooks allows 8 in a row without one)"
        ),
        "{v}"
    );
    assert_eq!(ralph_state(&p, sid)["active"], true, "paused, not ended");
    // The user speaking starts a new turn: the run continues again.
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(&p, sid, "BeforeAgent", json!({"prompt": "go on please"})),
    )
    .expect_noop();
    let out = hook(
        &p,
        "gemini",
        "stop",
        gemini(
            &p,
            sid,
            "AfterAgent",
            json!({"prompt_response": "x", "stop_hook_active": false}),
        ),
    );
    assert!(continuation(&out).contains("ITERATION 10/"));
}

#[test]
fn qwen_empty_and_echoed_prompts_keep_the_count_and_its_cap_is_honoured() {
    let p = Project::new();
    let sid = "q-loop";
    // Qwen refuses the block that reaches its cap: with 3 it honours 2.
    let env = [("QWEN_CODE_STOP_HOOK_BLOCK_CAP", "3")];
    hook_env(
        &p,
        "qwen",
        "user-prompt-submit",
        qwen(
            &p,
            sid,
            "UserPromptSubmit",
            json!({
        "prompt": format!("ralph {TASK}"), "submitted_prompt": format!("ralph {TASK}")}),
        ),
        &env,
    )
    .expect_context("[MAGIC KEYWORD: RALPH]");
    for i in 0..2 {
        let out = hook_env(
            &p,
            "qwen",
            "stop",
            qwen(
                &p,
                sid,
                "Stop",
                json!({"stop_hook_active": i > 0, "last_assistant_message": "x"}),
            ),
            &env,
        );
        let reason = continuation(&out);
        hook_env(
            &p,
            "qwen",
            "user-prompt-submit",
            qwen(&p, sid, "UserPromptSubmit", json!({"prompt": reason})),
            &env,
        )
        .expect_noop();
        // Before each tool-result model call: an empty prompt.
        hook_env(
            &p,
            "qwen",
            "user-prompt-submit",
            qwen(&p, sid, "UserPromptSubmit", json!({"prompt": ""})),
            &env,
        )
        .expect_noop();
        assert_eq!(ralph_state(&p, sid)["consecutive_blocks"], i + 1);
    }
    let v = no_continuation(&hook_env(
        &p,
        "qwen",
        "stop",
        qwen(&p, sid, "Stop", json!({"stop_hook_active": true})),
        &env,
    ));
    assert!(
        note(&v).contains(
            "paused after 2 continuations since your last message (Qwen Code allows 2 per prompt)"
        ),
        "{v}"
    );
}

#[test]
fn codex_has_no_cap_of_its_own_so_ours_holds() {
    let p = Project::new();
    let sid = "x-loop";
    hook(
        &p,
        "codex",
        "user-prompt-submit",
        codex(
            &p,
            sid,
            "UserPromptSubmit",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_context("[MAGIC KEYWORD: RALPH]");
    let env = [("OMC_STOP_BLOCK_CAP", "2")];
    for i in 0..2 {
        let out = hook_env(
            &p,
            "codex",
            "stop",
            codex(
                &p,
                sid,
                "Stop",
                json!({"stop_hook_active": i > 0, "last_assistant_message": "x"}),
            ),
            &env,
        );
        let v = out.json();
        assert_eq!(v["decision"], "block");
        assert!(v.get("hookSpecificOutput").is_none());
    }
    let v = no_continuation(&hook_env(
        &p,
        "codex",
        "stop",
        codex(&p, sid, "Stop", json!({"stop_hook_active": true})),
        &env,
    ));
    assert!(
        note(&v).contains(
            "no tool ran in the last 2 continuations (omc-hooks allows 2 in a row without one)"
        ),
        "{v}"
    );
    // Codex continues inside the turn: no continuation is recorded for a prompt to match.
    assert!(
        p.read_json(&format!(".omc/state/sessions/{sid}/agent.json"))
            .is_none()
    );
}

#[test]
fn cursor_continues_with_follow_ups_counted_by_loop_count_up_to_its_limit() {
    let p = Project::new();
    let conv = "cursor-conv-1";
    hook(
        &p,
        "cursor",
        "user-prompt-submit",
        cursor(
            &p,
            conv,
            "beforeSubmitPrompt",
            json!({"prompt": format!("ralph {TASK}"), "attachments": []}),
        ),
    )
    .expect_noop();
    assert_eq!(
        ralph_state(&p, conv)["active"],
        true,
        "the mode starts in state"
    );
    for i in 0..5 {
        let out = hook(
            &p,
            "cursor",
            "stop",
            cursor(
                &p,
                conv,
                "stop",
                json!({"status": "completed", "loop_count": i}),
            ),
        );
        let follow = continuation(&out);
        assert!(follow.contains(TASK));
        // The follow-up comes back as the next prompt: recognised.
        hook(
            &p,
            "cursor",
            "user-prompt-submit",
            cursor(&p, conv, "beforeSubmitPrompt", json!({"prompt": follow})),
        )
        .expect_noop();
    }
    let out = hook(
        &p,
        "cursor",
        "stop",
        cursor(
            &p,
            conv,
            "stop",
            json!({"status": "completed", "loop_count": 5}),
        ),
    );
    out.expect_noop();
    assert_eq!(ralph_state(&p, conv)["consecutive_blocks"], 0);
    assert_eq!(ralph_state(&p, conv)["active"], true);
}

/// Builds an agent's payload of one event for a session.
type Payload = fn(&Project, &str, Value) -> Value;

#[test]
fn cancel_stops_the_loop_on_every_agent() {
    for agent in ["codex", "gemini", "qwen", "cursor"] {
        let p = Project::new();
        let sid = format!("{agent}-cancel");
        let (prompt_payload, stop_payload): (Payload, Payload) = match agent {
            "codex" => (
                |p, s, e| codex(p, s, "UserPromptSubmit", e),
                |p, s, e| codex(p, s, "Stop", e),
            ),
            "gemini" => (
                |p, s, e| gemini(p, s, "BeforeAgent", e),
                |p, s, e| gemini(p, s, "AfterAgent", e),
            ),
            "qwen" => (
                |p, s, e| qwen(p, s, "UserPromptSubmit", e),
                |p, s, e| qwen(p, s, "Stop", e),
            ),
            _ => (
                |p, s, e| cursor(p, s, "beforeSubmitPrompt", e),
                |p, s, e| cursor(p, s, "stop", e),
            ),
        };
        hook(
            &p,
            agent,
            "user-prompt-submit",
            prompt_payload(&p, &sid, json!({"prompt": format!("ralph {TASK}")})),
        )
        .expect_valid();
        continuation(&hook(
            &p,
            agent,
            "stop",
            stop_payload(&p, &sid, json!({"stop_hook_active": false})),
        ));
        hook(
            &p,
            agent,
            "user-prompt-submit",
            prompt_payload(&p, &sid, json!({"prompt": "cancelomc"})),
        )
        .expect_valid();
        assert_eq!(ralph_state(&p, &sid)["active"], false, "{agent}");
        no_continuation(&hook(
            &p,
            agent,
            "stop",
            stop_payload(&p, &sid, json!({"stop_hook_active": false})),
        ));
    }
}

#[test]
fn a_question_about_ralph_is_inert_on_every_agent() {
    let q = "how does ralph mode decide when to stop?";
    let p = Project::new();
    hook(
        &p,
        "codex",
        "user-prompt-submit",
        codex(&p, "x1", "UserPromptSubmit", json!({"prompt": q})),
    )
    .expect_noop();
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(&p, "g1", "BeforeAgent", json!({"prompt": q})),
    )
    .expect_noop();
    hook(
        &p,
        "qwen",
        "user-prompt-submit",
        qwen(&p, "q1", "UserPromptSubmit", json!({"prompt": q})),
    )
    .expect_noop();
    hook(
        &p,
        "cursor",
        "user-prompt-submit",
        cursor(&p, "c1", "beforeSubmitPrompt", json!({"prompt": q})),
    )
    .expect_noop();
    assert!(!p.omc().join("state").exists(), "{:?}", p.files());
}

#[test]
fn failed_commands_escalate_from_the_post_tool_event() {
    let p = Project::new();
    let sid = "x-fail";
    let failed = |i: usize| {
        codex(
            &p,
            sid,
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"},
        "tool_response": "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 101\nOutput:\nerror[E0425]\n", "tool_use_id": format!("call_{i}")}),
        )
    };
    for i in 1..=5 {
        let out = hook(&p, "codex", "post-tool-use", failed(i));
        let ctx = out.context();
        assert_eq!(
            out.json()["hookSpecificOutput"]["hookEventName"],
            "PostToolUse"
        );
        if i < 5 {
            assert_has(&ctx, &format!("[TOOL ERROR - RETRY {i}]"));
        } else {
            assert_has(&ctx, "has failed 5 times");
        }
    }
    let rec = p
        .read_json(&format!(".omc/state/sessions/{sid}/last-tool-error.json"))
        .unwrap();
    assert_valid("last-tool-error", &rec);
    assert_eq!(rec["retry_count"], 5);
    assert!(rec["error"].as_str().unwrap().starts_with("Exit code 101"));
    // A success of the same tool clears the record.
    hook(
        &p,
        "codex",
        "post-tool-use",
        codex(
            &p,
            sid,
            "PostToolUse",
            json!({"tool_name": "Bash",
        "tool_input": {"command": "cargo test"}, "tool_response": "ok\n", "tool_use_id": "call_9"}),
        ),
    )
    .expect_noop();
    assert!(
        p.read_json(&format!(".omc/state/sessions/{sid}/last-tool-error.json"))
            .is_none()
    );

    // Gemini: AfterTool with `Exit Code: N`, and the failure at the head of the next continuation.
    let g = "g-fail";
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(
            &p,
            g,
            "BeforeAgent",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_valid();
    let out = hook(
        &p,
        "gemini",
        "post-tool-use",
        gemini(
            &p,
            g,
            "AfterTool",
            json!({"tool_name": "run_shell_command",
        "tool_input": {"command": "npm test"},
        "tool_response": {"llmContent": "<untrusted_context>\nOutput: npm ERR!\nExit Code: 1\n</untrusted_context>", "returnDisplay": ""}}),
        ),
    );
    assert!(out.context().contains("[TOOL ERROR - RETRY 1]"));
    let reason = continuation(&hook(
        &p,
        "gemini",
        "stop",
        gemini(&p, g, "AfterAgent", json!({"stop_hook_active": false})),
    ));
    assert!(reason.starts_with("[TOOL ERROR - RETRY 1]"), "{reason}");
}

#[test]
fn gemini_pre_compress_checkpoints_only_what_changed() {
    let p = Project::new();
    let sid = "g-compact";
    // A minute apart each, so a checkpoint written again would be a new file.
    let minute = std::cell::Cell::new(0i64);
    let compress = || {
        minute.set(minute.get() + 1);
        let now = (1_796_305_500_000 + minute.get() * 60_000).to_string();
        hook_env(
            &p,
            "gemini",
            "pre-compact",
            gemini(&p, sid, "PreCompress", json!({"trigger": "auto"})),
            &[("OMC_NOW_MS", &now)],
        )
    };
    // Checkpoint files: not their lock files and spares (`.<name>.lock`, `.<name>.spare`).
    let checkpoints = || {
        std::fs::read_dir(p.omc().join(format!("state/sessions/{sid}/checkpoints")))
            .map(|d| {
                d.filter(|e| {
                    !e.as_ref()
                        .is_ok_and(|e| e.file_name().to_string_lossy().starts_with('.'))
                })
                .count()
            })
            .unwrap_or(0)
    };
    compress().expect_noop();
    assert!(!p.omc().exists(), "nothing in flight: nothing written");
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(
            &p,
            sid,
            "BeforeAgent",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_valid();
    // It fires before every model call, compaction or not: no message and no notepad entry
    // (they would claim a compaction each turn), one checkpoint replaced in place.
    compress().expect_noop();
    assert_eq!(checkpoints(), 1);
    assert!(!p.omc().join("notepad.md").exists(), "no notepad entry");
    let pending = p
        .omc()
        .join(format!("state/sessions/{sid}/checkpoints/pending.json"));
    let written = std::fs::read(&pending).unwrap();
    for _ in 0..3 {
        compress().expect_noop();
    }
    assert_eq!(checkpoints(), 1);
    assert_eq!(
        std::fs::read(&pending).unwrap(),
        written,
        "the same content is not written again"
    );
    let file = p.path().join("src/lib.rs");
    hook(
        &p,
        "gemini",
        "post-tool-use",
        gemini(
            &p,
            sid,
            "AfterTool",
            json!({"tool_name": "replace",
        "tool_input": {"file_path": file, "old_string": "a\n", "new_string": "b\nc\n"},
        "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": ""}}),
        ),
    )
    .expect_valid();
    compress().expect_noop();
    assert_eq!(checkpoints(), 1, "still one checkpoint");
    let cp: Value = serde_json::from_slice(&std::fs::read(&pending).unwrap()).unwrap();
    crate::schema::assert_valid("checkpoint", &cp);
    assert_eq!(
        cp["edited_files"][0]["path"],
        json!(file),
        "an edit is a change: {cp}"
    );
    assert!(!p.omc().join("notepad.md").exists(), "no notepad entry");
}

/// Starts ralph in Claude Code, continues it twice, and ends the session: suspended.
fn suspended_in(p: &Project, agent: &str, sid: &str) {
    let (start, prompt, stop, end): (Value, Value, Value, Value) = match agent {
        "claude" => (
            claude(p, sid, "SessionStart", json!({"source": "startup"})),
            claude(
                p,
                sid,
                "UserPromptSubmit",
                json!({"prompt": format!("ralph {TASK}")}),
            ),
            claude(
                p,
                sid,
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "x"}),
            ),
            claude(p, sid, "SessionEnd", json!({"reason": "other"})),
        ),
        "codex" => (
            codex(p, sid, "SessionStart", json!({"source": "startup"})),
            codex(
                p,
                sid,
                "UserPromptSubmit",
                json!({"prompt": format!("ralph {TASK}")}),
            ),
            codex(
                p,
                sid,
                "Stop",
                json!({"stop_hook_active": false, "last_assistant_message": "x"}),
            ),
            json!({"session_id": sid, "transcript_path": p.path().join("r.jsonl"), "cwd": p.path(), "hook_event_name": "SessionEnd", "reason": "other"}),
        ),
        _ => unreachable!(),
    };
    hook(p, agent, "session-start", start).expect_valid();
    hook(p, agent, "user-prompt-submit", prompt).expect_context("[MAGIC KEYWORD: RALPH]");
    if agent == "claude" {
        let file = p.path().join("src/parser.rs");
        hook(
            p,
            agent,
            "post-tool-use",
            claude(
                p,
                sid,
                "PostToolUse",
                json!({"tool_name": "Edit", "tool_input": {"file_path": file, "old_string": "a\n", "new_string": "b\nc\n"},
                       "tool_response": {"success": true}, "tool_use_id": "toolu_e1"}),
            ),
        )
        .expect_valid();
    }
    continuation(&hook(p, agent, "stop", stop.clone()));
    continuation(&hook(p, agent, "stop", stop));
    hook(p, agent, "session-end", end).expect_noop();
    let s = ralph_state(p, sid);
    assert!(s["suspended_at"].is_string(), "{s}");
    assert_eq!(s["iteration"], 3);
}

#[test]
fn a_run_suspended_in_claude_code_resumes_in_codex() {
    let p = Project::new();
    suspended_in(&p, "claude", "claude-s1");
    // The resume word's path: with the resume bound at 0 the run is only offered (within the
    // default bound a new session would take it up at its start; long_runs.rs).
    p.write_json(
        ".omc/config.json",
        &json!({"resume": {"within_minutes": 0}}),
    );
    let start = hook(
        &p,
        "codex",
        "session-start",
        codex(&p, "codex-s2", "SessionStart", json!({"source": "startup"})),
    );
    assert_eq!(
        start.json()["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    start.expect_context("[SUSPENDED RUN]");
    let out = hook(
        &p,
        "codex",
        "user-prompt-submit",
        codex(
            &p,
            "codex-s2",
            "UserPromptSubmit",
            json!({"prompt": "omc resume"}),
        ),
    );
    out.expect_context(
        "[RALPH LOOP RESUMED] Re-bound to this session from session claude-s1; iteration 3/",
    );
    let reason = continuation(&hook(
        &p,
        "codex",
        "stop",
        codex(&p, "codex-s2", "Stop", json!({"stop_hook_active": false})),
    ));
    assert!(reason.starts_with("[RALPH LOOP - ITERATION 4/"), "{reason}");
    assert!(reason.contains(TASK));
    let s = ralph_state(&p, "codex-s2");
    assert_eq!(s["session_id"], "codex-s2");
    assert_eq!(s["resumed_from"], "claude-s1");
    // The files the Claude Code session edited came along.
    let edits = p
        .read_json(".omc/state/sessions/codex-s2/edits.json")
        .expect("edits carried over");
    assert_valid("edits", &edits);
    assert!(
        edits["files"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("src/parser.rs"),
        "{edits}"
    );
    // Each session records the agent it runs in when it starts (the project has `.omc/` by
    // then); the first one started in a project without it, and its run records the agent.
    let rec = p
        .read_json(".omc/state/sessions/codex-s2/session.json")
        .unwrap();
    assert_valid("session", &rec);
    assert_eq!(rec["agent"], "codex");
    assert!(
        !p.path()
            .join(".omc/state/sessions/claude-s1/session.json")
            .exists()
    );
    let old = p
        .read_json(".omc/state/sessions/claude-s1/ralph-state.json")
        .unwrap();
    assert_eq!(old["agent"], "claude");
}

#[test]
fn a_run_suspended_in_codex_resumes_in_claude_code() {
    let p = Project::new();
    suspended_in(&p, "codex", "codex-s1");
    // The resume word's path: with the resume bound at 0 the run is only offered (within the
    // default bound a new session would take it up at its start; long_runs.rs).
    p.write_json(
        ".omc/config.json",
        &json!({"resume": {"within_minutes": 0}}),
    );
    hook(
        &p,
        "claude",
        "session-start",
        claude(
            &p,
            "claude-s2",
            "SessionStart",
            json!({"source": "startup"}),
        ),
    )
    .expect_context("[SUSPENDED RUN]");
    hook(
        &p,
        "claude",
        "user-prompt-submit",
        claude(
            &p,
            "claude-s2",
            "UserPromptSubmit",
            json!({"prompt": "omc resume"}),
        ),
    )
    .expect_context("iteration 3/");
    let out = Hook::new("stop")
        .payload(claude(
            &p,
            "claude-s2",
            "Stop",
            json!({"stop_hook_active": false}),
        ))
        .cwd(p.path())
        .run();
    out.expect_block("[RALPH LOOP - ITERATION 4/");
}

#[test]
fn status_shows_the_agent_of_each_session() {
    let p = Project::new();
    hook(
        &p,
        "gemini",
        "session-start",
        gemini(&p, "g-st", "SessionStart", json!({"source": "startup"})),
    )
    .expect_valid();
    hook(
        &p,
        "codex",
        "session-start",
        codex(&p, "x-st", "SessionStart", json!({"source": "startup"})),
    )
    .expect_valid();
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(
            &p,
            "g-st",
            "BeforeAgent",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_valid();
    hook(
        &p,
        "codex",
        "user-prompt-submit",
        codex(
            &p,
            "x-st",
            "UserPromptSubmit",
            json!({"prompt": format!("ulw {TASK}")}),
        ),
    )
    .expect_valid();
    let out = command_in(p.path())
        .args(["status", "--json"])
        .env("OMC_NOW_MS", "1796305500000")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let agent_of = |sid: &str| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == sid)
            .map(|s| s["agent"].clone())
    };
    assert_eq!(agent_of("g-st"), Some(json!("gemini")), "{v:#}");
    assert_eq!(agent_of("x-st"), Some(json!("codex")), "{v:#}");
    let text = command_in(p.path())
        .arg("status")
        .env("OMC_NOW_MS", "1796305500000")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert_has(&text, "Gemini CLI");
    assert_has(&text, "Codex CLI");
}

#[test]
fn the_agent_flag_in_every_spelling_and_its_errors() {
    let p = Project::new();
    let payload = gemini(
        &p,
        "g-cli",
        "AfterAgent",
        json!({"stop_hook_active": false}),
    );
    hook(
        &p,
        "gemini",
        "user-prompt-submit",
        gemini(
            &p,
            "g-cli",
            "BeforeAgent",
            json!({"prompt": format!("ralph {TASK}")}),
        ),
    )
    .expect_valid();
    let run = |args: &[&str]| {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(p.path())
            .env("OMC_NOW_MS", "1796305500000")
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes());
        child.wait_with_output().unwrap()
    };
    for args in [
        &["--agent", "gemini", "stop"][..],
        &["--agent=gemini", "stop"],
        &["stop", "--agent", "gemini"],
        &["stop", "--agent=Gemini-CLI"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["decision"], "deny", "{args:?}: {v}");
    }
    // An unknown name: one diagnostic, exit 0, and the payload's shape decides.
    let out = run(&["--agent", "gemeni", "stop"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown agent 'gemeni'"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "deny");
    // --agent belongs before a hook subcommand. Run as a hook (stdin not a terminal), a
    // misplaced one is a line on stderr and exit 0, as every hook usage error is.
    for args in [
        &["--agent", "codex", "status"][..],
        &["--agent", "codex"],
        &["--agent"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("--agent NAME goes before a hook subcommand"),
            "{args:?}"
        );
    }
}

#[test]
fn recorded_claude_code_payloads_read_as_claude_code() {
    let traces = tempfile::tempdir().unwrap();
    let trace = traces.path().join("t.jsonl");
    let mut seen = 0;
    for (name, payload) in crate::common::fixtures() {
        // Hook payloads only (the status line's input is recorded beside them).
        let Some(event) = payload["hook_event_name"].as_str().map(str::to_string) else {
            continue;
        };
        let p = Project::new();
        let sub = crate::common::manifest_hooks()
            .into_iter()
            .find(|(e, _)| *e == event)
            .map(|(_, s)| s)
            .unwrap();
        seen += 1;
        let out = Hook::new(&sub)
            .payload(payload)
            .cwd(p.path())
            .env("OMC_TRACE_FILE", &trace.to_string_lossy())
            .run();
        out.expect_valid();
        let text = std::fs::read_to_string(&trace).unwrap();
        let line: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(line["agent"], "claude", "{name}");
        assert!(
            line["shape"].is_null() || line["shape"] == "claude",
            "{name}: a Claude Code payload taken for {}",
            line["shape"]
        );
        assert_eq!(line["event"], event, "{name}");
    }
    assert!(seen >= 25, "{seen} recorded hook payloads");
}

#[test]
fn doctor_reports_hooks_installed_for_the_wrong_agent_from_the_trace() {
    let p = Project::new();
    let traces = tempfile::tempdir().unwrap();
    let trace = traces.path().join("trace.jsonl");
    // A Claude-installed Stop hook fed Gemini's AfterAgent, and a correct Gemini one.
    for agent in ["claude", "gemini"] {
        Hook::new("stop")
            .agent(agent)
            .payload(gemini(
                &p,
                "g-doc",
                "AfterAgent",
                json!({"stop_hook_active": false}),
            ))
            .cwd(p.path())
            .env("OMC_TRACE_FILE", &trace.to_string_lossy())
            .run()
            .expect_valid();
    }
    let out = command_in(p.path())
        .arg("doctor")
        .env("OMC_TRACE_FILE", &trace)
        .env("HOME", p.path())
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_has(
        &text,
        "2 hook run(s) read, 1 with a payload from another agent",
    );
    assert_has(
        &text,
        "1 payload(s) to hooks installed for claude (stop) look like gemini's",
    );
    assert_has(&text, "install --agent gemini");

    // GitHub Copilot CLI running Claude Code's own entries (it runs a project's
    // .claude/settings.json): they stand down, and doctor says so as a note, not a problem.
    let p = Project::new();
    let trace = traces.path().join("copilot.jsonl");
    let copilot = json!({"hook_event_name": "UserPromptSubmit", "session_id": "c-doc",
        "timestamp": "2026-12-04T08:04:32.785Z", "cwd": p.path(), "prompt": "ralph fix it"});
    let out = Hook::new("user-prompt-submit")
        .agent("claude")
        .payload(copilot)
        .cwd(p.path())
        .env("OMC_TRACE_FILE", &trace.to_string_lossy())
        .run();
    out.expect_noop();
    let out = command_in(p.path())
        .arg("doctor")
        .env("OMC_TRACE_FILE", &trace)
        .env("HOME", p.path())
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "GitHub Copilot CLI ran Claude Code's omc-hooks entries 1 time(s) (user-prompt-submit)"
        ),
        "{text}"
    );

    let table = Command::new(BIN)
        .args(["doctor", "--agents"])
        .output()
        .unwrap();
    assert_eq!(table.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&table.stdout),
        omc_hooks::protocol::agents::render_tables()
    );
}

/// The payloads recorded from the pinned Codex, Gemini CLI, Qwen Code, Kimi CLI, OpenCode, Kilo
/// Code, Pi (these three through our plugin), GitHub Copilot CLI, Factory Droid and CodeBuddy
/// clients (`tests/fixtures/<agent>/`, recorded by the real-client suite): every one decodes, through
/// the hook installed for its event, to the neutral event the table names, is recognised as
/// its client's by shape (Kimi's only by the `tool_output` of its tool events), and gets a
/// valid answer. Events no hook serves are traced under their own name and answered with
/// nothing.
#[test]
fn recorded_payloads_of_every_client_decode_to_their_neutral_events() {
    use omc_hooks::protocol::agents::{Agent, table};
    let mut seen = 0;
    for agent in [
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Kimi,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Pi,
        Agent::Copilot,
        Agent::Factory,
        Agent::CodeBuddy,
    ] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(agent.name());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        assert!(
            files.len() >= 9,
            "{}: recorded fixtures missing",
            dir.display()
        );
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let payload: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            // Copilot's SubagentStart payload names no event (copilot-FINDINGS.md §3).
            let event = payload["hook_event_name"]
                .as_str()
                .unwrap_or_else(|| {
                    assert_eq!(agent, Agent::Copilot, "{name}: no event name");
                    "SubagentStart"
                })
                .to_string();
            let row = table::ROWS
                .iter()
                .find(|r| r.wire == agent.wire() && r.event == event);
            let sub = row.map_or("session-start", |r| r.hook);
            let p = Project::new();
            let traces = tempfile::tempdir().unwrap();
            let trace = traces.path().join("t.jsonl");
            let out = Hook::new(sub)
                .agent(agent.name())
                .payload(payload.clone())
                .cwd(p.path())
                .env("OMC_TRACE_FILE", &trace.to_string_lossy())
                .run();
            out.expect_valid();
            let text = std::fs::read_to_string(&trace).unwrap();
            let line: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
            assert_eq!(line["agent_event"], event, "{name}");
            let neutral = match row {
                Some(r) => omc_hooks::hooks::find(r.hook).unwrap().event,
                None => event.as_str(),
            };
            let failed = name.contains("failed") || event == "PostToolUseFailure";
            let want = if failed {
                "PostToolUseFailure"
            } else {
                neutral
            };
            // Codex's exit status is in its rollout transcript, which was not kept.
            if !(failed && agent == Agent::Codex) {
                assert_eq!(line["event"], want, "{name}: {line}");
            }
            // Codex's SessionEnd carries nothing only Codex sends, nor do Factory Droid's tool
            // events; every other payload tells, but of Kimi's only those with a `tool_output`.
            let bare = (agent == Agent::Codex && event == "SessionEnd")
                || (agent == Agent::Factory && event.contains("ToolUse"));
            if agent == Agent::Kimi {
                let want = payload.get("tool_output").map(|_| agent.name());
                assert_eq!(line["shape"].as_str(), want, "{name}: {line}");
            } else if !bare {
                assert_eq!(line["shape"], agent.name(), "{name}: {line}");
            }
            if row.is_none() {
                out.expect_noop();
            }
            seen += 1;
        }
    }
    assert!(seen >= 40, "{seen}");
}

/// The payloads recorded from the pinned Cline (`tests/fixtures/cline/`, its own camelCase
/// shape with no event name but `hookName`): each, through the hook its file name runs, decodes
/// to the table's neutral event (the failed command to the failure) in the root session, is
/// recognised as Cline's, and gets a valid answer.
#[test]
fn recorded_cline_payloads_decode_through_the_scripts_install_writes() {
    use omc_hooks::protocol::agents::{Agent, table};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let payload: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
        let event = name.split(['-', '.']).next().unwrap();
        let row = table::rows(Agent::Cline.wire())
            .find(|r| r.event == event)
            .unwrap_or_else(|| panic!("{name}: no row for {event}"));
        let p = Project::new();
        let mut payload = payload;
        payload["workspaceRoots"] = json!([p.path()]);
        let traces = tempfile::tempdir().unwrap();
        let trace = traces.path().join("t.jsonl");
        let out = Hook::new(row.hook)
            .agent("cline")
            .payload(payload.clone())
            .cwd(p.path())
            .env("OMC_TRACE_FILE", &trace.to_string_lossy())
            .run();
        out.expect_valid();
        let text = std::fs::read_to_string(&trace).unwrap();
        let line: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(line["agent_event"], event, "{name}");
        let neutral = omc_hooks::hooks::find(row.hook).unwrap().event;
        let want = if name.contains("failed") {
            "PostToolUseFailure"
        } else {
            neutral
        };
        assert_eq!(line["event"], want, "{name}: {line}");
        assert_eq!(line["shape"], "cline", "{name}: {line}");
        assert_eq!(
            line["session_id"], payload["sessionContext"]["rootSessionId"],
            "{name}: {line}"
        );
        seen += 1;
    }
    assert!(seen >= 5, "{seen}");
}

/// The text of README.md between `<!-- <marker>:begin … -->` and `<!-- <marker>:end -->`.
fn readme_between(marker: &str) -> String {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let start = readme
        .find(&format!("<!-- {marker}:begin"))
        .unwrap_or_else(|| panic!("README has no {marker} markers"));
    let body = &readme[readme[start..].find("-->\n").unwrap() + start + 4..];
    let end = body.find(&format!("<!-- {marker}:end -->")).unwrap();
    body[..end].to_owned()
}

#[test]
fn the_readme_carries_the_current_capability_table() {
    assert_eq!(
        readme_between("support-table"),
        omc_hooks::protocol::agents::support::render_markdown(),
        "README's capability table is stale: paste the first table of 'omc-hooks doctor --agents' between the markers"
    );
}

#[test]
fn the_readme_carries_the_current_event_table() {
    assert_eq!(
        readme_between("agents-table"),
        omc_hooks::protocol::agents::table::render_markdown(),
        "README's table is stale: paste 'omc-hooks doctor --agents' between the markers"
    );
}
