//! Every rule of keyword detection, in one table: its name, the stage that applies it, its
//! verdict, and what it recognises. `omc-hooks detect` names the rule that decided each
//! candidate and prints its line from here; `omc-hooks detect --rules` prints the whole table.
//!
//! Stages, in order: the sanitiser blanks what is not the user talking ([`super::sanitize`]);
//! boundaries reject a match that is not a word of its own (`boundary.rs`); then each
//! candidate is judged by the `Guard` and `Shape` rows, top to bottom, the first that holds
//! deciding ([`judge`]) — guards first, so every alias, name or phrase, gets the same guards;
//! last, rules over the whole prompt ([`super::scan`]). A candidate that no row takes activates
//! nothing: precision first, because a false positive starts a loop that refuses to stop.

use super::scene::{Scene, Site};
use super::{cjk, guards, phrases, shapes, stop};

/// Which part of detection applies a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Blanks text before any matching.
    Sanitise,
    /// Rejects a match that is part of a longer token.
    Boundary,
    /// Judges one candidate; can only keep it from activating (or turn it into a cancel).
    Guard,
    /// Judges one candidate; an invocation shape.
    Shape,
    /// Over the whole prompt, after every candidate was judged.
    Prompt,
}

impl Stage {
    pub fn label(self) -> &'static str {
        match self {
            Stage::Sanitise => "sanitise",
            Stage::Boundary => "boundary",
            Stage::Guard => "guard",
            Stage::Shape => "shape",
            Stage::Prompt => "prompt",
        }
    }
}

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Ignore,
    Activate,
    /// Acted on as `cancel` while something of the session runs (a stop in the person's own
    /// words; `cancelomc` and `/cancel` are commands, which `Activate` always).
    Cancel,
}

impl Effect {
    pub fn label(self) -> &'static str {
        match self {
            Effect::Ignore => "ignore",
            Effect::Activate => "activate",
            Effect::Cancel => "cancel",
        }
    }
}

/// One rule.
pub struct Rule {
    pub name: &'static str,
    pub stage: Stage,
    pub effect: Effect,
    pub recognises: &'static str,
    /// The question asked of a candidate (`Guard` and `Shape` rows only).
    pub test: Option<fn(&Scene) -> bool>,
}

const fn rule(
    name: &'static str,
    stage: Stage,
    effect: Effect,
    recognises: &'static str,
    test: Option<fn(&Scene) -> bool>,
) -> Rule {
    Rule {
        name,
        stage,
        effect,
        recognises,
        test,
    }
}

use Effect::{Activate, Cancel, Ignore};
use Stage::{Boundary, Guard, Prompt, Sanitise, Shape};

