//! GitHub Copilot CLI (what the pinned 1.0.102 was seen to do: tests/e2e/copilot-FINDINGS.md,
//! payloads recorded in tests/fixtures/copilot/).
//!
//! Copilot runs hooks from `.github/hooks/*.json` and `$COPILOT_HOME/hooks/*.json` and, for an
//! event spelled as Claude Code spells it (`Stop`, `PreToolUse`, …), sends Claude Code's event
//! names with fields of its own: an ISO `timestamp`, no `transcript_path` but on Stop and
//! PreCompact, and a tool's outcome as `tool_result: {result_type, text_result_for_llm}`
//! instead of `tool_response`. A shell command that exits non-zero is a *success* of its
//! `bash` tool, whose text ends with `<shellId: N completed with exit code K>`: that line is
//! read here as the failure it is (only tools that fail outright send PostToolUseFailure). Its
//! SubagentStart payload is the camelCase one (`sessionId`, `transcriptPath`, no event name),
//! even under the Pascal name; a subagent's own turns fire UserPromptSubmit and Stop with the
//! subagent's id as the session and `agent_id` set.
//!
//! Its Stop payload has no `last_assistant_message`: the model's final message is read from the
//! session's event log (`transcript_path`, `session-state/<session>/events.jsonl`). Copilot
//! writes that log in batches, about 0.1 s behind (copilot-FINDINGS.md §5): the Stop hook
//! waits, at most [`LOG_WAIT`], for the batch holding its own `hook.start` entry, and takes the
//! last `assistant.message` before it ([`read_last_message`]).
//!
//! Answers: Claude Code's `decision: "block"` on Stop, a PreToolUse `permissionDecision` or
//! `updatedInput` inside `hookSpecificOutput` — but context only at the top level
//! (`additionalContext`): Copilot ignores Claude Code's `hookSpecificOutput.additionalContext`.

use super::{Wire, mark_failed, neutral_event, neutral_tool, outcome, rename};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value};

/// Copilot's runtime tool names, should a payload carry them instead of Claude Code's (the
/// Pascal dialect names `bash` `Bash` and `task` `Agent`; `skill` keeps its own name).
const TOOLS: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("skill", "Skill"),
    ("view", "Read"),
    ("create", "Write"),
    ("edit", "Edit"),
    ("task", "Agent"),
];

/// Decodes a Copilot payload.
pub fn decode(mut map: Map<String, Value>) -> HookInput {
    // The camelCase dialect (SubagentStart sends it under either spelling).
    rename(&mut map, "sessionId", "session_id");
    rename(&mut map, "transcriptPath", "transcript_path");
    rename(&mut map, "toolName", "tool_name");
    rename(&mut map, "toolArgs", "tool_input");
    rename(&mut map, "agentName", "agent_type");
    rename(&mut map, "agent_name", "agent_type");
    rename(&mut map, "tool_result", "tool_response");
    // SubagentStart's camelCase payload names no event; it is the only one installed that
    // comes without a name.
    if !map.contains_key("hook_event_name")
        && (map.contains_key("agentName") || map.contains_key("parent_agent_id"))
    {
        map.insert("hook_event_name".into(), Value::from("SubagentStart"));
    }
    let parent = map
        .get("parent_agent_id")
        .and_then(Value::as_str)
        .is_some_and(|p| !p.is_empty());
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Copilot);
    input.subagent_turn = parent
        && matches!(
            input.hook_event_name.as_deref(),
            Some("UserPromptSubmit" | "Stop")
        );
    neutral_tool(&mut input, TOOLS);
    if input.hook_event_name.as_deref() == Some("PostToolUse")
        && let Some(error) = input.tool_response.as_ref().and_then(failure)
    {
        mark_failed(&mut input, error);
    }
    input
}

/// How long a Stop waits for Copilot's event log to hold the turn's end: the log was seen
/// about 0.1 s behind the hook; well under the hook's internal deadline.
pub const LOG_WAIT: std::time::Duration = std::time::Duration::from_millis(1_000);

