//! Skill guards (contract §7). Placeholder until the capability lands: the Stop decision calls
//! [`stop_block`] after the persistent modes.

use super::Ctx;

/// The `[SKILL ACTIVE: …]` reason when a protected skill is running, advancing its counter.
pub fn stop_block(_ctx: &Ctx<'_>) -> Option<String> {
    None
}
