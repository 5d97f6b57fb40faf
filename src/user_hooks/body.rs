//! The event a user hook receives: a script on stdin (and in `OMC_HOOK_CONTEXT`), a webhook as
//! its request body — the same JSON for both.
//!
//! It is the agent's own payload, put back together from the decoded input (so a script written
//! for Claude Code's hooks reads `.tool_input.command` as it always did), plus `event`, the
//! neutral hook name, and `project_dir`. Under `tool_input` a later entry sees what an earlier
//! entry's `modify` made of it.

use crate::protocol::HookInput;
use serde_json::{Map, Value, json};
use std::path::Path;

pub fn build(event: &str, input: &HookInput, project: Option<&Path>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("event".into(), json!(event));
    let mut s = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    };
    s("hook_event_name", &input.hook_event_name);
    s("session_id", &input.session_id);
    s("transcript_path", &input.transcript_path);
    s("cwd", &input.cwd);
    s("permission_mode", &input.permission_mode);
    s("prompt", &input.prompt);
    s("tool_name", &input.tool_name);
    s("tool_use_id", &input.tool_use_id);
    s("error", &input.error);
    s("last_assistant_message", &input.last_assistant_message);
    s("stop_reason", &input.stop_reason);
    s("agent_id", &input.agent_id);
    s("agent_type", &input.agent_type);
    s("agent_transcript_path", &input.agent_transcript_path);
    s("source", &input.source);
    s("trigger", &input.trigger);
    s("custom_instructions", &input.custom_instructions);
    s("reason", &input.reason);
    s("model", &input.model);
    if let Some(v) = &input.tool_input {
        m.insert("tool_input".into(), v.clone());
    }
    if let Some(v) = &input.tool_response {
        m.insert("tool_response".into(), v.clone());
    }
    if input.is_interrupt {
        m.insert("is_interrupt".into(), json!(true));
    }
    if input.stop_hook_active {
        m.insert("stop_hook_active".into(), json!(true));
    }
    if input.user_requested {
        m.insert("user_requested".into(), json!(true));
    }
    if !input.background_tasks.is_empty() {
        m.insert(
            "background_tasks".into(),
            Value::Array(input.background_tasks.clone()),
        );
    }
    for (k, v) in &input.raw {
        m.entry(k.clone()).or_insert_with(|| v.clone());
    }
    if let Some(p) = project {
        m.insert("project_dir".into(), json!(p.to_string_lossy()));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_comes_back_with_the_neutral_event_name() {
        let input = HookInput::decode(
            br#"{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash",
                 "tool_input":{"command":"ls"},"effort":{"level":"high"},"stop_hook_active":false}"#,
        )
        .unwrap();
        let body = Value::Object(build("pre-tool-use", &input, Some(Path::new("/p"))));
        assert_eq!(
            body,
            json!({"event":"pre-tool-use","hook_event_name":"PreToolUse","session_id":"s1",
                   "tool_name":"Bash","tool_input":{"command":"ls"},"effort":{"level":"high"},
                   "stop_hook_active":false,"project_dir":"/p"})
        );
    }
}
