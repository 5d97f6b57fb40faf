//! The rules that keep a mention from activating anything: it is quoted, asked about, negated,
//! offered as an option, reported, the subject of a statement, a modifier, a setting, a topic,
//! or addressed as a person. They run before any invocation shape ([`super::rules::RULES`]), for
//! names and phrases alike, so every alias gets the same guards.

use super::cjk;
use super::lexicon::{Shape, is_mode_word};
use super::scene::Scene;
use super::text::{
    back, floor, fwd, has_seq, head_before_break, is, is_activation, strip_leadins,
    tail_after_break, words,
};
use super::vocab::{
    ACTIVATION_VERBS, AUX_QUESTIONS, BANTER, COMPARISON, DEFERRALS, FINITE, GREETINGS,
    HYPOTHETICAL, INFO_BEFORE, LATER_DAYS, LIST_NOUNS, LISTING_VERBS, MODE_NOUNS, NEGATORS,
    NEGATORS_AFTER, NOUNS, PLAN_WORDS, PLURAL_VERBS, PRAISE, REPORTING, REQUEST_LEADINS, SOFTENERS,
    TASK_VERBS, TOPIC_WORDS,
};

/// `code review` in a pasted review template (approve / request-changes / merge-ready).
pub(crate) fn review_seed(s: &Scene) -> bool {
    s.site.review_seed && matches!(s.name, "code-review" | "security-review")
}

/// A quoted name used as a command: `"ralph" fix …`, `run "ralph" on …`.
pub(crate) fn quoted_invocation(s: &Scene) -> bool {
    let Some((qs, inner, qe)) = s.quote else {
        return false;
    };
    if !s.is_name() || inner.trim().len() != s.end - s.head_pos {
        return false;
    }
    let qcb = words(tail_after_break(back(s.t, qs, 120), false));
    let qrest = &qcb[strip_leadins(&qcb).0..];
    let after_quote = words(head_before_break(fwd(s.t, qe, 120), false).0);
    is_activation(qrest) || (qrest.is_empty() && is(after_quote.first(), TASK_VERBS))
}

/// Inside quotation marks.
pub(crate) fn quoted(s: &Scene) -> bool {
    s.quote.is_some()
}

/// Asks about the mode: `what is`, `how do I`, `explain`, `vs`, `뭐야`, `とは`, `什么`.
pub(crate) fn informational(s: &Scene) -> bool {
    // the name heading a dash, then a question about it: `deep interview — is it worth it for a
    // weekend project?`, `tdd — does it slow down prototyping?`
    let after = s.raw_after().trim_start_matches([' ', '\t']);
    let dashed = ["—", "–", "- "]
        .iter()
        .find_map(|d| after.strip_prefix(d))
        .map(|q| words(q.split('\n').next().unwrap_or("")));
    let about_it = s.command_pos
        && matches!(s.terminator, Some('?' | '？'))
        && dashed.is_some_and(|q| {
            is(q.first(), AUX_QUESTIONS) && is(q.get(1), &["it", "this", "that", "they"])
        });
    about_it
        || INFO_BEFORE.iter().any(|seq| has_seq(&s.cb_words, seq))
        || s.cb_words.iter().any(|w| COMPARISON.contains(&w.as_str()))
        || is(s.next1(), &["vs", "versus"])
        || cjk::informational(s)
}

/// Asked, then taken back in the next sentence: `code review this? no, just look at line 4`,
/// `I want a dashboard? no, just explain it`.
pub(crate) fn retracted(s: &Scene) -> bool {
    if !matches!(s.terminator, Some('?' | '？')) {
        return false;
    }
    let after = &s.rest_after()[s.sentence_after.len()..];
    let next = words(
        after
            .get(1..)
            .unwrap_or("")
            .split(['.', '!', '?', '\n'])
            .next()
            .unwrap_or(""),
    );
    is(
        next.first(),
        &[
            "no", "nah", "nope", "never", "actually", "scratch", "wait", "hmm",
        ],
    )
}

/// Part of a question that is not itself a polite request.
pub(crate) fn question(s: &Scene) -> bool {
    // (a question after a task done with a context-only mode in Chinese is the task's)
    s.question() && !s.question_excused() && !super::stop::polite(s) && !cjk::instrument_task(s)
}

