//! OMC's natural-language aliases: `build me a cli`, `i want a dashboard`, `handle it all`,
//! `take it end to end`, `e2e this` (autopilot); `search the codebase for …` (deepsearch);
//! `review code in …` (code-review); `clean up the dead code` (ai-slop-cleaner).
//!
//! Two steps. [`extent`] says whether the words around the fixed words complete the phrase and
//! where it really starts and ends (`build me` + `a small cli`; `dead code` + the `clean up`
//! before it). Then the phrase goes through the same guards as a mode's name (quoted, asked
//! about, negated, …), and its own rule in [`super::rules::RULES`] decides: each asks for a
//! request, i.e. the phrase heads a command, and for the words that make it one.

use super::lexicon::Shape;
use super::scene::Scene;
use super::text::{back, base_form, fwd, is, tail_after_break};
use super::vocab::{
    ARTICLES, BUILD_VERBS, CLEANUP_VERBS, CODE_NOUNS, COMPOUND_HEADS, CORE_CLEANUP_VERBS, NOUNS,
    PRODUCT_NOUNS, PRODUCT_STOPS, REVIEW_ASPECTS, SCOPE_WORDS, SMELL_TALK, TASK_VERBS,
};
use std::borrow::Cow;

/// Lowercase words of `s` with their byte spans (offset by `base`), up to the first character
/// that is neither a word character nor a space: a phrase does not run across punctuation.
fn spans(s: &str, base: usize) -> Vec<(usize, usize, Cow<'_, str>)> {
    let mut out = Vec::new();
    let mut cur: Option<usize> = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), '\u{0}'))) {
        let word_char = c.is_alphanumeric() || c == '-' || c == '\'';
        if word_char {
            cur.get_or_insert(i);
            continue;
        }
        if let Some(st) = cur.take() {
            // (lowercased only when it has a capital: a paste may hold thousands of phrases)
            let w = &s[st..i];
            let w = if w.chars().any(char::is_uppercase) {
                Cow::Owned(w.to_lowercase())
            } else {
                Cow::Borrowed(w)
            };
            out.push((base + st, base + i, w));
        }
        if !(c == ' ' || c == '\t') {
            break;
        }
    }
    out
}

/// `[modifiers…] <product>` from `pos`: the end of the product noun (and of nouns compounding
/// it: `a dashboard page`), or `None`.
fn product_after(t: &str, pos: usize, article_optional: bool) -> Option<usize> {
    let ws = spans(fwd(t, pos, 120), pos);
    let mut i = 0;
    if article_optional && ws.first().is_some_and(|w| w.2 == "a" || w.2 == "an") {
        i = 1;
    }
    for k in i..(i + 4).min(ws.len()) {
        let w = ws[k].2.as_ref();
        if PRODUCT_NOUNS.contains(&w) {
            // `a cli tool`, `an api server`: still a product; `a feature flag`: not one
            let mut end = ws[k].1;
            for next in ws.iter().skip(k + 1).take(2) {
                let n = next.2.as_ref();
                if PRODUCT_NOUNS.contains(&n) {
                    end = next.1;
                } else if COMPOUND_HEADS.contains(&n) || NOUNS.contains(&n) {
                    return None;
                } else {
                    break;
                }
            }
            return Some(end);
        }
        if PRODUCT_STOPS.contains(&w) || (TASK_VERBS.contains(&w) && k > i) {
            return None;
        }
    }
    None
}

/// Where the phrase whose fixed words are at `start..end` of `t` starts and ends, or `None` when
/// the words around do not complete it. `t` is the prompt as typed (so a phrase inside code is
/// still found, and reported as blanked).
pub(crate) fn extent(shape: Shape, t: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    match shape {
        Shape::Name => Some((start, end)),
        Shape::Creation => product_after(t, end, true).map(|e| (start, e)),
        Shape::Wish => product_after(t, end, false).map(|e| (start, e)),
        Shape::HandleAll | Shape::EndToEnd | Shape::E2eThis | Shape::Search | Shape::Review => {
            Some((start, end))
        }
        Shape::Smell => smell(t, start, end),
        Shape::Stop => super::stop::extent(t, start, end),
    }
}

