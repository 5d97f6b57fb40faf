//! The shapes in which a mode's name is a request to run it: a command that opens with it
//! (`ralph fix …`, `ralplan the schema change`, `ulw` alone, `ralph: …`, `/ralph`), a verb that
//! asks for it (`use ralph`), an instrument (`… with tdd`), a tag at the end of a command
//! (`refactor … ulw`). A name that fits none of them activates nothing, unless it is a coined
//! word ([`super::lexicon::Gate::Mention`]).

use super::cjk;
use super::lexicon::{Gate, is_mode_word, needs_task, takes_topic};
use super::scene::Scene;
use super::text::{back, base_form, floor, fwd, is, is_activation, strip_leadins, words};
use super::vocab::{
    AUXILIARIES, DETERMINERS, FILLERS, FINITE, FOREIGN_TASK_VERBS, GREETINGS, HINGLISH_IMPERATIVES,
    INSTRUMENT_PREPS, MEANING, OBJECTS, PRODUCT_NOUNS, RELATIVES, REQUEST_LEADINS, SIGNOFFS,
    SOFTENERS, STATEMENT_VERBS, TASK_VERBS, TOPIC_WORDS, WH_WORDS,
};

/// After a persistent mode's colon, words that say the text is a defect to fix (`ralph: the
/// checkout total is off by a cent`), not a remark.
#[rustfmt::skip]
const DEFECTS: &[&str] = &[
    "broken", "off", "wrong", "failing", "fails", "flaky", "crashes", "crashing", "bug", "buggy",
    "regression", "leaks", "leaking", "hangs", "incorrect", "missing",
];

/// Words skipped between a name and its task (`ralph now fix …`, `ulw and then migrate …`).
const SOFT: &[&str] = &[
    "please", "now", "and", "then", "just", "to", "first", "mode",
];

/// What may say when the last of modes joined in one command runs, before their colon.
const JOINED_ORDER: &[&str] = &[
    "at the end",
    "afterwards",
    "after",
    "at the start",
    "first",
    "too",
    "as well",
];

/// The first word after the name on its line, past [`SOFT`] words.
fn first_task_word<'a>(s: &'a Scene) -> Option<&'a str> {
    s.line_after_words
        .iter()
        .skip(budget_words(s))
        .map(String::as_str)
        .find(|w| !SOFT.contains(w))
}

/// How many words after a persistent mode's name say its budget (`ralph --max 40 fix …`, `ulw
/// 2h …`): where the name does not head the prompt (after a paste), the budget stays in the
/// text, and the task verb follows it.
fn budget_words(s: &Scene) -> usize {
    if !s.persistent() {
        return 0;
    }
    let after = s.raw_after().split('\n').next().unwrap_or("").trim_start();
    let (rest, budget) = super::super::persistent_mode::budget::split_task(after);
    if budget.is_empty() {
        return 0;
    }
    let said = after.len().saturating_sub(rest.len());
    words(&after[..floor(after, said)]).len()
}

/// A name that opens a command: nothing but lead-ins before it in its clause.
fn opens_command(s: &Scene) -> bool {
    s.is_name() && s.command_pos && matches!(s.gate, Gate::Explicit | Gate::Mention | Gate::Command)
}

/// An explicit command (`/ralph`, `$ralph`, `omc:ralph`) at the head of a clause.
pub(crate) fn explicit_prefix(s: &Scene) -> bool {
    s.explicit && s.command_pos
}

