//! OpenCode and Kilo Code, through our plugin (`extensions/opencode/omc-hooks.js`; what the
//! pinned OpenCode 1.18.33 and Kilo Code 7.7.9 were seen to do: tests/e2e/opencode-FINDINGS.md).
//!
//! The plugin passes each event as a hook payload shaped like Claude Code's: the host's own
//! event name in `hook_event_name` (`session.idle`, `tool.execute.after`, … — the rows of
//! `table.rs`), `session_id` (`ses_…`), `cwd` (the plugin's `directory`), `prompt`,
//! `tool_name` / `tool_input` / `tool_use_id` (the call id) and, after a tool,
//! `tool_response: {output, title, exit}` with the shell's exit code from `metadata.exit`, plus
//! `omc_plugin` (the agent it was installed for). A tool that threw arrives as the failure
//! event with `error`; the end of a turn (`session.idle`) carries `stop_hook_active` (the
//! plugin sent the prompt that led to it) and the name and message of a `session.error` seen
//! since the last prompt. The answer is [`super::plugin`]'s.

use super::plugin::{add_neutral_fields, to_native_fields};
use super::{Wire, mark_failed, neutral_event, neutral_tool, outcome};
use crate::protocol::{Answer, HookInput};
use serde_json::{Map, Value};

/// OpenCode's tools that do what a Claude Code tool does (their fields below), so that a
/// capability, a user hook's or an export sink's `matcher = "Bash"` means the shell here too.
const TOOLS: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("read", "Read"),
    ("write", "Write"),
    ("edit", "Edit"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("skill", "Skill"),
    ("task", "Task"),
    ("todowrite", "TodoWrite"),
    ("webfetch", "WebFetch"),
];

/// OpenCode's camelCase argument names and Claude Code's for the same thing.
const FIELDS: &[(&str, &str)] = &[
    ("filePath", "file_path"),
    ("oldString", "old_string"),
    ("newString", "new_string"),
    ("replaceAll", "replace_all"),
    // the skill tool's `name`: the skill guard reads `skill`
    ("name", "skill"),
];

