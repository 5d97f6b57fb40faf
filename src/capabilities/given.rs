//! What a session was given once: the record (`skills-given.json`, `rules-given.json`) that
//! learned skills and project rules keep so that each text reaches the model once per session.

use crate::state::{Change, StateFile, Store};
use serde::{Deserialize, Serialize};

/// The keys kept at most (the oldest are forgotten first).
const MAX_REMEMBERED: usize = 200;

/// The record: the keys of what was given this session, oldest first.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Given {
    #[serde(default)]
    schema_version: u32,
    #[serde(default)]
    given: Vec<String>,
}

/// Of `items`, those not given yet this session (by `key`), at most `max`, recorded in `file`
/// first, under its lock, so that parallel hooks give each once. When the record cannot be
/// written, nothing (giving them every time would flood the context), and a diagnostic naming
/// `who`.
pub(crate) fn once<T: Clone>(
    store: &Store,
    file: &StateFile,
    items: &[T],
    key: impl Fn(&T) -> String,
    max: usize,
    who: &str,
) -> Vec<T> {
    let fresh = store.update(file, |g: Option<Given>| {
        let mut g = g.unwrap_or_default();
        g.schema_version = crate::state::files::SCHEMA_VERSION;
        let fresh: Vec<T> = items
            .iter()
            .filter(|t| !g.given.contains(&key(t)))
            .take(max)
            .cloned()
            .collect();
        if fresh.is_empty() {
            return (Change::Keep, fresh);
        }
        g.given.extend(fresh.iter().map(&key));
        let over = g.given.len().saturating_sub(MAX_REMEMBERED);
        g.given.drain(..over);
        (Change::Write(g), fresh)
    });
    fresh.unwrap_or_else(|e| {
        crate::diag!("{who}: cannot record what was given: {e}; none given");
        Vec::new()
    })
}
