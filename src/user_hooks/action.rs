//! What a user hook answers — a script on stdout, a webhook in its response body — and how it
//! is read. One schema for both:
//!
//! ```json
//! {"action": "allow"}
//! {"action": "block", "reason": "…"}
//! {"action": "modify", "context": "…"}                 text added to what the agent sees
//! {"action": "modify", "tool_input": {…}}             pre-tool-use: the call's new input
//! {"action": "allow", "updated_permissions": […]}     permission-request: "always allow"
//! ```
//!
//! `updated_permissions` (also spelled `updatedPermissions`) rides on an `allow` or a `modify`
//! of a permission request: Claude Code's permission updates (the shape of the
//! `permission_suggestions` the entry received), passed to the client as they are. The client
//! validates them itself (its bundle refuses a list that is not one, an entry that is not an
//! object or has an unknown destination); here only their being a list of objects is checked.
//!
//! An empty answer is `allow`. Anything else that does not fit is a mistake of the hook's, and
//! a mistake never holds the agent: the caller turns it into `allow` plus one diagnostic.

use serde_json::Value;

/// The largest answer read; a hook that prints more is treated as a broken one.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The most permission updates one answer may carry (Claude Code 2.1.328 caps the updates,
/// rules and directories at 4096 in all; a hook's answer needs a handful).
pub const MAX_PERMISSION_UPDATES: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Allow {
        updated_permissions: Option<Value>,
    },
    Block {
        reason: Option<String>,
    },
    Modify {
        context: Option<String>,
        tool_input: Option<Value>,
        updated_permissions: Option<Value>,
    },
}

impl Action {
    /// A plain allow.
    pub const ALLOW: Action = Action::Allow {
        updated_permissions: None,
    };
}

/// Reads an answer's bytes. Whitespace only → `Allow`.
pub fn decode(bytes: &[u8]) -> Result<Action, String> {
    if bytes.len() > MAX_ANSWER_BYTES {
        return Err(format!(
            "answer larger than {} KiB",
            MAX_ANSWER_BYTES / 1024
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| "answer is not UTF-8".to_string())?;
    if text.trim().is_empty() {
        return Ok(Action::ALLOW);
    }
    let value: Value = serde_json::from_str(text.trim())
        .map_err(|_| format!("answer is not JSON: {:?}", first_line(text)))?;
    from_value(&value)
}

pub fn from_value(value: &Value) -> Result<Action, String> {
    let obj = value.as_object().ok_or("answer is not a JSON object")?;
    if !obj.contains_key("action")
        && let Some(d) = obj
            .get("hookSpecificOutput")
            .and_then(|h| h.get("decision"))
            .filter(|d| d.get("behavior").is_some())
    {
        return from_claude_decision(d);
    }
    let action = obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or("answer has no \"action\" string")?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("\"{key}\" must be a string")),
        }
    };
    let updated_permissions = match obj
        .get("updated_permissions")
        .or_else(|| obj.get("updatedPermissions"))
    {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.len() > MAX_PERMISSION_UPDATES => {
            return Err(format!(
                "\"updated_permissions\" holds more than {MAX_PERMISSION_UPDATES} updates"
            ));
        }
        Some(v @ Value::Array(a)) if a.iter().all(Value::is_object) => Some(v.clone()),
        Some(_) => return Err("\"updated_permissions\" must be a list of objects".into()),
    };
    match action {
        "allow" => Ok(Action::Allow {
            updated_permissions,
        }),
        "block" => Ok(Action::Block {
            reason: text("reason")?,
        }),
        "modify" => {
            let context = text("context")?;
            let tool_input = match obj.get("tool_input") {
                None | Some(Value::Null) => None,
                Some(v @ Value::Object(_)) => Some(v.clone()),
                Some(_) => return Err("\"tool_input\" must be a JSON object".into()),
            };
            if context.is_none() && tool_input.is_none() && updated_permissions.is_none() {
                return Err("\"modify\" needs \"context\" or \"tool_input\"".into());
            }
            Ok(Action::Modify {
                context,
                tool_input,
                updated_permissions,
            })
        }
        other => Err(format!("unknown action {other:?} (allow, block or modify)")),
    }
}

/// A script written for Claude Code's PermissionRequest answers in its shape,
/// `{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput"?,
/// "updatedPermissions"?}}}` or `{… {"behavior": "deny", "message"?}}`: read as the same
/// allow, modify or block.
fn from_claude_decision(d: &Value) -> Result<Action, String> {
    let mut ours = serde_json::Map::new();
    match d.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            let input = d.get("updatedInput").filter(|v| !v.is_null());
            ours.insert(
                "action".into(),
                Value::from(if input.is_some() { "modify" } else { "allow" }),
            );
            if let Some(i) = input {
                ours.insert("tool_input".into(), i.clone());
            }
            if let Some(u) = d.get("updatedPermissions") {
                ours.insert("updated_permissions".into(), u.clone());
            }
        }
        Some("deny") => {
            ours.insert("action".into(), Value::from("block"));
            if let Some(m) = d.get("message") {
                ours.insert("reason".into(), m.clone());
            }
        }
        _ => return Err("decision.behavior must be allow or deny".into()),
    }
    from_value(&Value::Object(ours))
}

