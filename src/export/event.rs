//! One hook invocation as it is exported: an [`ExportEvent`], serialised once into each
//! accepting sink's spool and rendered by the flusher for the sink's wire format.
//!
//! The payload is the decoded hook input put back together (the decoder moved the known
//! fields out of the map), bounded in size so that a 1 MB prompt or a large tool response
//! cannot fill a spool by itself.

use crate::protocol::HookInput;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest string kept in a payload, in bytes; longer ones are cut with a marker.
pub const MAX_STRING_BYTES: usize = 16 * 1024;
/// Largest serialised payload kept; a larger one is replaced by a note of its size.
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// One exported event. This is also the spool record (`state-schema/export-record.schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportEvent {
    /// The idempotency key: unique per event, kept across retries (a receiver dedupes on it).
    pub id: String,
    /// The neutral hook name, e.g. `post-tool-use`.
    pub event: String,
    pub session_id: Option<String>,
    /// The agent that fired the hook (`claude`, `codex`, …).
    pub agent: String,
    /// When the hook ran, ms since the epoch.
    pub timestamp_ms: i64,
    /// The tool, for tool events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The session's highest-priority active persistent mode, and its iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u32>,
    /// Consecutive failures of the last failing tool (the tool-failure record's count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_count: Option<u32>,
    /// The decoded hook input (redacted before spooling when the sink asks for it).
    pub payload: Value,
}

impl ExportEvent {
    /// An event for hook `event` from `input`, with a fresh id. Mode, iteration and failure
    /// count are left empty: the `export` capability fills them from the state.
    pub fn new(event: &str, agent: &str, input: &HookInput, timestamp_ms: i64) -> ExportEvent {
        ExportEvent {
            id: new_id(),
            event: event.to_string(),
            session_id: input.session_id.clone(),
            agent: agent.to_string(),
            timestamp_ms,
            tool: input.tool_name.clone(),
            mode: None,
            iteration: None,
            failure_count: None,
            payload: payload_of(input),
        }
    }
}

/// A random 128-bit id in UUID (version 4) form. `RandomState` is seeded from the operating
/// system's randomness once per process; the pid, the clock and a counter make every call in
/// the process distinct.
pub fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let word = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u32(std::process::id());
        h.write_u128(nanos);
        h.write_u64(n);
        h.finish()
    };
    let (a, b) = (word(0x5eed_0001), word(0x5eed_0002));
    let a = (a & !0xf000) | 0x4000; // version 4
    let b = (b & !(0xc << 60)) | (0x8 << 60); // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// The hook input as one JSON object again: the fields the decoder picked out, under their
/// snake_case names, plus everything it left in `raw`. Not yet bounded: redaction must see
/// whole strings first (a token cut in half no longer looks like one), then [`bound`] cuts.
pub fn payload_of(input: &HookInput) -> Value {
    let mut m = Map::new();
    input.payload_into(&mut m);
    Value::Object(m)
}

/// Cuts strings longer than [`MAX_STRING_BYTES`] (at a character boundary, with a marker
/// saying how much was cut); a payload still larger than [`MAX_PAYLOAD_BYTES`] serialised is
/// replaced by `{"omc_truncated": true, "bytes": N}`.
pub fn bound(v: &mut Value) {
    cut_strings(v, 0);
    let size = serde_json::to_vec(v).map_or(usize::MAX, |b| b.len());
    if size > MAX_PAYLOAD_BYTES {
        *v = serde_json::json!({"omc_truncated": true, "bytes": size});
    }
}

fn cut_strings(v: &mut Value, depth: usize) {
    match v {
        Value::String(s) if s.len() > MAX_STRING_BYTES => {
            let mut end = MAX_STRING_BYTES;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let cut = s.len() - end;
            s.truncate(end);
            s.push_str(&format!("…[truncated {cut} bytes]"));
        }
        Value::Array(a) if depth < 64 => a.iter_mut().for_each(|x| cut_strings(x, depth + 1)),
        Value::Object(o) if depth < 64 => o.values_mut().for_each(|x| cut_strings(x, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_uuid_v4_shaped() {
        let ids: std::collections::HashSet<String> = (0..10_000).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 10_000);
        let id = ids.iter().next().unwrap();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
    }

    #[test]
    fn payload_is_the_input_put_back_together() {
        let raw = br#"{"hook_event_name":"PostToolUse","session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"},"effort":{"level":"high"}}"#;
        let input = HookInput::decode(raw).unwrap();
        let ev = ExportEvent::new("post-tool-use", "claude", &input, 5);
        let original: Value = serde_json::from_slice(raw).unwrap();
        assert_eq!(ev.payload, original);
        assert_eq!(ev.tool.as_deref(), Some("Bash"));
        assert_eq!(ev.session_id.as_deref(), Some("s1"));
    }

    #[test]
    fn huge_strings_are_cut_and_huge_payloads_replaced() {
        let mut v = serde_json::json!({"prompt": "é".repeat(20_000)});
        bound(&mut v);
        let s = v["prompt"].as_str().unwrap();
        assert!(s.len() < MAX_STRING_BYTES + 40);
        assert!(s.ends_with("bytes]"));
        let mut many = Value::Array((0..40).map(|_| Value::String("x".repeat(10_000))).collect());
        bound(&mut many);
        assert_eq!(many["omc_truncated"], true);
    }
}
