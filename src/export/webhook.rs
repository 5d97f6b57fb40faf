//! The generic JSON batch webhook: body and headers of one request.
//!
//! Body: `{"events":[{"id","event","session_id","agent","timestamp_ms","payload"}]}`.
//! Headers: `Content-Type: application/json`, `X-Omc-Version`, `X-Omc-Batch-Size`,
//! `X-Omc-Event` (the distinct event names of the batch, comma-separated, in first-seen
//! order), and `X-Omc-Signature: sha256=<hex>` — the HMAC-SHA256 of the exact body bytes under
//! the key in the variable named by `secret_env` — when one is configured.

use super::ExportEvent;
use super::deliver;
use serde_json::{Value, json};

/// The request body for `events`.
pub(super) fn body(events: &[ExportEvent]) -> Vec<u8> {
    let list: Vec<Value> = events
        .iter()
        .map(|e| {
            json!({
                "id": e.id,
                "event": e.event,
                "session_id": e.session_id,
                "agent": e.agent,
                "timestamp_ms": e.timestamp_ms,
                "payload": e.payload,
            })
        })
        .collect();
    serde_json::to_vec(&json!({ "events": list })).unwrap_or_default()
}

/// The protocol headers for a batch (before the configured ones); signed if `key` is given.
pub(super) fn headers(
    events: &[ExportEvent],
    body: &[u8],
    key: Option<&[u8]>,
) -> Vec<(String, String)> {
    let mut names: Vec<&str> = Vec::new();
    for e in events {
        if !names.contains(&e.event.as_str()) {
            names.push(&e.event);
        }
    }
    let mut h = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        (
            "User-Agent".to_string(),
            format!("omc-hooks/{}", env!("CARGO_PKG_VERSION")),
        ),
        (
            "X-Omc-Version".to_string(),
            env!("CARGO_PKG_VERSION").to_string(),
        ),
        ("X-Omc-Batch-Size".to_string(), events.len().to_string()),
        ("X-Omc-Event".to_string(), names.join(",")),
    ];
    if let Some(key) = key {
        h.push(("X-Omc-Signature".to_string(), deliver::signature(key, body)));
    }
    h
}