/// Decodes a payload of our OpenCode plugin.
pub fn decode(map: Map<String, Value>) -> HookInput {
    let error_name = map
        .get("error_name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut input = HookInput::from_map(map);
    neutral_event(&mut input, Wire::OpenCode);
    if input.tool_name.as_deref() == Some("skill") {
        if let Some(args) = input.tool_input.as_mut() {
            add_neutral_fields(args, &FIELDS[4..]);
        }
    } else if let Some(args) = input.tool_input.as_mut() {
        add_neutral_fields(args, &FIELDS[..4]);
    }
    neutral_tool(&mut input, TOOLS);
    match input.hook_event_name.as_deref() {
        Some("PostToolUse") => {
            let failed = input.tool_response.as_ref().and_then(|r| {
                let code = r.get("exit")?.as_i64()?;
                let output = r.get("output").and_then(Value::as_str).unwrap_or("");
                outcome::from_exit(code, output)
            });
            if let Some(error) = failed {
                mark_failed(&mut input, error);
            }
        }
        Some("Stop") => {
            if let Some(name) = error_name {
                input.stop_reason = Some(stop_reason(&name, input.stop_reason.take()));
            }
        }
        Some("SessionStart") => {
            input.source.get_or_insert_with(|| "startup".to_string());
        }
        _ => {}
    }
    input
}

/// A `session.error`'s name (and message, sent as `stop_reason`) in the words the stop guards
/// read: OpenCode's `MessageAbortedError` is the person pressing Esc, `ProviderAuthError` a
/// refused key, `MessageOutputLengthError` an answer cut at its token limit; an `APIError`'s
/// message names its cause (rate limit, overload).
fn stop_reason(name: &str, message: Option<String>) -> String {
    let known = match name {
        "MessageAbortedError" => Some("aborted"),
        "ProviderAuthError" => Some("authentication"),
        "MessageOutputLengthError" => Some("max_tokens"),
        _ => None,
    };
    match (known, message) {
        (Some(k), _) => k.to_string(),
        (None, Some(m)) => format!("{name}: {m}"),
        (None, None) => name.to_string(),
    }
}

/// Encodes an answer for an OpenCode event (see [`super::plugin`]).
pub fn encode(answer: &Answer, event: &str) -> Option<Value> {
    let neutral = super::table::neutral(Wire::OpenCode, event)?;
    super::plugin::encode(answer, neutral, |mut v| {
        to_native_fields(&mut v, FIELDS);
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: Value) -> HookInput {
        decode(v.as_object().unwrap().clone())
    }

    #[test]
    fn events_and_tools_in_neutral_terms() {
        let i = dec(
            json!({"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/p",
            "omc_plugin":"opencode","tool_name":"edit","tool_use_id":"call_1",
            "tool_input":{"filePath":"/p/a.rs","oldString":"a","newString":"b"}}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("PreToolUse"));
        assert_eq!(i.agent_event.as_deref(), Some("tool.execute.before"));
        assert_eq!(i.tool_name.as_deref(), Some("Edit"));
        assert_eq!(i.tool_as_named(), Some("edit"));
        assert_eq!(i.tool_input_str("file_path"), Some("/p/a.rs"));
        assert_eq!(i.tool_input_str("old_string"), Some("a"));
        assert_eq!(i.tool_use_id.as_deref(), Some("call_1"));
        let s = dec(
            json!({"hook_event_name":"tool.execute.before","session_id":"ses_1",
            "tool_name":"skill","tool_input":{"name":"plan"}}),
        );
        assert_eq!(s.tool_name.as_deref(), Some("Skill"));
        assert_eq!(s.tool_input_str("skill"), Some("plan"));
        let start = dec(json!({"hook_event_name":"session.created","session_id":"ses_1"}));
        assert_eq!(start.hook_event_name.as_deref(), Some("SessionStart"));
        assert_eq!(start.source.as_deref(), Some("startup"));
        let compact = dec(
            json!({"hook_event_name":"session.compacted","session_id":"ses_1","source":"compact"}),
        );
        assert_eq!(compact.source.as_deref(), Some("compact"));
    }

    #[test]
    fn a_non_zero_exit_is_a_failure() {
        let base = json!({"hook_event_name":"tool.execute.after","session_id":"ses_1",
            "tool_name":"bash","tool_input":{"command":"make"}});
        let mut ok = base.clone();
        ok["tool_response"] = json!({"output":"fine\n","title":"make","exit":0});
        assert_eq!(dec(ok).hook_event_name.as_deref(), Some("PostToolUse"));
        let mut bad = base;
        bad["tool_response"] = json!({"output":"make: *** no rule\n","title":"make","exit":2});
        let i = dec(bad);
        assert_eq!(i.hook_event_name.as_deref(), Some("PostToolUseFailure"));
        assert_eq!(i.agent_event.as_deref(), Some("tool.execute.after"));
        assert_eq!(i.error.as_deref(), Some("Exit code 2\nmake: *** no rule"));
        assert_eq!(i.tool_name.as_deref(), Some("Bash"));
        let thrown = dec(
            json!({"hook_event_name":"message.part.updated","session_id":"ses_1",
            "tool_name":"read","tool_input":{"filePath":"/nope"},"error":"File not found: /nope"}),
        );
        assert_eq!(
            thrown.hook_event_name.as_deref(),
            Some("PostToolUseFailure")
        );
        assert_eq!(thrown.error.as_deref(), Some("File not found: /nope"));
    }

    #[test]
    fn the_end_of_a_turn_and_its_error() {
        let i = dec(
            json!({"hook_event_name":"session.idle","session_id":"ses_1",
            "stop_hook_active":true}),
        );
        assert_eq!(i.hook_event_name.as_deref(), Some("Stop"));
        assert!(i.stop_hook_active);
        assert_eq!(i.stop_reason, None);
        let aborted = dec(
            json!({"hook_event_name":"session.idle","session_id":"ses_1",
            "error_name":"MessageAbortedError","stop_reason":"Aborted"}),
        );
        assert_eq!(aborted.stop_reason.as_deref(), Some("aborted"));
        let api = dec(
            json!({"hook_event_name":"session.idle","session_id":"ses_1",
            "error_name":"APIError","stop_reason":"Rate limit exceeded (429)"}),
        );
        assert_eq!(
            api.stop_reason.as_deref(),
            Some("APIError: Rate limit exceeded (429)")
        );
    }

    #[test]
    fn answers_in_the_plugins_terms() {
        assert_eq!(
            encode(&Answer::block("go on"), "session.idle").unwrap(),
            json!({"continue": "go on"})
        );
        assert_eq!(
            encode(&Answer::context("ctx"), "chat.message").unwrap(),
            json!({"context": "ctx"})
        );
        assert_eq!(
            encode(&Answer::context("ctx"), "tool.execute.before"),
            None,
            "no context before a call"
        );
        let rewrite = Answer {
            updated_input: Some(json!({"file_path":"/b","filePath":"/a","content":"x"})),
            ..Answer::default()
        };
        assert_eq!(
            encode(&rewrite, "tool.execute.before").unwrap(),
            json!({"tool_input": {"filePath":"/b","content":"x"}})
        );
        assert_eq!(encode(&Answer::context("x"), "no.such.event"), None);
    }
}
