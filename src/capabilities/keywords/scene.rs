//! One candidate and what surrounds it, read once: its clause and sentence before and after, the
//! lead-ins it follows, whether it heads a command. Every rule of [`super::rules`] is a question
//! asked of a [`Scene`].

use super::lexicon::{Alias, Gate, Shape, is_mode_word, opens_with_mode};
use super::text::{
    MIND_ADVERBS, back, base_form, fwd, head_before_break, is, quote_span, strip_leadins,
    tail_after_break, words,
};
use super::vocab::{ACTIVATION_VERBS, QUESTION_STARTS, TASK_VERBS};

/// One match to judge. For modes joined in one command (`tdd and ralph: …`) `start..end` spans
/// the whole group, so every member is judged as the group.
pub struct Site<'a> {
    /// The sanitised prompt.
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
    /// Where an explicit prefix (`/`, `$`, `omc:`) starts, if there is one.
    pub prefix: Option<usize>,
    pub alias: &'a Alias,
    /// The prompt as typed (same offsets as `text`).
    pub raw: &'a str,
    /// The prompt's first lines look like a pasted review template.
    pub review_seed: bool,
    /// One of several names joined in one command.
    pub joined: bool,
}

/// A candidate in its surroundings.
pub struct Scene<'a> {
    pub site: &'a Site<'a>,
    /// The sanitised prompt.
    pub t: &'a str,
    pub name: &'static str,
    pub gate: Gate,
    pub shape: Shape,
    /// Where the candidate starts, its explicit prefix included.
    pub head_pos: usize,
    pub end: usize,
    pub explicit: bool,
    /// The clause before the candidate (after the last `,` `;` `.` `:` …) and its words.
    pub clause_before: &'a str,
    pub cb_words: Vec<String>,
    /// How many of `cb_words` are lead-ins (`ok`, `please`, `can you`, `i want you to`).
    pub leadins: usize,
    /// Among the lead-ins, a polite request (`can you`, `i want you to`).
    pub polite: bool,
    /// Nothing but lead-ins before it in its clause: it heads a command.
    pub command_pos: bool,
    pub sentence_before: &'a str,
    pub sentence_words: Vec<String>,
    /// The rest of the sentence after the candidate, and what ends the sentence.
    pub sentence_after: &'a str,
    pub sa_words: Vec<String>,
    pub terminator: Option<char>,
    /// The rest of the clause after the candidate, and its words.
    pub clause_after: &'a str,
    pub after_words: Vec<String>,
    /// The words after the candidate on its line.
    pub line_after_words: Vec<String>,
    /// A few characters right after and right before (for CJK particles).
    pub near_after: String,
    pub near_before: String,
    pub quote: Option<(usize, &'a str, usize)>,
}

