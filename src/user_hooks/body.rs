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
    input.payload_into(&mut m);
    // the flags as the decoder read them, under their snake_case names, whatever the spelling
    for (k, on) in [
        ("is_interrupt", input.is_interrupt),
        ("stop_hook_active", input.stop_hook_active),
        ("user_requested", input.user_requested),
    ] {
        if on {
            m.insert(k.into(), json!(true));
        }
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
