//! Finding the candidates and deciding the modes: one pass over the prompt for every alias and
//! phrase at once (`matcher.rs`), then each match judged on bounded windows by the rule table
//! ([`super::rules`]); names joined into one command (`tdd and ralph: …`) are judged together.

use super::lexicon::{Alias, Gate, Shape};
use super::rules::{self, Effect, Verdict};
use super::sanitize::{self, Sanitized};
use super::scene::Site;
use super::vocab::JOINERS;
use super::{boundary, matcher, phrases};
use crate::modes::KEYWORD_CHAIN;

/// At most this many matches are judged: a prompt that names modes thousands of times is pasted
/// material, and the bound keeps a hostile prompt cheap.
const MAX_JUDGED: usize = 4_096;
/// At most this many candidates are kept for reporting.
const MAX_REPORTED: usize = 200;

/// One match and what was decided about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: &'static str,
    /// The text as typed (prefix included).
    pub matched: String,
    /// Byte offset in the prompt.
    pub offset: usize,
    pub activated: bool,
    pub rule: &'static str,
}

/// What a prompt asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detection {
    /// The names acted on, in chain order. `["cancel"]` alone when cancel was asked for.
    pub modes: Vec<&'static str>,
    pub candidates: Vec<Candidate>,
    /// Candidates beyond the report limit, or never judged.
    pub unreported: usize,
}

impl Detection {
    pub fn cancel(&self) -> bool {
        self.modes.first() == Some(&"cancel")
    }
}

/// The first 20 lines name at least two review verdicts: a pasted review template.
fn review_seed(prompt: &str) -> bool {
    let start: String = prompt.chars().take(4_000).collect();
    let head = start
        .lines()
        .take(20)
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    let verdicts = [
        &["approve"][..],
        &["request-changes", "request changes"],
        &["merge-ready", "merge ready"],
        &["blocked"],
    ];
    verdicts
        .iter()
        .filter(|alts| alts.iter().any(|a| head.contains(a)))
        .count()
        >= 2
}

/// The whole prompt is a request to stop: `stop`, `cancel that`, `stop ralph`, `abort the loop`.
fn bare_cancel(sanitized: &str) -> Option<usize> {
    let trimmed = sanitized.trim();
    if trimmed.is_empty() || trimmed.len() > 80 || trimmed.contains('?') {
        return None;
    }
    let ws: Vec<String> = trimmed
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut i = 0;
    while ws
        .get(i)
        .is_some_and(|w| matches!(w.as_str(), "please" | "ok" | "okay" | "now"))
    {
        i += 1;
    }
    if !ws
        .get(i)
        .is_some_and(|w| matches!(w.as_str(), "cancel" | "stop" | "abort" | "halt"))
    {
        return None;
    }
    let allowed = [
        "it",
        "that",
        "this",
        "now",
        "please",
        "all",
        "everything",
        "the",
        "omc",
        "loop",
        "loops",
        "run",
        "runs",
        "mode",
        "modes",
        "ralph",
        "autopilot",
        "ultrawork",
        "ulw",
        "ralplan",
        "ultraqa",
        "team",
        "pipeline",
        "session",
        "right",
        "immediately",
    ];
    ws[i + 1..]
        .iter()
        .all(|w| allowed.contains(&w.as_str()))
        .then(|| sanitized.len() - sanitized.trim_start().len())
}

/// A match that survived the boundary check, before it is judged.
struct Pending {
    alias: &'static Alias,
    start: usize,
    end: usize,
    prefix: Option<usize>,
    /// Decided before judging: a boundary or sanitiser rule.
    decided: Option<&'static str>,
}

impl Pending {
    fn head(&self) -> usize {
        self.prefix.unwrap_or(self.start)
    }
}

/// The text between two names joins them into one command: `and`, `with`, `+`, `,` … on one
/// line (`tdd and ralph`, `ralph, with tdd`, `code review + ultrawork`), an article only after
/// one of them (`a security review and a code review`; `ralph the autopilot refactor` is not
/// two modes).
fn joins(gap: &str) -> bool {
    if gap.len() > 24
        || !gap
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '\t' | ',' | '+' | '&' | '/'))
    {
        return false;
    }
    let ws: Vec<String> = gap
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    ws.iter().enumerate().all(|(k, w)| {
        JOINERS.contains(&w.as_str())
            || (matches!(w.as_str(), "a" | "an" | "the")
                && k > 0
                && JOINERS.contains(&ws[k - 1].as_str()))
    })
}

