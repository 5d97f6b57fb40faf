//! End-to-end tests against the real Claude Code client (see harness.rs,
//! FINDINGS.md). `server` is a scripted offline stand-in for the model API.

#![allow(unreachable_pub, dead_code, clippy::collapsible_if)]

pub mod harness;
pub mod plugin;
pub mod server;
pub mod tui;

#[allow(unused_imports)]
pub use harness::*;
#[allow(unused_imports)]
pub use plugin::plugin_dir;
