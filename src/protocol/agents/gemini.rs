//! Gemini CLI (what the pinned 0.61.0 was seen to do: tests/e2e/gemini-FINDINGS.md; upstream:
//! docs/hooks/reference.md in google-gemini/gemini-cli).
//!
//! Its own event names (BeforeAgent, AfterAgent, BeforeTool, AfterTool, PreCompress), a
//! `timestamp` on every payload, `prompt_response` for the turn's answer (cumulative across
//! continuations), tool output as `{llmContent, returnDisplay, error?}`, and no failure event:
//! a failed command is read from `error` or the `Exit Code: N` line. Answers: `decision:
//! "deny"` (not Claude's `permissionDecision`, which Gemini ignores) on BeforeTool and
//! AfterAgent; context only through `hookSpecificOutput.additionalContext` (plain stdout is
//! shown to the person, not the model). PreCompress fires before every model turn whether or
//! not anything is compacted, so it is marked [`HookInput::compaction_uncertain`].
//! SessionStart's `additionalContext` comes back at the head of the session's first prompt:
//! BeforeAgent's (and AfterAgent's) `prompt` is `<hook_context>…</hook_context>\n\n<what the
//! user typed>` (gemini-FINDINGS.md §7); the wrapper is removed here, so the prompt
//! capabilities see the user's words only (a whole-prompt word like `omc resume` included).

use super::{Wire, mark_failed, neutral_event, neutral_tool, outcome, rename};
use crate::protocol::output::{MAX_CONTEXT_CHARS, close_claude_shape, truncate_chars};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value, json};

/// Gemini's tools that do what a Claude Code tool does, with the input fields the capabilities
/// read under the same names (`run_shell_command`'s `command`), so that a capability, a user
/// hook's or an export sink's `matcher = "Bash"` means the shell in every agent.
const TOOLS: &[(&str, &str)] = &[
    ("activate_skill", "Skill"),
    ("read_file", "Read"),
    ("replace", "Edit"),
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
];

/// Decodes a Gemini CLI payload.
pub fn decode(mut map: Map<String, Value>) -> HookInput {
    rename(&mut map, "prompt_response", "last_assistant_message");
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Gemini);
    if let Some(p) = input.prompt.as_mut() {
        let typed = without_hook_context(p);
        if typed.len() != p.len() {
            *p = typed.to_string();
        }
    }
    if input.tool_name.as_deref() == Some("activate_skill") {
        // activate_skill names its skill `name`; the skill guard reads `skill`.
        if let Some(Value::Object(args)) = input.tool_input.as_mut()
            && let Some(name) = args.get("name").cloned()
        {
            args.entry("skill").or_insert(name);
        }
    }
    neutral_tool(&mut input, TOOLS);
    match input.hook_event_name.as_deref() {
        Some("PostToolUse") => {
            if let Some(error) = input.tool_response.as_ref().and_then(outcome::failure) {
                mark_failed(&mut input, error);
            }
        }
        Some("PreCompact") => input.compaction_uncertain = true,
        _ => {}
    }
    input
}

/// The prompt without the `<hook_context>…</hook_context>` blocks Gemini CLI puts in front of
/// it (hook output: the client escapes `<` and `>` inside, so the first closing tag ends it).
fn without_hook_context(prompt: &str) -> &str {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    let mut rest = prompt;
    loop {
        let t = rest.trim_start();
        let Some(end) = t
            .strip_prefix(OPEN)
            .and_then(|body| body.find(CLOSE).map(|i| OPEN.len() + i + CLOSE.len()))
        else {
            break;
        };
        rest = &t[end..];
    }
    if rest.len() == prompt.len() {
        prompt
    } else {
        rest.trim_start()
    }
}

