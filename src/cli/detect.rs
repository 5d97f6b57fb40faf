//! `omc-hooks detect [--json] [--no-run] "<prompt>"`: what a prompt would activate, and why,
//! without touching any state. The prompt comes from the arguments (joined by spaces) or, when
//! there are none, from stdin. The project's configuration is read (for disabled names), never
//! written. A stop said in the person's own words is judged as while a run is active (with
//! `--no-run`, as outside any run). `omc-hooks detect --rules` prints the rule table every
//! explanation comes from.

use crate::capabilities::keywords::{self, rules};
use crate::config::Config;
use crate::env::Env;
use crate::state::{Store, root};
use serde_json::json;
use std::fmt::Write as _;
use std::io::{Read, Write as _};

pub const HELP: &str = "Usage: omc-hooks detect [--json] [--no-run] [--explain] [PROMPT...]\n       omc-hooks detect --rules [--json]\n\n\
Shows which magic keywords PROMPT would activate and, for every candidate judged, the matched\n\
text, its byte offset, whether it activated and the rule that decided (with what the rule\n\
recognises). Reads the prompt from stdin when none is given. Touches no state; names disabled\n\
in .omc/config.json are reported as such. A budget right after a mode's name (ralph 2h …,\n\
ralph --max 40 …) is shown, and the prompt judged without it, as the hook does. A stop said\n\
in your own words (\"stop the loop\") ends runs only while one is active: it is judged as\n\
during a run unless --no-run is given.\n\n  \
--json    print one JSON object instead of the table\n  \
--no-run  judge as outside any run\n  \
--explain also list the stop verbs heard that did not ask to stop (rule not-a-stop)\n  \
--rules   print every rule, in the order they apply: stage, name, verdict, what it recognises";

