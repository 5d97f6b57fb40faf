//! omc-hooks: a Claude Code plugin that turns an agent session into a small, durable state
//! machine. One binary serves both the hooks (subcommands named in `hooks.json`) and the person
//! at the keyboard (`status`, `cancel`, `detect`, `doctor`, `install`, `demo`).
//!
//! Data flows one way: stdin → [`protocol`] → [`dispatch`] → [`capabilities`] (decide, given
//! state, clock and config) → [`state`] (locked, atomic) → one answer on stdout.

pub mod capabilities;
pub mod cli;
pub mod config;
pub mod diag;
pub mod dispatch;
pub mod env;
pub mod export;
pub mod hooks;
pub mod modes;
pub mod platform;
pub mod protocol;
pub mod redact;
pub mod state;
pub mod terminal;
pub mod time;
pub mod user_hooks;

use std::ffi::OsString;

/// The whole program: returns the process exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    cli::run(args)
}
