//! The real Qwen Code (pinned 0.24.4) with the scripted chat-completions model.

use crate::e2e::clients::Agent;
use crate::e2e_agents as s;

#[test]
fn a_shell_turn_round_trips() {
    let (run, events) = s::a_shell_turn_round_trips(Agent::Qwen);
    eprintln!("{}", run.diagnostics());
    for (e, v) in &events {
        eprintln!("{e}: {v}");
    }
}
