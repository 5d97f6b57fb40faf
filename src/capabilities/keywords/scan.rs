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
use std::collections::VecDeque;

/// At most this many candidates of one prompt are judged, and `detect` reports exactly those:
/// the first half of the candidates and those among the last half of the matches, so that a
/// request typed before or after a long paste is judged however many mentions the paste holds,
/// and a hostile prompt stays cheap (each judgement reads bounded windows, and the text is
/// sanitised only around them). Matches in between are counted, never judged.
pub const MAX_JUDGED: usize = 4_096;

/// How far from a candidate the sanitised text is read by the rules (with a margin): the
/// windows of `text.rs` and `scene.rs` reach 700 bytes back and 400 forward.
const NEAR: usize = 1_024;

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
    /// Every candidate judged, in prompt order.
    pub candidates: Vec<Candidate>,
    /// Matches beyond [`MAX_JUDGED`], between the judged first and last halves: how many, and
    /// the bytes they span. None of them was judged.
    pub unjudged: usize,
    pub unjudged_span: Option<(usize, usize)>,
    /// Cancel was asked for only in the person's own words (a stop, not `cancelomc`): acted on
    /// only while something of the session runs.
    pub cancel_needs_run: bool,
    /// The stop verbs heard that the words around them did not make a request to stop (rule
    /// `not-a-stop`: `stop the dev server`, `para los tests`), never judged; the first
    /// [`MAX_SET_ASIDE`], for `detect --explain`.
    pub set_aside: Vec<Candidate>,
}

/// At most this many set-aside stop verbs are kept for `detect --explain`.
pub const MAX_SET_ASIDE: usize = 64;

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

/// The candidates of `prompt`: every match that is a word of its own (a phrase or a stop: that
/// the words around complete it), among the first [`MAX_JUDGED`] / 2 candidates and the last as
/// many matches; what lies between is counted, never judged (nor its phrases completed).
fn candidates(prompt: &str, det: &mut Detection) -> Vec<Pending> {
    let half = MAX_JUDGED / 2;
    let mut head: Vec<Pending> = Vec::new();
    let mut tail: VecDeque<matcher::Found> = VecDeque::new();
    for m in matcher::find_iter(prompt) {
        if head.len() < half {
            match pending(prompt, m) {
                Some(p) => head.push(p),
                None => set_aside(prompt, &m, det),
            }
            continue;
        }
        if tail.len() == half
            && let Some(gone) = tail.pop_front()
        {
            det.unjudged += 1;
            let span = det.unjudged_span.get_or_insert((gone.start, gone.end));
            span.1 = gone.end;
        }
        tail.push_back(m);
    }
    for m in tail {
        match pending(prompt, m) {
            Some(p) => head.push(p),
            None => set_aside(prompt, &m, det),
        }
    }
    head
}

/// Notes a stop verb, a word of its own, that the words around it did not make a request to
/// stop the work (rule `not-a-stop`).
fn set_aside(prompt: &str, m: &matcher::Found, det: &mut Detection) {
    if m.alias.shape != Shape::Stop
        || m.alias.gate == Gate::Prefix
        || det.set_aside.len() >= MAX_SET_ASIDE
        || boundary::boundary(prompt, m.start, m.end, m.alias) != Ok(None)
    {
        return;
    }
    det.set_aside.push(Candidate {
        name: "cancel",
        matched: prompt[m.start..m.end].to_string(),
        offset: m.start,
        activated: false,
        rule: "not-a-stop",
    });
}

/// One match as a candidate, or `None` when it is not one: a phrase or a stop the words around
/// do not complete, a command word without its prefix.
fn pending(prompt: &str, m: matcher::Found) -> Option<Pending> {
    let alias = m.alias;
    let boundary = boundary::boundary(prompt, m.start, m.end, alias);
    let prefix = boundary.ok().flatten();
    let (start, end) = match alias.shape {
        Shape::Name => (m.start, m.end),
        // `/cancel` is the command; any other stop verb with a prefix is nothing
        Shape::Stop if prefix.is_some() => {
            if alias.gate != Gate::Prefix {
                return None;
            }
            (m.start, m.end)
        }
        _ if boundary.is_err() => return None,
        shape => phrases::extent(shape, prompt, m.start, m.end)?,
    };
    if alias.gate == Gate::Prefix && prefix.is_none() && alias.shape == Shape::Name {
        return None;
    }
    Some(Pending {
        alias,
        start,
        end,
        prefix,
        decided: boundary.err(),
    })
}

