//! Pi, through our extension (`extensions/pi/omc-hooks.ts`; what the pinned
//! `@mariozechner/pi-coding-agent` 0.73.1 was seen to do: tests/e2e/pi-FINDINGS.md).
//!
//! The extension passes each event as a hook payload shaped like Claude Code's: Pi's own event
//! name in `hook_event_name` (`input`, `tool_call`, `agent_end`, … — the rows of `table.rs`),
//! `session_id` (Pi's session id), `cwd`, `prompt` (and `input_source`: `interactive`, `rpc`,
//! or `extension` for a message an extension sent), `tool_name` / `tool_input` / `tool_use_id`,
//! after a tool `tool_response: {content, is_error}` (a failed command is an error whose text
//! ends `Command exited with code N`), when the agent's run ends (`agent_end`) `stop_hook_active`,
//! `stop_reason` (the message's `stopReason`) and `last_assistant_message`; `source` is
//! `session_start`'s reason. The answer is [`super::plugin`]'s.

use super::plugin::{add_neutral_fields, to_native_fields};
use super::{Wire, mark_failed, neutral_event, neutral_tool, outcome};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value};

/// Pi's tools in Claude Code's names: its `edit` takes a list of replacements, like
/// Claude Code's MultiEdit.
const TOOLS: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "MultiEdit"),
];

/// Pi's argument names and Claude Code's for the same thing (`edit`'s replacements have
/// `oldText` / `newText`).
const FIELDS: &[(&str, &str)] = &[("path", "file_path")];
const EDIT_FIELDS: &[(&str, &str)] = &[("oldText", "old_string"), ("newText", "new_string")];

/// Decodes a payload of our Pi extension.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Pi);
    if let Some(args) = input.tool_input.as_mut() {
        add_neutral_fields(args, FIELDS);
        if let Some(Value::Array(edits)) = args.get_mut("edits") {
            for e in edits {
                add_neutral_fields(e, EDIT_FIELDS);
            }
        }
    }
    neutral_tool(&mut input, TOOLS);
    match input.hook_event_name.as_deref() {
        Some("PostToolUse") => {
            let resp = input.tool_response.as_ref();
            let failed = resp.and_then(|r| r.get("is_error")?.as_bool()) == Some(true);
            if failed {
                let text = resp
                    .and_then(|r| r.get("content")?.as_str())
                    .unwrap_or("")
                    .trim();
                let error = outcome::from_text(text).unwrap_or_else(|| match text {
                    "" => "the tool reported an error".to_string(),
                    t => t.chars().take(500).collect(),
                });
                mark_failed(&mut input, error);
            }
        }
        Some("Stop") => {
            // `stop` and `toolUse` are ordinary ends; `aborted` (Esc), `error` and `length`
            // are read by the stop guards (an error's message is `last_assistant_message`).
            input.stop_reason = match input.stop_reason.take().as_deref() {
                None | Some("stop" | "toolUse") => None,
                Some("length") => Some("max_tokens".to_string()),
                Some(other) => Some(other.to_string()),
            };
        }
        Some("SessionStart") => {
            // Pi's reasons: startup, reload, new, resume, fork (and our `compact`).
            input.source = Some(
                match input.source.as_deref() {
                    Some("new") => "clear",
                    Some("resume" | "reload") => "resume",
                    Some("compact") => "compact",
                    _ => "startup",
                }
                .to_string(),
            );
        }
        _ => {}
    }
    input
}

/// A rewritten tool input in Pi's field names.
fn native_input(mut v: Value) -> Value {
    to_native_fields(&mut v, FIELDS);
    if let Some(Value::Array(edits)) = v.get_mut("edits") {
        for e in edits {
            to_native_fields(e, EDIT_FIELDS);
        }
    }
    v
}

/// Encodes an answer for a Pi event (see [`super::plugin`]).
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let neutral = super::table::neutral(Wire::Pi, event)?;
    super::plugin::encode(answer, neutral, native_input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn prompts_tools_and_sessions() {
        let p = dec(
            json!({"hook_event_name":"input","session_id":"01a2","cwd":"/p",
            "omc_plugin":"pi","prompt":"ralph fix it","input_source":"interactive"}),
        );
        assert_eq!(p.hook_event_name.as_deref(), Some("UserPromptSubmit"));
        assert_eq!(p.prompt.as_deref(), Some("ralph fix it"));
        let e = dec(json!({"hook_event_name":"tool_call","session_id":"01a2",
            "tool_name":"edit","tool_use_id":"call_4",
            "tool_input":{"path":"a.rs","edits":[{"oldText":"a","newText":"b\nc"}]}}));
        assert_eq!(e.hook_event_name.as_deref(), Some("PreToolUse"));
        assert_eq!(e.tool_name.as_deref(), Some("MultiEdit"));
        assert_eq!(e.tool_as_named(), Some("edit"));
        assert_eq!(e.tool_input_str("file_path"), Some("a.rs"));
        assert_eq!(
            e.tool_input.as_ref().unwrap()["edits"][0]["new_string"],
            "b\nc"
        );
        for (reason, source) in [
            ("startup", "startup"),
            ("new", "clear"),
            ("resume", "resume"),
            ("fork", "startup"),
            ("compact", "compact"),
        ] {
            let s = dec(
                json!({"hook_event_name":"session_start","session_id":"01a2",
                "source":reason}),
            );
            assert_eq!(s.source.as_deref(), Some(source), "{reason}");
        }
    }

    #[test]
    fn an_error_result_is_a_failure() {
        let base = json!({"hook_event_name":"tool_result","session_id":"01a2",
            "tool_name":"bash","tool_input":{"command":"make"}});
        let mut ok = base.clone();
        ok["tool_response"] = json!({"content":"fine","is_error":false});
        assert_eq!(dec(ok).hook_event_name.as_deref(), Some("PostToolUse"));
        let mut bad = base.clone();
        bad["tool_response"] = json!({"content":"make: nope\n\n\nCommand exited with code 2",
            "is_error":true});
        let i = dec(bad);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert!(
            i.error
                .as_deref()
                .unwrap()
                .starts_with("Exit code 2\nmake: nope")
        );
        let mut thrown = base;
        thrown["tool_name"] = json!("read");
        thrown["tool_response"] = json!({"content":"ENOENT: no such file","is_error":true});
        assert_eq!(dec(thrown).error.as_deref(), Some("ENOENT: no such file"));
    }

    #[test]
    fn stop_reasons() {
        let stop = |r: Value| {
            dec(json!({"hook_event_name":"agent_end","session_id":"01a2","stop_reason":r}))
                .stop_reason
        };
        assert_eq!(stop(json!("stop")), None);
        assert_eq!(stop(json!("aborted")).as_deref(), Some("aborted"));
        assert_eq!(stop(json!("length")).as_deref(), Some("max_tokens"));
        assert_eq!(stop(Value::Null), None);
    }

    #[test]
    fn answers_in_the_extensions_terms() {
        assert_eq!(
            encode(&Answer::block("go on"), "agent_end").unwrap(),
            json!({"continue": "go on"})
        );
        let rewrite = Answer {
            updated_input: Some(
                json!({"file_path":"b.rs","edits":[{"old_string":"x","new_string":"y"}]}),
            ),
            ..Answer::default()
        };
        assert_eq!(
            encode(&rewrite, "tool_call").unwrap(),
            json!({"tool_input": {"path":"b.rs","edits":[{"oldText":"x","newText":"y"}]}})
        );
    }
}
