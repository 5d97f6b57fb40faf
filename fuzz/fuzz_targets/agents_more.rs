//! The adapters of the agents added for issue 25, in one target (every target gets its own
//! minute in CI, and CI time is short): the first byte picks the agent, the second the hook
//! subcommand, the rest is the payload as that agent would send it to `omc-hooks --agent NAME
//! <hook>`. Decoded, routed, decided and encoded as the binary does; any panic, or an answer
//! with a key the agent does not accept, is a crash. An agent added later is one more entry in
//! [`AGENTS`].

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::protocol::Agent;
use std::cell::RefCell;

/// The agents this target covers.
const AGENTS: &[Agent] = &[Agent::Copilot, Agent::Factory, Agent::CodeBuddy];

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
