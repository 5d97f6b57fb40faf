//! A sink's delivery progress, `.omc/export/<sink>.progress.json`: the cursor into the segment
//! being delivered, the totals, the last error. Written atomically by the flusher after every
//! batch, so a flusher killed at any moment resumes at the last acknowledged batch (the batch
//! in flight is sent again: at-least-once). Read by `status` and `doctor`.

use super::names;
use crate::state::{Store, outbox};
use serde::{Deserialize, Serialize};

/// `state-schema/export-progress.schema.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default)]
    pub schema_version: u32,
    pub sink: String,
    /// `webhook` or `otlp`.
    #[serde(default)]
    pub kind: String,
    /// Where it delivers (a URL, any password in it redacted), for `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// The segment being delivered, and the byte offset up to which it is acknowledged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    #[serde(default)]
    pub offset: u64,
    /// Events acknowledged by the receiver.
    #[serde(default)]
    pub delivered_total: u64,
    /// Events the receiver refused for good (a 4xx other than 408/429, three times).
    #[serde(default)]
    pub rejected_total: u64,
    /// Events dropped: the spool was full (folded in from the drop log), or their batch could
    /// not be delivered within the sink's `retries`.
    #[serde(default)]
    pub dropped_total: u64,
    /// Spool lines that were not a record (a write cut short) and were skipped.
    #[serde(default)]
    pub corrupt_total: u64,
    /// The drop log being folded in has already been added to `dropped_total`.
    #[serde(default)]
    pub folding_counted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_delivery_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error_at: Option<String>,
    #[serde(default)]
    pub consecutive_failures: u32,
    /// The receiver asked not to be sent anything before this time (`Retry-After`): a
    /// flusher started later waits for it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    /// Something about the configuration the person should know (e.g. an OTLP protocol we
    /// do not speak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub const SCHEMA_VERSION: u32 = 1;

pub fn file_name(sink: &str) -> String {
    format!("{sink}.progress.json")
}

impl Progress {
    pub fn load(store: &Store, sink: &str) -> Progress {
        outbox::file(&file_name(sink))
            .and_then(|f| store.read::<Progress>(&f))
            .unwrap_or_else(|| Progress {
                schema_version: SCHEMA_VERSION,
                sink: sink.to_string(),
                ..Progress::default()
            })
    }

    pub fn save(&mut self, store: &Store) -> std::io::Result<()> {
        self.schema_version = SCHEMA_VERSION;
        let file = outbox::file(&file_name(&self.sink)).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "bad sink name")
        })?;
        // Only into an outbox that is still there: the flusher saves after a delivery that can
        // take its whole timeout, and a project deleted meanwhile must stay deleted (it used to
        // come back as `.omc/export/` holding this file, and the flusher then lingered on it).
        if !store.omc_dir().join(outbox::DIR).is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the outbox is gone (the project's .omc was removed)",
            ));
        }
        store.write(&file, self)
    }
}

/// What `status` and `doctor` show for one sink.
#[derive(Debug, Clone, Serialize)]
pub struct SinkReport {
    pub sink: String,
    pub kind: String,
    pub destination: Option<String>,
    /// Events spooled and not yet acknowledged.
    pub pending: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub rejected: u64,
    pub corrupt: u64,
    pub last_delivery_at: Option<String>,
    pub last_error: Option<String>,
    pub last_error_at: Option<String>,
    pub consecutive_failures: u32,
    pub note: Option<String>,
}

/// Every sink with files in the outbox, whether or not it is still configured.
pub fn report(store: &Store) -> Vec<SinkReport> {
    let files = store.outbox_list();
    let mut sinks: Vec<String> = files
        .iter()
        .filter_map(|f| sink_of(f))
        .map(str::to_string)
        .collect();
    sinks.sort();
    sinks.dedup();
    sinks
        .into_iter()
        .map(|sink| {
            let p = Progress::load(store, &sink);
            let count = |name: &str, from: u64| store.outbox_count(name, from).map_or(0, |c| c.0);
            let mut pending = count(&names::spool(&sink), 0);
            for seg in segments(&files, &sink) {
                let from = if p.segment.as_deref() == Some(seg.as_str()) {
                    p.offset
                } else {
                    0
                };
                pending += count(&seg, from);
            }
            let mut dropped = p.dropped_total + count(&names::dropped(&sink), 0);
            if !p.folding_counted {
                dropped += count(&names::folding(&sink), 0);
            }
            SinkReport {
                kind: p.kind.clone(),
                destination: p.destination.clone(),
                pending,
                delivered: p.delivered_total,
                dropped,
                rejected: p.rejected_total,
                corrupt: p.corrupt_total,
                last_delivery_at: p.last_delivery_at.clone(),
                last_error: p.last_error.clone(),
                last_error_at: p.last_error_at.clone(),
                consecutive_failures: p.consecutive_failures,
                note: p.note.clone(),
                sink,
            }
        })
        .collect()
}

/// The sink an outbox file belongs to (`<sink>.jsonl`, `<sink>.progress.json`, …; not the
/// flusher's lock).
fn sink_of(file: &str) -> Option<&str> {
    let (sink, rest) = file.split_once('.')?;
    let ours = rest.ends_with("jsonl") || rest == "progress.json";
    (ours && super::spec::is_sink_name(sink)).then_some(sink)
}

/// The sink's rotated segments, oldest first (their names sort by creation).
pub fn segments(files: &[String], sink: &str) -> Vec<String> {
    let prefix = format!("{sink}.sending-");
    let mut segs: Vec<String> = files
        .iter()
        .filter(|f| f.starts_with(&prefix) && f.ends_with(".jsonl"))
        .cloned()
        .collect();
    segs.sort();
    segs
}

/// The pid of the running flusher: the one recorded in the lock file, if that process is
/// alive. (Not a lock probe: taking the lock even for an instant could make a flusher that
/// starts at that moment believe another one runs.)
pub fn flusher_pid(store: &Store) -> Option<u32> {
    let info = store.flusher_info()?;
    let v: serde_json::Value = serde_json::from_slice(&info).ok()?;
    let pid = u32::try_from(v.get("pid")?.as_u64()?).ok()?;
    let alive = crate::platform::pid_alive(pid);
    alive.then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Root;

    #[test]
    fn saving_never_brings_back_a_removed_outbox() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("project");
        let store = Store::new(
            Root {
                project: project.clone(),
                omc: project.join(".omc"),
            },
            0,
        );
        store.outbox_append("w.jsonl", b"{}", 1 << 20).unwrap();
        let mut p = Progress::load(&store, "w");
        p.save(&store).unwrap();
        std::fs::remove_dir_all(&project).unwrap();
        assert!(p.save(&store).is_err());
        assert!(!project.exists(), "the removed project came back");
    }
}
