//! `omc-hooks report`: what a run did, whether it is proven, and what it cost, on one screen
//! (issue 42, contract §11). Not `cli/report.rs`, which is `doctor`'s findings.
//!
//! Everything comes from the run's own file, read as `status` reads it ([`super::runs`]): the
//! summary fields, the journal the Stop hook keeps in it (one record per Stop that decided
//! something, [`crate::capabilities::persistent_mode::journal`]), the files, commands and checks
//! taken from the session's work log at the last Stop. Cost is recomputed from the run's tokens
//! by model at the prices in force now (the shipped table, `.omc/config.json`'s `"prices"`), or
//! taken from what the client itself reported for the session when only one run used it
//! ([`cost`]). A run from before the journal (or OMC's) is reported from its summary, and says
//! its journal is gone.

mod html;
mod view;

use super::args::{fail, parse, usage_error};
use crate::env::Env;
use view::RunReport;

pub(super) const HELP: &str = "\
Usage: omc-hooks report [RUN] [--all] [--json] [--html FILE]

What a persistent mode's run did, on one screen: the task, mode and agent; start, end and wall
time; why it ended; whether the project's checks proved it (which check, when it last passed,
the end of its output when it failed); continuations and hand-backs; tokens (input, output,
cache) and cost; files changed and commands run; failed tool calls. A chart of tokens per
iteration when the output is a terminal (plain numbers otherwise or with NO_COLOR).

  RUN           which run: SESSION/MODE as the report and 'status' name it, a SESSION (its
                latest run) or a MODE (its latest run in the project); default: the project's
                latest run
  --all         the project's runs of the last 7 days, one line each
  --json        one JSON object (with --all: an array)
  --html FILE   write one self-contained page (no network) with a timeline of the run drawn as
                SVG: per iteration tokens, tool calls, new work, failures and hand-backs

Cost is the client's own figure where it reports one, else tokens x the list price of each model
(templates/cost/prices.json, dated; override with \"prices\" in .omc/config.json). A model with
no price makes the cost unknown, never $0.";

/// Runs of the last this many days are listed by `--all`.
const ALL_DAYS: i64 = 7;

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &["json", "all"], &["html"], true) {
        Ok(p) => p,
        Err(e) => return usage_error("report", HELP, &e),
    };
    if p.positional.len() > 1 {
        return usage_error("report", HELP, "name one run");
    }
    if p.flag("all") && (!p.positional.is_empty() || p.value("html").is_some()) {
        return usage_error(
            "report",
            HELP,
            "--all lists every run; name none, and no --html",
        );
    }
    let store = match super::status::open_store("report", env) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let config = crate::config::Config::read(&store).with_env(env);
    let now = env.now_ms();
    let runs = view::collect(&store, &config);
    if p.flag("all") {
        let recent: Vec<&RunReport> = runs
            .iter()
            .filter(|r| now - r.last_ms() <= ALL_DAYS * 24 * 3_600_000)
            .collect();
        let out = if p.flag("json") {
            let list: Vec<serde_json::Value> = recent.iter().map(|r| r.to_json()).collect();
            format!("{:#}\n", serde_json::Value::Array(list))
        } else if recent.is_empty() {
            format!(
                "No runs in the last {ALL_DAYS} days in {}.\n",
                store.project().display()
            )
        } else {
            recent.iter().map(|r| r.line(now)).collect::<String>()
        };
        print!("{}", crate::terminal::strip(&out));
        return 0;
    }
    let chosen = match p.positional.first() {
        Some(id) => match view::find(&runs, id) {
            Some(r) => r,
            None => {
                return fail(
                    "report",
                    &format!(
                        "no run '{id}' in {} (see 'omc-hooks report --all')",
                        store.project().display()
                    ),
                );
            }
        },
        None => match runs.first() {
            Some(r) => r,
            None => {
                println!("No runs in {}.", store.project().display());
                return 0;
            }
        },
    };
    if let Some(file) = p.value("html") {
        let page = html::page(chosen, now);
        if let Err(e) = std::fs::write(file, page) {
            return fail("report", &format!("cannot write {file}: {e}"));
        }
        println!("Wrote {file}");
        return 0;
    }
    if p.flag("json") {
        println!("{:#}", chosen.to_json());
        return 0;
    }
    let fancy = std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    print!("{}", crate::terminal::strip(&chosen.text(now, fancy)));
    0
}