/// Detects what `prompt` asks for, as while a run is active. `disabled` names (from project
/// configuration) are reported but not acted on; `cancel` cannot be disabled.
pub fn detect(prompt: &str, disabled: &[String]) -> Detection {
    detect_with(prompt, disabled, || true)
}

/// [`detect`], asking `running` (only when it matters: a stop said in the person's own words)
/// whether anything of the session runs; when nothing does, such a stop is not acted on.
pub fn detect_with(prompt: &str, disabled: &[String], running: impl FnOnce() -> bool) -> Detection {
    detect_in(prompt, disabled, running, true)
}

/// [`detect_with`]; `narrow`: sanitise only around the candidates (always, but for the test that
/// it changes nothing).
fn detect_in(
    prompt: &str,
    disabled: &[String],
    running: impl FnOnce() -> bool,
    narrow: bool,
) -> Detection {
    let mut det = Detection::default();
    // (emphasis and an agent addressed are not part of the words: `_ultrathink_:`, `@codex ulw`)
    let undecorated = boundary::undecorate(prompt);
    let prompt = undecorated.as_ref();
    let mut pending = candidates(prompt, &mut det);
    if pending.is_empty() {
        return det;
    }
    // only around the candidates is the sanitised text read: their spans, and the windows the
    // rules read on either side (at most 700 bytes back, to a line start and a label above it;
    // 400 forward)
    let mut near: Vec<(usize, usize)> = Vec::new();
    for p in &pending {
        let (a, z) = (
            p.head().saturating_sub(NEAR),
            (p.end + NEAR).min(prompt.len()),
        );
        match near.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(z),
            _ => near.push((a, z)),
        }
    }
    if !narrow {
        near = vec![(0, prompt.len())];
    }
    let clean: Sanitized = sanitize::sanitize_near(prompt, &near);
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
        det.candidates.push(Candidate {
            name,
            matched: prompt[p.head()..p.end].to_string(),
            offset: p.head(),
            activated: verdict.activated(),
            rule,
        });
    }

    // configuration; then a stop in the person's own words, which ends only what runs; then
    // cancel's exclusivity
    for c in det.candidates.iter_mut().filter(|c| c.activated) {
        if c.name != "cancel" && disabled.iter().any(|d| d == c.name) {
            c.activated = false;
            c.rule = "disabled-by-config";
        }
    }
    let stop = |c: &Candidate| rules::find(c.rule).is_some_and(|r| r.effect == Effect::Cancel);
    let command = det
        .candidates
        .iter()
        .any(|c| c.activated && c.name == "cancel" && !stop(c));
    det.cancel_needs_run = !command && det.candidates.iter().any(|c| c.activated && stop(c));
    if det.cancel_needs_run && !running() {
        for c in det.candidates.iter_mut().filter(|c| c.activated && stop(c)) {
            c.activated = false;
            c.rule = "nothing-running";
        }
        det.cancel_needs_run = false;
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

    /// Issue 38's five kinds, on prompts of no corpus, with the rule `detect` names for each: a
    /// stop in German, Spanish, French (and its look-alikes), CJK forms and light verbs of the
    /// modes, our own output pasted back, a bug report about a feature named like a mode, a CJK
    /// noun phrase holding a mode's name.
    #[test]
    fn issue_38_rules() {
        let during = |p: &str| detect_with(p, &[], || true);
        let rule_of = |p: &str, name: &str| {
            during(p)
                .candidates
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.rule)
        };
        // 1. stops, heard only while something runs
        for p in [
            "stopp, das reicht jetzt",
            "hör bitte auf, ich übernehme",
            "para ya, quiero revisar el diff",
            "basta, es suficiente",
            "arrête, ça suffit pour aujourd'hui",
            "pause here, I want to look at the logs",
            "Kannst du bitte aufhören?",
            "¿Puedes parar el loop?",
            "잠깐 멈춰, 확인할게",
            "ここで止めて、見たい",
        ] {
            assert_eq!(during(p).modes, vec!["cancel"], "{p}");
            assert_eq!(rule_of(p, "cancel"), Some("stop-request"), "{p}");
            assert!(detect_with(p, &[], || false).modes.is_empty(), "{p}");
        }
        for p in [
            "para el módulo de pagos usa stripe",
            "no pares hasta que el build esté verde",
            "hör nicht auf, bevor alle Tests grün sind",
            "arrête de renommer les variables",
            "stopp den Dev-Server und starte ihn neu",
            "kannst du den Server stoppen?",
        ] {
            assert!(during(p).modes.is_empty(), "{p}: {:?}", during(p).modes);
        }
        // 2. CJK forms and light verbs
        assert_eq!(modes("给登录接口做一次安全审查"), vec!["security-review"]);
        assert_eq!(
            modes("新しい検索機能についてディープインタビューして"),
            vec!["deep-interview"]
        );
        assert_eq!(
            modes("セキュリティ・レビューをして"),
            vec!["security-review"]
        );
        assert!(modes("他们正在做安全审查").is_empty());
        assert!(modes("ラルフについて教えて").is_empty());
        // 3. our own output
        let p = "session 9f2 (codex)\n  ultrawork 4/50 · waiting for you\n\nwhy is it waiting?";
        assert!(modes(p).is_empty());
        assert_eq!(rule_of(p, "ultrawork"), Some("omc-output"));
        assert!(modes("omc-hooks mode show\nralph 7/100 · 20 min left\n\nok").is_empty());
        assert!(modes("autopilot 2/30 phase qa · ctx 40%").is_empty());
        // a request after the pasted output, its budget said after the name
        assert_eq!(
            modes("ultrawork 3/50 · 5 min left\n\nultrawork --max 20 migrate the importer"),
            vec!["ultrawork"]
        );
        // (modes joined before what they do by themselves: their subject, as in such output)
        assert!(modes("ultrawork, ralph and ralplan start from keywords in this setup").is_empty());
        // 4. a bug report about a feature named like a mode, and a request after it
        let p = "[Bug] Ralph the raccoon freezes in level 3\n\nSteps to reproduce:\n1. start level 3\n2. use Ralph to jump\nExpected: he jumps\nActual: he freezes";
        assert!(modes(p).is_empty());
        assert_eq!(rule_of(p, "ralph"), Some("bug-report"));
        assert_eq!(
            modes(&format!("{p}\n\nralph fix this in src/game/jump.ts")),
            vec!["ralph"]
        );
        // 5. a CJK noun phrase holding a mode's name
        for p in [
            "랄프 페이지 버튼 색 바꿔줘",
            "ウルトラワーク画面のタブを直して",
            "自动驾驶面板的图标换一下",
        ] {
            assert!(modes(p).is_empty(), "{p}");
            assert_eq!(during(p).candidates[0].rule, "cjk-modifier", "{p}");
        }
        assert_eq!(modes("랄프로 페이지 버튼 색 바꿔줘"), vec!["ralph"]);
    }

    /// The rules batch J's misses led to, on prompts of no corpus: a dash directive, a tag after
    /// a CJK request, near-identical code as duplication; a Japanese subject before a limit, a
    /// Chinese mode as a place, a chat of CJK speakers, a list asked about.
    #[test]
    fn batch_j_rules() {
        assert_eq!(
            modes("autopilot — a cli that renames photos by exif date"),
            vec!["autopilot"]
        );
        assert_eq!(modes("테스트 고쳐줘 ulw"), vec!["ultrawork"]);
        assert_eq!(
            modes("dedupe the two near-identical retry helpers"),
            vec!["ai-slop-cleaner"]
        );
        for p in [
            "ラルフが設定ファイルを書き換えないようにして",
            "拉尔夫模式中日志太多了",
            "王五：ulw修一下\n赵六：用ralph吧\n\n听谁的？",
            "ideas:\n- ralph the export job\n- autopilot a status page\n\nwhich of these should we do first?",
            "ralph — why does it restart after every answer?",
            "make the two outputs identical",
        ] {
            assert!(modes(p).is_empty(), "{p:?}: {:?}", modes(p));
        }
        // a list that is the task stays the task
        assert_eq!(
            modes("ulw\n- rename the flags\n- update the docs"),
            vec!["ultrawork"]
        );
    }

    /// The rules batch K's misses led to, on prompts of no corpus: a colon typed without its
    /// space before a task verb, a CJK imperative after a colon, a review asked for on what;
    /// a person thanked after the name and a colon, a condition said first, an agent's plan
    /// pasted back with its offer, a run named before the stop verb.
    #[test]
    fn batch_k_rules() {
        assert_eq!(modes("ralph:update the changelog links"), vec!["ralph"]);
        assert_eq!(modes("拉尔夫：请把慢查询都优化掉"), vec!["ralph"]);
        assert_eq!(
            modes("security review on PR 12 please"),
            vec!["security-review"]
        );
        assert_eq!(modes("ralph shave 30% off the cold start"), vec!["ralph"]);
        for p in [
            "Ralph: hi, the standup moved to 10",
            "if the deploy breaks, ralph the rollback",
            "once staging is green, ulw the remaining pages",
            "Proposed steps:\n1. use ralph on the importer\n2. then ultrawork the docs\n\nShall I start?",
            "ralph:latest is the image tag",
        ] {
            assert!(modes(p).is_empty(), "{p:?}: {:?}", modes(p));
        }
        // a polite frame is no condition
        assert_eq!(modes("if you could, ralph the importer"), vec!["ralph"]);
        let during = |p: &str| detect_with(p, &[], || true).modes;
        assert_eq!(during("ulw halt"), vec!["cancel"]);
        assert_eq!(
            during("ok that's enough iterating, summarise"),
            vec!["cancel"]
        );
        assert_eq!(during("那就 stop 吧"), vec!["cancel"]);
    }

    #[test]
    fn batch_l_rules() {
        // a negation of another verb before a trailing tag leaves the tag alone
        assert_eq!(
            modes("add paging to the feed and never skip the empty page case ulw"),
            vec!["ultrawork"]
        );
        // a Chinese alias that is a verb, after a request's opening
        assert_eq!(modes("帮我深度分析这个函数的性能瓶颈"), vec!["analyze"]);
        // the hyphenated alias ending a command on any object
        assert_eq!(modes("implement the lexer test-first"), vec!["tdd"]);
        // a lead-in, the name and a comma, then a product's brief
        assert_eq!(
            modes("fine autopilot, a little tool that renames screenshots by date"),
            vec!["autopilot"]
        );
        // a pass of the mode asked for by its noun, on an object
        assert_eq!(
            modes("ai slop pass on the settings screens"),
            vec!["ai-slop-cleaner"]
        );
        for p in [
            "anti-slop pass on this",
            "fix the importer but don't use ralph",
            "refactor the parser, never ralph",
            "make it test first",
            "ok ralph, a question about the budget",
            // told to tell the mode not to do something: a limit, in and out of a run
            "오토파일럿한테 결제 모듈은 건드리지 말라고 전해줘",
        ] {
            assert!(modes(p).is_empty(), "{p:?}: {:?}", modes(p));
        }
        let during = |p: &str| detect_with(p, &[], || true).modes;
        assert!(during("오토파일럿한테 결제 모듈은 건드리지 말라고 전해줘").is_empty());
    }

    /// The rules batch M's misses led to, on prompts of no corpus.
    #[test]
    fn batch_m_rules() {
        // `clear` is a task verb
        assert_eq!(
            modes("ralph clear every deprecation warning in lib/"),
            vec!["ralph"]
        );
        // a stop after `hold on`; two CJK stop verbs said together
        assert_eq!(modes("hang on, stop it"), vec!["cancel"]);
        assert_eq!(modes("그만 중지해"), vec!["cancel"]);
        // `とは` inside `あとは` asks nothing; `オフ` inside `トレードオフ` negates nothing
        assert_eq!(modes("止めて、あとは手でやる"), vec!["cancel"]);
        assert_eq!(
            modes("ウルトラシンクでキャッシュのトレードオフを比べて"),
            vec!["ultrathink"]
        );
        assert!(modes("ウルトラシンクをオフにして").is_empty());
        // keep at it: `…し続けて`
        assert_eq!(modes("ラルフ、ビルドが通るまで回し続けて"), vec!["ralph"]);
        // a Chinese colon directive whose body makes something
        assert_eq!(modes("超级工作：写一个日志清理脚本"), vec!["ultrawork"]);
        // a polite frame, not a question or a condition
        assert_eq!(
            modes("when you have a minute, security review the upload handler"),
            vec!["security-review"]
        );
        // a Spanish imperative with its object glued on
        assert_eq!(
            modes("arréglalo con ralph, el import falla con archivos vacíos"),
            vec!["ralph"]
        );
        // a request lead-in right after the instrument, or between the name and its colon
        assert_eq!(
            modes("mit ralph bitte die Migrationen fertig machen"),
            vec!["ralph"]
        );
        assert_eq!(
            modes("ulw please: every lint error in web/"),
            vec!["ultrawork"]
        );
        assert_eq!(modes("Ralph, bitte: die Exporte reparieren"), vec!["ralph"]);
        for p in [
            "Ralph, please: thanks for the quick review",
            // the list asked about on the very next line
            "notes:\n- ralph the importer\n- ulw the lint errors\nwhich of these matters more?",
            // `if you can …` stays a condition
            "if you can run ulw, the build goes faster",
            // making something is a directive's body, not anywhere in its sentence
            "安全审查流程太慢了，写一个清单给新人",
            "what does ultrathink do? the tradeoff page is empty",
        ] {
            assert!(modes(p).is_empty(), "{p:?}: {:?}", modes(p));
        }
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
    fn a_stop_in_the_persons_words_needs_a_run_and_a_command_does_not() {
        let d = detect_with("stop the loop, it's burning tokens", &[], || false);
        assert!(d.modes.is_empty() && !d.cancel_needs_run);
        assert_eq!(d.candidates[0].rule, "nothing-running");
        let d = detect("stop the loop, it's burning tokens", &[]);
        assert_eq!(d.modes, vec!["cancel"]);
        assert!(d.cancel_needs_run);
        // outside a run, what the stop kept out is acted on
        let d = detect_with("stop ralph. ultrathink about the failures", &[], || false);
        assert_eq!(d.modes, vec!["ultrathink"]);
        let asked = std::cell::Cell::new(false);
        let d = detect_with("cancelomc", &[], || {
            asked.set(true);
            false
        });
        assert_eq!(d.modes, vec!["cancel"]);
        assert!(
            !d.cancel_needs_run && !asked.get(),
            "a command needs no run"
        );
        assert_eq!(
            modes("stop ralph from touching the migrations folder"),
            Vec::<&str>::new()
        );
    }

    /// The misses and false starts issue 26 reported, each fixed by its rule.
    #[test]
    fn issue_26_examples() {
        let none: Vec<&str> = Vec::new();
        for (p, want) in [
            (
                "a1b2c3d feat: ralph fix flaky tests\nchore: ulw cleanup\nfix: autopilot build me a cli",
                none.clone(),
            ),
            ("ralph 루프가 계속 재실행돼. 원인 좀 봐줘", none.clone()),
            ("自动驾驶数据集的加载器有bug", none.clone()),
            (
                "the keyword list in docs/keywords.md is missing deslop and anti-slop, add them",
                none.clone(),
            ),
            ("turn off ralph", vec!["cancel"]),
            ("stop the loop, it's burning tokens", vec!["cancel"]),
            ("ok stop, that's enough looping", vec!["cancel"]),
            (
                "stop ralph from touching the migrations folder",
                none.clone(),
            ),
            (
                "convert every callback in the client to async/await ulw",
                vec!["ultrawork"],
            ),
            ("please ralplan adding SSO with Okta", vec!["ralplan"]),
            (
                "before you answer, ultrathink: which of the two queues is fair?",
                vec!["ultrathink"],
            ),
            ("深度分析一下为什么内存一直在涨", vec!["analyze"]),
        ] {
            assert_eq!(modes(p), want, "{p}: {:?}", detect(p, &[]).candidates);
        }
    }

    #[test]
    fn every_candidate_up_to_the_bound_is_judged_and_the_last_half_is_kept() {
        // 300 mentions, then a real invocation: judged, reported, activated
        let mut p = "what is ralph? ".repeat(300);
        p.push_str("\nralph fix the tests");
        let d = detect(&p, &[]);
        assert_eq!(d.modes, vec!["ralph"]);
        assert_eq!(d.candidates.len(), 301);
        assert_eq!(d.unjudged, 0);
        // more mentions than the bound: the middle is counted, not judged; the end still is
        let mut p = "what is ralph? ".repeat(MAX_JUDGED * 2);
        p.push_str("\nralph fix the tests");
        let d = detect(&p, &[]);
        assert_eq!(d.modes, vec!["ralph"]);
        assert_eq!(d.candidates.len(), MAX_JUDGED);
        assert_eq!(d.unjudged, MAX_JUDGED + 1);
        let (from, to) = d.unjudged_span.unwrap();
        assert!(d.candidates[MAX_JUDGED / 2 - 1].offset < from);
        assert!(to <= d.candidates[MAX_JUDGED / 2].offset);
    }

    /// Sanitising only around the candidates judges every one of them as sanitising the whole
    /// prompt does: pastes of every kind, far apart, with long stretches of prose between them.
    #[test]
    fn sanitising_near_the_candidates_changes_no_verdict() {
        let pieces = [
            "commit 4f1a9c2e7b3d\nAuthor: D <d@x>\nDate:   Tue\n\n    ralph: fix it\nulw the rest\n\n",
            "a1b2c3d feat: ralph fix flaky tests\nchore: ulw cleanup\n\n",
            "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    ralph()\nE: build me a cli\n\n",
            "```\nralph fix it\n",
            "```\nwhat is ralph? ulw the tests\n",
            "alice: ralph it\nbob: ulw it\n\nralph fix the parser\n",
            "<!-- ralph fix\n",
            "-->\nsee src/ralph/mod.rs and `ulw` at https://x.y/ralph\n",
            "> quoted ralph fix\n| ralph | x |\n$ ralph fix\n    indented ralph fix\n\n",
            "[10:32:01] starting\nralph\n[10:32:04] done\n\nstop the loop, it's burning tokens\n",
            "<b>ralph</b> fix the tests ulw\n",
        ];
        let filler = "nothing to see in this line of plain prose at all.\n".repeat(60);
        let mut seed: u64 = 7;
        for _ in 0..40 {
            let mut p = String::new();
            for _ in 0..30 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                p.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
                if (seed >> 40).is_multiple_of(3) {
                    p.push_str(&filler);
                }
            }
            let narrow = detect_in(&p, &[], || true, true);
            let whole = detect_in(&p, &[], || true, false);
            assert_eq!(narrow, whole, "{p}");
        }
    }

    #[test]
    fn a_megabyte_prompt_is_handled() {
        let mut p = "what is ralph? see src/ralph/x.rs and `ultrawork` then ".repeat(20_000);
        p.push_str("\nralph fix the tests");
        assert!(p.len() > 1_000_000);
        let d = detect(&p, &[]);
        assert!(d.unjudged > 0);
        assert_eq!(d.modes, vec!["ralph"]);
        let q = "lorem ipsum dolor sit amet ".repeat(40_000) + "\nralph fix the tests";
        assert_eq!(detect(&q, &[]).modes, vec!["ralph"]);
    }
}
