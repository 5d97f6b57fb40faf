//! The mode registry: every name the product knows, in one place.
//!
//! Keyword names follow the contract's priority chain (§5); persistent modes (§6) are the ones
//! the Stop hook keeps working. For each persistent mode the registry says where it ranks on
//! Stop, which text continues it, what limits it starts with, and how its run ends besides the
//! completion token (a reported phase, test status or stage). Registry invariants are tests.

use crate::state::files::ModeState;
use serde_json::Value;

/// The fourteen keyword names, in the contract's priority chain.
pub const KEYWORD_CHAIN: [&str; 14] = [
    "cancel",
    "ralph",
    "autopilot",
    "ultrawork",
    "ccg",
    "ralplan",
    "deep-interview",
    "ai-slop-cleaner",
    "tdd",
    "code-review",
    "security-review",
    "ultrathink",
    "deepsearch",
    "analyze",
];

/// Persistent modes, highest Stop priority first.
pub const PERSISTENT: [&str; 7] = [
    "ralph",
    "autopilot",
    "ultrawork",
    "ultraqa",
    "ralplan",
    "team",
    "pipeline",
];

pub fn is_persistent(name: &str) -> bool {
    PERSISTENT.contains(&name)
}

/// `<mode>-state.json`.
pub fn state_file_name(mode: &str) -> String {
    format!("{mode}-state.json")
}

/// What the model writes in its final message when the task is truly finished.
pub const COMPLETION_TOKEN: &str = "<omc-complete/>";

/// The spellings of the token that count (spacing inside the tag tolerated).
const COMPLETION_SPELLINGS: [&str; 3] = [
    COMPLETION_TOKEN,
    "<omc-complete />",
    "<omc-complete></omc-complete>",
];

/// Whether a final message declares completion: the token alone on the message's last
/// non-blank line (spaces around it allowed), outside a code block, as every text the model
/// is shown says. A token anywhere else — in a sentence ("I will not print `<omc-complete/>`
/// yet: 3 tests still fail."), in inline code, after a `>` quote mark, inside a fenced code
/// block, or followed by more text — is a mention, not the declaration, and ends nothing.
/// The one check every capability uses (persistent modes end, the top skill guard is released).
pub fn declares_completion(message: &str) -> bool {
    let body = message.trim_end();
    let (before, last) = match body.rfind('\n') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => ("", body),
    };
    COMPLETION_SPELLINGS.contains(&last.trim()) && !indented_code(last) && !in_open_fence(before)
}

/// Whether a line is indented as Markdown code (four spaces or a tab): a token there is shown,
/// not said.
fn indented_code(line: &str) -> bool {
    let lead: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    lead.contains('\t') || lead.len() >= 4
}

/// Whether `text` leaves a fenced code block (```` ``` ```` or `~~~`) open, so that the line
/// after it is code.
fn in_open_fence(text: &str) -> bool {
    let mut open: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_start();
        for fence in ["```", "~~~"] {
            if t.starts_with(fence) {
                open = match open {
                    None => Some(fence),
                    Some(f) if f == fence => None,
                    other => other,
                };
            }
        }
    }
    open.is_some()
}

/// How a mode's progress is reported, and so how its run can end besides the completion token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing to report: only the completion token (or a cancel, or a limit) ends the run.
    TokenOnly,
    /// `omc-hooks mode phase <mode> <phase>`; a terminal phase ends the run.
    Phases {
        phases: &'static [&'static str],
        terminal: &'static [&'static str],
    },
    /// `omc-hooks mode tests <mode> passing|failing`; all tests passing ends the run, and a
    /// failing report starts the next QA cycle.
    Tests,
    /// `omc-hooks mode stage <mode> <k>/<n>|done`; moving past the last stage ends the run.
    Stages,
}

