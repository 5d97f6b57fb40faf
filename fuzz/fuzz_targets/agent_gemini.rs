//! Gemini's decoder, router and encoder, and every capability behind them: the first byte picks
//! the hook subcommand, the rest is the payload as Gemini would send it to `omc-hooks --agent
//! gemini <hook>`. Any panic, or an answer with a key Gemini does not accept, is a crash.

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::protocol::Agent;
use std::cell::RefCell;

thread_local! {
    static HARNESS: RefCell<harness::Harness> = RefCell::new(harness::Harness::new());
}

fuzz_target!(|data: &[u8]| {
    HARNESS.with(|h| h.borrow_mut().agent_case(Agent::Gemini, data));
});
