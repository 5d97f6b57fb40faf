//! Factory Droid's differences from Claude Code's format, which it otherwise speaks (what the
//! pinned 0.225.2 was seen to do: tests/e2e/factory-FINDINGS.md; payloads recorded in
//! tests/fixtures/factory/).
//!
//! Its shell tool is `Execute` (Claude Code's `Bash` with the same `command`), and its Stop
//! payload names the model's final message only by id (`message_id`): the text is read from
//! the session's transcript (`transcript_path`, one JSON message per line, Claude Code's
//! message shape), where that message is already written when the Stop hook runs.

use crate::protocol::HookInput;
use serde_json::Value;

/// Droid's tools that do what a Claude Code tool does, with the same input fields.
pub const TOOLS: &[(&str, &str)] = &[("Execute", "Bash")];

/// On Stop, the model's final message from the transcript when the payload has none.
pub fn read_last_message(input: &mut HookInput) {
    if input.last_assistant_message.is_some() {
        return;
    }
    let Some(tail) = input
        .transcript_path
        .as_deref()
        .and_then(|p| crate::state::transcript::tail(p, crate::state::transcript::TAIL_BYTES))
    else {
        return;
    };
    let id = input.raw.get("message_id").and_then(Value::as_str);
    input.last_assistant_message = last_message(&String::from_utf8_lossy(&tail), id);
}

/// The text of the assistant message `id` in a transcript's text, else of the last assistant
/// message with text.
fn last_message(transcript: &str, id: Option<&str>) -> Option<String> {
    let mut last = None;
    for line in transcript.lines() {
        if !line.contains("\"assistant\"") {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let m = &v["message"];
        if m["role"] != "assistant" {
            continue;
        }
        let text: Vec<&str> = m["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect();
        let text = text.join("\n");
        if id.is_some() && v["id"].as_str() == id {
            return Some(text);
        }
        if !text.trim().is_empty() {
            last = Some(text);
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(id: &str, role: &str, text: &str) -> String {
        let v = json!({"type": "message", "id": id, "timestamp": "t",
                       "message": {"role": role, "content": [{"type": "text", "text": text}]}});
        format!("{v}\n")
    }

    #[test]
    fn the_stops_message_by_id_else_the_last_with_text() {
        let t = [
            line("u1", "user", "fix it"),
            line("a1", "assistant", "done\n<omc-complete/>"),
            line("a2", "assistant", "later"),
            "{broken \"assistant\"\n".to_string(),
        ]
        .concat();
        assert_eq!(
            last_message(&t, Some("a1")).as_deref(),
            Some("done\n<omc-complete/>")
        );
        assert_eq!(last_message(&t, Some("zz")).as_deref(), Some("later"));
        assert_eq!(last_message(&t, None).as_deref(), Some("later"));
        assert_eq!(last_message("", Some("a1")), None);
    }

    #[test]
    fn read_from_the_payloads_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, line("m1", "assistant", "all done")).unwrap();
        let mut i = HookInput::from_map(
            json!({"hook_event_name": "Stop", "session_id": "s", "transcript_path": path,
                   "message_id": "m1"})
            .as_object()
            .unwrap()
            .clone(),
        );
        read_last_message(&mut i);
        assert_eq!(i.last_assistant_message.as_deref(), Some("all done"));
    }
}