/// How often the log is looked at meanwhile.
const LOG_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// On Stop, the model's final message from the session's event log when the payload has none.
/// A subagent's own Stop is left as it is (nothing acts on it).
pub fn read_last_message(input: &mut HookInput) {
    if input.last_assistant_message.is_some() || input.subagent_turn {
        return;
    }
    let Some(path) = input
        .transcript_path
        .clone()
        .filter(|p| std::path::Path::new(p).is_absolute())
    else {
        return;
    };
    // Waited for only in Copilot's own layout, `session-state/<session id>/events.jsonl`,
    // whose folder exists before the log's first batch: anything else is read once.
    let copilots = std::path::Path::new(&path).parent().is_some_and(|d| {
        d.is_dir()
            && d.file_name().and_then(|n| n.to_str()).is_some()
            && d.file_name().and_then(|n| n.to_str()) == input.session_id.as_deref()
    });
    let stop_ms = input
        .raw
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.timestamp_millis())
        .filter(|_| copilots);
    let started = std::time::Instant::now();
    loop {
        let tail = crate::state::transcript::tail(&path, crate::state::transcript::TAIL_BYTES);
        let text = tail.as_deref().map(String::from_utf8_lossy);
        let found = text
            .as_deref()
            .map_or(Found::Behind(None), |t| last_message(t, stop_ms));
        match found {
            Found::Turn(m) => {
                input.last_assistant_message = m;
                return;
            }
            Found::Behind(m) if stop_ms.is_none() || started.elapsed() >= LOG_WAIT => {
                // No marker to wait for, or the log never caught up: the latest message seen.
                input.last_assistant_message = m;
                return;
            }
            Found::Behind(_) => std::thread::sleep(LOG_POLL),
        }
    }
}

/// What the log says about this Stop's turn.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    /// The log holds this Stop's `hook.start`: the last message with text before it.
    Turn(Option<String>),
    /// Not yet: the last message with text so far.
    Behind(Option<String>),
}

/// The content of the last `assistant.message` with text in an event log, before the
/// `agentStop` `hook.start` stamped `stop_ms` when that is there.
fn last_message(log: &str, stop_ms: Option<i64>) -> Found {
    let mut message = None;
    for line in log.lines() {
        let kind_of = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
        if line.contains("\"assistant.message\"") {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if kind_of(&v).as_deref() != Some("assistant.message") {
                continue;
            }
            if let Some(text) = v
                .pointer("/data/content")
                .and_then(Value::as_str)
                .filter(|t| !t.trim().is_empty())
            {
                message = Some(text.to_string());
            }
        } else if let Some(ms) = stop_ms
            && line.contains("\"agentStop\"")
            && let Ok(v) = serde_json::from_str::<Value>(line)
            && kind_of(&v).as_deref() == Some("hook.start")
            && v.pointer("/data/hookType").and_then(Value::as_str) == Some("agentStop")
            && v.pointer("/data/input/timestamp").and_then(Value::as_i64) == Some(ms)
        {
            return Found::Turn(message);
        }
    }
    Found::Behind(message)
}