/// The table. Within `Guard` and `Shape`, order is evaluation order.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    // ------------------------------------------------------------------ sanitiser
    rule("hook-echo", Sanitise, Ignore, "pasted hook output ([MAGIC KEYWORD: …], [RALPH LOOP …], Stop hook feedback, User request)", None),
    rule("html-comment", Sanitise, Ignore, "inside an HTML comment <!-- … -->", None),
    rule("fenced-code", Sanitise, Ignore, "inside a fenced code block", None),
    rule("indented-code", Sanitise, Ignore, "inside a Markdown indented code block (4 spaces or a tab, after a blank line, or opening the prompt with a blank line and text after it)", None),
    rule("diff-line", Sanitise, Ignore, "a line of a diff", None),
    rule("commit-line", Sanitise, Ignore, "a pasted git log or list of commits: a line led by a commit hash, conventional-commit subjects (feat: …, chore: …) among other commit lines, a commit's header, Author:/Date: lines and message, a rebase plan, git shortlog", None),
    rule("log-line", Sanitise, Ignore, "a pasted log line: a date or time first (2026-12-01T10:32Z …, [10:32:01] …, Dec 01 10:22:03 …), a level (INFO  …, [ERROR] …, level=info), npm ERR!, a test runner's result (✓ …, FAIL …)", None),
    rule("stack-trace", Sanitise, Ignore, "a pasted stack trace, from its header (Traceback …, thread '…' panicked at, goroutine 1 [running]:, Exception in thread …) or its first frame to the next blank line", None),
    rule("chat-line", Sanitise, Ignore, "a pasted chat of two or more speakers (alice: …, bob: …; 张三：…, 李四：…) or a Slack mention line (<@U0421> …)", None),
    rule("history-line", Sanitise, Ignore, "pasted shell history (  501  claude -p …, zsh's : 1733040000:0;…)", None),
    rule("omc-output", Sanitise, Ignore, "omc-hooks' own output pasted back: status (its header, session s1 and the runs' rows: ralph  iter 3/100 …), mode show, mode start (ralph: run started in session …), cancel, doctor, detect (verdict: … and its candidates), the Stop hook's notices (omc-hooks: ralph paused …), a command's error (omc-hooks mode: …), the modes' instructions (RALPH mode is on: …), the notifications (ralph is waiting for you in …), a checkpoint notice", None),
    rule("bug-report", Sanitise, Ignore, "a bug report with steps to reproduce, or an expected and an actual result: its labelled lines (Bug:, Title:, Expected:, Actual:, Environment:, 재현 단계, 期待結果, 复现步骤 …), what a label alone on its line heads, and the steps (1. Enable Autopilot in settings); not the request around it", None),
    rule("pasted-document", Sanitise, Ignore, "a document or configuration pasted to be worked on: a TOML table ([ralph] and its key = value lines), a YAML key over a list of single words (disabled: over - ralph), CSV rows, a man page (RALPH(1), NAME, SYNOPSIS …), a changelog (## v4.2.0, 1.3.2, ### Fixed, CHANGELOG and its entries), a Markdown section when the request names what was pasted (this README section, this changelog); to a blank line before the request", None),
    rule("shell-line", Sanitise, Ignore, "a shell-transcript line ($ …, ❯ …, user@host:~$ …)", None),
    rule("block-quote", Sanitise, Ignore, "a block-quote line (> …)", None),
    rule("table-row", Sanitise, Ignore, "a Markdown table row", None),
    rule("transcript-line", Sanitise, Ignore, "a pasted chat or Claude Code transcript line (Assistant:, ⏺ …)", None),
    rule("tag-block", Sanitise, Ignore, "inside an XML/HTML tag block <tag>…</tag>", None),
    rule("inline-code", Sanitise, Ignore, "inside inline code `…`", None),
    rule("url", Sanitise, Ignore, "part of a URL", None),
    rule("path", Sanitise, Ignore, "part of a file path (src/ralph/, ./ralph, ralph/)", None),
    // ------------------------------------------------------------------ boundaries
    rule("decoration", Boundary, Activate, "read through, not part of the word: emphasis around it (_ultrathink_:), an @agent addressed before it (@codex ulw …), a hashtag (#ralph), dictated punctuation (ralph comma fix … period; slash cancel); a Japanese form's middle dot (コード・レビュー)", None),
    rule("inside-word", Boundary, Ignore, "part of a longer word", None),
    rule("identifier", Boundary, Ignore, "part of an identifier or file name (ralph_count, ralph-state.json, ralph.rs, ralph())", None),
    rule("possessive", Boundary, Ignore, "possessive (ralph's …): talks about the mode", None),
    rule("not-a-stop", Boundary, Ignore, "a stop verb whose sentence does not ask to stop the work: not opening its sentence, something else stopped (stop the dev server, arrête de mettre des console.log, hör auf, console.log einzubauen), a negation (don't stop, no pares, n'arrête pas), para as 'for' (para los tests); shown by detect --explain", None),
    rule("other-meaning", Boundary, Ignore, "another word that starts the same (랄프로렌, コードレビュアー)", None),
    // ------------------------------------------------------------------ guards
    rule("review-seed", Guard, Ignore, "a pasted review template (approve / request-changes / merge-ready)", Some(guards::review_seed)),
    rule("quoted-invocation", Guard, Activate, "a quoted name used as a command (\"ralph\" fix …, run \"ralph\" on …)", Some(guards::quoted_invocation)),
    rule("quoted", Guard, Ignore, "inside quotation marks", Some(guards::quoted)),
    rule("informational", Guard, Ignore, "asks about the mode (what is / how do I / explain / vs / 뭐야 / とは / 什么; the name heading a dash, then a question about it: deep interview — is it worth it …?)", Some(guards::informational)),
    rule("retracted", Guard, Ignore, "asked, then taken back (code review this? no, …; I want a dashboard? no, just explain it)", Some(guards::retracted)),
    rule("question", Guard, Ignore, "part of a question (a polite request such as can you … ? / would you mind … ? still counts, and so does a question asked as the task after a context-only mode's colon: think hard about this: is it safe?)", Some(guards::question)),
    rule("vocative", Guard, Ignore, "a person addressed (thanks ralph, hey ralph, Ralph: thanks for …, Ralph — great catch …)", Some(guards::vocative)),
    rule("full-name", Guard, Ignore, "a person's full name (Ralph Wiggum, Ralph Lauren): a capitalised name and a capitalised word after it that is no task verb or mode word", Some(guards::full_name)),
    rule("stop-request", Guard, Cancel, "asks, in the person's own words, to stop the work: a stop verb opening its sentence with the work after it (stop; stop the loop, it's burning tokens; ok stop, that's enough looping; ralph stop; turn off ralph; kill it; stopp, das reicht; hör auf; para ya; basta; arrête, ça suffit; mets en pause; fermati; 그만해; ループを止めて; 停下来), in English, German, Spanish, French, Italian, Portuguese, Korean, Japanese or Chinese: acted on as cancel while something of the session runs", Some(stop::request)),
    rule("stop-object", Guard, Ignore, "a mode named in a request to stop it (stop ralph, 랄프 꺼줘, 停止拉尔夫), or in a limit on it (stop ralph from touching the migrations)", Some(stop::object)),
    rule("negation", Guard, Ignore, "negated (don't / without / instead of / turn off / 쓰지 마 / 使わないで / 不要)", Some(guards::negation)),
    rule("alternative", Guard, Ignore, "offered as one of several options (ralph or autopilot)", Some(guards::alternative)),
    rule("reported", Guard, Ignore, "reported speech or an example (my prompt was: …, e.g. …)", Some(guards::reported)),
    rule("listed", Guard, Ignore, "an item of a list that the question after it asks about (TODO: / - ralph the flaky tests / - ulw the lint errors / which of these is more urgent?), or an agent's plan pasted back with its offer (would you like me to proceed?)", Some(guards::listed)),
    rule("subject", Guard, Ignore, "the subject of a statement (ralph keeps looping, /ralph keeps looping, search code is slow, ralph and autopilot keep fighting, ultrawork, ralph and ralplan start from keywords, ralph 루프가 …, ラルフがテストを …, 拉尔夫循环一直 …; not a context-only mode's slash command heading its question: /ultrathink is this safe)", Some(guards::subject)),
    rule("noun-phrase", Guard, Ignore, "used as a modifier (an autopilot toggle, the ralph state, end to end tests)", Some(guards::noun_phrase)),
    rule("banter", Guard, Ignore, "an ordinary-English wish said in jest (i want an app like that too lol)", Some(guards::banter)),
    rule("deferred", Guard, Ignore, "put off or only supposed (i want a cli eventually, clean up the dead code later, could you use ralph on a monorepo, in theory?), on a condition said first (if tests fail, ralph it; not if you could, …), or the circumstance of a report in a CJK condition (울트라워크 켜면 …, ウルトラワークを使うと …, 超级工作模式启动以后 …, 超级工作模式下 …)", Some(guards::deferred)),
    rule("planned", Guard, Ignore, "a plan or a choice, not an order: under a label that says when or what for (tomorrow: ralplan …; note to self: …; Options for this afternoon: or Agenda for Thursday: over a list), after such words in its clause (remind me to …, tomorrow I want to ralph …), or for a later day (let's ralplan it on Monday, next week ralplan …)", Some(guards::planned)),
    rule("setting", Guard, Ignore, "talks about a setting (enable autopilot by default)", Some(guards::setting)),
    rule("topic", Guard, Ignore, "the topic of something else (about ralph, called autopilot)", Some(guards::topic)),
    rule("as-a-word", Guard, Ignore, "the name as a word in a text or a list (the table lists deslop, the docs are missing deslop and anti-slop, add ultrathink to the keyword list)", Some(guards::as_word)),
    // ------------------------------------------------------------------ invocation shapes: names
    rule("explicit-prefix", Shape, Activate, "an explicit command (/ralph, $ralph, omc:ralph) at the head of a clause", Some(shapes::explicit_prefix)),
    rule("colon-directive", Shape, Activate, "a directive (ralph: fix …; ralph:fix …; autopilot: tiny url shortener, sqlite; autopilot — a link checker for CI; 拉尔夫：把测试修好)", Some(shapes::colon_directive)),
    rule("leading-imperative", Shape, Activate, "the name opens a command and a task verb (or the next mode) follows (past a budget said after it: ralph --max 40 fix …), or modes are put in order (ralph fix …, think hard about …, ralplan first, then ralph …; so: ralplan, then ralph.), or it is asked for in one breath (ultrawork mode please we have …)", Some(shapes::leading_imperative)),
    rule("verb-object", Shape, Activate, "the name is the verb of a command and an object follows (ralplan the schema change, autopilot this, deep interview me, ralplan how we …, ccg on the design, red-green on the parser, ulw for fixing …, security review of the upload path; also after a command and then: fix the parser then ralph the rest)", Some(shapes::verb_object)),
    rule("bare-keyword", Shape, Activate, "the name is the whole sentence, with only lead-ins or softeners (ulw, ok ulw, tdd please, ralph time, ralph pls 🙏), not the word a question before it asks the meaning of (what does it mean? ai slop)", Some(shapes::bare_keyword)),
    rule("heading", Shape, Activate, "a name heading its line, set off by a comma or dash, the task after (ulw, there are 23 failing tests; ralph please, the bug is …)", Some(shapes::heading)),
    // ------------------------------------------------------------------ invocation shapes: phrases
    rule("creation-request", Shape, Activate, "build / create / make me a(n) <app|tool|cli|dashboard|…> heading a command (autopilot)", Some(phrases::creation_request)),
    rule("product-wish", Shape, Activate, "i want a(n) <app|tool|cli|dashboard|…> opening a sentence (autopilot)", Some(phrases::product_wish)),
    rule("handle-it-all", Shape, Activate, "handle it all, ending its clause or before a colon (autopilot)", Some(phrases::handle_it_all)),
    rule("end-to-end", Shape, Activate, "end to end ending an imperative clause (take the reset flow end to end) or opening one before a colon (autopilot)", Some(phrases::end_to_end)),
    rule("e2e-this", Shape, Activate, "e2e this, opening a command (autopilot)", Some(phrases::e2e_this)),
    rule("codebase-search", Shape, Activate, "search the codebase / code / files for …, find all files …, heading a command (deepsearch)", Some(phrases::codebase_search)),
    rule("review-code", Shape, Activate, "review code / review security in|of|for …, heading a command (code-review, security-review)", Some(phrases::review_code)),
    rule("cleanup-smell", Shape, Activate, "a cleanup verb heading a command whose object is a code smell (clean up the dead code, dedupe the duplicated helpers, dedupe the copy-pasted helpers, dedupe the near-identical formatters, simplify the wrapper layers, remove the ai slop) (ai-slop-cleaner)", Some(phrases::cleanup_smell)),
    rule("incomplete-phrase", Shape, Ignore, "a phrase alias not used as a request (handle it all in one transaction, test it end to end)", Some(phrases::incomplete)),
    // ------------------------------------------------------------------ invocation shapes: elsewhere in a command
    rule("manner", Shape, Activate, "a command done in a mode's manner, the name ending the clause (write the rate limiter tdd style, do it test-first, write this red-green)", Some(shapes::manner)),
    rule("not-at-command-head", Shape, Ignore, "a common phrase (think hard, test first) names a mode only at the head of a command", Some(shapes::command_only)),
    rule("activation-verb", Shape, Activate, "an activation verb before it (use / run / start / enable / turn on ralph; usa / nutze / utilise tdd; fai una code review)", Some(shapes::activation_verb)),
    rule("instrument", Shape, Activate, "a command done with the mode (fix … with ralph, … using tdd; arregla … con ralph, bitte mit ultrawork …)", Some(shapes::instrument)),
    rule("trailing-tag", Shape, Activate, "a command tagged with the mode at the end of its line (refactor … ulw; 把这个bug修了 ralph)", Some(shapes::trailing_tag)),
    rule("cjk-modifier", Shape, Ignore, "a CJK modifier (랄프의 상태, ラルフ 関連, 拉尔夫的代码, 보안 리뷰 결과)", Some(cjk::modifier)),
    rule("cjk-directive", Shape, Activate, "a CJK directive (울트라워크 돌려, ラルフで直して, 用ralph修复, ulw 부탁해요, 代码审查一下), not an editing verb whose object it is (ralph 추가해줘)", Some(cjk::directive)),
    rule("determiner", Shape, Ignore, "a coined name used as a noun (the ultrathink)", Some(shapes::determiner)),
    rule("statement", Shape, Ignore, "a statement about a coined name (I love ultrathink, last week I used deepsearch to …)", Some(shapes::statement)),
    rule("mention", Shape, Activate, "a coined mode name (ultrathink, deslop, deepsearch), not negated or asked about", Some(shapes::mention)),
    rule("no-invocation", Shape, Ignore, "mentioned, but not invoked", Some(|_| true)),
    // ------------------------------------------------------------------ the whole prompt
    rule("joined-modes", Prompt, Activate, "one of several modes joined in one command (tdd and ralph: …, code review + ultrawork: …, ralph, with tdd, …), judged with the first", None),
    rule("disabled-by-config", Prompt, Ignore, "switched off in .omc/config.json (keywords.disabled)", None),
    rule("nothing-running", Prompt, Ignore, "a stop in the person's own words while nothing of the session runs (no active run, no skill guard): nothing to end, so nothing is done", None),
    rule("cancel-exclusive", Prompt, Ignore, "cancel was also asked for; cancel is acted on alone", None),
];

