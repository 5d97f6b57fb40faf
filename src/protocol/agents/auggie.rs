//! Augment's Auggie CLI (its hook runner and agent loop in the pinned `@augmentcode/auggie`
//! 0.36.0 bundle, `augment.mjs`: docs/agents-survey.md; no client runs here — it talks only to
//! an Augment tenant's own protocol — so the golden cases follow that code).
//!
//! Hooks are Claude-Code-like entries in `.augment/settings.json` (and `settings.local.json`,
//! `~/.augment/settings.json`) on seven events: `PreToolUse`, `PostToolUse`, `Stop`,
//! `SessionStart`, `SessionEnd`, `Notification`, `PromptSubmit`. Payloads carry
//! `hook_event_name`, `conversation_id` (the session) and `workspace_roots` (the project), and
//! per event `tool_name`, `tool_input`, `tool_output`, `tool_error` (the tool's text when it
//! failed, else null), `user_prompt`, `agent_stop_cause` and `_exchange` (the turn's exchange:
//! `exchange.response_text` is the model's last message).
//!
//! Answers are parsed Claude Code's way with one difference — a Stop block is
//! `hookSpecificOutput.decision`/`reason`, not top level — and an output that does not fit the
//! schema (a `hookSpecificOutput` for PromptSubmit, say) is ignored whole. What the loop uses:
//! PreToolUse (awaited) refuses a call with `permissionDecision: "deny"` (the model reads the
//! reason) or rewrites it with `updatedInput`; PostToolUse (awaited) context is appended to the
//! tool's result as `[Hook Context] …`; `systemMessage` is shown to the person. The Stop hook is
//! awaited but its answer is not read by the loop, and SessionStart and PromptSubmit are fired
//! and not awaited: no continuation, no context at start or on a prompt.
//!
//! Its shell is `launch-process` (`{command, cwd, wait, …}`): `Bash`. A command that exits
//! non-zero is a tool error whose text carries `<return-code> N </return-code>`.

use super::{Wire, cwd_from_workspace_roots, mark_failed, neutral_event, neutral_tool, rename};
use crate::protocol::output::{MAX_CONTEXT_CHARS, close_claude_shape, truncate_chars};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value, json};

/// Auggie's tools that do a Claude Code tool's job with the fields the capabilities read.
const TOOLS: &[(&str, &str)] = &[("launch-process", "Bash")];

/// Auggie's own event names (its `hooks` settings key accepts exactly these).
pub const EVENTS: [&str; 7] = [
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PromptSubmit",
];

/// Characters of a failed tool's text kept in the failure.
const EXCERPT_CHARS: usize = 400;

/// Whether a payload is Auggie's: `conversation_id` (as Cursor's) with one of Auggie's own,
/// PascalCase, event names (Cursor's are camelCase).
pub fn looks_like(map: &Map<String, Value>) -> bool {
    map.get("conversation_id").is_some_and(Value::is_string)
        && map
            .get("hook_event_name")
            .and_then(Value::as_str)
            .is_some_and(|e| EVENTS.contains(&e))
}

/// Decodes an Auggie payload.
pub fn decode(mut map: Map<String, Value>) -> HookInput {
    rename(&mut map, "conversation_id", "session_id");
    rename(&mut map, "user_prompt", "prompt");
    rename(&mut map, "tool_output", "tool_response");
    cwd_from_workspace_roots(&mut map);
    let last = map
        .get("_exchange")
        .and_then(|x| x.pointer("/exchange/response_text"))
        .filter(|t| t.is_string())
        .cloned();
    if let Some(t) = last {
        map.entry("last_assistant_message").or_insert(t);
    }
    // `interrupted`: the person stopped it; `error`: the turn failed. No continuation fixes
    // either (the guards read `stop_reason`).
    if let Some(cause @ ("interrupted" | "error")) =
        map.get("agent_stop_cause").and_then(Value::as_str)
    {
        let cause = cause.to_string();
        map.entry("stop_reason").or_insert(json!(cause));
    }
    let tool_error = map
        .get("tool_error")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(failure_text);
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::Auggie);
    neutral_tool(&mut input, TOOLS);
    if input.hook_event_name.as_deref() == Some("PostToolUse")
        && let Some(error) = tool_error
    {
        mark_failed(&mut input, error);
    }
    input
}