/// The failure a `tool_result` reports: the shell's exit-code line, or a result that is not a
/// success.
fn failure(result: &Value) -> Option<String> {
    let text = result
        .get("text_result_for_llm")
        .or_else(|| result.get("textResultForLlm"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if let Some(f) = outcome::from_text(text) {
        return Some(f);
    }
    let kind = result
        .get("result_type")
        .or_else(|| result.get("resultType"))
        .and_then(Value::as_str)?;
    (kind == "failure").then(|| {
        let t = text.trim();
        if t.is_empty() {
            "the tool failed".to_string()
        } else {
            t.to_string()
        }
    })
}

/// Encodes `answer` for `event`: Claude Code's answer with the context moved to the top level.
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let mut v = answer.encode(event)?;
    let out = v.as_object_mut()?;
    if let Some(Value::Object(specific)) = out.get_mut("hookSpecificOutput")
        && let Some(context) = specific.remove("additionalContext")
    {
        out.insert("additionalContext".into(), context);
    }
    let only_the_name = out
        .get("hookSpecificOutput")
        .and_then(Value::as_object)
        .is_some_and(|s| s.keys().all(|k| k == "hookEventName"));
    if only_the_name {
        out.remove("hookSpecificOutput");
    }
    (!out.is_empty()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn a_shell_command_that_exits_non_zero_is_a_failure() {
        let base = json!({"hook_event_name":"PostToolUse","session_id":"s",
            "timestamp":"2026-12-04T07:09:46.204Z","cwd":"/p","tool_name":"Bash",
            "tool_input":{"command":"ls /x"}});
        let mut ok = base.clone();
        ok["tool_result"] = json!({"result_type":"success",
            "text_result_for_llm":"hi\n<shellId: 0 completed with exit code 0>"});
        let i = dec(ok);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(i.agent_event.as_deref(), Some("PostToolUse"));
        assert!(i.tool_response.is_some());
        let mut bad = base;
        bad["tool_result"] = json!({"result_type":"success",
            "text_result_for_llm":"ls: cannot access '/x': No such file or directory\n<shellId: 1 completed with exit code 2>"});
        let i = dec(bad);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        let e = i.error.unwrap();
        assert!(e.starts_with("Exit code 2\n"), "{e}");
        assert!(e.contains("cannot access"), "{e}");
        assert!(
            !e.contains("shellId"),
            "the client's status line is not the output: {e}"
        );
    }

    #[test]
    fn a_failed_result_is_a_failure() {
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Read",
            "tool_result":{"result_type":"failure","text_result_for_llm":"Path does not exist"}}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.error.as_deref(), Some("Path does not exist"));
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Read",
            "tool_result":{"result_type":"success","text_result_for_llm":"Exit Code: 0"}}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUse"));
    }

    #[test]
    fn the_camel_case_subagent_start_reads_too() {
        let i = dec(
            json!({"sessionId":"parent","timestamp":1796368867475u64,"cwd":"/p",
            "transcriptPath":"/h/events.jsonl","agentName":"explore","agent_id":"child",
            "agent_type":"explore","parent_agent_id":"parent"}),
        );
        assert_eq!(i.session_id.as_deref(), Some("parent"));
        assert_eq!(i.agent_id.as_deref(), Some("child"));
        assert_eq!(i.agent_type.as_deref(), Some("explore"));
        assert_eq!(i.transcript_path.as_deref(), Some("/h/events.jsonl"));
        assert_eq!(i.hook_event_name.as_deref(), Some("SubagentStart"));
        assert_eq!(i.agent_event.as_deref(), Some("SubagentStart"));
    }

    #[test]
    fn the_final_message_is_the_last_one_before_this_stops_hook_entry() {
        let msg = |t: &str| {
            format!(
                "{}\n",
                json!({"type": "assistant.message", "data": {"content": t, "toolRequests": []}})
            )
        };
        let stop = |ms: i64| {
            format!(
                "{}\n",
                json!({"type": "hook.start", "data": {"hookType": "agentStop",
                       "input": {"timestamp": ms, "note": "\"assistant.message\""}}})
            )
        };
        let log = [
            msg("first answer"),
            stop(1000),
            msg("done.\n<omc-complete/>"),
            msg(""),
            stop(2000),
            msg("a later turn"),
            "{not json \"assistant.message\"\n".to_string(),
        ]
        .concat();
        assert_eq!(
            last_message(&log, Some(2000)),
            Found::Turn(Some("done.\n<omc-complete/>".into()))
        );
        assert_eq!(
            last_message(&log, Some(1000)),
            Found::Turn(Some("first answer".into()))
        );
        assert_eq!(
            last_message(&log, Some(3000)),
            Found::Behind(Some("a later turn".into())),
            "not written yet"
        );
        assert_eq!(
            last_message(&log, None),
            Found::Behind(Some("a later turn".into()))
        );
        assert_eq!(last_message("", Some(1)), Found::Behind(None));

        // From the file, in Copilot's layout: the message before this Stop's entry.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("s")).unwrap();
        let path = dir.path().join("s/events.jsonl");
        std::fs::write(&path, &log).unwrap();
        let mut i = dec(json!({"hook_event_name":"Stop","session_id":"s",
            "timestamp": "1970-01-01T00:00:02.000Z", "transcript_path": path}));
        read_last_message(&mut i);
        assert_eq!(
            i.last_assistant_message.as_deref(),
            Some("done.\n<omc-complete/>")
        );
        // Outside that layout, no entry is waited for: the latest message there.
        let other = dir.path().join("events.jsonl");
        std::fs::write(&other, &log).unwrap();
        let mut i = dec(json!({"hook_event_name":"Stop","session_id":"s",
            "timestamp": "1970-01-01T00:00:02.000Z", "transcript_path": other}));
        read_last_message(&mut i);
        assert_eq!(i.last_assistant_message.as_deref(), Some("a later turn"));
        // A subagent's Stop and a relative path are not read.
        let mut sub = dec(json!({"hook_event_name":"Stop","agent_id":"a",
            "parent_agent_id":"s", "transcript_path": path}));
        read_last_message(&mut sub);
        assert_eq!(sub.last_assistant_message, None);
        let mut relative = dec(json!({"hook_event_name":"Stop","transcript_path":"events.jsonl"}));
        read_last_message(&mut relative);
        assert_eq!(relative.last_assistant_message, None);
    }

    #[test]
    fn a_subagents_own_prompt_and_stop_are_marked() {
        for event in ["UserPromptSubmit", "Stop"] {
            let i = dec(json!({"hook_event_name": event, "session_id": "child",
                "agent_id": "child", "agent_type": "explore", "parent_agent_id": "parent",
                "prompt": "ralph list the files"}));
            assert!(i.subagent_turn, "{event}");
        }
        // the parent's own events, and a subagent's tool calls, are not
        let i = dec(json!({"hook_event_name": "Stop", "session_id": "parent"}));
        assert!(!i.subagent_turn);
        let i = dec(
            json!({"hook_event_name": "PreToolUse", "session_id": "child",
            "agent_id": "child", "parent_agent_id": "parent", "tool_name": "Bash"}),
        );
        assert!(!i.subagent_turn);
        let i = dec(json!({"hook_event_name": "Stop", "session_id": "s",
            "agent_id": "a", "parent_agent_id": null}));
        assert!(!i.subagent_turn);
    }

    #[test]
    fn runtime_tool_names_are_claude_codes() {
        let i = dec(
            json!({"hook_event_name":"PreToolUse","session_id":"s","tool_name":"skill",
            "tool_input":{"skill":"demo"}}),
        );
        assert_eq!(i.tool_name.as_deref(), Some("Skill"));
        assert_eq!(i.agent_tool.as_deref(), Some("skill"));
    }

    #[test]
    fn context_goes_to_the_top_level_and_the_rest_stays_claudes() {
        let ctx = Answer::context("ralph started");
        for event in [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
        ] {
            assert_eq!(
                encode(&ctx, event),
                Some(json!({"additionalContext": "ralph started"})),
                "{event}"
            );
        }
        assert_eq!(
            encode(&Answer::block("go on"), "Stop"),
            Some(json!({"decision": "block", "reason": "go on"}))
        );
        let deny = Answer {
            deny: Some("no".into()),
            context: Some("why".into()),
            ..Answer::default()
        };
        assert_eq!(
            encode(&deny, "PreToolUse"),
            Some(json!({"hookSpecificOutput": {"permissionDecision": "deny",
                "permissionDecisionReason": "no", "hookEventName": "PreToolUse"},
                "additionalContext": "why"}))
        );
        assert_eq!(encode(&Answer::default(), "Stop"), None);
        assert_eq!(encode(&ctx, "SessionEnd"), None);
    }
}
