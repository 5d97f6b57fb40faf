//! Keyword detection: the input is a prompt, submitted through the `user-prompt-submit` hook
//! exactly as Claude Code would send it, in one of a few sessions; every few prompts the session
//! stops (so what a keyword activated is exercised by the Stop decision too).

#![no_main]

mod harness;

use libfuzzer_sys::fuzz_target;
use omc_hooks::hooks;
use omc_hooks::protocol::HookInput;
use serde_json::{Map, Value, json};
use std::cell::RefCell;

thread_local! {
    static HARNESS: RefCell<harness::Harness> = RefCell::new(harness::Harness::new());
}

fn payload(event: &str, sid: &str, project: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("session_id".into(), json!(sid));
    m.insert("cwd".into(), json!(project));
    m.insert("hook_event_name".into(), json!(event));
    m.insert("permission_mode".into(), json!("default"));
    m
}

fuzz_target!(|data: &[u8]| {
    let prompt = String::from_utf8_lossy(data).into_owned();
    let sid = ["fuzz-a", "fuzz-b", "fuzz-c"][data.len() % 3];
    HARNESS.with(|h| {
        let mut h = h.borrow_mut();
        let project = h.project().to_string_lossy().into_owned();
        let mut m = payload("UserPromptSubmit", sid, &project);
        m.insert("prompt".into(), json!(prompt));
        let submit = hooks::find("user-prompt-submit").expect("hook");
        h.decide(submit, &HookInput::from_map(m));
        if data.first().is_some_and(|b| b % 4 == 0) {
            let mut m = payload("Stop", sid, &project);
            m.insert("last_assistant_message".into(), json!("done"));
            let stop = hooks::find("stop").expect("hook");
            h.decide(stop, &HookInput::from_map(m));
        }
    });
});
