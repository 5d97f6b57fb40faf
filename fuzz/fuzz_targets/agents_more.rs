//! The adapters of the clients added for issue 25 — Kimi CLI, Cline, Augment's Auggie, the
//! payloads our plugin sends from OpenCode, Kilo Code and Pi, GitHub Copilot CLI, Factory Droid
//! and CodeBuddy — in one target rather than a minute each (CI time is short): the first byte
//! picks the agent, the next the hook subcommand, the rest is the payload as that agent would
//! send it to `omc-hooks --agent NAME <hook>`. Decoded, routed, decided and encoded as the
//! binary does; any panic, or an answer with a key that agent does not read, is a crash.
//! Another adapter joins by one line in `AGENTS` (and its rule in `harness::check_agent_shape`).

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::protocol::Agent;
use std::cell::RefCell;

/// The agents this target drives; a seed's first byte is its index here.
const AGENTS: &[Agent] = &[
    Agent::Kimi,
    Agent::Cline,
    Agent::Auggie,
    Agent::OpenCode,
    Agent::Kilo,
    Agent::Pi,
    Agent::Copilot,
    Agent::Factory,
    Agent::CodeBuddy,
];

thread_local! {
    static HARNESS: RefCell<harness::Harness> = RefCell::new(harness::Harness::new());
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let agent = AGENTS[pick as usize % AGENTS.len()];
    HARNESS.with(|h| h.borrow_mut().agent_case(agent, rest));
});
