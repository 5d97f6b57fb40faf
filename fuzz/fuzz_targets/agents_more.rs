//! The adapters of issue 25 in one target (one 60-second run in CI instead of one per agent):
//! the first byte picks the agent, the second the hook subcommand, the rest is the payload as
//! that agent sends it to `omc-hooks --agent NAME <hook>` — for OpenCode, Kilo Code and Pi the
//! payload our plugin builds. Decoded, routed, decided and encoded as the binary does; any
//! panic, or an answer with a key or a type the agent's side does not take, is a crash. Add an
//! agent by adding it to `AGENTS` (and seeds named `<agent>-…` in `seeds/agents_more/`).

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::protocol::Agent;
use std::cell::RefCell;

const AGENTS: &[Agent] = &[Agent::OpenCode, Agent::Kilo, Agent::Pi];

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