/// `ralph` right after a greeting or thanks: a person addressed (`thanks ralph`, `hey ralph,
/// …`).
pub(crate) fn vocative(s: &Scene) -> bool {
    if !matches!(s.alias().text, "ralph" | "랄프" | "ラルフ" | "拉尔夫") {
        return false;
    }
    // the name, a colon or comma, then thanks or a greeting: `Ralph: thanks for the review`
    let after = s.rest_after().trim_start_matches([' ', '\t']);
    // (past a request lead-in: `Ralph, please: thanks for …`)
    // (or praised: `Ralph — great catch on the race condition`)
    let first = words(&after[..floor(after, 40)])
        .into_iter()
        .find(|w| !REQUEST_LEADINS.contains(&w.as_str()));
    let greeted_after = after.starts_with([':', ',', '：', '，', '—', '–'])
        && (is(first.as_ref(), GREETINGS) || is(first.as_ref(), PRAISE));
    greeted_after || s.cb_words.iter().any(|w| GREETINGS.contains(&w.as_str()))
}

/// A person's full name: `Ralph Wiggum`, `Ralph Lauren` — an ordinary name written as a name
/// (capitalised, not shouted) with a capitalised word right after it that is not a task verb or
/// another mode's word (`Ralph Fix …`, `Ralph Mode` stay commands). Not for an explicit command.
pub(crate) fn full_name(s: &Scene) -> bool {
    if s.explicit || s.alias().coined() || !s.is_name() {
        return false;
    }
    let typed = &s.site.raw[s.site.start..s.site.end];
    let mut cs = typed.chars();
    let titled = cs.next().is_some_and(char::is_uppercase) && cs.all(char::is_lowercase);
    let after = fwd(s.site.raw, s.end, 40);
    let Some(next) = after.strip_prefix(' ') else {
        return false;
    };
    let word: String = next.chars().take_while(|c| c.is_alphabetic()).collect();
    let mut wc = word.chars();
    let named = wc.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && wc.all(char::is_lowercase);
    let lower = word.to_lowercase();
    titled
        && named
        && !TASK_VERBS.contains(&lower.as_str())
        && !MODE_NOUNS.contains(&lower.as_str())
        && !SOFTENERS.contains(&lower.as_str())
        && !super::lexicon::is_mode_word(&lower)
}

/// Negated: `don't`, `without`, `instead of`, `turn off`, `… is disabled`, `쓰지 마`, `不要`.
pub(crate) fn negation(s: &Scene) -> bool {
    let cb = &s.cb_words;
    let aw = &s.after_words;
    (cb.iter().any(|w| NEGATORS.contains(&w.as_str())) && !negates_another_verb(s))
        || has_seq(cb, &["do", "not"])
        || has_seq(cb, &["turn", "off"])
        || is(aw.first(), NEGATORS_AFTER)
        || (aw.first().is_some_and(|w| w == "is") && is(aw.get(1), &["not", "off", "disabled"]))
        || cjk::negation(s)
}

/// A tag ending an imperative line whose negations each negate a verb of the task, words before
/// it (`add paging and never skip the empty case ulw`): not a negation of the tag. A negator
/// right before the name, or before a verb that asks for a mode (`don't use ralph`), still is.
fn negates_another_verb(s: &Scene) -> bool {
    let cb = &s.cb_words;
    let line_rest = s.rest_after().split('\n').next().unwrap_or("");
    if line_rest.chars().any(char::is_alphanumeric) || !s.imperative_sentence() {
        return false;
    }
    let verb = |w: &String| {
        (TASK_VERBS.contains(&w.as_str()) || NEGATORS.contains(&w.as_str()))
            && !ACTIVATION_VERBS.contains(&w.as_str())
            && !is_mode_word(w)
    };
    let mut any = false;
    for (i, w) in cb.iter().enumerate() {
        if !NEGATORS.contains(&w.as_str()) || (i > 0 && NEGATORS.contains(&cb[i - 1].as_str())) {
            continue;
        }
        // `don't stop …`: the verb negated, with words between it and the name
        match cb.get(i + 1) {
            Some(next) if verb(next) && i + 2 < cb.len() => any = true,
            _ => return false,
        }
    }
    any
}

/// One of several options: `ralph or autopilot`.
pub(crate) fn alternative(s: &Scene) -> bool {
    is(s.next1(), &["or"]) || is(s.prev_word(), &["or", "either"])
}

