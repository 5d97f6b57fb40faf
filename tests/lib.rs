#![allow(unreachable_pub, dead_code)]

//! The one integration-test binary. Each module drives the real `omc-hooks` binary (or, for
//! the real-client suite in `e2e`, the real Claude Code client) and asserts the answer and the
//! state files.

mod common;
mod hardening;
mod schema;
mod state_store;
mod wire;
