//! What a hook answers, and the one place that prints it.
//!
//! Capabilities return an [`Answer`]; the dispatcher merges the answers of one event and
//! [`Answer::encode`] turns the result into Claude Code's shape for that event (contract §3).
//! Shapes an event does not accept are dropped here, so a capability cannot produce an output
//! the client would reject.

use serde_json::{Map, Value, json};
use std::io::Write;

/// Claude Code silently spills longer `additionalContext` to a file; stay under its cap.
pub const MAX_CONTEXT_CHARS: usize = 9_500;

/// A capability's answer. `Answer::default()` is the no-op.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// Text added to what the model sees (`hookSpecificOutput.additionalContext`).
    pub context: Option<String>,
    /// Stop / SubagentStop continuation: `{"decision":"block","reason":…}`.
    pub block: Option<String>,
    /// Refuses the action the event announces, with its reason: on PreToolUse the tool call
    /// (`permissionDecision: deny`), on UserPromptSubmit the prompt (`decision: block`).
    pub deny: Option<String>,
    /// PreToolUse: the tool input to run instead (`updatedInput`, a whole replacement). Sent
    /// without a permission decision, so the rewritten call still goes through the client's
    /// permission rules (Claude Code 2.1.328 re-checks it; `allow` would skip the check).
    pub updated_input: Option<Value>,
    /// A note for the person (`systemMessage`).
    pub system_message: Option<String>,
    /// PermissionRequest: the answer to the client's permission dialog. `None` leaves the
    /// dialog to the person.
    pub permission: Option<Permission>,
}

/// An answer to a permission request (`hookSpecificOutput.decision` on Claude Code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// Allow the call, with `updated_input` instead of the call's input when given, and
    /// `updated_permissions` (Claude Code's permission updates: "always allow") when given.
    Allow {
        updated_input: Option<Value>,
        updated_permissions: Option<Value>,
    },
    /// Deny it with `message`; `interrupt` also stops the agent's turn.
    Deny { message: String, interrupt: bool },
}

impl Permission {
    /// Claude Code's `decision` object; `updatedInput`, `updatedPermissions` and `interrupt`
    /// only when `rich` (Codex fails closed on them).
    pub fn decision(&self, rich: bool) -> Value {
        match self {
            Permission::Allow {
                updated_input,
                updated_permissions,
            } => {
                let mut d = Map::new();
                d.insert("behavior".into(), json!("allow"));
                if let (true, Some(input)) = (rich, updated_input) {
                    d.insert("updatedInput".into(), input.clone());
                }
                if let (true, Some(updates)) = (rich, updated_permissions) {
                    d.insert("updatedPermissions".into(), updates.clone());
                }
                Value::Object(d)
            }
            Permission::Deny { message, interrupt } => {
                let mut d = Map::new();
                d.insert("behavior".into(), json!("deny"));
                d.insert("message".into(), json!(message));
                if rich && *interrupt {
                    d.insert("interrupt".into(), json!(true));
                }
                Value::Object(d)
            }
        }
    }
}

impl Answer {
    pub fn context(text: impl Into<String>) -> Answer {
        Answer {
            context: Some(text.into()),
            ..Answer::default()
        }
    }

    pub fn block(reason: impl Into<String>) -> Answer {
        Answer {
            block: Some(reason.into()),
            ..Answer::default()
        }
    }

    pub fn system_message(text: impl Into<String>) -> Answer {
        Answer {
            system_message: Some(text.into()),
            ..Answer::default()
        }
    }

    pub fn with_system_message(mut self, text: impl Into<String>) -> Answer {
        self.system_message = Some(text.into());
        self
    }

    pub fn is_noop(&self) -> bool {
        self == &Answer::default()
    }

    /// Merges a later capability's answer into this one: texts are joined in order, the first
    /// block or deny wins.
    pub fn merge(&mut self, other: Answer) {
        join(&mut self.context, other.context, "\n\n");
        join(&mut self.system_message, other.system_message, "\n");
        if self.block.is_none() {
            self.block = other.block;
        }
        if self.deny.is_none() {
            self.deny = other.deny;
        }
        if self.updated_input.is_none() {
            self.updated_input = other.updated_input;
        }
        if self.permission.is_none() {
            self.permission = other.permission;
        }
    }