/// Reported speech or an example: `my prompt was: …`, `e.g. …`.
pub(crate) fn reported(s: &Scene) -> bool {
    let clause_start = s.head_pos - s.clause_before.len();
    let window = back(s.t, clause_start, 80);
    let pre = window.trim_end();
    // a label on the same line or the line right above, not one paragraphs away
    let gap_lines = window[pre.len()..].matches('\n').count();
    let label = (pre.ends_with(':') || pre.ends_with('：')) && gap_lines <= 1;
    let pre_words = words(pre);
    let last = &pre_words[pre_words.len().saturating_sub(4)..];
    let lower = pre.to_lowercase();
    (label && last.iter().any(|w| REPORTING.contains(&w.as_str())))
        || lower.ends_with("e.g.")
        || lower.ends_with("i.e.")
        || lower.ends_with("for example,")
        || lower.ends_with("for instance,")
}

/// The word that says how the mode is used: the next one, past `loop` / `mode` / `run`.
fn next_effective<'a>(s: &'a Scene) -> Option<&'a String> {
    if is(s.after_words.first(), MODE_NOUNS) {
        s.after_words.get(1)
    } else {
        s.after_words.first()
    }
}

/// The subject of a statement: `ralph keeps looping`, `랄프가 …`, `ralph and autopilot keep
/// fighting` (modes joined by `and` take a plural verb).
pub(crate) fn subject(s: &Scene) -> bool {
    // a slash command for a context-only mode heads its question (`/ultrathink is our key
    // scheme safe under retries`); a persistent one stays a statement (`/ralph keeps looping`)
    if s.explicit && s.command_pos && !s.persistent() {
        return false;
    }
    let plural = s.site.joined && is(next_effective(s), PLURAL_VERBS);
    // past a parenthesis right after it: `Deepsearch (our search product) is down`
    let after_aside = s
        .raw_after()
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
        .map(|(_, r)| words(&r[..floor(r, 40)]));
    is(next_effective(s), FINITE)
        || plural
        || after_aside.is_some_and(|ws| is(ws.first(), FINITE))
        || cjk::subject(s)
}

/// A modifier: `an autopilot toggle`, `the ralph state`, `end to end tests`. (Other phrases
/// end with their own noun or object: `build me a cli`, `e2e this feature`.)
pub(crate) fn noun_phrase(s: &Scene) -> bool {
    let noun = |w: Option<&String>| is(w, NOUNS) && !is(w, TASK_VERBS);
    matches!(s.shape, Shape::Name | Shape::EndToEnd)
        && !s.explicit
        && (noun(next_effective(s)) || noun(s.after_words.first()))
}

/// A wish said in jest: `i want an app like that too lol` (the ordinary-English phrases only:
/// `ralph this lol` is still a request).
pub(crate) fn banter(s: &Scene) -> bool {
    matches!(s.shape, Shape::Wish | Shape::Creation | Shape::HandleAll)
        && (s.sa_words.iter().any(|w| BANTER.contains(&w.as_str()))
            || ["😂", "🤣", "😅", ":)", ":p", ":d"]
                .iter()
                .any(|m| s.sentence_after.to_lowercase().contains(m)))
}

/// Put off, or only supposed: `i want a cli eventually`, `clean up the dead code later`, `could
/// you use ralph on a monorepo, in theory?`, a CJK condition (`울트라워크 켜면 …`: when it is on).
pub(crate) fn deferred(s: &Scene) -> bool {
    let hypothetical = |ws: &[String]| {
        ws.iter().any(|w| HYPOTHETICAL.contains(&w.as_str()))
            || has_seq(ws, &["in", "theory"])
            || has_seq(ws, &["in", "principle"])
    };
    // modes joined with their order said: `tdd, with code review afterwards: …` is a sequence
    let order_before_colon = s.site.joined
        && s.after_words.len() <= 3
        && s.rest_after()[s.clause_after.len()..].starts_with([':', '：']);
    hypothetical(&s.sa_words)
        || hypothetical(&s.sentence_words)
        || (!order_before_colon
            && s.after_words
                .iter()
                .any(|w| DEFERRALS.contains(&w.as_str())))
        || has_seq(&s.after_words, &["one", "day"])
        || has_seq(&s.after_words, &["some", "day"])
        || has_seq(&s.after_words, &["at", "some", "point"])
        || has_seq(&s.after_words, &["in", "the", "future"])
        || has_seq(&s.after_words, &["down", "the", "road"])
        || cjk::condition(s)
        || conditional(s)
}

