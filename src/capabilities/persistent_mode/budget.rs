//! A run's budget said with the request (issue 24, contract §6): `ralph 2h fix the tests`,
//! `ralph --max 40 fix the tests`, `ulw 1h30m --max 20 …`. The words right after a persistent
//! mode's name at the head of the prompt (or at the head of `mode start`'s task) that say a
//! time (`90m`, `2h`, `1h30m`, `45min`) or `--max N` iterations are the budget; they are taken
//! out of the request, so the task the run records and repeats is the request without them.
//!
//! Kept apart from keyword detection on purpose: the detector judges the request with the
//! budget already taken out (`ralph fix the tests`), and a prompt whose head mode does not
//! then activate is judged as typed, with no budget (see `keywords::on_prompt`).
//!
//! A budget is applied as an overlay of the configuration for the modes the prompt starts
//! (`<mode>.max_iterations`, `<mode>.max_minutes`), so the one start routine, the activation
//! text and the hard maximum all treat it like the project's own settings.

use crate::config::Config;
use crate::modes::PERSISTENT;

/// What a request said about its run's limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    pub max_iterations: Option<u32>,
    pub max_minutes: Option<u32>,
    pub max_tokens: Option<u64>,
    /// A money budget (`--cost 5`, `--cost $0.50`), in millionths of a US dollar (whole
    /// numbers keep the budget comparable as said).
    pub max_cost_micros: Option<u64>,
    /// Budget words that were meant as one but are not understood (`0m`, `7d`, `2 h`,
    /// `-max 40`, `--max 0`), each with why: taken out of the request, and the person is told.
    pub unclear: Vec<(String, &'static str)>,
}

impl Budget {
    pub fn is_empty(&self) -> bool {
        self.max_iterations.is_none()
            && self.max_minutes.is_none()
            && self.max_tokens.is_none()
            && self.max_cost_micros.is_none()
            && self.unclear.is_empty()
    }

    /// What the person is told about budget words that were not understood, if any.
    pub fn unclear_note(&self) -> Option<String> {
        (!self.unclear.is_empty()).then(|| {
            let words: Vec<String> = self
                .unclear
                .iter()
                .map(|(w, why)| format!("`{w}` ({why})"))
                .collect();
            crate::modes::fill(UNCLEAR, &[("words", &words.join(", "))])
                .trim_end()
                .to_string()
        })
    }

    /// `config` with this budget as the limits of `modes` (persistent ones only).
    pub fn apply(&self, config: &Config, modes: &[&str]) -> Config {
        let mut out = config.clone();
        for mode in modes.iter().filter(|m| PERSISTENT.contains(m)) {
            if let Some(n) = self.max_iterations {
                out = out.with_value(&[mode, "max_iterations"], n.into());
            }
            if let Some(n) = self.max_minutes {
                out = out.with_value(&[mode, "max_minutes"], n.into());
            }
            if let Some(n) = self.max_tokens {
                out = out.with_value(&[mode, "max_tokens"], n.into());
            }
            if let Some(m) = self.max_cost_micros {
                out = out.with_value(&[mode, "max_cost_usd"], (m as f64 / 1e6).into());
            }
        }
        out
    }
}

const ANNOUNCE: &str = include_str!("../../../templates/modes/time-budget.md");
const UNCLEAR: &str = include_str!("../../../templates/modes/budget-unclear.md");

/// The line the activation text ends with when a run it starts has a time budget:
/// `[TIME BUDGET] ralph: 2 h. …`.
pub fn announce(config: &Config, modes: &[&str]) -> Option<String> {
    let runs: Vec<String> = modes
        .iter()
        .filter(|m| PERSISTENT.contains(m))
        .filter_map(|m| {
            let minutes = crate::modes::max_minutes(m, config);
            (minutes > 0).then(|| format!("{m}: {}", crate::modes::minutes_text(minutes)))
        })
        .collect();
    (!runs.is_empty()).then(|| crate::modes::fill(ANNOUNCE, &[("runs", &runs.join(", "))]))
}

/// The longest time budget a keyword may set: a week, in minutes.
const MAX_MINUTES: u32 = 7 * 24 * 60;