/// `ralph: fix …`. A persistent run needs a task or a specification after the colon, not a
/// remark: `ralph: fix the parser`, `autopilot: tiny url shortener, sqlite`, not `ralph: the
/// stop hook should block`.
pub(crate) fn colon_directive(s: &Scene) -> bool {
    if !s.command_pos || s.gate == Gate::Prefix || !s.is_name() {
        return false;
    }
    // `ralph: …`, `ralph mode: …`, `ultrawork time: …`
    let colon = s.raw_after().trim_start_matches([' ', '\t']);
    let colon = ["mode", "Mode", "MODE", "time", "Time", "TIME"]
        .iter()
        .find_map(|m| colon.strip_prefix(m))
        .map_or(colon, |c| c.trim_start_matches([' ', '\t']));
    // a request lead-in between the name and its colon: `ralph please: …`, `Ralph, bitte: …`
    let colon = {
        let c = colon
            .trim_start_matches(',')
            .trim_start_matches([' ', '\t']);
        let lead = c
            .split(|ch: char| !ch.is_alphanumeric())
            .next()
            .unwrap_or("");
        let after = c[lead.len()..].trim_start_matches([' ', '\t']);
        if REQUEST_LEADINS.iter().any(|l| l.eq_ignore_ascii_case(lead))
            && after.starts_with([':', '：'])
        {
            after
        } else {
            colon
        }
    };
    // modes joined with their order said: `ralph, with security review at the end: …`
    let colon = if s.site.joined {
        JOINED_ORDER
            .iter()
            .find_map(|m| colon.strip_prefix(m))
            .map_or(colon, |c| c.trim_start_matches([' ', '\t']))
    } else {
        colon
    };
    // (a dash set off by spaces does the colon's work: `autopilot — a link checker for CI`)
    let dash = || {
        let spaced = s.raw_after().starts_with([' ', '\t']);
        ["—", "–"]
            .iter()
            .find_map(|d| colon.strip_prefix(d))
            .filter(|b| spaced && b.starts_with(' '))
    };
    let Some(body) = colon
        .strip_prefix(':')
        .or_else(|| colon.strip_prefix('：'))
        .or_else(dash)
    else {
        return false;
    };
    let line = body.lines().next().unwrap_or("");
    if line.trim().is_empty() {
        return false;
    }
    if !s.persistent() {
        return true;
    }
    let ws = words(line);
    // a defect to fix, said after the colon: `ralph: the checkout total is off by a cent` (not
    // the mode's own: `ralph: it doesn't stop`)
    let defect = !is(ws.first(), &["it", "this", "you", "i", "we"])
        && ws.iter().take(12).any(|w| DEFECTS.contains(&w.as_str()));
    if defect {
        return true;
    }
    let task = ws.iter().take(12).any(|w| TASK_VERBS.contains(&w.as_str()));
    // a specification: a few words, no verb that makes it a statement, not a number or a log
    let spec = ws.len() >= 2
        && !line.contains('?')
        && !ws.iter().any(|w| STATEMENT_VERBS.contains(&w.as_str()))
        && !ws[0].ends_with("ed")
        && !ws[0].starts_with(|c: char| c.is_ascii_digit());
    task || spec || cjk::imperative(line)
}

/// `ralph fix the tests`, `think hard about …`, `cancelomc`: the name opens a command and an
/// imperative verb follows (or a topic, for the thinking modes).
pub(crate) fn leading_imperative(s: &Scene) -> bool {
    if !opens_command(s) {
        return false;
    }
    let first_person = s.cb_words.iter().any(|w| w == "i" || w == "we");
    if s.gate == Gate::Command && first_person {
        return false;
    }
    // modes put in order are the command: `so: ralplan, then ralph.`
    if s.site.joined && words(&s.t[s.site.start..s.end]).iter().any(|w| w == "then") {
        return true;
    }
    // a request said in one breath: `ultrawork mode please we have 40 lint errors …` (`mode
    // please` or a coined name and `please`, so `Ralph please review my PR` is not one)
    if asked_for(s) {
        return true;
    }
    // run in Hindi-English (`ulw chala do`, `code review kar do PR 88 ka`)
    let hindi = HINGLISH_IMPERATIVES.iter().any(|h| {
        s.line_after_words.len() >= h.len()
            && s.line_after_words.iter().zip(*h).all(|(a, b)| a == b)
    });
    if hindi {
        return true;
    }
    match first_task_word(s) {
        // another mode's name continues the command: `ralplan first, then ralph …`
        Some(w) if TASK_VERBS.contains(&w) || is_mode_word(w) => true,
        // a coined name, then what the work is, in one breath: `ulw there are twenty lint errors`
        Some("there") if s.alias().coined() => {
            is(s.line_after_words.get(1), &["are", "is", "were", "'s"])
        }
        // the thinking modes' task can be an answer: `think hard, then answer: …`
        Some("answer" | "respond" | "reply") => takes_topic(s.name),
        Some("about" | "through" | "over" | "on") => takes_topic(s.name) || !needs_task(s.name),
        // `think deeply before answering: …`, `think hard before you reply` (not `think hard
        // before changing the API`: advice on how to work, not the task)
        Some("before") => takes_topic(s.name) && answers_next(s),
        _ => !needs_task(s.name),
    }
}

