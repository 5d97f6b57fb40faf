//! An entry's `additional_context`: AtomCode's context template. `{{name}}` is replaced by the
//! value the entry's script receives under that name ([`super::body`]), so a template reads
//! what a script reads; `{{tool_args}}` is the tool's input as compact JSON (AtomCode's name for
//! it). A name the input does not hold is left as written. Values and the expanded text are
//! bounded so that a large tool input cannot crowd out the model's context.

use crate::terminal::clip;
use serde_json::{Map, Value};

/// The longest value put in place of one placeholder, in characters.
pub const MAX_VALUE_CHARS: usize = 2_000;
/// The longest expanded text, in characters.
pub const MAX_TEXT_CHARS: usize = 4_000;

/// `template` with every `{{name}}` the event's input `body` holds replaced by its value.
pub fn expand(template: &str, body: &Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let name = after[..end].trim();
        match value(name, body) {
            Some(v) => out.push_str(&clip(&v, MAX_VALUE_CHARS)),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    clip(&out, MAX_TEXT_CHARS)
}

fn value(name: &str, body: &Map<String, Value>) -> Option<String> {
    let key = match name {
        "tool_args" => "tool_input",
        "working_dir" => "project_dir",
        other => other,
    };
    Some(match body.get(key)? {
        Value::Null => "unknown".to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_the_scripts_values() {
        let body = json!({"tool_name":"Bash","tool_input":{"command":"ls -la /srv"},
            "turn_number":3,"tokens_used":null,"edited_files":["a.rs","b.rs"]});
        let body = body.as_object().unwrap();
        assert_eq!(
            expand("Tool: {{tool_name}} args: {{ tool_args }}", body),
            r#"Tool: Bash args: {"command":"ls -la /srv"}"#
        );
        assert_eq!(
            expand(
                "turn {{turn_number}}, {{tokens_used}} tokens, {{edited_files}}",
                body
            ),
            "turn 3, unknown tokens, a.rs, b.rs"
        );
        assert_eq!(expand("{{nope}} {{tool_name", body), "{{nope}} {{tool_name");
        let long = json!({"tool_name": "x".repeat(10_000)});
        assert!(
            expand("{{tool_name}}", long.as_object().unwrap())
                .chars()
                .count()
                <= 2_000
        );
    }
}