/// Splits the budget off a prompt that opens with a persistent mode's name (after an optional
/// `/`, `$` or `omc:`): `("ralph fix the tests", 2 h)` for `ralph 2h fix the tests`. Anything
/// else is `None`: the prompt stands as typed (a megabyte paste is not copied to say so).
pub fn split(prompt: &str) -> Option<(String, Budget)> {
    let lead = prompt.len() - prompt.trim_start().len();
    let rest = &prompt[lead..];
    let name_start = ["omc:", "/", "$"]
        .iter()
        .find_map(|p| rest.strip_prefix(p).map(|_| p.len()))
        .unwrap_or(0);
    let name_len = rest[name_start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len() - name_start);
    let name = rest[name_start..name_start + name_len].to_ascii_lowercase();
    if !(PERSISTENT.contains(&name.as_str()) || name == "ulw") {
        return None;
    }
    let head_end = lead + name_start + name_len;
    let (task, budget) = split_task(&prompt[head_end..]);
    if budget.is_empty() {
        return None;
    }
    let sep = if task.is_empty() { "" } else { " " };
    Some((format!("{}{sep}{task}", &prompt[..head_end]), budget))
}

/// Splits leading budget words off a task (`2h fix the tests` → `fix the tests`, 2 h).
pub fn split_task(task: &str) -> (String, Budget) {
    let mut budget = Budget::default();
    let mut rest = task.trim_start();
    loop {
        let (word, after) = match rest.find(char::is_whitespace) {
            Some(i) => (&rest[..i], rest[i..].trim_start()),
            None => (rest, ""),
        };
        if word.is_empty() {
            break;
        }
        let (next, after_next) = match after.find(char::is_whitespace) {
            Some(i) => (&after[..i], after[i..].trim_start()),
            None => (after, ""),
        };
        // `--max N`, `--max=N`, `--tokens N`, `--tokens=N`, and the slips of them.
        if let Some((flag, inline)) = flag_of(word) {
            let (value, after_value) = match inline {
                Some(v) => (v, after),
                None => (next, after_next),
            };
            let exact = word.starts_with("--");
            match (flag, exact) {
                ("max", true) => match count(value) {
                    Some(n) => budget.max_iterations = Some(n),
                    None => budget.unclear.push((
                        joined(word, inline.is_none().then_some(value)),
                        "the number of iterations must be a whole number of at least 1",
                    )),
                },
                ("tokens", true) => match tokens(value) {
                    Some(n) => budget.max_tokens = Some(n),
                    None => budget.unclear.push((
                        joined(word, inline.is_none().then_some(value)),
                        "a token budget is a positive number, such as 500k or 2m",
                    )),
                },
                ("cost", true) => match dollars(value) {
                    Some(m) => budget.max_cost_micros = Some(m),
                    None => budget.unclear.push((
                        joined(word, inline.is_none().then_some(value)),
                        "a money budget is an amount of US dollars, such as 5 or $0.50",
                    )),
                },
                (_, _) => budget.unclear.push((
                    joined(word, inline.is_none().then_some(value)),
                    "a flag is written with two dashes, as `--max 40`, `--tokens 500k` or `--cost 5`",
                )),
            }
            rest = if inline.is_some() { after } else { after_value };
            continue;
        }
        if let Some(m) = minutes(word).filter(|_| budget.max_minutes.is_none()) {
            budget.max_minutes = Some(m);
            rest = after;
            continue;
        }
        if let Some(why) = unclear_time(word) {
            budget.unclear.push((word.to_string(), why));
            rest = after;
            continue;
        }
        // `2 h`: a number and a short time unit apart.
        if count(word).is_some() && SHORT_UNITS.contains(&next.to_ascii_lowercase().as_str()) {
            budget.unclear.push((
                format!("{word} {next}"),
                "write a time budget as one word, such as 2h or 90m",
            ));
            rest = after_next;
            continue;
        }
        break;
    }
    // `ralph 2h: fix …` reads as well as `ralph 2h fix …`.
    let task = rest.strip_prefix(':').map_or(rest, str::trim_start);
    (task.to_string(), budget)
}

/// Units of a time said apart from its number (`2 h`): short ones only, so that `2 hours
/// ago` stays a sentence.
const SHORT_UNITS: &[&str] = &["h", "hr", "hrs", "m", "min", "mins"];

/// The flag a word names, with the value written into it (`--max=40`): `max` or `tokens`,
/// however many dashes (one dash, an en or em dash are slips the person is told about).
fn flag_of(word: &str) -> Option<(&'static str, Option<&str>)> {
    let bare = word
        .strip_prefix("--")
        .or_else(|| word.strip_prefix('-'))
        .or_else(|| word.strip_prefix('—'))
        .or_else(|| word.strip_prefix('–'))?;
    let (name, value) = match bare.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (bare, None),
    };
    let flag = match name.to_ascii_lowercase().as_str() {
        "max" | "max-iterations" => "max",
        "tokens" | "max-tokens" => "tokens",
        "cost" | "max-cost" => "cost",
        _ => return None,
    };
    Some((flag, value))
}

fn joined(word: &str, value: Option<&str>) -> String {
    match value.filter(|v| !v.is_empty()) {
        Some(v) => format!("{word} {v}"),
        None => word.to_string(),
    }
}