/// The rule named `name`.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The sentence for a rule, for people.
pub fn describe(name: &str) -> &'static str {
    find(name).map_or("", |r| r.recognises)
}

/// A decision on one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub effect: Effect,
    pub rule: &'static str,
}

impl Verdict {
    pub fn activated(&self) -> bool {
        self.effect != Effect::Ignore
    }
}

/// Judges one candidate: the first `Guard` or `Shape` row whose test holds decides.
pub fn judge(site: &Site<'_>) -> Verdict {
    let scene = Scene::new(site);
    for r in RULES {
        if let Some(test) = r.test
            && test(&scene)
        {
            return Verdict {
                effect: r.effect,
                rule: r.name,
            };
        }
    }
    // not reached: the last row (`no-invocation`) always holds
    Verdict {
        effect: Effect::Ignore,
        rule: "no-invocation",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_described_and_stages_are_in_order() {
        let mut names: Vec<_> = RULES.iter().map(|r| r.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate rule names");
        let order = |s: Stage| s as u8;
        for w in RULES.windows(2) {
            assert!(
                order(w[0].stage) <= order(w[1].stage),
                "{} before {}",
                w[0].name,
                w[1].name
            );
        }
        for r in RULES {
            assert!(!r.recognises.is_empty(), "{}", r.name);
            let judged = matches!(r.stage, Stage::Guard | Stage::Shape);
            assert_eq!(r.test.is_some(), judged, "{}", r.name);
        }
        assert_eq!(
            RULES.iter().rev().find(|r| r.test.is_some()).unwrap().name,
            "no-invocation"
        );
    }

    #[test]
    fn every_sanitiser_rule_is_in_the_table() {
        for name in super::super::sanitize::RULE_NAMES {
            assert_eq!(find(name).map(|r| r.stage), Some(Stage::Sanitise), "{name}");
        }
        let n = RULES.iter().filter(|r| r.stage == Stage::Sanitise).count();
        assert_eq!(n, super::super::sanitize::RULE_NAMES.len());
    }
}