/// A plan or a choice, not an order: under a label that says when or what for (`tomorrow:
/// ralplan …`, `note to self: …`, `Agenda for Thursday:` or `Options for this afternoon:` over a
/// list), after such words in its clause (`remind me to …`, `tomorrow I want to ralph …`), or
/// for a later day (`let's ralplan it on Monday`, `next week ralplan …`).
pub(crate) fn planned(s: &Scene) -> bool {
    let plan = |ws: &[String]| ws.iter().any(|w| PLAN_WORDS.contains(&w.as_str()));
    // the label on its line before it (`tomorrow: ralplan …`), or over the list it is an item of
    let line_start = s.head_pos - back(s.t, s.head_pos, 300).len()
        + back(s.t, s.head_pos, 300).rfind('\n').map_or(0, |i| i + 1);
    let on_line = &s.t[line_start..s.head_pos];
    let label = match on_line.rfind([':', '：']) {
        Some(c) => Some(&on_line[..c]),
        None => {
            // the lines above, past the list's other items, to the one that ends with a colon
            let above = back(s.t, line_start, 600);
            let item = |l: &str| {
                let l = l.trim_start();
                l.starts_with(['-', '*', '•']) || l.starts_with(|c: char| c.is_ascii_digit())
            };
            (item(on_line) || on_line.trim().is_empty())
                .then(|| {
                    above
                        .lines()
                        .rev()
                        .find(|l| !item(l))
                        .filter(|l| l.trim_end().ends_with(':'))
                })
                .flatten()
        }
    };
    // (the label's last sentence: `options were ralph or ulw; I've decided: ralph …`; not one
    // that says now: `right now, not later: …`)
    let label_words = label
        .map(|l| words(tail_after_break(l, true)))
        .unwrap_or_default();
    let now = label_words.iter().any(|w| w == "now" || w == "not");
    let later = |ws: &[String]| {
        ws.windows(2).any(|w| {
            matches!(w[0].as_str(), "on" | "next" | "this") && LATER_DAYS.contains(&w[1].as_str())
        })
    };
    // (in its clause before it too: `remind me to …`, `tomorrow I want to ralph …`, `next week
    // ralplan …`)
    (plan(&label_words) && !now)
        || plan(&s.cb_words)
        || [&label_words, &s.cb_words, &s.after_words]
            .iter()
            .any(|ws| later(ws))
}

/// Only on a condition said in a clause before it: `if tests fail, ralph it`, `when this
/// lands, ralplan the next phase`, `once CI is red again, ulw`. Not a polite frame (`if you
/// could, ralph the tests`, `when you get a chance, …`) nor `if possible`.
fn conditional(s: &Scene) -> bool {
    let sw = &s.sentence_words;
    let opener = match sw.first().map(String::as_str) {
        Some("if" | "when" | "whenever" | "once" | "unless" | "after") => 1,
        Some("in") if is(sw.get(1), &["case"]) => 2,
        _ => return false,
    };
    // the condition is a clause of its own before the name's, and not a polite frame: `if
    // you could`, `if possible`, `if it's not too much trouble`, `if that's ok`
    if sw.len() <= s.cb_words.len() + opener {
        return false;
    }
    let condition = &sw[opener..sw.len() - s.cb_words.len()];
    let polite = is(condition.first(), POLITE_IF)
        || condition
            .iter()
            .any(|w| matches!(w.as_str(), "trouble" | "bother"))
        || (is(condition.first(), &["it's", "that's"])
            && is(condition.get(1), &["ok", "okay", "alright", "cool"]));
    !polite
}

/// After `if`, the words that make it a polite frame, not a condition (`if you could`, `if
/// possible`).
const POLITE_IF: &[&str] = &[
    "you",
    "you'd",
    "you're",
    "possible",
    "necessary",
    "more",
    "so",
];

/// A setting: `enable autopilot by default`.
pub(crate) fn setting(s: &Scene) -> bool {
    let aw = &s.after_words;
    has_seq(aw, &["by", "default"])
        || has_seq(aw, &["the", "default"])
        || has_seq(aw, &["as", "default"])
}

/// The topic of something else: `about ralph`, `called autopilot`.
pub(crate) fn topic(s: &Scene) -> bool {
    // (a lead-in is not a topic word: `so um like deep interview me …`)
    is(s.lead_rest().last(), TOPIC_WORDS) && !s.explicit
}