    /// The JSON object for `event`, or `None` when there is nothing the event accepts.
    pub fn encode(&self, event: &str) -> Option<Value> {
        let mut out = Map::new();
        let blockable = matches!(event, "Stop" | "SubagentStop");
        let takes_context = matches!(
            event,
            "SessionStart"
                | "UserPromptSubmit"
                | "PreToolUse"
                | "PostToolUse"
                | "PostToolUseFailure"
                | "SubagentStart"
        );
        let takes_system_message = !matches!(event, "SessionEnd");

        if let (true, Some(reason)) = (blockable, &self.block) {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(reason));
        }
        if let (true, Some(reason)) = (event == "UserPromptSubmit", &self.deny) {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(reason));
        }
        let mut specific = Map::new();
        if let (true, Some(reason)) = (event == "PreToolUse", &self.deny) {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        } else if let (true, Some(input)) = (event == "PreToolUse", &self.updated_input) {
            specific.insert("updatedInput".into(), input.clone());
        }
        if let (true, Some(p)) = (event == "PermissionRequest", &self.permission) {
            specific.insert("decision".into(), p.decision(true));
        }
        if let (true, Some(text)) = (takes_context, &self.context) {
            specific.insert(
                "additionalContext".into(),
                json!(truncate_chars(text, MAX_CONTEXT_CHARS)),
            );
        }
        let system_message = self
            .system_message
            .as_ref()
            .filter(|_| takes_system_message);
        close_claude_shape(out, specific, event, system_message)
    }
}

fn join(into: &mut Option<String>, more: Option<String>, sep: &str) {
    match (into.as_mut(), more) {
        (_, None) => {}
        (None, Some(m)) => *into = Some(m),
        (Some(existing), Some(m)) => {
            existing.push_str(sep);
            existing.push_str(&m);
        }
    }
}

/// Cuts `text` to at most `max` characters, marking the cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let marker = "\n…[truncated]";
    let keep = max.saturating_sub(marker.chars().count());
    let mut s: String = text.chars().take(keep).collect();
    s.push_str(marker);
    s
}

/// Closes an answer in Claude Code's shape: `specific`, when it holds anything, goes under
/// `hookSpecificOutput` with the `hookEventName` it answers; `system_message` at the top level.
/// An answer with nothing in it is `None` (the hook prints nothing).
pub fn close_claude_shape(
    mut out: Map<String, Value>,
    mut specific: Map<String, Value>,
    event: &str,
    system_message: Option<&String>,
) -> Option<Value> {
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event));
        out.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if let Some(text) = system_message {
        out.insert("systemMessage".into(), json!(text));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// Prints the answer: nothing, or exactly one JSON object and a newline. The only function in
/// the crate that writes to stdout on behalf of a hook.
pub fn emit(value: Option<&Value>) {
    let Some(value) = value else { return };
    let Ok(mut line) = serde_json::to_string(value) else {
        return;
    };
    line.push('\n');
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // A closed stdout is the client's business; there is nothing useful to do about it here.
    let _ = lock.write_all(line.as_bytes());
    let _ = lock.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noop_encodes_to_nothing() {
        assert_eq!(Answer::default().encode("Stop"), None);
    }

    #[test]
    fn stop_block_has_no_continue_key() {
        let v = Answer::block("keep going").encode("Stop").unwrap();
        assert_eq!(v, json!({"decision":"block","reason":"keep going"}));
    }

    #[test]
    fn block_is_dropped_where_it_would_not_continue() {
        assert_eq!(Answer::block("x").encode("UserPromptSubmit"), None);
    }

    #[test]
    fn context_shape() {
        let v = Answer::context("hello").encode("UserPromptSubmit").unwrap();
        assert_eq!(
            v,
            json!({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"hello"}})
        );
        assert_eq!(Answer::context("x").encode("PreCompact"), None);
    }

    #[test]
    fn deny_shape() {
        let a = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        let v = a.encode("PreToolUse").unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"], "no");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    }

    #[test]
    fn deny_refuses_a_prompt_and_updated_input_rewrites_a_call() {
        let deny = Answer {
            deny: Some("no".into()),
            ..Answer::default()
        };
        assert_eq!(
            deny.encode("UserPromptSubmit").unwrap(),
            json!({"decision":"block","reason":"no"})
        );
        assert_eq!(deny.encode("Stop"), None);
        let rewrite = Answer {
            updated_input: Some(json!({"command": "ls -l"})),
            ..Answer::default()
        };
        assert_eq!(
            rewrite.encode("PreToolUse").unwrap(),
            json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -l"}}})
        );
        assert_eq!(rewrite.encode("PostToolUse"), None);
        let both = Answer {
            updated_input: Some(json!({})),
            ..deny
        };
        let v = both.encode("PreToolUse").unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(v["hookSpecificOutput"].get("updatedInput").is_none());
    }

    #[test]
    fn merge_joins_texts_and_keeps_first_block() {
        let mut a = Answer::context("one");
        a.merge(Answer::block("first"));
        a.merge(Answer::context("two"));
        a.merge(Answer::block("second"));
        assert_eq!(a.context.as_deref(), Some("one\n\ntwo"));
        assert_eq!(a.block.as_deref(), Some("first"));
    }

    #[test]
    fn long_context_is_truncated_on_a_char_boundary() {
        let long = "é".repeat(MAX_CONTEXT_CHARS + 10);
        let v = Answer::context(long).encode("UserPromptSubmit").unwrap();
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert_eq!(text.chars().count(), MAX_CONTEXT_CHARS);
        assert!(text.ends_with("[truncated]"));
    }
}
