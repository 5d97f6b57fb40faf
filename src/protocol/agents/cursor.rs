//! Cursor (its hooks documentation, cursor.com/docs/agent/hooks; no installable client here,
//! so this follows the documented
//! payloads and is tested from them).
//!
//! camelCase event names, snake_case fields; the session is `conversation_id` (stable across
//! turns); the project is the first of `workspace_roots` when no `cwd` is given. Shell, MCP and
//! file events are tool events with the tool folded in. The end-of-turn continuation is
//! `followup_message` (submitted as the next user message), counted by `loop_count` instead of
//! `stop_hook_active`. Cursor cannot take context on a prompt or after a tool: only
//! `sessionStart` has `additional_context`.

use super::{Wire, cwd_from_workspace_roots, neutral_event, neutral_tool, rename};
use crate::protocol::output::{MAX_CONTEXT_CHARS, truncate_chars};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value, json};

/// Decodes a Cursor payload.
pub fn decode(mut map: Map<String, Value>) -> HookInput {
    rename(&mut map, "conversation_id", "session_id");
    cwd_from_workspace_roots(&mut map);
    let event = map
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    match event.as_str() {
        "beforeShellExecution" | "afterShellExecution" => {
            if let Some(command) = map.remove("command") {
                map.insert("tool_input".into(), json!({ "command": command }));
            }
            map.insert("tool_name".into(), json!("Shell"));
            rename(&mut map, "output", "tool_response");
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            // `tool_input` is a JSON string here.
            if let Some(Value::String(s)) = map.get("tool_input")
                && let Ok(v) = serde_json::from_str::<Value>(s)
            {
                map.insert("tool_input".into(), v);
            }
            rename(&mut map, "result_json", "tool_response");
        }
        "beforeReadFile" => {
            if let Some(path) = map.remove("file_path") {
                map.insert("tool_input".into(), json!({ "file_path": path }));
            }
            map.insert("tool_name".into(), json!("Read"));
        }
        "afterFileEdit" => {
            let path = map.remove("file_path");
            let edits = map.remove("edits");
            map.insert(
                "tool_input".into(),
                json!({ "file_path": path, "edits": edits }),
            );
            map.insert("tool_name".into(), json!("MultiEdit"));
        }
        "postToolUseFailure" => rename(&mut map, "error_message", "error"),
        "subagentStart" | "subagentStop" => {
            rename(&mut map, "subagent_type", "agent_type");
            rename(&mut map, "result", "last_assistant_message");
        }
        "sessionStart" => {
            map.entry("source").or_insert_with(|| json!("startup"));
        }
        _ => {}
    }
    rename(&mut map, "tool_output", "tool_response");
    let loop_count = map.get("loop_count").and_then(Value::as_u64).unwrap_or(0);
    let status = map
        .get("status")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Cursor);
    // Cursor's `Shell` (its name in preToolUse/postToolUse, and the one its shell events get
    // above) is the shell: `Bash`, as in every agent.
    neutral_tool(&mut input, &[("Shell", "Bash")]);
    if input.hook_event_name.as_deref() == Some("Stop") {
        input.stop_hook_active |= loop_count > 0;
        input.client_continuations = Some(u32::try_from(loop_count).unwrap_or(u32::MAX));
        // `aborted`: the person stopped it; `error`: the turn failed. Neither is something a
        // follow-up can fix.
        if let Some(s @ ("aborted" | "error")) = status.as_deref() {
            input.stop_reason.get_or_insert_with(|| s.to_string());
        }
    }
    input
}

