//! Claude Code's format, and the clients that copy it: Factory Droid (the hooks reference on
//! docs.factory.ai), CodeBuddy and Qoder (Claude-format settings files; docs/agents-survey.md,
//! tests/golden/agents/). The neutral input *is* Claude Code's payload, so decoding is
//! [`HookInput::from_map`] plus the few spellings the copies use for the same fields
//! ([`decode_fields`], which Kimi CLI's adapter shares); the answer is
//! [`crate::protocol::Answer::encode`].

use super::{Wire, neutral_event, rename};
use crate::protocol::HookInput;
use serde_json::{Map, Value};

/// Decodes a Claude-format payload.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let mut input = decode_fields(map);
    neutral_event(&mut input, Wire::Claude);
    input
}

/// The payload's fields under Claude Code's names (the event name is left as sent): the copies'
/// spellings — Kimi CLI's `tool_call_id`, `tool_output`, subagent `agent_name` and SubagentStop
/// `response` — renamed where Claude Code's own field is absent.
pub fn decode_fields(mut map: Map<String, Value>) -> HookInput {
    rename(&mut map, "tool_call_id", "tool_use_id");
    rename(&mut map, "tool_output", "tool_response");
    rename(&mut map, "agent_name", "agent_type");
    if map.get("hook_event_name").and_then(Value::as_str) == Some("SubagentStop") {
        rename(&mut map, "response", "last_assistant_message");
    }
    HookInput::from_map(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn claude_payloads_are_unchanged() {
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash",
            "tool_input":{"command":"ls"},"tool_response":{"stdout":"a"},"tool_use_id":"toolu_1"}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUse"));
        assert_eq!(i.agent_event.as_deref(), Some("PostToolUse"));
        assert_eq!(i.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(i.tool_response, Some(json!({"stdout":"a"})));
    }

    #[test]
    fn kimi_spellings() {
        let i = dec(
            json!({"hook_event_name":"PostToolUse","session_id":"s","cwd":"/p",
            "tool_name":"Shell","tool_input":{"command":"ls"},"tool_call_id":"c1","tool_output":"a"}),
        );
        assert_eq!(i.tool_use_id.as_deref(), Some("c1"));
        assert_eq!(i.tool_response, Some(json!("a")));
        let s = dec(
            json!({"hook_event_name":"SubagentStop","session_id":"s","agent_name":"coder","response":"done"}),
        );
        assert_eq!(s.agent_type.as_deref(), Some("coder"));
        assert_eq!(s.last_assistant_message.as_deref(), Some("done"));
    }
}