/// After `before`, the model's answer: `before answering`, `before you reply`.
fn answers_next(s: &Scene) -> bool {
    let ws: Vec<&str> = s
        .line_after_words
        .iter()
        .map(String::as_str)
        .skip_while(|w| *w != "before")
        .skip(1)
        .skip_while(|w| matches!(*w, "you" | "u" | "we"))
        .take(1)
        .collect();
    matches!(
        ws.first(),
        Some(
            &("answering"
                | "answer"
                | "responding"
                | "respond"
                | "replying"
                | "reply"
                | "writing"
                | "write")
        )
    )
}

/// The name, then `mode please` (or, for a coined name, `please`) with no break between:
/// `ultrawork mode please we have …`, `ulw please the lint backlog`.
fn asked_for(s: &Scene) -> bool {
    let aw = &s.after_words;
    let please = |w: Option<&String>| is(w, &["please", "pls", "plz"]);
    let gap = &s.clause_after.trim_start();
    let unbroken = !gap.starts_with(['-', '—', '–']);
    unbroken
        && aw.len() > 2
        && ((is(aw.first(), &["mode"]) && please(aw.get(1)))
            || (s.alias().coined() && please(aw.first())))
}

/// `ralplan the schema change`, `autopilot this`, `deep interview me`: the name is the verb of
/// the command and an object follows — unless the words after make it a statement about
/// someone (`ralph the intern said …`).
pub(crate) fn verb_object(s: &Scene) -> bool {
    if !opens_command(s) {
        return false;
    }
    // the object follows the name in its clause (`ralph, the new guy, …` is an apposition)
    let aw: Vec<&str> = s.after_words.iter().map(String::as_str).collect();
    // a path or code the sanitiser blanked is the object: `code review src/billing`
    if s.blanked_next() && s.gate != Gate::Command {
        return true;
    }
    let Some(at) = aw.iter().position(|w| !SOFT.contains(w)) else {
        return false;
    };
    let first = aw[at];
    let second = aw.get(at + 1).copied();
    // `ccg on the schema design`, `tdd for the new endpoint`, `ccg on whether to use …`
    let prepositional = matches!(first, "on" | "for" | "across" | "over" | "through")
        && second
            .is_some_and(|w| OBJECTS.contains(&w) || (first != "for" && WH_WORDS.contains(&w)));
    // common words (`think hard`, `red-green`) take only a prepositional object: `red-green on
    // the validation module`, not `think hard the problem`
    if s.gate == Gate::Command && !prepositional {
        return false;
    }
    let object = OBJECTS.contains(&first)
        // `deep interview me`
        || (s.name == "deep-interview" && matches!(first, "me" | "us"))
        // `ralplan how we move auth`, not `ralph how does it work`
        || (WH_WORDS.contains(&first) && second.is_some_and(|w| !AUXILIARIES.contains(&w)))
        || prepositional
        // a review asked for by its noun: `security review of the webhook receiver please`
        || (matches!(first, "of" | "on") && matches!(s.name, "code-review" | "security-review"))
        // a pass of it asked for by its noun: `deslop pass over the handlers`, `ai slop pass on
        // the PR` (not `pass on this`, which declines)
        || (first == "pass"
            && second.is_some_and(|w| matches!(w, "on" | "over" | "through" | "across"))
            && aw.get(at + 2).is_some_and(|w| {
                OBJECTS.contains(w) && !matches!(*w, "this" | "that" | "it" | "them")
            }))
        // a coined name's object can be an activity: `ralplan adding SSO with Okta`, `ulw
        // migrating the remaining handlers` (an ordinary name is not: `ralph working late`)
        || (s.alias().coined()
            && first.ends_with("ing")
            && TASK_VERBS.contains(&base_form(first, TASK_VERBS).as_str()))
        // a purpose: `ultrawork for implementing the endpoints`, `tdd for fixing the parser`
        || (first == "for" && second.is_some_and(|w| TASK_VERBS.contains(&base_form(w, TASK_VERBS).as_str())));
    if !object {
        return false;
    }
    for (k, w) in aw.iter().enumerate().skip(at + 1).take(6) {
        if RELATIVES.contains(w) || TASK_VERBS.contains(w) {
            break;
        }
        // `ralph the new hire pushed a bad commit`: a past tense with an object of its own
        let past_with_object = w.len() > 3
            && w.ends_with("ed")
            && aw
                .get(k + 1)
                .is_some_and(|n| OBJECTS.contains(n) || matches!(*n, "over" | "up" | "out"));
        if STATEMENT_VERBS.contains(w) || past_with_object || (first == "of" && FINITE.contains(w))
        {
            return false;
        }
    }
    true
}