/// Encodes an answer for a Gemini CLI event.
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let mut out = Map::new();
    let refusal = match event {
        "AfterAgent" => answer.block.as_deref(),
        "BeforeTool" => answer.deny.as_deref(),
        // A user hook refused the prompt: `deny` drops it.
        "BeforeAgent" => answer.deny.as_deref(),
        "SessionEnd" => return None,
        _ => None,
    };
    if let Some(reason) = refusal {
        out.insert("decision".into(), json!("deny"));
        out.insert("reason".into(), json!(reason));
    }
    let mut specific = Map::new();
    if let (true, Some(text)) = (
        matches!(event, "SessionStart" | "BeforeAgent" | "AfterTool"),
        &answer.context,
    ) {
        specific.insert(
            "additionalContext".into(),
            json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
        );
    }
    // A user hook rewrote the call: BeforeTool merges `hookSpecificOutput.tool_input`.
    if let (true, None, Some(input)) = (event == "BeforeTool", refusal, &answer.updated_input) {
        specific.insert("tool_input".into(), input.clone());
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
    fn events_map_to_the_neutral_ones() {
        for (g, n) in [
            ("BeforeAgent", "UserPromptSubmit"),
            ("AfterAgent", "Stop"),
            ("BeforeTool", "PreToolUse"),
            ("AfterTool", "PostToolUse"),
            ("PreCompress", "PreCompact"),
            ("SessionStart", "SessionStart"),
            ("SessionEnd", "SessionEnd"),
            ("BeforeModel", "BeforeModel"),
        ] {
            let i = dec(json!({ "hook_event_name": g, "session_id": "s", "timestamp": "t" }));
            assert_eq!(i.hook_event_name.as_deref(), Some(n), "{g}");
            assert_eq!(i.agent_event.as_deref(), Some(g));
        }
    }

    #[test]
    fn after_agent_reads_the_answer_and_the_loop_flag() {
        let i = dec(
            json!({"hook_event_name":"AfterAgent","session_id":"s","timestamp":"t",
            "prompt":"ralph fix it","prompt_response":"done <omc-complete/>","stop_hook_active":true}),
        );
        assert_eq!(
            i.last_assistant_message.as_deref(),
            Some("done <omc-complete/>")
        );
        assert!(i.stop_hook_active);
    }

    #[test]
    fn the_session_start_context_in_front_of_the_prompt_is_not_the_user_speaking() {
        // as the pinned 0.61.0 sends the first prompt of a session whose SessionStart answered
        let ctx = "<hook_context>[SUSPENDED RUN] A run is waiting:\n- [RALPH LOOP] iteration 2/100. \
                   Task: \"ralph fix it\"\nresumed on `omc resume &lt;mode&gt;`.</hook_context>";
        for event in ["BeforeAgent", "AfterAgent"] {
            let i = dec(
                json!({"hook_event_name":event,"session_id":"s","timestamp":"t",
                "prompt": format!("{ctx}\n\nomc resume")}),
            );
            assert_eq!(i.prompt.as_deref(), Some("omc resume"), "{event}");
        }
        let two = dec(json!({"hook_event_name":"BeforeAgent","session_id":"s",
            "prompt": format!("{ctx}\n{ctx}\n\nralph fix the parser")}));
        assert_eq!(two.prompt.as_deref(), Some("ralph fix the parser"));
        // only a leading, closed block is the client's
        for typed in [
            "explain <hook_context>x</hook_context> to me",
            "<hook_context> never closed",
            "plain prompt",
        ] {
            let i = dec(json!({"hook_event_name":"BeforeAgent","session_id":"s","prompt":typed}));
            assert_eq!(i.prompt.as_deref(), Some(typed));
        }
    }

    #[test]
    fn tools_and_failures() {
        let skill = dec(json!({"hook_event_name":"BeforeTool","session_id":"s",
            "tool_name":"activate_skill","tool_input":{"name":"plan"}}));
        assert_eq!(skill.tool_name.as_deref(), Some("Skill"));
        assert_eq!(skill.tool_input_str("skill"), Some("plan"));
        let failed = dec(
            json!({"hook_event_name":"AfterTool","session_id":"s","tool_name":"run_shell_command",
            "tool_input":{"command":"false"},
            "tool_response":{"llmContent":"<untrusted_context>\nOutput: (empty)\nExit Code: 1\n</untrusted_context>","returnDisplay":""}}),
        );
        assert_eq!(
            failed.hook_event_name.as_deref(),
            Some("PostToolUseFailure")
        );
        assert_eq!(failed.tool_name.as_deref(), Some("Bash"));
        assert_eq!(
            failed.tool_as_named(),
            Some("run_shell_command"),
            "as the model knows it"
        );
        let pc = dec(json!({"hook_event_name":"PreCompress","session_id":"s","trigger":"auto"}));
        assert!(pc.compaction_uncertain);
    }

    #[test]
    fn answers() {
        assert_eq!(
            encode(&Answer::block("go on"), "AfterAgent").unwrap(),
            json!({"decision":"deny","reason":"go on"})
        );
        let deny = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        assert_eq!(
            encode(&deny, "BeforeTool").unwrap(),
            json!({"decision":"deny","reason":"no"})
        );
        let v = encode(&Answer::context("ctx"), "BeforeAgent").unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "ctx");
        assert_eq!(encode(&Answer::block("x"), "BeforeAgent"), None);
        assert_eq!(encode(&Answer::context("x"), "PreCompress"), None);
        assert_eq!(encode(&Answer::system_message("x"), "SessionEnd"), None);
    }

    #[test]
    fn user_hook_refusals_and_rewrites() {
        let refuse = super::super::user_hook_answers::refuse();
        assert_eq!(
            encode(&refuse, "BeforeAgent").unwrap(),
            json!({"decision":"deny","reason":"not on main"})
        );
        let rewrite = super::super::user_hook_answers::rewrite();
        assert_eq!(
            encode(&rewrite, "BeforeTool").unwrap(),
            json!({"hookSpecificOutput":{"tool_input":{"command":"ls -l"},"hookEventName":"BeforeTool"}})
        );
    }
}