/// Detects what `prompt` asks for. `disabled` names (from project configuration) are reported
/// but not acted on; `cancel` cannot be disabled.
pub fn detect(prompt: &str, disabled: &[String]) -> Detection {
    let mut det = Detection::default();

    // every match that is a word of its own (phrases: that the words around complete)
    let mut pending: Vec<Pending> = Vec::new();
    let mut scan = matcher::find_iter(prompt);
    let mut cancel_word = false;
    for m in scan.by_ref() {
        let alias = m.alias;
        cancel_word |= alias.text == "cancel";
        let boundary = boundary::boundary(prompt, m.start, m.end, alias);
        let phrase = alias.shape != Shape::Name;
        let (start, end) = if phrase {
            if boundary.is_err() {
                continue;
            }
            match phrases::extent(alias.shape, prompt, m.start, m.end) {
                Some(span) => span,
                None => continue,
            }
        } else {
            (m.start, m.end)
        };
        let prefix = boundary.ok().flatten();
        if alias.gate == Gate::Prefix && prefix.is_none() {
            continue;
        }
        if pending.len() >= MAX_JUDGED {
            det.unreported += 1;
            continue;
        }
        pending.push(Pending {
            alias,
            start,
            end,
            prefix,
            decided: boundary.err(),
        });
    }
    // nothing to judge and no word a bare request to stop could open with: nothing to blank
    if pending.is_empty() && !cancel_word && !scan.stop_word {
        return det;
    }
    let clean: Sanitized = sanitize::sanitize(prompt);
    for p in &mut pending {
        // what the sanitiser blanked is reported before what the boundaries rejected
        p.decided = clean.blanked_by(p.start, p.end).or(p.decided);
    }
    let seed = review_seed(prompt);

    // names joined into one command are judged as one: the group's span, each its own gates
    let mut group_of: Vec<(usize, usize)> = (0..pending.len()).map(|i| (i, i)).collect();
    let mut i = 0;
    while i < pending.len() {
        let mut j = i;
        while j + 1 < pending.len()
            && [j, j + 1]
                .iter()
                .all(|&k| pending[k].decided.is_none() && pending[k].alias.shape == Shape::Name)
            && pending[j].end <= pending[j + 1].head()
            && joins(&clean.text[pending[j].end..pending[j + 1].head()])
        {
            j += 1;
        }
        for g in &mut group_of[i..=j] {
            *g = (i, j);
        }
        i = j + 1;
    }

    let mut active: Vec<&'static str> = Vec::new();
    for (k, p) in pending.iter().enumerate() {
        if active.contains(&p.alias.name) {
            continue;
        }
        let (first, last) = group_of[k];
        let verdict = match p.decided {
            Some(rule) => Verdict {
                effect: Effect::Ignore,
                rule,
            },
            None => rules::judge(&Site {
                text: &clean.text,
                start: pending[first].start,
                end: pending[last].end,
                prefix: pending[first].prefix,
                alias: p.alias,
                raw: prompt,
                review_seed: seed,
                joined: first != last,
            }),
        };
        // "stop ralph" names ralph but asks for cancel
        let name = if verdict.effect == Effect::Cancel {
            "cancel"
        } else {
            p.alias.name
        };
        let rule = if verdict.activated() && k != first {
            "joined-modes"
        } else {
            verdict.rule
        };
        if verdict.activated() {
            active.push(name);
        }
        if det.candidates.len() < MAX_REPORTED {
            det.candidates.push(Candidate {
                name,
                matched: prompt[p.head()..p.end].to_string(),
                offset: p.head(),
                activated: verdict.activated(),
                rule,
            });
        } else {
            det.unreported += 1;
        }
    }

    if !active.contains(&"cancel")
        && let Some(off) = bare_cancel(&clean.text)
    {
        active.push("cancel");
        det.candidates.push(Candidate {
            name: "cancel",
            matched: prompt.trim().to_string(),
            offset: off,
            activated: true,
            rule: "bare-cancel",
        });
    }

    // configuration, then cancel's exclusivity
    for c in det.candidates.iter_mut().filter(|c| c.activated) {
        if c.name != "cancel" && disabled.iter().any(|d| d == c.name) {
            c.activated = false;
            c.rule = "disabled-by-config";
        }
    }
    let cancel = det
        .candidates
        .iter()
        .any(|c| c.activated && c.name == "cancel");
    if cancel {
        for c in det
            .candidates
            .iter_mut()
            .filter(|c| c.activated && c.name != "cancel")
        {
            c.activated = false;
            c.rule = "cancel-exclusive";
        }
    }
    det.modes = KEYWORD_CHAIN
        .iter()
        .copied()
        .filter(|n| det.candidates.iter().any(|c| c.activated && c.name == *n))
        .collect();
    det
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(p: &str) -> Vec<&'static str> {
        detect(p, &[]).modes
    }

    #[test]
    fn explicit_invocations_activate() {
        assert_eq!(modes("ralph fix the tests"), vec!["ralph"]);
        assert_eq!(modes("/ralph fix the tests"), vec!["ralph"]);
        assert_eq!(modes("ralph: fix the parser"), vec!["ralph"]);
        assert_eq!(modes("use ralph to fix the parser"), vec!["ralph"]);
        assert_eq!(modes("ralph this"), vec!["ralph"]);
    }

    #[test]
    fn mentions_do_not() {
        for p in [
            "what is ralph?",
            "don't use autopilot",
            "add an autopilot toggle",
            "look at src/ralph/mod.rs",
            "rename ralph_count",
            "inspect ralph-state.json",
            "`ralph fix the tests`",
        ] {
            assert!(modes(p).is_empty(), "{p}: {:?}", detect(p, &[]).candidates);
        }
    }

    #[test]
    fn cancel_is_exclusive_and_cannot_be_disabled() {
        let d = detect("cancelomc and ultrathink", &["cancel".into()]);
        assert_eq!(d.modes, vec!["cancel"]);
        assert!(
            d.candidates
                .iter()
                .any(|c| c.name == "ultrathink" && c.rule == "cancel-exclusive")
        );
    }

    #[test]
    fn disabled_names_are_reported() {
        let d = detect("ralph fix the tests", &["ralph".into()]);
        assert!(d.modes.is_empty());
        assert_eq!(d.candidates[0].rule, "disabled-by-config");
    }

    #[test]
    fn chain_order_and_dedup() {
        assert_eq!(
            modes("tdd: fix the parser, then ralph this. use tdd again"),
            vec!["ralph", "tdd"]
        );
    }

    /// Prompts assembled from aliases, phrase words, CJK, punctuation and code marks, in a fixed
    /// pseudo-random order: every rule slices windows by byte offsets, and none may panic.
    #[test]
    fn assembled_prompts_never_panic() {
        let mut tokens: Vec<&str> = super::super::lexicon::ALIASES
            .iter()
            .map(|a| a.text)
            .collect();
        tokens.extend([
            " ",
            " ",
            " ",
            "\n",
            "\n\n",
            ",",
            ":",
            "：",
            "?",
            "？",
            ".",
            "!",
            "—",
            "-",
            "'",
            "\"",
            "“",
            "”",
            "`",
            "```",
            "    ",
            "\t",
            "/",
            "\\",
            "$",
            "<b>",
            "</b>",
            "<!--",
            "-->",
            "> ",
            "| ",
            "+",
            "&",
            "the",
            "this",
            "me",
            "a",
            "an",
            "fix",
            "please",
            "ok",
            "no",
            "don't",
            "what is",
            "i want",
            "build",
            "clean up",
            "end",
            "to",
            "app",
            "cli",
            "helpers",
            "code",
            "and",
            "with",
            "then",
            "thanks",
            "é",
            "😀",
            "랄",
            "を",
            "的",
            "로",
            "ー",
            "[MAGIC KEYWORD: RALPH]",
            "User request:",
            "Task:",
            "https://x.y/",
            "src/a/",
            "e.g.",
            "later",
            "first",
        ]);
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..1_000 {
            let len = 1 + next() % 40;
            let p: String = (0..len)
                .map(|_| tokens[(next() % tokens.len() as u64) as usize])
                .collect();
            let d = detect(&p, &[]);
            for c in &d.candidates {
                assert!(p.is_char_boundary(c.offset), "{p:?}");
            }
        }
    }

    #[test]
    fn a_bare_stop_after_pasted_code_still_cancels() {
        let p = format!("```\n{}```\nstop", "let x = parse(input);\n".repeat(20_000));
        assert_eq!(modes(&p), vec!["cancel"]);
        assert!(modes(&"nothing to see here. ".repeat(50_000)).is_empty());
    }

    #[test]
    fn a_megabyte_prompt_is_handled() {
        let mut p = "what is ralph? see src/ralph/x.rs and `ultrawork` then ".repeat(20_000);
        p.push_str("\nralph fix the tests");
        assert!(p.len() > 1_000_000);
        let d = detect(&p, &[]);
        // the one real invocation sits past the judging bound: precision over recall
        assert!(d.unreported > 0);
        let q = "lorem ipsum dolor sit amet ".repeat(40_000) + "\nralph fix the tests";
        assert_eq!(detect(&q, &[]).modes, vec!["ralph"]);
    }
}
