//! The wire: what Claude Code sends a hook and what a hook may answer.
//!
//! Pure data and encoding, no policy. `input` decodes tolerantly, `output` builds the shapes the
//! contract (§3) allows, `stdin` reads the payload within a size and a time cap. Printing happens
//! in exactly one function, [`output::emit`].

pub mod input;
pub mod output;
pub mod stdin;

pub use input::HookInput;
pub use output::Answer;
