//! What a client recorded in its transcript so far: the tokens its model used and the prompts
//! the person typed, for a user hook's input (`tokens_used`, `turn_number`).
//!
//! Unlike [`super::transcript::tail`], these need the whole file, so it is read only up to
//! [`MAX_BYTES`]; a longer transcript, a path this crate may not open, or one that records no
//! usage gives `None` ("unknown"), never a partial sum passed off as the total.

use serde_json::Value;
use std::collections::HashSet;

/// The largest transcript read whole.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The transcript at `raw_path`, whole, when it is at most [`MAX_BYTES`] long.
pub fn read_whole(raw_path: &str) -> Option<Vec<u8>> {
    let bytes = super::transcript::tail(raw_path, MAX_BYTES + 1)?;
    (bytes.len() as u64 <= MAX_BYTES).then_some(bytes)
}

/// The tokens the client recorded for this session's model calls: for each assistant message
/// (counted once: Claude Code writes one line per content block, each repeating the message's
/// `usage`), `input_tokens + output_tokens + cache_creation_input_tokens +
/// cache_read_input_tokens`, summed. `None` when the transcript cannot be read whole or
/// records no usage at all.
pub fn tokens_used(raw_path: &str) -> Option<u64> {
    tokens_used_in(&read_whole(raw_path)?)
}

/// [`tokens_used`] over a transcript's bytes (JSON lines).
pub fn tokens_used_in(lines: &[u8]) -> Option<u64> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut total: Option<u64> = None;
    for line in lines.split(|b| *b == b'\n') {
        if !contains(line, b"\"usage\"") {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(message) = v.get("message") else {
            continue;
        };
        if message.get("model").and_then(Value::as_str) == Some("<synthetic>") {
            continue;
        }
        let Some(usage) = message.get("usage") else {
            continue;
        };
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .or_else(|| v.get("requestId").and_then(Value::as_str));
        if let Some(id) = id
            && !seen.insert(id.to_string())
        {
            continue;
        }
        let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
        let sum = n("input_tokens")
            + n("output_tokens")
            + n("cache_creation_input_tokens")
            + n("cache_read_input_tokens");
        total = Some(total.unwrap_or(0).saturating_add(sum));
    }
    total
}

/// The prompts the person typed, as the transcript records them (user messages with text:
/// not tool results, not the client's own meta messages, not a subagent's). The last one's
/// text comes with the count.
pub fn prompts_in(lines: &[u8]) -> (u64, Option<String>) {
    let mut count = 0;
    let mut last = None;
    for line in lines.split(|b| *b == b'\n') {
        if !contains(line, b"\"user\"") {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("user")
            || v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isSidechain").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let text = match v.get("message").and_then(|m| m.get("content")) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(parts)) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|p| p.get("text")?.as_str())
                    .collect();
                let tool = parts
                    .iter()
                    .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result"));
                (!tool && !texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        };
        if let Some(t) = text {
            count += 1;
            last = Some(t);
        }
    }
    (count, last)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_is_summed_once_per_message_and_unknown_without_any() {
        let t = br#"{"type":"user","message":{"content":"hi"}}
{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
{"type":"assistant","message":{"id":"m2","model":"<synthetic>","usage":{"input_tokens":7}}}
{"type":"assistant","message":{"id":"m3","usage":{"input_tokens":1,"output_tokens":2}}}
"#;
        assert_eq!(tokens_used_in(t), Some(1118));
        assert_eq!(
            tokens_used_in(br#"{"type":"user","message":{"content":"hi"}}"#),
            None
        );
    }

    #[test]
    fn prompts_are_the_persons_text_messages() {
        let t = br#"{"type":"user","message":{"content":"first"}}
{"type":"user","message":{"content":[{"type":"tool_result","content":"ok"}]}}
{"type":"user","isMeta":true,"message":{"content":"caveat"}}
{"type":"user","message":{"content":[{"type":"text","text":"second"}]}}
"#;
        assert_eq!(prompts_in(t), (2, Some("second".to_string())));
    }
}