/// Runs the command.
pub fn run(args: &[String], env: &Env) -> i32 {
    let mut json_out = false;
    let mut list_rules = false;
    let mut no_run = false;
    let mut explain = false;
    let mut words = Vec::new();
    let mut rest_are_words = false;
    for a in args {
        match a.as_str() {
            "--json" if !rest_are_words => json_out = true,
            "--rules" if !rest_are_words => list_rules = true,
            "--no-run" if !rest_are_words => no_run = true,
            "--explain" if !rest_are_words => explain = true,
            "--" if !rest_are_words => rest_are_words = true,
            s if s.starts_with("--") && !rest_are_words => {
                eprintln!("omc-hooks detect: unknown option {s}. See 'omc-hooks help detect'.");
                return 2;
            }
            s => words.push(s.to_string()),
        }
    }
    if list_rules {
        if !words.is_empty() {
            eprintln!("omc-hooks detect: --rules takes no prompt. See 'omc-hooks help detect'.");
            return 2;
        }
        return print(&rule_table(json_out));
    }
    let prompt = if words.is_empty() {
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().take(16 << 20).read_to_end(&mut buf) {
            eprintln!("omc-hooks detect: cannot read stdin: {e}");
            return 2;
        }
        String::from_utf8_lossy(&buf).into_owned()
    } else {
        words.join(" ")
    };
    let config = root::resolve(env, None)
        .map(|r| Config::load(&Store::new(r, env.now_ms())))
        .unwrap_or_default();
    // A budget after the mode's name (`ralph 2h …`) is judged as the hook judges it: the
    // request is the prompt without it.
    let (judged, budget, det) = keywords::with_budget(&prompt, &config, &|| !no_run);
    let budget_json = (!budget.is_empty()).then(|| {
        json!({
            "max_minutes": budget.max_minutes,
            "max_iterations": budget.max_iterations,
            "max_tokens": budget.max_tokens,
            "max_cost_usd": budget.max_cost_micros.map(|m| m as f64 / 1e6),
            "judged": judged,
        })
    });
    if json_out {
        let candidates: Vec<_> = det
            .candidates
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "matched": c.matched,
                    "offset": c.offset,
                    "activated": c.activated,
                    "rule": c.rule,
                    "stage": rules::find(c.rule).map(|r| r.stage.label()),
                    "why": rules::describe(c.rule),
                })
            })
            .collect();
        let out = json!({
            "modes": det.modes,
            "cancel": det.cancel(),
            "cancel_needs_run": det.cancel_needs_run,
            "candidates": candidates,
            "unjudged": det.unjudged,
            "unjudged_span": det.unjudged_span.map(|(a, b)| json!([a, b])),
            "budget": budget_json,
        });
        let mut out = out;
        if explain {
            out["set_aside"] = det
                .set_aside
                .iter()
                .map(|c| json!({"name": c.name, "matched": c.matched, "offset": c.offset, "rule": c.rule, "why": rules::describe(c.rule)}))
                .collect();
        }
        return print(&format!("{out}\n"));
    }
    let mut text = String::new();
    if det.modes.is_empty() {
        text.push_str("verdict: nothing activated\n");
    } else {
        let _ = writeln!(text, "verdict: {}", keywords::header(&det.modes));
    }
    if det.cancel_needs_run {
        text.push_str("  (a stop in the person's own words: acted on only while a run or a skill guard of the session is active)\n");
    }
    if !budget.is_empty() {
        let mut parts = Vec::new();
        if let Some(m) = budget.max_minutes {
            parts.push(format!("time {}", crate::modes::minutes_text(m)));
        }
        if let Some(n) = budget.max_iterations {
            parts.push(format!("{n} iterations"));
        }
        if let Some(n) = budget.max_tokens {
            parts.push(format!("{} tokens", crate::state::usage::tokens_text(n)));
        }
        if let Some(m) = budget.max_cost_micros {
            parts.push(crate::config::prices::money_text(m as f64 / 1e6));
        }
        let _ = writeln!(
            text,
            "budget: {} — judged without it: {judged:?} (offsets below are in that text)",
            parts.join(", ")
        );
    }
    if det.candidates.is_empty() {
        text.push_str("no keyword candidates\n");
    }
    // The candidates judged, then (with --explain) those set aside before judging.
    let aside = if explain { &det.set_aside[..] } else { &[] };
    let judged = det.candidates.iter().map(|c| {
        let status = if c.activated { "ACTIVATED" } else { "ignored" };
        (c, status)
    });
    for (c, status) in judged.chain(aside.iter().map(|c| (c, "set aside"))) {
        let _ = writeln!(
            text,
            "  {:<16} {:<24} at {:<6} {:<10} {}: {}",
            c.name,
            format!("{:?}", c.matched),
            c.offset,
            status,
            c.rule,
            rules::describe(c.rule)
        );
    }
    if let Some((from, to)) = det.unjudged_span {
        let _ = writeln!(
            text,
            "  … and {} more candidates between bytes {from} and {to}, not judged (at most {} are: the first and the last half)",
            det.unjudged,
            keywords::scan::MAX_JUDGED
        );
    }
    print(&text)
}

/// The rule table, as text (one rule a line) or JSON.
fn rule_table(json_out: bool) -> String {
    if json_out {
        let rows: Vec<_> = rules::RULES
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "stage": r.stage.label(),
                    "verdict": r.effect.label(),
                    "recognises": r.recognises,
                })
            })
            .collect();
        return format!("{}\n", json!({ "rules": rows }));
    }
    let mut text = String::from(
        "Rules in the order they apply; for a candidate, the first guard or shape that holds decides.\n",
    );
    for r in rules::RULES {
        let _ = writeln!(
            text,
            "  {:<9} {:<20} {:<9} {}",
            r.stage.label(),
            r.name,
            r.effect.label(),
            r.recognises
        );
    }
    text
}

/// Writes to stdout; a closed pipe (`detect … | head`) is not an error worth a panic.
fn print(text: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    0
}
