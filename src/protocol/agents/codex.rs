//! OpenAI Codex CLI (what the pinned 0.169.0 was seen to do: tests/e2e/codex-FINDINGS.md;
//! upstream: Codex's hooks documentation and `codex-rs/hooks/` in openai/codex).
//!
//! Payloads are Claude Code's with `turn_id` and `model` added; tool output is a string.
//! Codex has no PostToolUseFailure: a failed shell command arrives as an ordinary PostToolUse,
//! so its exit status is read from the output string when it carries one ("Process exited with
//! code N"), else from the command's output record in the session's rollout transcript
//! ([`status_from_transcript`]). Answers go through an allow-list: Codex rejects unknown keys
//! (the whole output is then invalid), needs `hookEventName` inside `hookSpecificOutput`,
//! marks a PreToolUse answer with `continue`/`stopReason`/`suppressOutput` as a failed hook,
//! and refuses `hookSpecificOutput` on Stop.

use super::{Wire, mark_failed, neutral_event, outcome};
use crate::protocol::output::{MAX_CONTEXT_CHARS, Permission, close_claude_shape, truncate_chars};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value, json};

/// Decodes a Codex payload.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Codex);
    if input.hook_event_name.as_deref() == Some("PostToolUse")
        && let Some(error) = input.tool_response.as_ref().and_then(outcome::failure)
    {
        mark_failed(&mut input, error);
    }
    input
}

/// For a Bash PostToolUse whose output string says nothing about the exit status (Codex
/// 0.169 hands hooks the command's raw output), the status recorded for the same call in the
/// tail of the rollout transcript. At PostToolUse time Codex 0.169 has already written the
/// command's `item_completed` event (`item.id` = the call id, `item.exit_code`), observed with
/// the real client (the `clients` e2e suite); `exec_command_end` and a `function_call_output`
/// carrying "Process exited with code N" are read too, for other versions. Reads at most the
/// transcript's last 64 KB, only for a path the transcript reader accepts.
///
/// When several calls run at once, Codex may fire a call's PostToolUse before that call's
/// result is in the transcript (its `function_call` is): then the transcript is read again,
/// every [`STATUS_POLL`], for at most [`STATUS_WAIT`]; still nothing, and the status is
/// [`Status::Unknown`]. A call the transcript does not mention at all is not waited for.
pub fn status_from_transcript(input: &HookInput) -> Status {
    let Some(first) = read_status(input) else {
        return Status::NotApplicable;
    };
    let mut status = first;
    let started = std::time::Instant::now();
    while status == Status::Pending && started.elapsed() < STATUS_WAIT {
        std::thread::sleep(STATUS_POLL);
        status = read_status(input).unwrap_or(Status::Unknown);
    }
    match status {
        Status::Pending => Status::Unknown,
        s => s,
    }
}

/// How long a PostToolUse waits for its call's record in the transcript.
pub const STATUS_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
/// How often it looks.
const STATUS_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// What the transcript says of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Not a Bash call with an id and a readable transcript: nothing to read.
    NotApplicable,
    /// The call is in the transcript, its result not (yet).
    Pending,
    /// Nothing in the transcript says how the call ended.
    Unknown,
    Succeeded,
    Failed(String),
}

/// One reading of the transcript's tail; `None` when there is nothing to read.
fn read_status(input: &HookInput) -> Option<Status> {
    if input.tool_name.as_deref() != Some("Bash") {
        return None;
    }
    let call = input.tool_use_id.as_deref().filter(|c| !c.is_empty())?;
    let tail = crate::state::transcript::tail(
        input.transcript_path.as_deref()?,
        crate::state::transcript::TAIL_BYTES,
    )?;
    Some(status_in(&tail, call))
}

/// A command's end as a record gives it: its exit code (none: unknown) and its output.
fn ended(code: Option<i64>, out: Option<&str>) -> Status {
    match code {
        None => Status::Unknown,
        Some(0) => Status::Succeeded,
        Some(code) => {
            let out = out.unwrap_or("");
            outcome::from_text(&format!("{out}\nExit Code: {code}"))
                .map_or(Status::Succeeded, Status::Failed)
        }
    }
}