impl<'a> Scene<'a> {
    pub fn new(site: &'a Site<'a>) -> Scene<'a> {
        let t = site.text;
        let head_pos = site.prefix.unwrap_or(site.start);
        let clause_before = tail_after_break(back(t, head_pos, 120), false);
        let mut cb_words = words(clause_before);
        let (leadins, polite) = strip_leadins(&cb_words);
        // `would you mind doing a code review`: the gerund is the request's verb
        let after_mind = |k: usize| {
            cb_words[k - 1] == "mind"
                || (k >= 2
                    && cb_words[k - 2] == "mind"
                    && MIND_ADVERBS.contains(&cb_words[k - 1].as_str()))
        };
        if leadins > 0 && leadins < cb_words.len() && after_mind(leadins) {
            cb_words[leadins] = base_form(&cb_words[leadins], ACTIVATION_VERBS);
        }
        // nothing but lead-ins before it, or a command and `then` (`deep interview me then
        // autopilot whatever we agree on`, `fix the parser then ralph the rest`)
        let rest = &cb_words[leadins..];
        let after_command = rest.len() >= 2
            && rest.last().is_some_and(|w| w == "then")
            && (TASK_VERBS.contains(&rest[0].as_str())
                || opens_with_mode(rest)
                // a mode name was skipped as a lead-in: `ultrathink the design then …`
                || cb_words[..leadins].iter().any(|w| is_mode_word(w)));
        let command_pos = (leadins == cb_words.len() || after_command)
            && !clause_before.contains(['"', '“', '「']);
        let sentence_before = tail_after_break(back(t, head_pos, 200), true);
        let (sentence_after, terminator) = head_before_break(fwd(t, site.end, 200), true);
        let (clause_after, _) = head_before_break(fwd(t, site.end, 120), false);
        let line_after = fwd(t, site.end, 200).split('\n').next().unwrap_or("");
        let near_before = {
            let cs: Vec<char> = sentence_before.chars().collect();
            cs[cs.len().saturating_sub(6)..].iter().collect()
        };
        Scene {
            site,
            t,
            name: site.alias.name,
            gate: site.alias.effective_gate(),
            shape: site.alias.shape,
            head_pos,
            end: site.end,
            explicit: site.prefix.is_some(),
            clause_before,
            cb_words,
            leadins,
            polite,
            command_pos,
            sentence_before,
            sentence_words: words(sentence_before),
            sentence_after,
            sa_words: words(sentence_after),
            terminator,
            clause_after,
            after_words: words(clause_after),
            line_after_words: words(line_after),
            near_after: sentence_after.chars().take(16).collect(),
            near_before,
            quote: quote_span(t, site.start, site.end),
        }
    }

    pub fn alias(&self) -> &'a Alias {
        self.site.alias
    }

    pub fn persistent(&self) -> bool {
        crate::modes::is_persistent(self.name)
    }

    pub fn is_name(&self) -> bool {
        self.shape == Shape::Name
    }

    /// The words of the clause before, without its lead-ins.
    pub fn lead_rest(&self) -> &[String] {
        &self.cb_words[self.leadins..]
    }

    /// The word right before the candidate in its clause.
    pub fn prev_word(&self) -> Option<&String> {
        self.cb_words.last()
    }

    /// The first word after the candidate in its sentence.
    pub fn next1(&self) -> Option<&String> {
        self.sa_words.first()
    }

    /// The sentence's words before the candidate, without its lead-ins.
    pub fn sentence_rest(&self) -> &[String] {
        &self.sentence_words[strip_leadins(&self.sentence_words).0..]
    }

    /// The prompt as typed, from the end of the candidate (at most 200 bytes).
    pub fn raw_after(&self) -> &'a str {
        fwd(self.site.raw, self.end, 200)
    }

    /// The next token after the candidate was blanked by the sanitiser (a path, inline code, a
    /// URL): `code review src/billing before I merge` has an object, the path.
    pub fn blanked_next(&self) -> bool {
        let raw = fwd(self.site.raw, self.end, 200);
        let t = fwd(self.t, self.end, 200);
        let at = raw.len() - raw.trim_start_matches([' ', '\t']).len();
        at < raw.len() && at < t.len() && t.as_bytes()[at] == b' ' && raw.as_bytes()[at] != b' '
    }

    /// The token right before the candidate was blanked by the sanitiser: `… to async/await
    /// ulw` ends with a path-like token, not with `to`.
    pub fn blanked_prev(&self) -> bool {
        let raw = back(self.site.raw, self.head_pos, 200);
        let t = back(self.t, self.head_pos, 200);
        raw.len() == t.len() && raw.trim_end().len() > t.trim_end().len()
    }

    /// The sanitised text from the end of the candidate (at most 200 bytes).
    pub fn rest_after(&self) -> &'a str {
        fwd(self.t, self.end, 200)
    }

    /// The sentence is a question: it ends with `?`, opens with a question word, or asks
    /// `do you …` / `can ralph …`.
    pub fn question(&self) -> bool {
        let sw0 = self
            .sentence_words
            .first()
            .or(self.next1().filter(|_| self.sentence_words.is_empty()));
        let sw1 = self.sentence_words.get(1);
        let modal =
            is(sw0, &["can", "could", "would", "will", "shall"]) && !is(sw1, &["you", "u", "we"]);
        let do_question =
            is(sw0, &["do"]) && is(sw1, &["you", "i", "we", "they", "these", "those", "people"]);
        matches!(self.terminator, Some('?' | '？' | '❓' | '❔' | '🤔'))
            || (is(sw0, QUESTION_STARTS) && !self.sentence_words.is_empty())
            || do_question
            || modal
    }

    /// A question that is nevertheless a request: polite (`can you ralph this?`), after an
    /// explicit command (`/ralph why …?`), or the task of a context-only mode (`ultrathink: is
    /// this queue correct?`).
    pub fn question_excused(&self) -> bool {
        let polite_sentence = strip_leadins(&self.sentence_words).1;
        // modes joined in one question asked about themselves: `ralph and tdd: what order do
        // they run in?`
        let about_them = self.site.joined
            && self.sa_words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "they" | "them" | "their" | "both" | "either" | "each"
                )
            });
        // the question is the task when it is asked after a colon or reads as a question of its
        // own (`deepsearch where do we parse the config?`), not `code review this?`
        // (`think hard about this before answering: is it safe …?`: the question follows the
        // command's colon)
        let after_colon = self.sentence_after.contains(": ") || self.sentence_after.contains('：');
        let own_question = self.raw_after().trim_start().starts_with([':', '：'])
            || after_colon
            || is(self.sa_words.first(), QUESTION_STARTS)
            || is(
                self.sa_words.first(),
                &["do", "can", "could", "would", "will"],
            );
        let question_is_task = self.command_pos
            && self.sentence_words.len() == self.cb_words.len()
            && !self.persistent()
            && self.gate != Gate::Prefix
            && self.is_name()
            && !self.sa_words.is_empty()
            && own_question
            && !about_them;
        // `before you answer, ultrathink: which scheme is deadlock-free?`: a context-only mode's
        // colon directive heads its clause, whatever clause leads into it
        let colon_task = self.command_pos
            && !self.persistent()
            && self.is_name()
            && self.gate != Gate::Prefix
            && self.raw_after().trim_start().starts_with([':', '：'])
            && !about_them;
        // `answer this with ultrathink: is the lock free?`: an imperative, then its question
        let command_then_question =
            after_colon && !self.persistent() && self.is_name() && self.imperative_sentence();
        self.polite
            || polite_sentence
            || question_is_task
            || colon_task
            || command_then_question
            || (self.explicit && self.command_pos)
    }

    /// The words of the command the candidate is in, without lead-ins: its clause when that
    /// opens with an imperative verb (`one more: can you take the reset flow end to end`), else
    /// its sentence.
    pub fn command_rest(&self) -> &[String] {
        let clause = self.lead_rest();
        if is(clause.first(), TASK_VERBS) {
            clause
        } else {
            self.sentence_rest()
        }
    }

    /// The command opens (after lead-ins) with an imperative verb.
    pub fn imperative_sentence(&self) -> bool {
        self.command_rest()
            .first()
            .is_some_and(|w| TASK_VERBS.contains(&w.as_str()))
    }

    /// Heads a command: nothing but lead-ins before it in its clause, or it continues an
    /// imperative sentence after `and` / `then` (`take the spec and build me an app`).
    pub fn command_head(&self) -> bool {
        self.command_pos
            || (is(self.prev_word(), &["and", "then"])
                && self.imperative_sentence()
                && !self.clause_before.contains(['"', '“', '「']))
    }
}