/// Duplication, the smell that counts only for code: `duplicated helpers`, `copy-pasted date
/// helpers`, `three nearly identical formatters` (not `duplicate rows`).
fn duplication(word: &str) -> bool {
    word.starts_with("duplicat")
        || word.starts_with("copy-paste")
        || word.starts_with("copy paste")
        || word.ends_with("identical")
}

/// A code smell and the cleanup verb before it in its sentence: `clean up the dead code`,
/// `dedupe the duplicated helpers`. Duplication counts only for code (`duplicated helpers`,
/// `code duplication`, not `duplicate rows`); the vaguer smells (`tech debt`, `generated code`)
/// only with OMC's own cleanup verbs (`clean up`, `refactor`, `simplify`, …), so `delete the
/// generated code` stays a plain request.
fn smell(t: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let word = t[start..end].to_ascii_lowercase();
    let mut end = end;
    let strong = matches!(word.as_str(), "slop" | "dead code" | "unused code");
    if duplication(&word) {
        let ws = spans(fwd(t, end, 60), end);
        let before = spans(tail_after_break(back(t, start, 40), false), 0);
        let code_before = before
            .last()
            .is_some_and(|w| matches!(w.2.as_ref(), "code" | "logic"));
        match ws
            .iter()
            .take(3)
            .find(|w| CODE_NOUNS.contains(&w.2.as_ref()))
        {
            Some(noun) => end = noun.1,
            None if code_before => {}
            None => return None,
        }
    }
    // `dead code comments`, `tech debt tickets`: the smell names something else
    let next = spans(fwd(t, end, 40), end);
    if next
        .first()
        .is_some_and(|w| SMELL_TALK.contains(&w.2.as_ref()))
    {
        return None;
    }
    let verbs = if strong || duplication(&word) {
        CLEANUP_VERBS
    } else {
        CORE_CLEANUP_VERBS
    };
    let sentence = tail_after_break(back(t, start, 120), true);
    let base = start - sentence.len();
    let bytes = sentence.as_bytes();
    let mut verb = None;
    // the last cleanup verb of the sentence before the smell, as a word of its own
    for (i, c) in sentence.char_indices() {
        if !c.is_ascii_alphabetic() || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
            continue;
        }
        let w: String = sentence[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
            .collect();
        // (`would you mind deduping the duplicated helpers`)
        if verbs.contains(&base_form(&w.to_ascii_lowercase(), verbs).as_str()) {
            verb = Some(base + i);
        }
    }
    verb.map(|v| (v, end))
}

/// The rest of the clause is empty or starts with one of `ok`, or a colon follows.
fn tail_ok(s: &Scene, ok: &[&str]) -> bool {
    let colon = s.raw_after().trim_start();
    s.after_words
        .first()
        .is_none_or(|w| ok.contains(&w.as_str()))
        || colon.starts_with(':')
        || colon.starts_with("—")
        || colon.starts_with("- ")
}

/// `build|create|make me a(n) <product>` at the head of a command.
pub(crate) fn creation_request(s: &Scene) -> bool {
    s.shape == Shape::Creation && s.command_head()
}

/// `i want a(n) <product>` opening a sentence.
pub(crate) fn product_wish(s: &Scene) -> bool {
    s.shape == Shape::Wish && s.command_pos
}

/// `handle it all`, ending its clause or before a colon (not `handle it all in one transaction`).
pub(crate) fn handle_it_all(s: &Scene) -> bool {
    s.shape == Shape::HandleAll
        && (s.command_head() || s.lead_rest() == ["you"])
        && tail_ok(
            s,
            &[
                "for", "yourself", "please", "pls", "now", "from", "end", "then", "ok", "okay",
                "thanks",
            ],
        )
}