/// The status the transcript tail `tail` records for `call`.
fn status_in(tail: &[u8], call: &str) -> Status {
    let text = String::from_utf8_lossy(tail);
    let mut seen = false;
    for line in text.lines().rev().filter(|l| l.contains(call)) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        seen = true;
        let p = v.get("payload").unwrap_or(&v);
        if p.get("type").and_then(Value::as_str) == Some("item_completed") {
            let item = &p["item"];
            if item.get("id").and_then(Value::as_str) != Some(call) {
                continue;
            }
            let out = ["aggregated_output", "formatted_output", "output"]
                .iter()
                .find_map(|k| item.get(*k).and_then(Value::as_str));
            return ended(item.get("exit_code").and_then(Value::as_i64), out);
        }
        if p.get("call_id").and_then(Value::as_str) != Some(call) {
            continue;
        }
        match p.get("type").and_then(Value::as_str) {
            Some("exec_command_end") => {
                let out = p
                    .get("aggregated_output")
                    .or_else(|| p.get("stderr"))
                    .and_then(Value::as_str);
                return ended(p.get("exit_code").and_then(Value::as_i64), out);
            }
            Some("function_call_output") => {
                let text = p.get("output").and_then(|out| {
                    out.as_str()
                        .map(str::to_string)
                        .or_else(|| out.get("content")?.as_str().map(str::to_string))
                });
                // the output says the status on a line of its own, or it says nothing
                return match text {
                    Some(t) if outcome::exit_code(&t).is_some() => {
                        outcome::from_text(&t).map_or(Status::Succeeded, Status::Failed)
                    }
                    _ => Status::Unknown,
                };
            }
            _ => {}
        }
    }
    if seen {
        Status::Pending
    } else {
        Status::Unknown
    }
}

/// The keys of a `hookSpecificOutput` Codex accepts, per event (its generated output schemas).
fn takes_context(event: &str) -> bool {
    matches!(
        event,
        "SessionStart" | "UserPromptSubmit" | "PreToolUse" | "PostToolUse" | "SubagentStart"
    )
}

