//! End-to-end tests against the real clients, offline. Claude Code: `harness.rs` with the
//! scripted Messages API in `server.rs` (FINDINGS.md). Codex CLI, Gemini CLI, Qwen Code, GitHub
//! Copilot CLI, Factory Droid, CodeBuddy, Cline and Kimi CLI: `agent_harness.rs` (+ one file
//! per client), installed by `clients.rs`, with
//! the scripted model of `model.rs` (one script, a wire format per API). Both servers share
//! the HTTP plumbing of `http.rs`.

#![allow(unreachable_pub, dead_code, clippy::collapsible_if)]

pub mod agent_harness;
pub mod clients;
pub mod cline;
pub mod codebuddy;
pub mod codex;
pub mod copilot;
pub mod factory;
pub mod gemini;
pub mod harness;
pub mod http;
pub mod kimi;
pub mod model;
pub mod npm;
pub mod pi;
pub mod plugin;
pub mod plugin_host;
pub mod qwen;
pub mod ralph;
pub mod serve;
pub mod server;
pub mod tui;

#[allow(unused_imports)]
pub use harness::*;
#[allow(unused_imports)]
pub use plugin::plugin_dir;
