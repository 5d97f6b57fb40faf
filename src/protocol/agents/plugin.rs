//! The answer our TypeScript plugins apply (`extensions/opencode/` for OpenCode and Kilo Code,
//! `extensions/pi/` for Pi): one small object, the same for both, so each plugin only says
//! how its host takes each part and decides nothing itself.
//!
//! ```json
//! {"context": "…", "continue": "…", "deny": "…", "tool_input": {…}, "message": "…"}
//! ```
//!
//! * `context`: text for the model — on a prompt, beside it; after a tool, appended to its
//!   result; at a session's start (or after a compaction), held for the next prompt.
//! * `continue`: the session must go on: the plugin sends this text as the next user prompt
//!   (OpenCode `session.promptAsync`, Pi a follow-up user message).
//! * `deny`: refuse the call (OpenCode throws, Pi answers `block`) or the prompt.
//! * `tool_input`: the call's arguments to run instead (a user hook's rewrite), in the host's
//!   own field names.
//! * `message`: a note for the person (a toast or a notification).
//!
//! Which part an event may carry is decided here, by the neutral event of the hook that fired,
//! so the plugin applies whatever it receives.

use crate::protocol::Answer;
use crate::protocol::output::{MAX_CONTEXT_CHARS, truncate_chars};
use serde_json::{Map, Value, json};

/// Encodes `answer` for a plugin event whose hook serves the neutral event `neutral`;
/// `native_input` turns a rewritten tool input back into the host's field names.
pub fn encode(answer: &Answer, neutral: &str, native_input: fn(Value) -> Value) -> Option<Value> {
    let mut out = Map::new();
    let takes_context = matches!(
        neutral,
        "SessionStart" | "UserPromptSubmit" | "PostToolUse" | "PostToolUseFailure"
    );
    if let (true, Some(text)) = (takes_context, &answer.context) {
        out.insert(
            "context".into(),
            json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
        );
    }
    if let (true, Some(reason)) = (neutral == "Stop", &answer.block) {
        out.insert("continue".into(), json!(reason));
    }
    let refusable = matches!(neutral, "PreToolUse" | "UserPromptSubmit");
    if let (true, Some(reason)) = (refusable, &answer.deny) {
        out.insert("deny".into(), json!(reason));
    } else if let (true, Some(input)) = (neutral == "PreToolUse", &answer.updated_input) {
        out.insert("tool_input".into(), native_input(input.clone()));
    }
    if let (true, Some(text)) = (neutral != "SessionEnd", &answer.system_message) {
        out.insert("message".into(), json!(text));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Adds the neutral spelling of each `(native, neutral)` field present in `args` (an object),
/// so the capabilities read the host's `filePath` as Claude Code's `file_path`; the host's own
/// keys stay.
pub(crate) fn add_neutral_fields(args: &mut Value, fields: &[(&str, &str)]) {
    let Value::Object(o) = args else { return };
    for (native, neutral) in fields {
        if let Some(v) = o.get(*native).cloned() {
            o.entry(neutral.to_string()).or_insert(v);
        }
    }
}

/// The reverse of [`add_neutral_fields`] for an input a user hook rewrote: each neutral key
/// becomes the host's (its value wins over a stale native one) and is removed.
pub(crate) fn to_native_fields(args: &mut Value, fields: &[(&str, &str)]) {
    let Value::Object(o) = args else { return };
    for (native, neutral) in fields {
        if let Some(v) = o.remove(*neutral) {
            o.insert(native.to_string(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(v: Value) -> Value {
        v
    }

    #[test]
    fn each_event_carries_only_what_its_host_can_apply() {
        let all = Answer {
            context: Some("ctx".into()),
            block: Some("go on".into()),
            deny: Some("no".into()),
            updated_input: Some(json!({"command": "ls"})),
            system_message: Some("note".into()),
            permission: None,
        };
        assert_eq!(
            encode(&all, "Stop", same).unwrap(),
            json!({"continue": "go on", "message": "note"})
        );
        assert_eq!(
            encode(&all, "PreToolUse", same).unwrap(),
            json!({"deny": "no", "message": "note"})
        );
        assert_eq!(
            encode(&all, "UserPromptSubmit", same).unwrap(),
            json!({"context": "ctx", "deny": "no", "message": "note"})
        );
        assert_eq!(
            encode(&all, "PostToolUseFailure", same).unwrap(),
            json!({"context": "ctx", "message": "note"})
        );
        assert_eq!(encode(&all, "SessionEnd", same), None);
        let rewrite = Answer {
            updated_input: Some(json!({"file_path": "/a"})),
            ..Answer::default()
        };
        let native = |mut v: Value| {
            to_native_fields(&mut v, &[("filePath", "file_path")]);
            v
        };
        assert_eq!(
            encode(&rewrite, "PreToolUse", native).unwrap(),
            json!({"tool_input": {"filePath": "/a"}})
        );
        assert_eq!(encode(&Answer::default(), "Stop", same), None);
    }

    #[test]
    fn fields_go_both_ways() {
        let fields = [("filePath", "file_path"), ("oldString", "old_string")];
        let mut v = json!({"filePath": "/a", "oldString": "x", "other": 1});
        add_neutral_fields(&mut v, &fields);
        assert_eq!(v["file_path"], "/a");
        assert_eq!(v["filePath"], "/a");
        v["file_path"] = json!("/b");
        to_native_fields(&mut v, &fields);
        assert_eq!(v, json!({"filePath": "/b", "oldString": "x", "other": 1}));
        let mut s = json!("not an object");
        add_neutral_fields(&mut s, &fields);
        assert_eq!(s, json!("not an object"));
    }
}
