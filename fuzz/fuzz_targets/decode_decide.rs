//! Payload decoding and the decision of every hook subcommand: the first byte picks the hook,
//! the rest is the payload as it would arrive on stdin.

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::hooks::HOOKS;
use omc_hooks::protocol::HookInput;
use std::cell::RefCell;

thread_local! {
    static HARNESS: RefCell<harness::Harness> = RefCell::new(harness::Harness::new());
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let hook = HOOKS[pick as usize % HOOKS.len()];
    let Ok(input) = HookInput::decode(payload) else {
        return; // The binary answers this with a no-op before any decision.
    };
    HARNESS.with(|h| h.borrow_mut().decide(hook, &input));
});