/// One persistent mode.
#[derive(Debug)]
pub struct PersistentMode {
    pub name: &'static str,
    /// The Stop continuation text, `templates/stop/<mode>.md`.
    pub template: &'static str,
    /// Stop continuations a new run allows (`max_iterations`) unless configured otherwise.
    pub default_max: u32,
    pub progress: Progress,
}

const AUTOPILOT_PHASES: &[&str] = &[
    "expansion",
    "planning",
    "execution",
    "qa",
    "validation",
    "complete",
];
const TEAM_PHASES: &[&str] = &[
    "plan",
    "prd",
    "exec",
    "verify",
    "fix",
    "complete",
    "failed",
    "cancelled",
];

/// ultraqa's default number of QA cycles before it gives up with tests still failing.
pub const ULTRAQA_MAX_CYCLES: u32 = 10;

/// The persistent modes in Stop priority order (the same order as [`PERSISTENT`]).
pub const REGISTRY: [PersistentMode; 7] = [
    PersistentMode {
        name: "ralph",
        template: include_str!("../templates/stop/ralph.md"),
        default_max: 100,
        progress: Progress::TokenOnly,
    },
    PersistentMode {
        name: "autopilot",
        template: include_str!("../templates/stop/autopilot.md"),
        default_max: 30,
        progress: Progress::Phases {
            phases: AUTOPILOT_PHASES,
            terminal: &["complete"],
        },
    },
    PersistentMode {
        name: "ultrawork",
        template: include_str!("../templates/stop/ultrawork.md"),
        default_max: 50,
        progress: Progress::TokenOnly,
    },
    PersistentMode {
        name: "ultraqa",
        template: include_str!("../templates/stop/ultraqa.md"),
        default_max: 30,
        progress: Progress::Tests,
    },
    PersistentMode {
        name: "ralplan",
        template: include_str!("../templates/stop/ralplan.md"),
        default_max: 30,
        progress: Progress::TokenOnly,
    },
    PersistentMode {
        name: "team",
        template: include_str!("../templates/stop/team.md"),
        default_max: 30,
        progress: Progress::Phases {
            phases: TEAM_PHASES,
            terminal: &["complete", "failed", "cancelled"],
        },
    },
    PersistentMode {
        name: "pipeline",
        template: include_str!("../templates/stop/pipeline.md"),
        default_max: 20,
        progress: Progress::Stages,
    },
];

/// The registry entry of a persistent mode.
pub fn persistent(name: &str) -> Option<&'static PersistentMode> {
    REGISTRY.iter().find(|m| m.name == name)
}

/// The iteration (reinforcement) limit a new run of `mode` starts with: project configuration
/// (`<mode>.max_iterations` in `.omc/config.json`) or the built-in default, never above the
/// hard maximum in force ([`crate::config::Config::hard_max`]: 500, or `OMC_RALPH_HARD_MAX`).
/// The one source for what activation texts announce and what a new run records.
pub fn max_iterations(mode: &str, config: &crate::config::Config) -> u32 {
    let default = persistent(mode).map_or(20, |m| m.default_max);
    config
        .u32_at(&format!("{mode}/max_iterations"))
        .filter(|n| *n > 0)
        .unwrap_or(default)
        .min(config.hard_max())
        .max(1)
}

/// The limit a run is held to: its own `max_iterations` (or the default when the file has
/// none, as OMC's files may not), never above the hard maximum in force. The one source for
/// what the Stop hook enforces and what `status`, `mode show`, checkpoints and restored-run
/// texts show.
pub fn effective_max(state: &ModeState, config: &crate::config::Config) -> u32 {
    let own = match state.max_iterations {
        0 => max_iterations(&state.mode, config),
        n => n,
    };
    own.min(config.hard_max()).max(1)
}

/// The time budget a new run of `mode` starts with, in minutes: `<mode>.max_minutes` from
/// `.omc/config.json`, or none (0). A keyword's own budget (`ralph 2h …`) replaces it.
pub fn max_minutes(mode: &str, config: &crate::config::Config) -> u32 {
    config
        .u32_at(&format!("{mode}/max_minutes"))
        .filter(|n| *n > 0)
        .unwrap_or(0)
}