/// `end to end` ending an imperative clause whose verb is a job to carry through (`take the
/// reset flow end to end`), or opening a command before a colon (`end to end: …`); not a noun's
/// modifier (`end to end tests`) nor the scope of a check (`test the checkout end to end`, `make
/// sure it works end to end`).
pub(crate) fn end_to_end(s: &Scene) -> bool {
    // `the end to end suite` (but `build this end to end`: `this` is the object)
    if s.shape != Shape::EndToEnd || is(s.prev_word(), ARTICLES) {
        return false;
    }
    let colon = s.raw_after().trim_start().starts_with(':');
    if s.command_pos {
        return colon;
    }
    let ends_clause = s.after_words.iter().all(|w| {
        [
            "please", "pls", "now", "for", "me", "us", "yourself", "thanks", "this", "time",
        ]
        .contains(&w.as_str())
    });
    let rest = s.command_rest();
    let verb = rest.first().map(String::as_str);
    let make_sure = verb == Some("make") && is(rest.get(1), &["sure", "certain"]);
    ends_clause && verb.is_some_and(|v| BUILD_VERBS.contains(&v)) && !make_sure
}

/// `e2e this` opening a command.
pub(crate) fn e2e_this(s: &Scene) -> bool {
    s.shape == Shape::E2eThis && s.command_pos
}

/// `search the codebase for …`, `find all files that …` at the head of a command (not `search
/// the code review guidelines`).
pub(crate) fn codebase_search(s: &Scene) -> bool {
    s.shape == Shape::Search && s.command_head() && tail_ok(s, SCOPE_WORDS)
}

/// `review code in …`, `review security of …` at the head of a command.
pub(crate) fn review_code(s: &Scene) -> bool {
    // `review security headers in …`, `review code changes since …`: what of it is reviewed,
    // then the scope
    let aspect = is(s.after_words.first(), REVIEW_ASPECTS)
        && s.after_words
            .get(1)
            .is_none_or(|w| SCOPE_WORDS.contains(&w.as_str()));
    // (`review code of conduct wording`: another thing's name)
    let other_name = s
        .after_words
        .starts_with(&["of".to_string(), "conduct".to_string()]);
    s.shape == Shape::Review
        && s.command_head()
        && (aspect || tail_ok(s, SCOPE_WORDS))
        && !other_name
}

/// A cleanup verb heading a command whose object is a code smell, or the smell named by the
/// mode's own name (`clean up the ai slop`).
pub(crate) fn cleanup_smell(s: &Scene) -> bool {
    (s.shape == Shape::Smell && s.command_head())
        || (s.is_name() && s.name == "ai-slop-cleaner" && is(s.lead_rest().first(), CLEANUP_VERBS))
}

/// A phrase that none of the rules above took as a request.
pub(crate) fn incomplete(s: &Scene) -> bool {
    !s.is_name()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(shape: Shape, t: &str, fixed: &str) -> Option<String> {
        let s = t.find(fixed).unwrap();
        extent(shape, t, s, s + fixed.len()).map(|(a, b)| t[a..b].to_string())
    }

    #[test]
    fn products() {
        let c = Shape::Creation;
        assert_eq!(
            ext(c, "build me a cli that x", "build me").as_deref(),
            Some("build me a cli")
        );
        assert_eq!(
            ext(c, "make me a small rust cli tool now", "make me").as_deref(),
            Some("make me a small rust cli tool")
        );
        assert_eq!(ext(c, "make me a feature flag for x", "make me"), None);
        assert_eq!(ext(c, "make me a list of apps", "make me"), None);
        assert_eq!(ext(c, "make me a coffee", "make me"), None);
        assert_eq!(ext(c, "build me, an app", "build me"), None);
        let w = Shape::Wish;
        assert_eq!(
            ext(w, "i want a slack bot that posts", "i want a").as_deref(),
            Some("i want a slack bot")
        );
        assert_eq!(ext(w, "i want a coffee", "i want a"), None);
    }

    #[test]
    fn smells() {
        let s = Shape::Smell;
        assert_eq!(
            ext(s, "ok. clean up the dead code in x", "dead code").as_deref(),
            Some("clean up the dead code")
        );
        assert_eq!(
            ext(s, "dedupe the duplicated date helpers", "duplicated").as_deref(),
            Some("dedupe the duplicated date helpers")
        );
        assert_eq!(ext(s, "remove the duplicate rows", "duplicate"), None);
        assert_eq!(ext(s, "look at the dead code", "dead code"), None);
        assert_eq!(ext(s, "unclean dead code", "dead code"), None);
    }
}
