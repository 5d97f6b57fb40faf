//! Qwen Code (what the pinned 0.24.4 was seen to do: tests/e2e/qwen-FINDINGS.md; upstream:
//! docs/features/hooks.md, bundled with the @qwen-code/qwen-code package).
//!
//! Claude Code's event names and output, plus a `timestamp`, `prompt_id` and a second tool id
//! (`tool_call_id`). Its quirks, handled elsewhere: UserPromptSubmit also fires with an empty
//! prompt before every model call that carries a tool result, and with the Stop reason as the
//! prompt on a continuation (see `capabilities::continuation`). A shell command that exits
//! non-zero arrives as PostToolUseFailure on 0.24.4 (qwen-FINDINGS.md §5); a PostToolUse whose
//! `llmContent` ends with a non-zero `Exit Code: N` line is read as a failure too, here, so a
//! client that reports it that way still escalates.

use super::{Wire, mark_failed, neutral_event, neutral_tool, outcome};
use crate::protocol::HookInput;
use serde_json::{Map, Value};

/// Qwen's tools that do what a Claude Code tool does, with the input fields the capabilities
/// read under the same names (`run_shell_command`'s `command`), so that a user hook's or an
/// export sink's `matcher = "Bash"` means the shell in every agent.
const TOOLS: &[(&str, &str)] = &[
    ("skill", "Skill"),
    ("edit", "Edit"),
    ("read_file", "Read"),
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
];

/// Decodes a Qwen Code payload.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Qwen);
    neutral_tool(&mut input, TOOLS);
    if input.hook_event_name.as_deref() == Some("PostToolUse")
        && let Some(error) = input.tool_response.as_ref().and_then(outcome::failure)
    {
        mark_failed(&mut input, error);
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn a_non_zero_exit_code_is_a_failure() {
        let base = json!({"hook_event_name":"PostToolUse","session_id":"s","timestamp":"t","prompt_id":"p",
            "tool_name":"run_shell_command","tool_input":{"command":"npm test"},"tool_use_id":"toolu_1","tool_call_id":"call_1"});
        let mut ok = base.clone();
        ok["tool_response"] = json!({"llmContent":"Command: npm test\nOutput: ok\nError: (none)\nExit Code: 0","returnDisplay":"ok"});
        assert_eq!(dec(ok).hook_event_name.as_deref(), Some("PostToolUse"));
        let mut bad = base;
        bad["tool_response"] = json!({"llmContent":"Command: npm test\nOutput: npm ERR!\nError: (none)\nExit Code: 1","returnDisplay":"npm ERR!"});
        let i = dec(bad);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.tool_use_id.as_deref(), Some("toolu_1"));
        assert!(i.error.unwrap().contains("npm ERR!"));
        assert_eq!(
            i.tool_name.as_deref(),
            Some("Bash"),
            "the shell, as in every agent"
        );
    }

    #[test]
    fn skill_tool_is_the_neutral_skill() {
        let i = dec(
            json!({"hook_event_name":"PreToolUse","session_id":"s","tool_name":"skill","tool_input":{"skill":"plan"}}),
        );
        assert_eq!(i.tool_name.as_deref(), Some("Skill"));
        assert_eq!(i.tool_input_str("skill"), Some("plan"));
    }
}