/// Why a word that looks like a time budget is not one (`0m`, `7d`, `9999h`), or `None` for
/// a word that is not meant as one.
fn unclear_time(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let (n, unit) = split_number(w.trim_end_matches(':'))?;
    let time_unit = is_minute_unit(unit)
        || ["h", "hr", "hrs", "hour", "hours"].contains(&unit)
        || unit.starts_with('h') && unit[1..].bytes().next().is_some_and(|b| b.is_ascii_digit());
    let long_unit = ["d", "day", "days", "w", "wk", "week", "weeks"].contains(&unit);
    if long_unit {
        return Some("a time budget is given in hours or minutes, at most a week (168h)");
    }
    if !time_unit {
        return None;
    }
    Some(if n == 0 {
        "a time budget must be longer than zero"
    } else {
        "a time budget is at most a week (168h)"
    })
}

/// `500k`, `2m`, `1.5M`, `100000` → tokens.
fn tokens(word: &str) -> Option<u64> {
    let w = word.to_ascii_lowercase();
    let (num, mult) = match w.chars().last()? {
        'k' => (&w[..w.len() - 1], 1_000f64),
        'm' => (&w[..w.len() - 1], 1_000_000f64),
        _ => (w.as_str(), 1f64),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') || num.len() > 12 {
        return None;
    }
    let n: f64 = num.parse().ok()?;
    let total = (n * mult).round();
    (1.0..1e15).contains(&total).then_some(total as u64)
}

/// `5`, `$0.50`, `0.01`, `12.5$`, `3usd` → millionths of a US dollar (more than 0, at most a
/// million dollars).
fn dollars(word: &str) -> Option<u64> {
    let w = word.trim().to_ascii_lowercase();
    let w = w.strip_prefix('$').unwrap_or(&w);
    let w = w
        .strip_suffix("usd")
        .or_else(|| w.strip_suffix('$'))
        .unwrap_or(w);
    if w.is_empty()
        || w.len() > 12
        || !w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        || w.matches('.').count() > 1
    {
        return None;
    }
    let n: f64 = w.parse().ok()?;
    let micros = (n * 1e6).round();
    (1.0..=1e12).contains(&micros).then_some(micros as u64)
}

