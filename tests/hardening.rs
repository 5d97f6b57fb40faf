//! Hardening (issue 11): load, faults and hostile input, over every hook subcommand the shipped
//! manifest names. Nothing here knows which capability serves which hook: each suite drives
//! all of them with realistic payloads (see [`kit::realistic`]) and asserts invariants that hold
//! whatever the capabilities do — exit 0, nothing or one JSON object, every state file valid
//! JSON (and schema-valid where a schema names it), no temporary file left behind, nothing
//! outside `.omc/`, no session's files mentioning another session. Where a check only bites once
//! a capability writes state, the same conditions are also seeded through the store directly,
//! so the suite tests something today and more after every merge.
//!
//! Counts scale with `OMC_HARDENING_SCALE` (default 1, about a minute on 2 cores); the random
//! seed is printed and can be pinned with `OMC_HARDENING_SEED`. See HARDENING.md.

mod concurrency;
mod crash;
mod hostile;
pub mod kit;
mod props;
mod readonly;