/// An item of a list that the question after it asks about, as material rather than commands:
/// `TODO:\n- ralph the flaky tests\n- ulw the lint errors\n\nwhich of these is more urgent?`.
/// The list is two or more items (`- `, `* `, `• `, `1. `), under a heading at most, and what
/// follows it (after a blank line or on the next line) is a question that points back at them
/// and names no mode.
pub(crate) fn listed(s: &Scene) -> bool {
    fn item(l: &str) -> bool {
        let l = l.trim_start();
        let digits = l.bytes().take_while(u8::is_ascii_digit).count();
        ["- ", "* ", "• "].iter().any(|m| l.starts_with(m))
            || (digits > 0 && (l[digits..].starts_with(". ") || l[digits..].starts_with(") ")))
    }
    // (a note of a few lines closing the prompt: every look is bounded, so a long paste of
    // list items costs no more per candidate)
    let before = back(s.t, s.head_pos, 400);
    let line_start = match before.rfind('\n') {
        Some(i) => s.head_pos - before.len() + i + 1,
        None if before.len() == s.head_pos => 0,
        None => return false,
    };
    let Some(line_end) = fwd(s.t, s.end, 400).find('\n').map(|i| s.end + i) else {
        return false;
    };
    if !item(&s.t[line_start..line_end]) {
        return false;
    }
    // the block of non-blank lines around it: items, and a heading at most before them
    let above = back(s.t, line_start, 2000);
    let block_start = match above.rfind("\n\n") {
        Some(i) => line_start - above.len() + i + 2,
        None if above.len() == line_start => 0,
        None => return false,
    };
    // the list ends at a blank line, or where a line that is not an item follows the items
    // directly (`- tdd the parser\n- code review auth\nwhich of these first?`)
    let tail = fwd(s.t, line_end, 2000);
    let mut end = None;
    let mut at = 0;
    while let Some(nl) = tail[at..].find('\n').map(|i| at + i) {
        let next = &tail[nl + 1..];
        let line = &next[..next.find('\n').unwrap_or(next.len())];
        if line.trim().is_empty() {
            end = Some(line_end + nl);
            break;
        }
        if !item(line) {
            end = Some(line_end + nl + 1);
            break;
        }
        at = nl + 1;
    }
    let Some(gap) = end.filter(|g| s.t.len() - g <= 600) else {
        return false;
    };
    let lines: Vec<&str> = s.t[block_start..gap].lines().collect();
    let items = lines.iter().filter(|l| item(l)).count();
    let heading_only = lines.iter().filter(|l| !item(l)).count() <= 1
        && lines
            .first()
            .is_some_and(|l| item(l) || l.trim_end().ends_with(':'));
    if items < 2 || !heading_only {
        return false;
    }
    let after = s.t[gap..].trim();
    let ws = words(&after.to_lowercase());
    after.contains('?')
        && !after.lines().any(item)
        && !ws.iter().any(|w| is_mode_word(w))
        && (ws
            .iter()
            .any(|w| matches!(w.as_str(), "these" | "those" | "them" | "which" | "list"))
            // the agent asking for the go-ahead: its own plan pasted back
            || has_seq(&ws, &["like", "me", "to"])
            || has_seq(&ws, &["want", "me", "to"])
            || has_seq(&ws, &["shall", "i"]))
}

/// The name as a word in a text or a list, not a request: `the table lists deslop`, `the docs
/// are missing deslop and anti-slop`, `add ultrathink to the keyword list`.
pub(crate) fn as_word(s: &Scene) -> bool {
    // past the other names of the list and the words that say it is a word
    let skipped = |w: &str| {
        matches!(
            w,
            "and"
                | "or"
                | "but"
                | "not"
                | "nor"
                | "both"
                | "either"
                | "also"
                | "the"
                | "word"
                | "words"
                | "alias"
                | "aliases"
                | "keyword"
                | "keywords"
                | "term"
                | "terms"
                | "spelling"
                | "entry"
                | "entries"
                | "name"
                | "names"
        ) || is_mode_word(w)
    };
    let before = s
        .cb_words
        .iter()
        .rev()
        .map(String::as_str)
        .find(|w| !skipped(w));
    let aw = &s.after_words;
    // `to the keyword list`, `into the README`, `from the aliases table`
    let into_a_list = s.is_name()
        && is(aw.first(), &["to", "into", "from"])
        && aw
            .iter()
            .skip(1)
            .find(|w| {
                !matches!(
                    w.as_str(),
                    "the"
                        | "a"
                        | "an"
                        | "our"
                        | "my"
                        | "your"
                        | "this"
                        | "that"
                        | "keyword"
                        | "keywords"
                        | "alias"
                        | "aliases"
                        | "mode"
                        | "modes"
                        | "magic"
                        | "supported"
                        | "disabled"
                        | "enabled"
                        | "known"
                )
            })
            .is_some_and(|w| LIST_NOUNS.contains(&w.as_str()));
    before.is_some_and(|w| LISTING_VERBS.contains(&w)) || into_a_list
}