/// A name heading its line, set off by a comma or a dash, with the task or its context after:
/// `ulw, there are 23 failing tests`, `ralph with tdd please, the bug is in the date parser`,
/// `ralph — the deploy script fails on fresh machines, make it idempotent`. An ordinary word
/// (`ralph`, `test first`) needs more than a comma: a softener (`ralph please, …`) or a dash
/// and an imperative later in the sentence; `Ralph, the PM, wants …` addresses a person.
pub(crate) fn heading(s: &Scene) -> bool {
    if !s.is_name() || !s.command_pos || !s.sentence_rest().is_empty() || greeted(s) {
        return false;
    }
    let after = s.sentence_after;
    let separators = |c: char| matches!(c, ',' | '—' | '–');
    let dash = after.trim_start().starts_with(['—', '–']) || after.trim_start().starts_with("- ");
    // leading clauses that hold only softeners (`, please —`), then the substance
    let mut softened = false;
    let mut substance: Vec<Vec<String>> = Vec::new();
    for (k, clause) in after.split(separators).enumerate() {
        let ws = words(&clause.replace(" - ", " "));
        if substance.is_empty() && ws.iter().all(|w| SOFTENERS.contains(&w.as_str())) {
            softened |= !ws.is_empty();
            if k > 0 || !ws.is_empty() || clause.trim().is_empty() {
                continue;
            }
        }
        if k == 0 && !ws.is_empty() && !softened {
            // words right after the name, in its own clause: not a heading
            return false;
        }
        substance.push(ws);
    }
    let Some(first) = substance.first() else {
        return false;
    };
    if first.is_empty() && substance.len() == 1 {
        return false;
    }
    let imperative_later = substance
        .iter()
        .any(|ws| ws.first().is_some_and(|w| TASK_VERBS.contains(&w.as_str())));
    match s.gate {
        Gate::Command => softened,
        _ => {
            s.alias().coined()
                || softened
                || (dash && imperative_later)
                || (s.leadins > 0 && brief(first))
        }
    }
}

/// What to make, said as a product's description after a lead-in, the name and a comma (`fine
/// autopilot, a little tool that …`): an article, then a product noun among the next words;
/// not `ok ralph, a question about …`.
fn brief(ws: &[String]) -> bool {
    const MORE: &[&str] = &["page", "game", "library", "widget", "form", "component"];
    is(ws.first(), &["a", "an"])
        && ws[1..]
            .iter()
            .take(5)
            .any(|w| PRODUCT_NOUNS.contains(&w.as_str()) || MORE.contains(&w.as_str()))
}

/// The name is the whole sentence, with only lead-ins and softeners around it: `ulw`, `ok ulw`,
/// `tdd please.`, `ralph` on the first line of a prompt. Not a greeting (`thanks ralph`), a
/// heading, a list of names, or a name signing the message (a name between a log's lines is
/// part of the log, blanked with it: `records.rs`).
pub(crate) fn bare_keyword(s: &Scene) -> bool {
    if !s.is_name() || s.gate == Gate::Prefix {
        return false;
    }
    if !s.sentence_rest().is_empty()
        || s.sentence_words
            .iter()
            .any(|w| GREETINGS.contains(&w.as_str()))
        || !s.sa_words.iter().all(|w| SOFTENERS.contains(&w.as_str()))
    {
        return false;
    }
    let from = floor(s.t, s.head_pos.saturating_sub(300));
    let line_start = s.t[from..s.head_pos]
        .rfind('\n')
        .map_or(from, |i| from + i + 1);
    // (offsets in the sanitised text need not be char boundaries of the prompt as typed)
    let raw_line = &s.site.raw[floor(s.site.raw, line_start)..s.head_pos];
    if raw_line.trim_start().starts_with('#') {
        return false;
    }
    // the neighbouring lines: a label above, a sign-off above, or other lone names
    // (bounded windows: a blanked code block can be megabytes of spaces)
    let prev = back(s.t, line_start, 400)
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .trim();
    let next = fwd(s.t, s.end, 400)
        .split('\n')
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if after_meaning_question(s, line_start) {
        return false;
    }
    let pw = words(prev);
    let lone_names =
        |ws: &[String]| !ws.is_empty() && ws.len() <= 3 && ws.iter().all(|w| is_mode_word(w));
    !(prev.ends_with(':')
        || prev == "--"
        || (!pw.is_empty() && pw.iter().all(|w| SIGNOFFS.contains(&w.as_str())))
        || lone_names(&pw)
        || lone_names(&words(next)))
}

