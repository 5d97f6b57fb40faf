//! The real Claude Code and `omc-hooks report` (issue 42): a ralph run driven by the scripted
//! model server, which reports the same usage on every answer (`Scenario::input_tokens`), is
//! reported after its end with the tokens those answers add up to and their cost at the prices
//! the project sets in `.omc/config.json` (`"claude"` prices every `claude-…` model the client
//! asks for).

use crate::e2e::{Sandbox, Scenario};
use serde_json::{Value, json};

const INPUT: u64 = 1_000;
/// The scripted server's output tokens per answer.
const OUTPUT: u64 = 5;

#[test]
fn e2e_report_after_a_run_matches_what_the_model_reported() {
    let sb = Sandbox::new();
    sb.write(
        ".omc/config.json",
        r#"{"prices": {"claude": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}}"#,
    );
    let mut sc = Scenario::new().input_tokens(INPUT);
    for i in 0..2 {
        sc = sc
            .reply_tool(
                "Bash",
                json!({"command": format!("echo step-{i}"), "description": "step"}),
            )
            .reply_text(format!("step {i} done; more remains"));
    }
    sc = sc
        .reply_text("The parser is fixed.\n<omc-complete/>")
        .reply_text("unexpected");
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        "ralph fix the failing parser test",
        sc,
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    let calls = run.main_loop_requests().len() as u64;
    assert!(calls >= 5, "{calls} calls\n{d}");
    let out = std::process::Command::new(crate::e2e::agent_harness::omc_bin())
        .args(["report", "--json"])
        .current_dir(sb.project())
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let r: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}\n{d}"));
    assert_eq!(r["mode"], "ralph", "{r:#}");
    assert_eq!(r["ended_reason"], "completed", "{r:#}");
    assert_eq!(r["session_id"], run.session_id.as_str(), "{r:#}");
    // Every main-loop answer's usage, once each.
    assert_eq!(r["tokens_used"], calls * (INPUT + OUTPUT), "{r:#}\n{d}");
    assert_eq!(r["tokens"]["input"], calls * INPUT, "{r:#}");
    assert_eq!(r["tokens"]["output"], calls * OUTPUT, "{r:#}");
    let want = calls as f64 * (INPUT as f64 * 3.0 + OUTPUT as f64 * 15.0) / 1e6;
    let cost = r["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("a known cost: {r:#}"));
    assert!((cost - want).abs() < want * 0.01, "{cost} vs {want}");
    assert_eq!(
        r["commands_run"],
        json!(["echo step-0", "echo step-1"]),
        "{r:#}"
    );
    let timeline = r["timeline"].as_array().unwrap();
    assert_eq!(
        timeline.len() as u64,
        r["iterations"].as_u64().unwrap(),
        "{r:#}"
    );
}
