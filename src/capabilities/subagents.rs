//! Subagent tracking (contract §9). Placeholder until the capability lands: Stop asks
//! [`running`] whether the session's own subagents are still working.

use super::Ctx;

/// The number of this session's subagents started and not yet stopped.
pub fn running(_ctx: &Ctx<'_>) -> usize {
    0
}