/// A positive whole number of at most six digits.
fn count(s: &str) -> Option<u32> {
    (!s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
        .filter(|n| *n > 0)
}

/// `90m`, `45min`, `2h`, `1h30m`, `1h30`, `3hours`, `20minutes` → minutes (at most a week).
fn minutes(word: &str) -> Option<u32> {
    let w = word.to_ascii_lowercase();
    let (n, unit) = split_number(w.trim_end_matches(':'))?;
    let total = if is_minute_unit(unit) {
        n
    } else {
        let hour_unit = ["hours", "hour", "hrs", "hr", "h"]
            .iter()
            .find(|u| unit.starts_with(**u))?;
        let extra = match &unit[hour_unit.len()..] {
            "" => 0,
            rest => match split_number(rest)? {
                (m, u) if m < 60 && (u.is_empty() || is_minute_unit(u)) => m,
                _ => return None,
            },
        };
        n.checked_mul(60)?.checked_add(extra)?
    };
    (total > 0 && total <= MAX_MINUTES).then_some(total)
}

fn is_minute_unit(unit: &str) -> bool {
    ["m", "min", "mins", "minute", "minutes"].contains(&unit)
}

/// A leading number (at most five digits) and what follows it.
fn split_number(s: &str) -> Option<(u32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(iterations: Option<u32>, minutes: Option<u32>) -> Budget {
        Budget {
            max_iterations: iterations,
            max_minutes: minutes,
            ..Budget::default()
        }
    }

    #[test]
    fn budgets_after_the_mode_name() {
        let cases = [
            (
                "ralph 2h fix the tests",
                "ralph fix the tests",
                b(None, Some(120)),
            ),
            (
                "ralph 90m fix the tests",
                "ralph fix the tests",
                b(None, Some(90)),
            ),
            ("Ralph 1h30m: fix it", "Ralph fix it", b(None, Some(90))),
            (
                "ralph --max 40 fix the tests",
                "ralph fix the tests",
                b(Some(40), None),
            ),
            ("ralph --max=12 2h fix", "ralph fix", b(Some(12), Some(120))),
            ("/ralph 45min fix", "/ralph fix", b(None, Some(45))),
            (
                "ulw 3hours --max 20 port the api",
                "ulw port the api",
                b(Some(20), Some(180)),
            ),
            (
                "  autopilot 20minutes build it",
                "  autopilot build it",
                b(None, Some(20)),
            ),
        ];
        for (prompt, rest, budget) in cases {
            assert_eq!(split(prompt), Some((rest.to_string(), budget)), "{prompt}");
        }
    }

    #[test]
    fn anything_else_is_left_as_typed() {
        for prompt in [
            "ralph fix the tests",
            "ralph 2 hours ago broke the build",
            "fix it in 2h with ralph",
            "tdd 2h fix",
            "ralphie 2h fix",
            "ralph 2x fix",
            "ralph 2 hours ago broke the build",
            "",
        ] {
            assert_eq!(split(prompt), None, "{prompt}");
        }
    }

    #[test]
    fn a_token_budget() {
        for (prompt, n) in [
            ("ralph --tokens 500k fix it", 500_000),
            ("ralph --tokens=2M fix it", 2_000_000),
            ("ralph --tokens 1.5m fix it", 1_500_000),
            ("ralph --tokens 120000 fix it", 120_000),
        ] {
            let (rest, budget) = split(prompt).unwrap();
            assert_eq!(rest, "ralph fix it", "{prompt}");
            assert_eq!(budget.max_tokens, Some(n), "{prompt}");
        }
        let c = Budget {
            max_tokens: Some(100_000),
            ..Budget::default()
        }
        .apply(&Config::default(), &["ralph"]);
        assert_eq!(crate::modes::max_tokens("ralph", &c), 100_000);
    }

    #[test]
    fn a_money_budget() {
        for (prompt, micros) in [
            ("ralph --cost 5 fix it", 5_000_000),
            ("ralph --cost $0.50 fix it", 500_000),
            ("ralph --cost=0.01 fix it", 10_000),
            ("ralph --max-cost 3usd fix it", 3_000_000),
        ] {
            let (rest, budget) = split(prompt).unwrap();
            assert_eq!(rest, "ralph fix it", "{prompt}");
            assert_eq!(budget.max_cost_micros, Some(micros), "{prompt}");
        }
        let (_, budget) = split("ralph --cost cheap fix it").unwrap();
        assert_eq!(budget.unclear[0].0, "--cost cheap");
        let (_, budget) = split("ralph --cost 0 fix it").unwrap();
        assert_eq!(budget.max_cost_micros, None);
        let c = Budget {
            max_cost_micros: Some(250_000),
            ..Budget::default()
        }
        .apply(&Config::default(), &["ralph"]);
        assert_eq!(crate::modes::max_cost_usd("ralph", &c), 0.25);
    }

    #[test]
    fn a_budget_said_slightly_wrong_is_taken_out_and_named() {
        for (prompt, word) in [
            ("ralph 0m fix it", "0m"),
            ("ralph 7d fix it", "7d"),
            ("ralph 2 h fix it", "2 h"),
            ("ralph --max 0 fix it", "--max 0"),
            ("ralph -max 40 fix it", "-max 40"),
            ("ralph --max=0 fix it", "--max=0"),
            ("ralph --max forty fix it", "--max forty"),
            ("ralph 0h fix it", "0h"),
            ("ralph 9999h fix it", "9999h"),
            ("ralph --tokens lots fix it", "--tokens lots"),
        ] {
            let (rest, budget) = split(prompt).unwrap_or_else(|| panic!("{prompt}"));
            assert_eq!(rest, "ralph fix it", "{prompt}");
            assert_eq!(budget.unclear.len(), 1, "{prompt}");
            assert_eq!(budget.unclear[0].0, word, "{prompt}");
            let note = budget.unclear_note().unwrap();
            assert!(note.contains(&format!("`{word}`")), "{note}");
            assert_eq!(
                (budget.max_iterations, budget.max_minutes, budget.max_tokens),
                (None, None, None)
            );
            assert_eq!(budget.max_cost_micros, None);
        }
    }

    #[test]
    fn a_task_alone() {
        assert_eq!(
            split_task("2h --max 5 fix the parser"),
            ("fix the parser".to_string(), b(Some(5), Some(120)))
        );
        assert_eq!(
            split_task("fix 2h of work"),
            ("fix 2h of work".to_string(), Budget::default())
        );
    }

    #[test]
    fn applied_as_the_modes_configuration() {
        let c = b(Some(40), Some(120)).apply(&Config::default(), &["ralph", "tdd"]);
        assert_eq!(crate::modes::max_iterations("ralph", &c), 40);
        assert_eq!(crate::modes::max_minutes("ralph", &c), 120);
        assert_eq!(crate::modes::max_iterations("ultrawork", &c), 50);
        assert_eq!(c.get("tdd"), None);
        assert_eq!(
            announce(&c, &["ralph", "tdd"]).unwrap(),
            "[TIME BUDGET] ralph: 2 h. The run ends when its time is spent, finished or not; each \
             continuation says how much is left."
        );
        assert_eq!(announce(&Config::default(), &["ralph"]), None);
    }
}