/// The text before the name on its line is a question about what a word means (`what does slop
/// mean? ai slop`, `슬롭이 무슨 뜻이에요? ai slop`): a lone name after it is the word asked about.
fn after_meaning_question(s: &Scene, line_start: usize) -> bool {
    let before = s.t[line_start..s.head_pos - s.sentence_before.len()].trim_end();
    (before.ends_with('?') || before.ends_with('？'))
        && (words(before).iter().any(|w| MEANING.contains(&w.as_str()))
            || cjk::asks_meaning(before))
}

/// A greeting or thanks in the sentence before an ordinary name: `thanks ralph` addresses a
/// person (a coined name is never a person: `yo ulw, …`).
fn greeted(s: &Scene) -> bool {
    !s.alias().coined()
        && s.sentence_words
            .iter()
            .any(|w| GREETINGS.contains(&w.as_str()))
}

/// A command done in a mode's manner: `write the rate limiter tdd style`; `do it test-first`,
/// `write this red-green`. tdd's own words are common, so only a verb and its pronoun object may come before (not a causative: `make it
/// test first` is "make it run its tests first"), and the name ends the clause.
pub(crate) fn manner(s: &Scene) -> bool {
    // `write the rate limiter tdd style`: a command done in the mode's style
    let aw = &s.after_words;
    if s.is_name()
        && is(aw.first(), &["style", "fashion"])
        && aw[1..].iter().all(|w| SOFTENERS.contains(&w.as_str()))
        && s.imperative_sentence()
    {
        return true;
    }
    let rest = s.lead_rest();
    let causative = |w: &str| matches!(w, "make" | "let" | "have" | "get" | "help" | "keep");
    // the hyphenated alias (`test-first`, `red-green`) is no ordinary phrase: ending a
    // command, it says how the command is done, whatever the object (`implement the lexer
    // test-first`)
    if s.is_name()
        && s.name == "tdd"
        && s.alias().text.contains('-')
        && rest.len() >= 2
        && TASK_VERBS.contains(&rest[0].as_str())
        && !causative(&rest[0])
        && s.after_words
            .iter()
            .all(|w| SOFTENERS.contains(&w.as_str()))
    {
        return true;
    }
    s.is_name()
        && s.gate == Gate::Command
        && s.name == "tdd"
        && rest.len() == 2
        && TASK_VERBS.contains(&rest[0].as_str())
        && !matches!(
            rest[0].as_str(),
            "make" | "let" | "have" | "get" | "help" | "keep"
        )
        && is(rest.get(1), &["it", "this", "that", "them", "everything"])
        && s.after_words.is_empty()
}

/// Only at the head of a command do common words (`think hard`, `test first`) name a mode.
pub(crate) fn command_only(s: &Scene) -> bool {
    s.gate == Gate::Command
}

/// An activation verb before it: `use ralph`, `start the ralph`, `turn on autopilot`, `in ralph
/// mode`.
pub(crate) fn activation_verb(s: &Scene) -> bool {
    let rest = s.lead_rest();
    is_activation(rest)
        || (rest.len() == 1 && rest[0] == "in" && is(s.after_words.first(), &["mode"]))
}

/// A command done with the mode: `fix the tests with ralph`, `… using tdd`, `… in ralph mode`.
pub(crate) fn instrument(s: &Scene) -> bool {
    // Hindi's postposition after it, the command ending the line: `ralph se ye bug fix kar do`
    if is(s.line_after_words.first(), &["se"]) && hinglish_imperative(&s.line_after_words) {
        return true;
    }
    if !instrument_command(s) {
        return false;
    }
    let before: Vec<&String> = s
        .cb_words
        .iter()
        .rev()
        .skip_while(|w| FILLERS.contains(&w.as_str()))
        .collect();
    is(before.first().copied(), INSTRUMENT_PREPS)
        || (before.first().is_some_and(|w| *w == "in") && is(s.after_words.first(), &["mode"]))
}

