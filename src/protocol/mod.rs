//! The wire: what the agents send a hook and what a hook may answer.
//!
//! Pure data and encoding, no policy. `input` decodes Claude Code's payload tolerantly,
//! `agents` adapts every other agent's payload and answer to and from it, `output` builds the
//! shapes the contract (§3) allows, `stdin` reads the payload within a size and a time cap.
//! Printing happens in exactly one function, [`output::emit`].

pub mod agent;
pub mod agents;
pub mod input;
pub mod output;
pub mod shorten;
pub mod stdin;

pub use agent::Agent;
pub use input::HookInput;
pub use output::{Answer, Permission};
