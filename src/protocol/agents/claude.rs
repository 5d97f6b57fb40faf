//! Claude Code's format, and the clients that copy it: Factory Droid and CodeBuddy (run in
//! their real clients: tests/e2e/factory-FINDINGS.md, codebuddy-FINDINGS.md) and Qoder
//! (Claude-format settings files; docs/agents-survey.md, tests/golden/agents/). The neutral
//! input *is* Claude Code's payload, so decoding is [`HookInput::from_map`] plus the few
//! spellings the copies use for the same fields ([`decode_fields`], which Kimi CLI's adapter
//! shares; [`for_client`] for what one client names its own way); the answer is
//! [`crate::protocol::Answer::encode`].

use super::{Agent, Wire, mark_failed, neutral_event, neutral_tool, outcome, rename};
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

/// What one client of the format sends differently: its tool names, and a shell command's
/// failure reported in the post-tool event (CodeBuddy's `tool_response.exitCode`,
/// tests/e2e/codebuddy-FINDINGS.md §6; Claude Code itself sends PostToolUseFailure).
pub fn for_client(agent: Agent, input: &mut HookInput) {
    if agent == Agent::Factory {
        neutral_tool(input, super::factory::TOOLS);
    }
    if agent != Agent::Claude
        && input.hook_event_name.as_deref() == Some("PostToolUse")
        && input.tool_name.as_deref() == Some("Bash")
        && let Some(error) = input.tool_response.as_ref().and_then(outcome::failure)
    {
        mark_failed(input, error);
    }
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

    #[test]
    fn clients_tool_names_and_failures() {
        let mut droid = dec(json!({"hook_event_name":"PreToolUse","session_id":"s",
            "tool_name":"Execute","tool_input":{"command":"ls","summary":"list","riskLevel":"low"}}));
        for_client(Agent::Factory, &mut droid);
        assert_eq!(droid.tool_name.as_deref(), Some("Bash"));
        assert_eq!(droid.agent_tool.as_deref(), Some("Execute"));
        let post = json!({"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash",
            "tool_input":{"command":"ls /x"},
            "tool_response":{"exitCode":2,"is_error":true,"error":"ls: cannot access '/x'"}});
        let mut cb = dec(post.clone());
        for_client(Agent::CodeBuddy, &mut cb);
        assert_eq!(cb.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(
            cb.error.as_deref(),
            Some("Exit code 2\nls: cannot access '/x'")
        );
        // Claude Code reports its failures itself; its post-tool event is left as it came.
        let mut cc = dec(post);
        for_client(Agent::Claude, &mut cc);
        assert_eq!(cc.hook_event_name.as_deref(), Some("PostToolUse"));
        let mut execute = dec(json!({"hook_event_name":"PreToolUse","session_id":"s",
            "tool_name":"Execute","tool_input":{"command":"ls"}}));
        for_client(Agent::Qoder, &mut execute);
        assert_eq!(
            execute.tool_name.as_deref(),
            Some("Execute"),
            "Droid's name only"
        );
    }
}
