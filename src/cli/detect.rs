//! `omc-hooks detect [--json] "<prompt>"`: what a prompt would activate, and why, without
//! touching any state. The prompt comes from the arguments (joined by spaces) or, when there
//! are none, from stdin. The project's configuration is read (for disabled names), never
//! written.

use crate::capabilities::keywords::{self, intent};
use crate::config::Config;
use crate::env::Env;
use crate::state::{Store, root};
use serde_json::json;
use std::io::Read;

pub const HELP: &str = "Usage: omc-hooks detect [--json] [PROMPT...]\n\n\
Shows which magic keywords PROMPT would activate and, for every candidate, the matched text,\n\
its byte offset, whether it activated and the rule that decided. Reads the prompt from stdin\n\
when none is given. Touches no state; names disabled in .omc/config.json are reported as such.\n\n  \
--json   print one JSON object instead of the table";

/// Runs the command.
pub fn run(args: &[String], env: &Env) -> i32 {
    let mut json_out = false;
    let mut words = Vec::new();
    let mut rest_are_words = false;
    for a in args {
        match a.as_str() {
            "--json" if !rest_are_words => json_out = true,
            "--" if !rest_are_words => rest_are_words = true,
            s if s.starts_with("--") && !rest_are_words => {
                eprintln!("omc-hooks detect: unknown option {s}. See 'omc-hooks help detect'.");
                return 2;
            }
            s => words.push(s.to_string()),
        }
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
    let det = keywords::detect(&prompt, &config.disabled_keywords());
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
                    "why": intent::describe(c.rule),
                })
            })
            .collect();
        let out = json!({
            "modes": det.modes,
            "cancel": det.cancel(),
            "candidates": candidates,
            "unreported": det.unreported,
        });
        println!("{out}");
        return 0;
    }
    if det.modes.is_empty() {
        println!("verdict: nothing activated");
    } else {
        println!("verdict: {}", keywords::header(&det.modes));
    }
    if det.candidates.is_empty() {
        println!("no keyword candidates");
    }
    for c in &det.candidates {
        println!(
            "  {:<16} {:<24} at {:<6} {:<10} {}: {}",
            c.name,
            format!("{:?}", c.matched),
            c.offset,
            if c.activated { "ACTIVATED" } else { "ignored" },
            c.rule,
            intent::describe(c.rule)
        );
    }
    if det.unreported > 0 {
        println!("  … and {} more candidates not shown", det.unreported);
    }
    0
}
