//! The real Gemini CLI (pinned 0.61.0) with the scripted Gemini-API model.

use crate::e2e::clients::Agent;
use crate::e2e_agents as s;

#[test]
fn a_shell_turn_round_trips() {
    let (run, events) = s::a_shell_turn_round_trips(Agent::Gemini);
    eprintln!("{}", run.diagnostics());
    for (e, v) in &events {
        eprintln!("{e}: {v}");
    }
}