/// Whether the command the candidate is in is one: it opens with an imperative verb (English,
/// or [`FOREIGN_TASK_VERBS`] for the instrument's other languages), or with the instrument
/// itself next to a request lead-in, before it or right after the name (`bitte mit ultrawork …
/// ersetzen`, `mit ulw bitte … ersetzen`).
fn instrument_command(s: &Scene) -> bool {
    let rest = s.lead_rest();
    // the instrument heading its sentence, the command in the next clause: `con tdd, implementa
    // el parser`, `with ralph, fix the flaky tests`
    let command_next = s.after_words.is_empty()
        && (is(s.sa_words.first(), TASK_VERBS) || is(s.sa_words.first(), FOREIGN_TASK_VERBS));
    s.imperative_sentence()
        || is(s.command_rest().first(), FOREIGN_TASK_VERBS)
        || (rest.len() == 1
            && is(rest.first(), INSTRUMENT_PREPS)
            && (s.cb_words[..s.leadins]
                .iter()
                .any(|w| REQUEST_LEADINS.contains(&w.as_str()))
                || is(s.after_words.first(), REQUEST_LEADINS)
                || command_next))
}

/// A command tagged with the mode at the end of its line: `refactor the auth module ulw`.
pub(crate) fn trailing_tag(s: &Scene) -> bool {
    let line_rest = s.rest_after().split('\n').next().unwrap_or("");
    // (a token the sanitiser blanked right before it is the last word: `… to async/await ulw`)
    let prev = s.prev_word().filter(|_| !s.blanked_prev());
    if line_rest.chars().any(char::is_alphanumeric)
        || is(prev, DETERMINERS)
        || is(prev, TOPIC_WORDS)
        || is(prev, &["and", "or", "with", "to", "for", "in", "on", "at"])
    {
        return false;
    }
    let window = back(s.t, s.head_pos, 300);
    let line_before = &window[window.rfind('\n').map_or(0, |i| i + 1)..];
    let lw = words(line_before);
    let rest = &lw[strip_leadins(&lw).0..];
    (rest.len() >= 2 && TASK_VERBS.contains(&rest[0].as_str()))
        || cjk::imperative(line_before)
        || hinglish_imperative(rest)
}

/// A Hindi-English command: an English task verb, then a Hindi imperative ending the clause
/// (`checkout wala bug fix kar do`, `tests theek karo`).
fn hinglish_imperative(ws: &[String]) -> bool {
    HINGLISH_IMPERATIVES.iter().any(|end| {
        ws.len() > end.len()
            && ws.ends_with(&end.iter().map(|w| w.to_string()).collect::<Vec<_>>())
            && ws[..ws.len() - end.len()]
                .iter()
                .any(|w| TASK_VERBS.contains(&w.as_str()) || w == "theek" || w == "thik")
    })
}

/// A coined name used as a noun: `the ultrathink`.
pub(crate) fn determiner(s: &Scene) -> bool {
    s.gate == Gate::Mention && is(s.prev_word(), DETERMINERS)
}

/// A statement by someone about a coined name: `I love ultrathink`, `last week I used
/// deepsearch to …` (a subject anywhere before it in its clause: lead-ins that ask for
/// something, `i want you to`, `can you`, are not part of the clause's rest).
pub(crate) fn statement(s: &Scene) -> bool {
    let rest = s.lead_rest();
    // (`you` and `it` are subjects only first: `do it and ultrathink …` is a request)
    s.gate == Gate::Mention
        && (is(rest.first(), &["you", "it"])
            || rest.iter().any(|w| {
                [
                    "i", "we", "they", "he", "she", "i'm", "we're", "i've", "i'll", "we've",
                    "they're", "i'd", "we'd",
                ]
                .contains(&w.as_str())
            }))
}

/// A coined name (`ultrathink`, `deslop`), not negated or asked about.
pub(crate) fn mention(s: &Scene) -> bool {
    s.gate == Gate::Mention
}