/// Encodes an answer for a Codex event.
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let mut out = Map::new();
    match event {
        "Stop" | "SubagentStop" => {
            if let Some(reason) = answer.block.as_deref().filter(|r| !r.trim().is_empty()) {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        // A user hook refused the prompt (`decision: block`, the documented refusal).
        "UserPromptSubmit" => {
            if let Some(reason) = &answer.deny {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        "SessionEnd" => return None,
        _ => {}
    }
    let mut specific = Map::new();
    if event == "PreToolUse" {
        if let Some(reason) = &answer.deny {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        } else if let Some(input) = &answer.updated_input {
            // A user hook rewrote the call: Codex takes `updatedInput` with an `allow` only
            // (never `ask`, which fails the hook and runs the original call).
            specific.insert("permissionDecision".into(), json!("allow"));
            specific.insert("updatedInput".into(), input.clone());
        }
    }
    if let (true, Some(p)) = (event == "PermissionRequest", &answer.permission) {
        // Codex reserves `updatedInput` and `interrupt` here and fails closed on them: a
        // rewritten call is left to the person rather than allowed as it was.
        match p {
            Permission::Allow {
                updated_input: Some(_),
                ..
            } => crate::diag!(
                "permission-request: Codex cannot take a rewritten input; the person is asked"
            ),
            _ => {
                if let Permission::Allow {
                    updated_permissions: Some(_),
                    ..
                } = p
                {
                    crate::diag!(
                        "permission-request: Codex takes no permission updates; allowed without them"
                    );
                }
                specific.insert("decision".into(), p.decision(false));
            }
        }
    }
    if let (true, Some(text)) = (takes_context(event), &answer.context) {
        specific.insert(
            "additionalContext".into(),
            json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
        );
    }
    close_claude_shape(out, specific, event, answer.system_message.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn a_failed_command_is_a_failure_event() {
        let ok = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","turn_id":"t","model":"m",
            "tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":"hi\n","tool_use_id":"call_1"}),
        );
        assert_eq!(ok.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(ok.error, None);
        let bad = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","turn_id":"t","model":"m",
            "tool_name":"Bash","tool_input":{"command":"false"},
            "tool_response":"Process exited with code 1\nOutput:\n","tool_use_id":"call_2"}),
        );
        assert_eq!(bad.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(bad.agent_event.as_deref(), Some("PostToolUse"));
        assert!(bad.error.unwrap().starts_with("Exit code 1"));
    }

    #[test]
    fn the_transcript_gives_the_status_the_payload_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("rollout.jsonl");
        let lines = [
            json!({"type":"response_item","payload":{"type":"function_call","call_id":"call_9","name":"exec_command"}}),
            json!({"type":"response_item","payload":{"type":"function_call_output","call_id":"call_8","output":"Process exited with code 0\nOutput:\nok"}}),
            json!({"type":"response_item","payload":{"type":"function_call_output","call_id":"call_9","output":"Chunk ID: a\nProcess exited with code 2\nOutput:\nboom"}}),
        ];
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&t, body).unwrap();
        let mut i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash",
            "tool_response":"boom\n","tool_use_id":"call_9","transcript_path":t}),
        );
        let failed = |i: &HookInput| match read_status(i) {
            Some(Status::Failed(f)) => f,
            other => panic!("{other:?}"),
        };
        assert!(failed(&i).starts_with("Exit code 2"));
        i.tool_use_id = Some("call_8".into());
        assert_eq!(read_status(&i), Some(Status::Succeeded));
        // no record of the call: unknown, not a success (and not waited for)
        i.tool_use_id = Some("call_7".into());
        assert_eq!(read_status(&i), Some(Status::Unknown));
        let started = std::time::Instant::now();
        assert_eq!(status_from_transcript(&i), Status::Unknown);
        assert!(started.elapsed() < STATUS_WAIT);
        let end = json!({"type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_7","exit_code":127,"aggregated_output":"sh: x: not found"}});
        std::fs::write(&t, format!("{end}\n")).unwrap();
        assert!(failed(&i).contains("not found"));
        // What Codex 0.169 has written when PostToolUse runs (seen with the real client).
        let done = json!({"type":"event_msg","payload":{"type":"item_completed","turn_id":"t",
            "item":{"id":"call_e2e_2","type":"CommandExecution","exit_code":3,"status":"failed","aggregated_output":"failing\n"}}});
        let ok = json!({"type":"event_msg","payload":{"type":"item_completed","turn_id":"t",
            "item":{"id":"call_e2e_1","type":"CommandExecution","exit_code":0,"status":"completed"}}});
        std::fs::write(&t, format!("{ok}\n{done}\n")).unwrap();
        i.tool_use_id = Some("call_e2e_2".into());
        let f = failed(&i);
        assert!(f.starts_with("Exit code 3\nfailing"), "{f}");
        i.tool_use_id = Some("call_e2e_1".into());
        assert_eq!(read_status(&i), Some(Status::Succeeded));
        // not a Bash call, or no transcript: nothing to read
        i.tool_name = Some("apply_patch".into());
        assert_eq!(status_from_transcript(&i), Status::NotApplicable);
    }

    #[test]
    fn a_call_whose_record_comes_late_is_waited_for_and_one_that_never_comes_is_unknown() {
        // Parallel calls: Codex may fire a call's PostToolUse before the call's record is in
        // the transcript (seen with 0.169.0, e2e_agent_guards::codex_parallel_failing_…).
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("rollout.jsonl");
        let other = json!({"type":"response_item","payload":{"type":"function_call","call_id":"call_b","name":"exec_command"}});
        std::fs::write(&t, format!("{other}\n")).unwrap();
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash",
            "tool_response":"boom\n","tool_use_id":"call_b","transcript_path":t}),
        );
        let started = std::time::Instant::now();
        assert_eq!(status_from_transcript(&i), Status::Unknown);
        assert!(started.elapsed() >= STATUS_WAIT);
        let late = json!({"type":"event_msg","payload":{"type":"item_completed","turn_id":"t",
            "item":{"id":"call_b","type":"CommandExecution","exit_code":1,"aggregated_output":"boom\n"}}});
        let path = t.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(60));
            std::fs::write(&path, format!("{other}\n{late}\n")).unwrap();
        });
        match status_from_transcript(&i) {
            Status::Failed(f) => assert!(f.starts_with("Exit code 1"), "{f}"),
            s => panic!("{s:?}"),
        }
        writer.join().unwrap();
    }

    #[test]
    fn stop_never_carries_hook_specific_output() {
        let mut a = Answer::block("keep going");
        a.context = Some("ctx".into());
        a.system_message = Some("note".into());
        assert_eq!(
            encode(&a, "Stop").unwrap(),
            json!({"decision":"block","reason":"keep going","systemMessage":"note"})
        );
        assert_eq!(encode(&Answer::context("x"), "Stop"), None);
    }

    #[test]
    fn context_always_names_its_event() {
        let v = encode(&Answer::context("hi"), "UserPromptSubmit").unwrap();
        assert_eq!(
            v,
            json!({"hookSpecificOutput":{"additionalContext":"hi","hookEventName":"UserPromptSubmit"}})
        );
        let v = encode(&Answer::context("hi"), "PostToolUse").unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    }

    #[test]
    fn pre_tool_use_denies_without_failing_keys() {
        let a = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        let v = encode(&a, "PreToolUse").unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["hookSpecificOutput"]);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn events_without_a_model_channel() {
        assert_eq!(encode(&Answer::system_message("x"), "SessionEnd"), None);
        assert_eq!(
            encode(&Answer::context("x"), "PreCompact"),
            None,
            "PreCompact takes systemMessage only"
        );
        assert_eq!(
            encode(&Answer::system_message("saved"), "PreCompact").unwrap(),
            json!({"systemMessage":"saved"})
        );
    }

    #[test]
    fn user_hook_refusals_and_rewrites() {
        let refuse = super::super::user_hook_answers::refuse();
        assert_eq!(
            encode(&refuse, "UserPromptSubmit").unwrap(),
            json!({"decision":"block","reason":"not on main"})
        );
        let rewrite = super::super::user_hook_answers::rewrite();
        assert_eq!(
            encode(&rewrite, "PreToolUse").unwrap(),
            json!({"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -l"},"hookEventName":"PreToolUse"}})
        );
        assert_eq!(encode(&rewrite, "PostToolUse"), None);
    }
}
