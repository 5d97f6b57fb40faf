//! Asynchronous, batched export of hook events: to a JSON batch webhook and to OpenTelemetry
//! (OTLP/HTTP logs). A hook never waits on the network: it appends the event to a per-sink
//! spool under `.omc/export/` and returns; a detached `omc-hooks flush` process delivers.
//!
//! # The interface other modules use
//!
//! * [`SinkSpec`] describes one destination. Build it with [`SinkSpec::from_entry`] from one
//!   `[[hooks]]` entry of `hooks.toml` whose `type` is `"async_webhook"` or `"otlp"` (the entry
//!   converted to a `serde_json::Value`, e.g. `serde_json::to_value(&toml_table)`), or get the
//!   ones the environment switches on with [`sources::from_env`].
//! * [`ExportEvent`] is one hook invocation as exported.
//! * [`enqueue`] spools an event for every sink whose filters accept it and makes sure a
//!   flusher runs. It is called once per hook invocation, by the `export` capability
//!   (`crate::capabilities::export`, which builds the event from the hook's context), with
//!   every configured sink — one caller, so that one flusher serves them all. Code that loads sinks from a configuration file contributes them to
//!   [`sources::configured`]; it does not call `enqueue` itself.
//!
//! For the `hooks.toml` loader: expose `fn export_sinks(store: &Store, env: &Env) ->
//! Vec<SinkSpec>` returning the enabled entries of trusted files whose `type` is one of
//! [`spec::ENTRY_TYPES`], each mapped with [`SinkSpec::from_entry`] (report its `Err` with the
//! entry's line and skip the entry); [`sources::configured`] then returns it. The flusher calls
//! it too (about once a second), so a configuration change reaches the running flusher.
//!
//! # How export is switched on
//!
//! Only explicitly: by a sink entry in `hooks.toml` (trusted files only, loaded by the user
//! hooks module), or by `OMC_EXPORT_OTLP` / `OMC_EXPORT_WEBHOOK_URL` in the environment. The
//! standard `OTEL_EXPORTER_OTLP_*` variables never switch export on by themselves — people set
//! them for their agent's own telemetry — they only fill in the endpoint, headers and protocol
//! of an OTLP sink that is on. (Claude Code strips `OTEL_*` from a hook's environment anyway.)

pub mod event;
pub mod spec;

pub use event::ExportEvent;
pub use spec::{Method, SinkKind, SinkSpec};
mod deliver;
pub mod notify;
pub mod otlp;
pub mod progress;
pub mod report;
pub mod sources;
mod webhook;

use crate::env::Env;
use crate::state::Store;
use crate::state::outbox::Appended;

/// Outbox file names of one sink (all in `.omc/export/`).
pub mod names {
    /// The live spool hooks append to.
    pub fn spool(sink: &str) -> String {
        format!("{sink}.jsonl")
    }
    /// One line per event dropped because the spool was full.
    pub fn dropped(sink: &str) -> String {
        format!("{sink}.dropped.jsonl")
    }
    /// The drop log while the flusher folds it into the sink's count.
    pub fn folding(sink: &str) -> String {
        format!("{sink}.dropped-folding.jsonl")
    }
    /// A rotated segment; `stamp` orders segments (zero-padded, so names sort by age).
    pub fn segment(sink: &str, stamp: u128) -> String {
        format!("{sink}.sending-{stamp:020}.jsonl")
    }
}

/// The bound on a sink's drop log (one short line per dropped event).
pub const MAX_DROP_LOG_BYTES: u64 = 4 * 1024 * 1024;

/// What [`enqueue`] did with one event.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Enqueued {
    /// Sinks whose spool now holds the event.
    pub spooled: usize,
    /// Sinks whose spool was full: the event was dropped for them and counted.
    pub dropped: usize,
    /// Sinks whose spool could not be written (reported on stderr).
    pub failed: usize,
    /// A flusher process was started by this call.
    pub flusher_started: bool,
}

/// Spools `event` for every sink in `sinks` that accepts it (its `events` and `matcher`), once
/// per sink name, and starts a flusher if none is running. Never touches the network and
/// never waits for the flusher; a few small appends (no fsync) and, at most, one process spawn.
///
/// * The payload is redacted first for sinks with `redact` (the default), so no secret of a
///   recognised shape lands in the spool in clear text.
/// * A full spool (`max_spool_bytes`) drops the event for that sink and appends one line to
///   its drop log, which the flusher folds into the sink's `dropped` count (`status` shows it).
/// * `env` gives the binary to start as the flusher ([`crate::env::EXE_VAR`]).
pub fn enqueue(store: &Store, env: &Env, event: &ExportEvent, sinks: &[SinkSpec]) -> Enqueued {
    let mut done = Enqueued::default();
    let mut seen: Vec<&str> = Vec::new();
    let (mut redacted, mut clear): (Option<Vec<u8>>, Option<Vec<u8>>) = (None, None);
    for sink in sinks {
        if seen.contains(&sink.name.as_str()) || !sink.accepts(&event.event, event.tool.as_deref())
        {
            continue;
        }
        seen.push(&sink.name);
        let slot = if sink.redact {
            &mut redacted
        } else {
            &mut clear
        };
        let record = slot.get_or_insert_with(|| record(event, sink.redact));
        match store.outbox_append(&names::spool(&sink.name), record, sink.max_spool_bytes) {
            Ok(Appended::Written) => done.spooled += 1,
            Ok(Appended::Full) => {
                done.dropped += 1;
                let line = serde_json::json!({"id": event.id, "event": event.event, "timestamp_ms": event.timestamp_ms});
                let _ = store.outbox_append(
                    &names::dropped(&sink.name),
                    line.to_string().as_bytes(),
                    MAX_DROP_LOG_BYTES,
                );
            }
            Err(e) => {
                done.failed += 1;
                crate::diag!("export: cannot spool the event for sink {}: {e}", sink.name);
            }
        }
    }
    if done.spooled + done.dropped > 0 {
        done.flusher_started = flusher::ensure_running(store, env);
    }
    done
}

/// Starts a flusher when one of `sinks` has events waiting (a live spool that is not empty, or
/// a segment being delivered) and none runs. A flusher that gave up on a service that stayed
/// down leaves its events in the spool; notification sinks hear of nothing but run ends, so
/// without this a message would wait for the next one. Returns whether one was started.
pub fn resume_delivery(store: &Store, env: &Env, sinks: &[SinkSpec]) -> bool {
    let files = store.outbox_list();
    let waiting = sinks.iter().any(|s| {
        !progress::segments(&files, &s.name).is_empty()
            || store
                .outbox_count(&names::spool(&s.name), 0)
                .is_ok_and(|(records, _)| records > 0)
    });
    waiting && flusher::ensure_running(store, env)
}

/// The spool record of `event`: its JSON, with the payload redacted if asked and bounded.
fn record(event: &ExportEvent, redact: bool) -> Vec<u8> {
    let mut ev = event.clone();
    if redact {
        crate::redact::value(&mut ev.payload);
    }
    event::bound(&mut ev.payload);
    serde_json::to_vec(&ev).unwrap_or_default()
}

pub mod flusher;