/// Encodes an answer for a Cursor event (snake_case keys, as documented).
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let mut out = Map::new();
    match event {
        "sessionStart" => {
            if let Some(text) = &answer.context {
                out.insert(
                    "additional_context".into(),
                    json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
                );
            }
        }
        "stop" | "subagentStop" => {
            if let Some(reason) = &answer.block {
                out.insert("followup_message".into(), json!(reason));
            }
        }
        "preToolUse" | "subagentStart" => {
            if let Some(reason) = &answer.deny {
                out.insert("decision".into(), json!("deny"));
                out.insert("reason".into(), json!(reason));
            } else if let (true, Some(input)) = (event == "preToolUse", &answer.updated_input) {
                // A user hook rewrote the call.
                out.insert("decision".into(), json!("allow"));
                out.insert("updated_input".into(), input.clone());
            }
        }
        // A user hook refused the prompt.
        "beforeSubmitPrompt" => {
            if let Some(reason) = &answer.deny {
                out.insert("continue".into(), json!(false));
                out.insert("user_message".into(), json!(reason));
            }
        }
        "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile" => {
            if let Some(reason) = &answer.deny {
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(reason));
                out.insert("agent_message".into(), json!(reason));
            }
        }
        "preCompact" => {
            if let Some(text) = &answer.system_message {
                out.insert("user_message".into(), json!(text));
            }
        }
        _ => {}
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    fn common(event: &str) -> Value {
        json!({"conversation_id":"668320d2-2fd8-4888-b33c-2a466fec86e7","generation_id":"g1",
            "model":"claude-sonnet-4","hook_event_name":event,"cursor_version":"1.7.2",
            "workspace_roots":["/home/u/proj"],"user_email":null,"transcript_path":null})
    }

    #[test]
    fn session_and_project_come_from_the_conversation_and_workspace() {
        let i = dec(common("stop"));
        assert_eq!(
            i.session_id.as_deref(),
            Some("668320d2-2fd8-4888-b33c-2a466fec86e7")
        );
        assert_eq!(i.cwd.as_deref(), Some("/home/u/proj"));
        assert_eq!(i.hook_event_name.as_deref(), Some("Stop"));
        assert!(!i.stop_hook_active);
    }

    #[test]
    fn stop_loop_count_and_status() {
        let mut v = common("stop");
        v["status"] = json!("completed");
        v["loop_count"] = json!(2);
        let i = dec(v);
        assert!(i.stop_hook_active);
        assert_eq!(i.stop_reason, None);
        let mut v = common("stop");
        v["status"] = json!("aborted");
        assert_eq!(dec(v).stop_reason.as_deref(), Some("aborted"));
    }

    #[test]
    fn shell_and_file_events_are_tool_events() {
        let mut v = common("beforeShellExecution");
        v["command"] = json!("npm test");
        v["cwd"] = json!("/home/u/proj/sub");
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("PreToolUse"));
        assert_eq!(i.tool_name.as_deref(), Some("Bash"));
        assert_eq!(i.tool_as_named(), Some("Shell"));
        assert_eq!(i.tool_input_str("command"), Some("npm test"));
        assert_eq!(i.cwd.as_deref(), Some("/home/u/proj/sub"));
        let mut v = common("afterFileEdit");
        v["file_path"] = json!("/home/u/proj/a.rs");
        v["edits"] = json!([{"old_string":"a","new_string":"b\nc"}]);
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(i.tool_name.as_deref(), Some("MultiEdit"));
        assert_eq!(i.tool_input_str("file_path"), Some("/home/u/proj/a.rs"));
        let mut v = common("beforeMCPExecution");
        v["tool_name"] = json!("search");
        v["tool_input"] = json!("{\"q\":\"x\"}");
        assert_eq!(dec(v).tool_input, Some(json!({"q":"x"})));
    }

    #[test]
    fn failures_and_prompts() {
        let mut v = common("postToolUseFailure");
        v["tool_name"] = json!("Shell");
        v["tool_input"] = json!({"command":"false"});
        v["error_message"] = json!("exit 1");
        v["failure_type"] = json!("error");
        v["is_interrupt"] = json!(false);
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.error.as_deref(), Some("exit 1"));
        assert_eq!(
            i.tool_name.as_deref(),
            Some("Bash"),
            "Cursor's Shell is the shell"
        );
        let mut v = common("beforeSubmitPrompt");
        v["prompt"] = json!("ralph fix the tests");
        v["attachments"] = json!([{"type":"file","filePath":"/x"}]);
        let i = dec(v);
        assert_eq!(i.hook_event_name.as_deref(), Some("UserPromptSubmit"));
        assert_eq!(i.prompt.as_deref(), Some("ralph fix the tests"));
    }

    #[test]
    fn answers() {
        assert_eq!(
            encode(&Answer::block("continue: 2/100"), "stop").unwrap(),
            json!({"followup_message":"continue: 2/100"})
        );
        assert_eq!(
            encode(&Answer::context("restored"), "sessionStart").unwrap(),
            json!({"additional_context":"restored"})
        );
        assert_eq!(encode(&Answer::context("x"), "beforeSubmitPrompt"), None);
        assert_eq!(encode(&Answer::context("x"), "postToolUse"), None);
        let deny = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        assert_eq!(
            encode(&deny, "beforeShellExecution").unwrap(),
            json!({"permission":"deny","user_message":"no","agent_message":"no"})
        );
        assert_eq!(
            encode(&Answer::system_message("saved"), "preCompact").unwrap(),
            json!({"user_message":"saved"})
        );
    }

    #[test]
    fn user_hook_refusals_and_rewrites() {
        let refuse = super::super::user_hook_answers::refuse();
        assert_eq!(
            encode(&refuse, "beforeSubmitPrompt").unwrap(),
            json!({"continue":false,"user_message":"not on main"})
        );
        let rewrite = super::super::user_hook_answers::rewrite();
        assert_eq!(
            encode(&rewrite, "preToolUse").unwrap(),
            json!({"decision":"allow","updated_input":{"command":"ls -l"}})
        );
    }
}
