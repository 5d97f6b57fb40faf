//! The mode registry: every name the product knows, in one place.
//!
//! Keyword names follow the contract's priority chain (§5); persistent modes (§6) are the ones
//! the Stop hook keeps working. A registry invariant test pins the order and the membership.

/// The fourteen keyword names, in the contract's priority chain.
pub const KEYWORD_CHAIN: [&str; 14] = [
    "cancel",
    "ralph",
    "autopilot",
    "ultrawork",
    "ccg",
    "ralplan",
    "deep-interview",
    "ai-slop-cleaner",
    "tdd",
    "code-review",
    "security-review",
    "ultrathink",
    "deepsearch",
    "analyze",
];

/// Persistent modes, highest Stop priority first.
pub const PERSISTENT: [&str; 7] = [
    "ralph",
    "autopilot",
    "ultrawork",
    "ultraqa",
    "ralplan",
    "team",
    "pipeline",
];

pub fn is_persistent(name: &str) -> bool {
    PERSISTENT.contains(&name)
}

/// `<mode>-state.json`.
pub fn state_file_name(mode: &str) -> String {
    format!("{mode}-state.json")
}

/// The hard ceiling on ralph's iterations, whatever the configuration says.
pub const RALPH_HARD_MAX: u32 = 500;

/// The iteration (reinforcement) limit a new run of `mode` starts with: project configuration
/// (`<mode>.max_iterations` in `.omc/config.json`) or the built-in default, never above the
/// hard maximum.
pub fn max_iterations(mode: &str, config: &crate::config::Config) -> u32 {
    let default = match mode {
        "ralph" => 100,
        "ultrawork" => 50,
        "autopilot" | "team" | "ralplan" => 30,
        "pipeline" => 20,
        "ultraqa" => 10,
        _ => 20,
    };
    config
        .u32_at(&format!("{mode}/max_iterations"))
        .filter(|n| *n > 0)
        .unwrap_or(default)
        .min(RALPH_HARD_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_heads_the_chain_and_names_are_unique() {
        assert_eq!(KEYWORD_CHAIN[0], "cancel");
        let mut names = KEYWORD_CHAIN.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KEYWORD_CHAIN.len());
    }

    #[test]
    fn persistent_keyword_modes_keep_chain_order() {
        let in_chain: Vec<_> = KEYWORD_CHAIN.iter().filter(|n| is_persistent(n)).collect();
        assert_eq!(
            in_chain,
            vec![&"ralph", &"autopilot", &"ultrawork", &"ralplan"]
        );
    }
}