/// AtomCode's text answers, for a script written for it: the first non-blank line `ok`,
/// `warning: …` (both allow), `deny` or `deny: <reason>` (block), `modify: <tool input as a
/// JSON object>`. `None` for anything else. Not read on a permission request, where only a
/// JSON answer approves (a stray `ok` must not allow a tool call).
pub fn decode_text(bytes: &[u8]) -> Option<Action> {
    let text = std::str::from_utf8(bytes).ok()?;
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let (word, rest) = match line.split_once(':') {
        Some((w, r)) => (w.trim(), Some(r.trim())),
        None => (line, None),
    };
    match (word.to_ascii_lowercase().as_str(), rest) {
        ("ok", None) | ("warning", Some(_)) => Some(Action::ALLOW),
        ("deny", rest) => Some(Action::Block {
            reason: rest.filter(|r| !r.is_empty()).map(str::to_string),
        }),
        ("modify", Some(args)) => match serde_json::from_str::<Value>(args) {
            Ok(v @ Value::Object(_)) => Some(Action::Modify {
                context: None,
                tool_input: Some(v),
                updated_permissions: None,
            }),
            _ => None,
        },
        _ => None,
    }
}

fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    if line.chars().count() > 80 {
        let mut s: String = line.chars().take(79).collect();
        s.push('…');
        s
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_three_actions() {
        assert_eq!(decode(b" \n").unwrap(), Action::ALLOW);
        assert_eq!(decode(br#"{"action":"allow"}"#).unwrap(), Action::ALLOW);
        let rules = json!([{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],
                            "behavior":"allow","destination":"localSettings"}]);
        assert_eq!(
            from_value(&json!({"action":"allow","updatedPermissions": rules})).unwrap(),
            Action::Allow {
                updated_permissions: Some(rules.clone())
            }
        );
        assert_eq!(
            decode(br#"{"action":"block","reason":"no"}"#).unwrap(),
            Action::Block {
                reason: Some("no".into())
            }
        );
        assert_eq!(
            decode(br#"{"action":"modify","context":"note","tool_input":{"command":"ls"}}"#)
                .unwrap(),
            Action::Modify {
                context: Some("note".into()),
                tool_input: Some(json!({"command":"ls"})),
                updated_permissions: None,
            }
        );
    }

    #[test]
    fn claude_codes_permission_decision_is_read() {
        let rules = json!([{"type":"setMode","mode":"acceptEdits","destination":"session"}]);
        assert_eq!(
            from_value(
                &json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                "decision":{"behavior":"allow","updatedPermissions": rules}}})
            )
            .unwrap(),
            Action::Allow {
                updated_permissions: Some(rules)
            }
        );
        assert_eq!(
            from_value(
                &json!({"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no"}}})
            )
            .unwrap(),
            Action::Block {
                reason: Some("no".into())
            }
        );
        assert!(
            from_value(&json!({"hookSpecificOutput":{"decision":{"behavior":"ask"}}})).is_err()
        );
    }

    #[test]
    fn atomcodes_text_answers() {
        assert_eq!(decode_text(b"ok\n"), Some(Action::ALLOW));
        assert_eq!(decode_text(b"warning: slow"), Some(Action::ALLOW));
        assert_eq!(
            decode_text(b"\ndeny: no force push\n"),
            Some(Action::Block {
                reason: Some("no force push".into())
            })
        );
        assert_eq!(decode_text(b"deny"), Some(Action::Block { reason: None }));
        assert_eq!(
            decode_text(br#"modify: {"command":"ls"}"#),
            Some(Action::Modify {
                context: None,
                tool_input: Some(json!({"command":"ls"})),
                updated_permissions: None,
            })
        );
        for bad in [&b"okay"[..], b"modify: ls", b"", b"denied"] {
            assert_eq!(decode_text(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn mistakes_are_errors() {
        for bad in [
            &b"ok"[..],
            b"[1]",
            br#"{"result":"allow"}"#,
            br#"{"action":"deny"}"#,
            br#"{"action":"modify"}"#,
            br#"{"action":"modify","tool_input":"ls"}"#,
            br#"{"action":"block","reason":3}"#,
            br#"{"action":"allow","updated_permissions":{"type":"setMode"}}"#,
            br#"{"action":"allow","updated_permissions":["x"]}"#,
            b"\xff",
        ] {
            assert!(decode(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