/// Milliseconds left of a run's time budget (≤ 0: spent), or `None` without one.
pub fn time_left_ms(state: &ModeState, now_ms: i64) -> Option<i64> {
    if state.max_minutes == 0 {
        return None;
    }
    let deadline = state
        .deadline_at
        .as_deref()
        .and_then(crate::time::parse_iso)?;
    Some(deadline - now_ms)
}

/// `34 min left`, `1 h 12 min left`, `under a minute left`: what is left of a time budget.
pub fn time_left_text(ms: i64) -> String {
    if ms < 60_000 {
        return "under a minute left".into();
    }
    let minutes = ms / 60_000;
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min left"),
        (h, 0) => format!("{h} h left"),
        (h, m) => format!("{h} h {m} min left"),
    }
}

/// A time budget for people: `45 min`, `2 h`, `1 h 30 min`.
pub fn minutes_text(minutes: u32) -> String {
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// ` · 340k/500k tokens · 34 min left` after a run's `iteration/max`: its token budget and
/// what is left of its time budget, each only when the run has one.
pub fn budget_suffix(state: &ModeState, now_ms: i64) -> String {
    let mut out = String::new();
    if let Some(t) = tokens_budget_text(state) {
        out.push_str(" · ");
        out.push_str(&t);
    }
    if state.max_cost_usd > 0.0
        && let Some(c) = cost_text(state)
    {
        out.push_str(" · ");
        out.push_str(&c);
    }
    if let Some(ms) = time_left_ms(state, now_ms) {
        out.push_str(" · ");
        out.push_str(&time_left_text(ms.max(0)));
    }
    out
}

/// Why a run ended, for people: the documented reasons (contract §6), in words.
pub fn end_reason_text(s: &ModeState) -> String {
    let why = match s.ended_reason.as_deref().unwrap_or("") {
        "completed" => match s.verified {
            Some(true) => "completed, verified by the project's checks".to_string(),
            _ => "completed (not verified)".to_string(),
        },
        "tests_passing" => "completed: all tests passing".into(),
        "max_iterations" => "iteration limit reached".into(),
        "max_cycles" => "QA cycle limit reached".into(),
        "max_minutes" => "time budget spent".into(),
        "max_tokens" => "token budget spent".into(),
        "max_cost" => "money budget spent".into(),
        "cancelled" => "cancelled".into(),
        "stale" => "stale (untouched for 2 h)".into(),
        "failed" => "reported failed".into(),
        "resumed" => "taken up by a later session".into(),
        other => other.to_string(),
    };
    let tokens = match tokens_budget_text(s) {
        Some(t) => format!("{why}; {t}"),
        None if s.tokens_used > 0 => format!(
            "{why}; {} tokens",
            crate::state::usage::tokens_text(s.tokens_used)
        ),
        None => why,
    };
    // A known cost only: where it is unknown, the report and `status` say so on their own.
    match cost_text(s).filter(|_| s.cost_usd.is_some()) {
        Some(c) => format!("{tokens}, {c}"),
        None => tokens,
    }
}

/// `$0.42` (or `$0.42/$5.00` with a money budget, `cost unknown` when a model has no price)
/// for a run that spent tokens; `None` before any.
pub fn cost_text(s: &ModeState) -> Option<String> {
    use crate::config::prices::money_text;
    if s.usage.is_empty() && s.cost_usd.is_none() {
        return None;
    }
    let spent = s.cost_usd.map_or("cost unknown".to_string(), money_text);
    Some(if s.max_cost_usd > 0.0 {
        format!("{spent}/{}", money_text(s.max_cost_usd))
    } else {
        spent
    })
}

/// What a run's tokens cost at the prices in force (`None`: unknown, or no usage yet).
pub fn run_cost(s: &ModeState, config: &crate::config::Config) -> Option<f64> {
    if s.usage.is_empty() {
        return None;
    }
    crate::config::prices::cost(&s.usage, config)
}

/// The id `omc-hooks report` names a run by: `SESSION/MODE` (`-/MODE` without a session).
pub fn run_id(s: &ModeState) -> String {
    format!("{}/{}", s.session_id.as_deref().unwrap_or("-"), s.mode)
}

/// A run's summary in a few lines, for the end-of-run notification and the export: tokens
/// and cost, files changed, commands run, and the command that shows the whole report.
pub fn run_summary(s: &ModeState) -> String {
    use crate::state::usage::tokens_text;
    let mut t = crate::state::usage::Tokens::default();
    for m in s.usage.values() {
        t.add(m);
    }
    let mut out = format!("Tokens: {}", tokens_text(s.tokens_used));
    if t.sum() > 0 {
        out.push_str(&format!(
            " (input {}, output {}, cache read {}, cache write {})",
            tokens_text(t.input),
            tokens_text(t.output),
            tokens_text(t.cache_read),
            tokens_text(t.cache_write)
        ));
    }
    if let Some(c) = cost_text(s) {
        out.push_str(&format!(" · cost {c}"));
    }
    let list = |v: &[String]| {
        let shown: Vec<&str> = v.iter().take(8).map(String::as_str).collect();
        let more = v.len().saturating_sub(shown.len());
        let mut l = shown.join(", ");
        if more > 0 {
            l.push_str(&format!(" and {more} more"));
        }
        l
    };
    if !s.files_changed.is_empty() {
        out.push_str(&format!("\nFiles: {}", list(&s.files_changed)));
    }
    if !s.commands_run.is_empty() {
        out.push_str(&format!("\nCommands: {}", list(&s.commands_run)));
    }
    out.push_str(&format!("\nReport: omc-hooks report {}", run_id(s)));
    out
}

/// `340k/500k tokens` for a run with a token budget.
pub fn tokens_budget_text(state: &ModeState) -> Option<String> {
    use crate::state::usage::tokens_text;
    (state.max_tokens > 0).then(|| {
        format!(
            "{}/{} tokens",
            tokens_text(state.tokens_used),
            tokens_text(state.max_tokens)
        )
    })
}

/// The token budget a new run of `mode` starts with: `<mode>.max_tokens` from
/// `.omc/config.json`, or none (0). A prompt's own budget (`--tokens 500k`) replaces it.
pub fn max_tokens(mode: &str, config: &crate::config::Config) -> u64 {
    config
        .get(&format!("{mode}/max_tokens"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

/// The money budget a new run of `mode` starts with, in US dollars: `<mode>.max_cost_usd`
/// from `.omc/config.json`, or none (0). A prompt's own (`--cost 5`) replaces it.
pub fn max_cost_usd(mode: &str, config: &crate::config::Config) -> f64 {
    config
        .get(&format!("{mode}/max_cost_usd"))
        .and_then(serde_json::Value::as_f64)
        .filter(|c| c.is_finite() && *c > 0.0)
        .unwrap_or(0.0)
}

/// Normalises a reported phase: lowercase, and `team-exec` is `exec` (OMC's spelling).
pub fn normalize_phase(mode: &str, phase: &str) -> String {
    let p = phase.trim().to_ascii_lowercase().replace([' ', '_'], "-");
    let p = match (mode, p.strip_prefix("team-")) {
        ("team", Some(rest)) => rest.to_string(),
        _ => p,
    };
    match p.as_str() {
        "completed" | "done" => "complete".into(),
        "canceled" => "cancelled".into(),
        "executing" => "exec".into(),
        "planning" if mode == "team" => "plan".into(),
        "verification" | "verifying" if mode == "team" => "verify".into(),
        "fixing" if mode == "team" => "fix".into(),
        _ => p,
    }
}

/// The phase a run reported (`phase`, or OMC's `current_phase`), normalised.
pub fn phase_of(state: &ModeState) -> Option<String> {
    state
        .phase
        .clone()
        .or_else(|| str_extra(state, "current_phase"))
        .filter(|p| !p.trim().is_empty())
        .map(|p| normalize_phase(&state.mode, &p))
}

/// ultraqa: the current QA cycle (1-based) and the cycle limit.
pub fn cycles_of(state: &ModeState) -> (u32, u32) {
    let cycle = u32_extra(state, "cycle").filter(|c| *c > 0).unwrap_or(1);
    let max = u32_extra(state, "max_cycles")
        .filter(|c| *c > 0)
        .unwrap_or(ULTRAQA_MAX_CYCLES);
    (cycle, max)
}

/// pipeline: the current stage (1-based) and the number of stages, when reported.
pub fn stages_of(state: &ModeState) -> Option<(u32, u32)> {
    if let (Some(k), Some(n)) = (u32_extra(state, "stage"), u32_extra(state, "stage_count")) {
        return Some((k, n));
    }
    // OMC's shape: a 0-based `current_stage` into a `stages` array.
    let n = state.extra.get("stages")?.as_array()?.len() as u32;
    let k = u32_extra(state, "current_stage").unwrap_or(0) + 1;
    Some((k, n))
}

/// Why the run is over by its own measure (a terminal phase, all tests passing, past the last
/// stage), or `None` while it still has work. The completion token, cancel and the limits are
/// handled by the Stop decision, not here.
pub fn finished(state: &ModeState) -> Option<&'static str> {
    let spec = persistent(&state.mode)?;
    match spec.progress {
        Progress::TokenOnly => None,
        Progress::Phases { terminal, .. } => {
            let phase = phase_of(state)?;
            let why = match phase.as_str() {
                "complete" => "completed",
                "failed" => "failed",
                _ => "cancelled",
            };
            terminal.contains(&phase.as_str()).then_some(why)
        }
        Progress::Tests => {
            (state.extra.get("all_passing") == Some(&Value::Bool(true))).then_some("tests_passing")
        }
        Progress::Stages => {
            let (k, n) = stages_of(state)?;
            (n > 0 && k > n).then_some("completed")
        }
    }
}

fn str_extra(state: &ModeState, key: &str) -> Option<String> {
    state.extra.get(key)?.as_str().map(str::to_string)
}

fn u32_extra(state: &ModeState, key: &str) -> Option<u32> {
    state
        .extra
        .get(key)?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
}

/// Fills `{{name}}` placeholders in a template. Unknown placeholders are left as they are
/// (the template tests check none survive).
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let key = &after[..end];
                match vars.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[start..start + 2 + end + 2]),
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RALPH_HARD_MAX, hard_max};
    use serde_json::json;

    #[test]
    fn cancel_heads_the_chain_and_names_are_unique() {
        assert_eq!(KEYWORD_CHAIN[0], "cancel");
        let mut names = KEYWORD_CHAIN.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KEYWORD_CHAIN.len());
    }

    #[test]
    fn persistent_keyword_modes_keep_chain_order() {
        let in_chain: Vec<_> = KEYWORD_CHAIN.iter().filter(|n| is_persistent(n)).collect();
        assert_eq!(
            in_chain,
            vec![&"ralph", &"autopilot", &"ultrawork", &"ralplan"]
        );
    }

    #[test]
    fn registry_follows_the_stop_priority_order() {
        let names: Vec<_> = REGISTRY.iter().map(|m| m.name).collect();
        assert_eq!(names, PERSISTENT.to_vec());
        for m in &REGISTRY {
            assert!(m.default_max > 0 && m.default_max <= RALPH_HARD_MAX);
            let header = format!("[{}", m.name.to_ascii_uppercase());
            assert!(m.template.starts_with(&header), "{}", m.name);
            for needle in [
                "{{iteration}}/{{max}}{{time_left}}]",
                "{{task}}",
                "{{complete}}",
                "{{needs_input}}",
                "cancelomc",
            ] {
                assert!(m.template.contains(needle), "{} lacks {needle}", m.name);
            }
            if m.progress != Progress::TokenOnly {
                assert!(m.template.contains("{{bin}} mode "), "{}", m.name);
            }
        }
    }

    #[test]
    fn ralph_defaults_to_100_and_the_hard_max_caps_configuration() {
        let c = crate::config::Config::default();
        assert_eq!(max_iterations("ralph", &c), 100);
        let big = crate::config::Config::from_value(json!({"ralph":{"max_iterations":9999}}));
        assert_eq!(max_iterations("ralph", &big), RALPH_HARD_MAX);
        assert_eq!(hard_max(Some("40")), 40);
        assert_eq!(hard_max(Some("9999")), RALPH_HARD_MAX);
        assert_eq!(hard_max(Some("x")), RALPH_HARD_MAX);
        let mut s = ModeState::start("ralph", Some("s1"), "/p", "t", "t0", 0);
        assert_eq!(effective_max(&s, &c), 100);
        s.max_iterations = 10_000;
        assert_eq!(effective_max(&s, &c), RALPH_HARD_MAX);
        // OMC_RALPH_HARD_MAX lowers both what a new run gets and what a running one is held to.
        let env = crate::env::Env::from_lookup(
            |_| None,
            None,
            [("OMC_RALPH_HARD_MAX".to_string(), "3".to_string())].into(),
        );
        let low = crate::config::Config::default().with_env(&env);
        assert_eq!(max_iterations("ralph", &low), 3);
        assert_eq!(max_iterations("pipeline", &low), 3);
        assert_eq!(effective_max(&s, &low), 3);
    }

    fn state(mode: &str, extra: Value) -> ModeState {
        let mut s = ModeState::start(mode, Some("s1"), "/p", "t", "t0", 10);
        if let Value::Object(m) = extra {
            s.extra = m;
        }
        s
    }

    #[test]
    fn each_mode_ends_by_its_own_measure() {
        assert_eq!(finished(&state("ralph", json!({}))), None);
        let mut a = state("autopilot", json!({}));
        assert_eq!(finished(&a), None);
        a.phase = Some("execution".into());
        assert_eq!(finished(&a), None);
        a.phase = Some("Complete".into());
        assert_eq!(finished(&a), Some("completed"));
        // OMC's field name.
        let a = state("autopilot", json!({"current_phase": "complete"}));
        assert_eq!(finished(&a), Some("completed"));
        let t = state("team", json!({"current_phase": "team-exec"}));
        assert_eq!(finished(&t), None);
        let t = state("team", json!({"current_phase": "team-failed"}));
        assert_eq!(finished(&t), Some("failed"));
        assert_eq!(
            finished(&state("ultraqa", json!({"all_passing": false}))),
            None
        );
        assert_eq!(
            finished(&state("ultraqa", json!({"all_passing": true}))),
            Some("tests_passing")
        );
        let p = state("pipeline", json!({"stage": 3, "stage_count": 3}));
        assert_eq!(finished(&p), None);
        let p = state("pipeline", json!({"stage": 4, "stage_count": 3}));
        assert_eq!(finished(&p), Some("completed"));
        let omc = state("pipeline", json!({"current_stage": 1, "stages": [{}, {}]}));
        assert_eq!(finished(&omc), None);
        let omc = state("pipeline", json!({"current_stage": 2, "stages": [{}, {}]}));
        assert_eq!(finished(&omc), Some("completed"));
    }

    #[test]
    fn fill_replaces_known_placeholders_only() {
        assert_eq!(fill("a {{x}} b {{y}} {{", &[("x", "1")]), "a 1 b {{y}} {{");
    }
}
