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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    pub max_iterations: Option<u32>,
    pub max_minutes: Option<u32>,
}

impl Budget {
    pub fn is_empty(&self) -> bool {
        self.max_iterations.is_none() && self.max_minutes.is_none()
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
        }
        out
    }
}

const ANNOUNCE: &str = include_str!("../../../templates/modes/time-budget.md");

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
        if let Some(n) = word.strip_prefix("--max=").and_then(count) {
            budget.max_iterations = Some(n);
            rest = after;
            continue;
        }
        if word == "--max" {
            let (value, after_value) = match after.find(char::is_whitespace) {
                Some(i) => (&after[..i], after[i..].trim_start()),
                None => (after, ""),
            };
            if let Some(n) = count(value) {
                budget.max_iterations = Some(n);
                rest = after_value;
                continue;
            }
            break;
        }
        match minutes(word) {
            Some(m) if budget.max_minutes.is_none() => {
                budget.max_minutes = Some(m);
                rest = after;
            }
            _ => break,
        }
    }
    // `ralph 2h: fix …` reads as well as `ralph 2h fix …`.
    let task = rest.strip_prefix(':').map_or(rest, str::trim_start);
    (task.to_string(), budget)
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
            "ralph --max forty fix",
            "ralph 0h fix",
            "ralph 9999h fix",
            "ralph 2x fix",
            "",
        ] {
            assert_eq!(split(prompt), None, "{prompt}");
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