/// A failed tool's text as a failure: `Exit code N` first when it names its return code.
fn failure_text(text: &str) -> String {
    let code = text
        .split_once("<return-code>")
        .and_then(|(_, rest)| rest.split_once("</return-code>"))
        .and_then(|(n, _)| n.trim().parse::<i64>().ok());
    let output = text
        .split_once("<output>")
        .map(|(_, rest)| {
            rest.rsplit_once("</output>")
                .map_or(rest, |(o, _)| o)
                .trim()
        })
        .unwrap_or(text);
    let n = output.chars().count();
    let tail: String = if n > EXCERPT_CHARS {
        format!(
            "…{}",
            output.chars().skip(n - EXCERPT_CHARS).collect::<String>()
        )
    } else {
        output.to_string()
    };
    match code {
        Some(c) if tail.is_empty() => format!("Exit code {c}"),
        Some(c) => format!("Exit code {c}\n{tail}"),
        None => tail,
    }
}

/// Encodes an answer for an Auggie event, in the shapes its output schema accepts.
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let out = Map::new();
    let mut specific = Map::new();
    match event {
        "PreToolUse" => {
            if let Some(reason) = &answer.deny {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            } else if let Some(input) = &answer.updated_input {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        "PostToolUse" | "SessionStart" => {
            if let Some(text) = &answer.context {
                specific.insert(
                    "additionalContext".into(),
                    json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
                );
            }
        }
        "Stop" => {
            if let Some(reason) = &answer.block {
                specific.insert("decision".into(), json!("block"));
                specific.insert("reason".into(), json!(reason));
            }
        }
        _ => {}
    }
    let system_message = answer
        .system_message
        .as_ref()
        .filter(|_| event != "SessionEnd");
    close_claude_shape(out, specific, event, system_message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    /// A PostToolUse as the 0.36.0 bundle builds it (`B7n`), for a failing `launch-process`.
    fn failed() -> Value {
        json!({"hook_event_name":"PostToolUse","conversation_id":"c-1","workspace_roots":["/p"],
            "tool_name":"launch-process","tool_input":{"command":"npm test","wait":true,"max_wait_seconds":60},
            "tool_output":"Here are the results from executing the command. <return-code> 1 </return-code> <output> npm ERR! missing script: test </output>",
            "tool_error":"Here are the results from executing the command. <return-code> 1 </return-code> <output> npm ERR! missing script: test </output>",
            "is_mcp_tool":false})
    }

    #[test]
    fn session_project_and_the_shell() {
        let i = dec(failed());
        assert_eq!(i.session_id.as_deref(), Some("c-1"));
        assert_eq!(i.cwd.as_deref(), Some("/p"));
        assert_eq!(i.tool_name.as_deref(), Some("Bash"));
        assert_eq!(i.tool_as_named(), Some("launch-process"));
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(
            i.error.as_deref(),
            Some("Exit code 1\nnpm ERR! missing script: test")
        );
        let mut ok = failed();
        ok["tool_error"] = Value::Null;
        assert_eq!(dec(ok).hook_event_name.as_deref(), Some("PostToolUse"));
        let p = dec(
            json!({"hook_event_name":"PromptSubmit","conversation_id":"c-1",
            "workspace_roots":["/p"],"user_prompt":"ralph go"}),
        );
        assert_eq!(p.hook_event_name.as_deref(), Some("UserPromptSubmit"));
        assert_eq!(p.prompt.as_deref(), Some("ralph go"));
        let s = dec(
            json!({"hook_event_name":"Stop","conversation_id":"c-1","workspace_roots":["/p"],
            "agent_stop_cause":"interrupted",
            "_exchange":{"exchange":{"request_message":"go","response_text":"done <omc-complete/>"},"changedFiles":[]}}),
        );
        assert_eq!(
            s.last_assistant_message.as_deref(),
            Some("done <omc-complete/>")
        );
        assert_eq!(s.stop_reason.as_deref(), Some("interrupted"));
        assert!(looks_like(failed().as_object().unwrap()));
        assert!(!looks_like(
            json!({"conversation_id":"c","hook_event_name":"stop"})
                .as_object()
                .unwrap()
        ));
    }

    #[test]
    fn answers_in_the_shapes_its_schema_takes() {
        assert_eq!(
            encode(&Answer::block("go on"), "Stop"),
            Some(
                json!({"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":"go on"}})
            )
        );
        assert_eq!(
            encode(&Answer::context("retry"), "PostToolUse"),
            Some(
                json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"retry"}})
            )
        );
        let deny = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        assert_eq!(
            encode(&deny, "PreToolUse"),
            Some(
                json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}})
            )
        );
        // Its schema has no PromptSubmit output: anything but a note would void the answer.
        assert_eq!(encode(&Answer::context("x"), "PromptSubmit"), None);
        assert_eq!(
            encode(&Answer::system_message("note"), "PromptSubmit"),
            Some(json!({"systemMessage":"note"}))
        );
        assert_eq!(encode(&Answer::context("x"), "PreToolUse"), None);
    }
}
