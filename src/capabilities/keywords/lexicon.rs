//! The words that name a mode: every alias of the fourteen keyword names, in every script we
//! recognise, with how much evidence each needs before it activates anything.
//!
//! A coined word (`ultrathink`, `deslop`) is hardly ever typed except to invoke its mode, so a
//! plain mention is enough. A word that is also ordinary English or a proper noun (`ralph`,
//! `autopilot`, `code review`) needs an explicit invocation shape. The persistent modes always
//! need one, whatever the alias: a false positive there starts a loop that refuses to stop.
//!
//! Besides the names there are OMC's natural-language phrases (`build me a cli`, `search the
//! codebase for …`, `clean up the dead code`): their fixed words are found with the names, and
//! the [`Shape`] says what must complete them (`phrases.rs`) and which rule judges them.

use crate::modes::is_persistent;

/// How much evidence an alias needs (the rules in [`super::rules`] read it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Any mention that no suppressing rule catches activates.
    Mention,
    /// Needs an invocation shape: a command at the head of a clause, a verb such as `use`, a
    /// colon directive, an instrument (`with ralph`), a trailing tag, a CJK directive.
    Explicit,
    /// Only a command at the head of a clause (`think hard about …`, `test-first: …`): the words
    /// are too common to trust anywhere else.
    Command,
    /// Only with an explicit prefix (`/cancel`, `/analyze`): not a candidate otherwise.
    Prefix,
}

/// What kind of text an alias is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A name of the mode (`ralph`, `ulw`, `code review`, `full auto`).
    Name,
    /// `build|create|make me a(n) <product>` (autopilot).
    Creation,
    /// `i want a(n) <product>` (autopilot).
    Wish,
    /// `handle it all` (autopilot).
    HandleAll,
    /// `end to end`, `end-to-end` (autopilot).
    EndToEnd,
    /// `e2e this` (autopilot).
    E2eThis,
    /// `search the codebase|code|files|project`, `find in code`, `find all files` (deepsearch).
    Search,
    /// `review code`, `review security` (code-review, security-review).
    Review,
    /// A code smell (`dead code`, `duplicated …`, `slop`), asked to be cleaned (ai-slop-cleaner).
    Smell,
    /// A verb that asks to stop (`stop`, `turn … off`, `그만`, `止め`, `停`): with what follows it
    /// in its clause, a request to stop the work, in the person's own words (cancel; `stop.rs`).
    Stop,
}

/// One spelling of a keyword name, or the fixed words of a phrase.
#[derive(Debug, Clone, Copy)]
pub struct Alias {
    pub text: &'static str,
    pub name: &'static str,
    pub gate: Gate,
    /// Words that, right after the alias, give it another meaning (`랄프로렌` is Ralph Lauren,
    /// `코드리뷰어` a reviewer).
    pub not_before: &'static [&'static str],
    pub shape: Shape,
}

impl Alias {
    /// Written in a script without spaces between words: no word-boundary checks apply (`hör
    /// auf`, `arrête` are Latin words, with boundaries).
    pub fn is_cjk(&self) -> bool {
        is_cjk_text(self.text)
    }

    /// A word made up for its mode (`ulw`, `ralplan`, `tdd`, `ultrathink`), not ordinary English
    /// or a person's name (`ralph`, `autopilot`, `code review`).
    pub fn coined(&self) -> bool {
        self.shape == Shape::Name
            && (self.gate == Gate::Mention
                || matches!(
                    self.text,
                    "ulw"
                        | "ultrawork"
                        | "ralplan"
                        | "ccg"
                        | "tdd"
                        | "fullsend"
                        | "cancelomc"
                        | "stopomc"
                ))
    }

    /// The gate actually applied: persistent modes never activate on a plain mention.
    pub fn effective_gate(&self) -> Gate {
        match self.gate {
            Gate::Mention if is_persistent(self.name) => Gate::Explicit,
            g => g,
        }
    }
}

/// Korean, Japanese or Chinese (Hangul, kana, CJK ideographs) anywhere in `s`.
pub fn is_cjk_text(s: &str) -> bool {
    !s.is_ascii()
        && s.chars().any(|c| {
            matches!(c as u32, 0x1100..=0x11FF | 0x3040..=0x30FF | 0x3130..=0x318F
                | 0x3400..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F)
        })
}

const fn a(text: &'static str, name: &'static str, gate: Gate) -> Alias {
    Alias {
        text,
        name,
        gate,
        not_before: &[],
        shape: Shape::Name,
    }
}

/// The fixed words of a phrase; always judged as a command ([`Gate::Command`]).
const fn ph(text: &'static str, name: &'static str, shape: Shape) -> Alias {
    Alias {
        text,
        name,
        gate: Command,
        not_before: &[],
        shape,
    }
}

/// A verb that asks to stop; `stop.rs` says when it is a request.
const fn stop(text: &'static str) -> Alias {
    Alias {
        text,
        name: "cancel",
        gate: Command,
        not_before: &[],
        shape: Shape::Stop,
    }
}

const fn an(
    text: &'static str,
    name: &'static str,
    gate: Gate,
    not_before: &'static [&'static str],
) -> Alias {
    Alias {
        text,
        name,
        gate,
        not_before,
        shape: Shape::Name,
    }
}

use Gate::{Command, Explicit, Mention, Prefix};

const LAUREN_KO: &[&str] = &["로렌", " 로렌"];
const LAUREN_JA: &[&str] = &["ローレン", "・ローレン"];
const LAUREN_ZH: &[&str] = &["劳伦", "·劳伦", "・劳伦"];
const REVIEWER_KO: &[&str] = &["어"];
const REVIEWER_JA: &[&str] = &["ア"];

/// Every alias. ASCII aliases are matched case-insensitively; multi-word aliases with one space
/// or a hyphen, as listed.
pub const ALIASES: &[Alias] = &[
    // cancel
    a("cancelomc", "cancel", Explicit),
    a("stopomc", "cancel", Explicit),
    // `/cancel` is the command; `cancel` without its prefix is one of the ways to say stop
    Alias {
        text: "cancel",
        name: "cancel",
        gate: Prefix,
        not_before: &[],
        shape: Shape::Stop,
    },
    stop("stop"),
    stop("halt"),
    stop("abort"),
    stop("kill"),
    stop("quit"),
    stop("end"),
    stop("exit"),
    stop("pause"),
    stop("terminate"),
    stop("enough"),
    stop("turn"),
    stop("switch"),
    stop("shut"),
    // German, Spanish, French, Italian, Portuguese (`stop.rs` reads each language's table)
    stop("stopp"),
    stop("stoppe"),
    stop("stoppen"),
    stop("halte"),
    stop("anhalten"),
    stop("hör"),
    stop("höre"),
    stop("hört"),
    stop("hoer"),
    stop("aufhören"),
    stop("aufhoeren"),
    stop("brich"),
    stop("abbrechen"),
    stop("beende"),
    stop("beenden"),
    stop("pausiere"),
    stop("pausieren"),
    stop("genug"),
    stop("schluss"),
    stop("reicht"),
    stop("das reicht"),
    stop("es reicht"),
    stop("para"),
    stop("pare"),
    stop("paren"),
    stop("parad"),
    stop("parar"),
    stop("detente"),
    stop("detén"),
    stop("deten"),
    stop("detener"),
    stop("basta"),
    stop("alto"),
    stop("deja"),
    stop("cancela"),
    stop("pausa"),
    stop("pausar"),
    stop("ya está bien"),
    stop("ya esta bien"),
    stop("arrête"),
    stop("arrete"),
    stop("arrêtez"),
    stop("arretez"),
    stop("arrête-toi"),
    stop("arrete-toi"),
    stop("arrêtez-vous"),
    stop("arretez-vous"),
    stop("stoppez"),
    stop("arrêter"),
    stop("arreter"),
    stop("stopper"),
    stop("suffit"),
    stop("annule"),
    stop("interromps"),
    stop("mets en pause"),
    stop("met en pause"),
    stop("mettez en pause"),
    stop("fais une pause"),
    stop("fermati"),
    stop("ferma"),
    stop("smettila"),
    stop("fermarti"),
    stop("interrompi"),
    stop("chega"),
    stop("interrompe"),
    stop("그만"),
    stop("멈춰"),
    stop("멈추"),
    stop("중지"),
    stop("중단"),
    stop("꺼"),
    stop("끝내"),
    stop("스톱"),
    stop("취소"),
    stop("止め"),
    stop("やめ"),
    stop("ストップ"),
    stop("中止"),
    stop("キャンセル"),
    stop("停"),
    stop("别再"),
    stop("不要再"),
    stop("够了"),
    stop("取消"),
    stop("结束"),
    stop("关掉"),
    stop("关闭"),
    stop("暂停"),
    stop("别跑"),
    stop("到此为止"),
    // ralph
    a("ralph", "ralph", Explicit),
    an("랄프", "ralph", Explicit, LAUREN_KO),
    an("ラルフ", "ralph", Explicit, LAUREN_JA),
    an("拉尔夫", "ralph", Explicit, LAUREN_ZH),
    // autopilot
    a("autopilot", "autopilot", Explicit),
    a("auto-pilot", "autopilot", Explicit),
    a("auto pilot", "autopilot", Explicit),
    a("오토파일럿", "autopilot", Explicit),
    a("오토 파일럿", "autopilot", Explicit),
    a("オートパイロット", "autopilot", Explicit),
    a("オート パイロット", "autopilot", Explicit),
    a("自动驾驶", "autopilot", Explicit),
    a("full auto", "autopilot", Explicit),
    a("full-auto", "autopilot", Explicit),
    a("fullsend", "autopilot", Explicit),
    ph("build me", "autopilot", Shape::Creation),
    ph("create me", "autopilot", Shape::Creation),
    ph("make me", "autopilot", Shape::Creation),
    ph("i want a", "autopilot", Shape::Wish),
    ph("i want an", "autopilot", Shape::Wish),
    ph("handle it all", "autopilot", Shape::HandleAll),
    ph("end to end", "autopilot", Shape::EndToEnd),
    ph("end-to-end", "autopilot", Shape::EndToEnd),
    ph("e2e this", "autopilot", Shape::E2eThis),
    ph("e2e it", "autopilot", Shape::E2eThis),
    // ultrawork
    a("ultrawork", "ultrawork", Explicit),
    a("ulw", "ultrawork", Explicit),
    a("울트라워크", "ultrawork", Explicit),
    a("울트라 워크", "ultrawork", Explicit),
    a("ウルトラワーク", "ultrawork", Explicit),
    a("ウルトラ ワーク", "ultrawork", Explicit),
    a("超级工作", "ultrawork", Explicit),
    // ccg
    a("ccg", "ccg", Explicit),
    a("claude-codex-gemini", "ccg", Mention),
    a("씨씨지", "ccg", Explicit),
    a("シーシージー", "ccg", Explicit),
    // ralplan
    a("ralplan", "ralplan", Explicit),
    a("랄플랜", "ralplan", Explicit),
    a("ラルプラン", "ralplan", Explicit),
    a("拉尔夫计划", "ralplan", Explicit),
    // deep-interview
    a("deep-interview", "deep-interview", Mention),
    a("deepinterview", "deep-interview", Mention),
    a("deep interview", "deep-interview", Explicit),
    a("ouroboros", "deep-interview", Explicit),
    a("딥인터뷰", "deep-interview", Mention),
    a("딥 인터뷰", "deep-interview", Explicit),
    a("ディープインタビュー", "deep-interview", Mention),
    a("ディープ インタビュー", "deep-interview", Explicit),
    a("深度访谈", "deep-interview", Explicit),
    // ai-slop-cleaner
    a("ai-slop-cleaner", "ai-slop-cleaner", Mention),
    a("deslop", "ai-slop-cleaner", Mention),
    a("de-slop", "ai-slop-cleaner", Mention),
    a("anti-slop", "ai-slop-cleaner", Explicit),
    a("ai-slop", "ai-slop-cleaner", Explicit),
    a("ai slop", "ai-slop-cleaner", Explicit),
    a("aislop", "ai-slop-cleaner", Mention),
    a("antislop", "ai-slop-cleaner", Mention),
    a("anti slop", "ai-slop-cleaner", Explicit),
    a("de slop", "ai-slop-cleaner", Explicit),
    ph("slop", "ai-slop-cleaner", Shape::Smell),
    ph("dead code", "ai-slop-cleaner", Shape::Smell),
    ph("unused code", "ai-slop-cleaner", Shape::Smell),
    ph("duplicate", "ai-slop-cleaner", Shape::Smell),
    ph("duplicated", "ai-slop-cleaner", Shape::Smell),
    ph("duplicates", "ai-slop-cleaner", Shape::Smell),
    ph("duplication", "ai-slop-cleaner", Shape::Smell),
    ph("copy-pasted", "ai-slop-cleaner", Shape::Smell),
    ph("identical", "ai-slop-cleaner", Shape::Smell),
    ph("near-identical", "ai-slop-cleaner", Shape::Smell),
    ph("copy-paste", "ai-slop-cleaner", Shape::Smell),
    ph("copy pasted", "ai-slop-cleaner", Shape::Smell),
    ph("over-abstraction", "ai-slop-cleaner", Shape::Smell),
    ph("over-abstracted", "ai-slop-cleaner", Shape::Smell),
    ph("wrapper layer", "ai-slop-cleaner", Shape::Smell),
    ph("wrapper layers", "ai-slop-cleaner", Shape::Smell),
    ph("boundary violation", "ai-slop-cleaner", Shape::Smell),
    ph("boundary violations", "ai-slop-cleaner", Shape::Smell),
    ph("needless abstraction", "ai-slop-cleaner", Shape::Smell),
    ph("needless abstractions", "ai-slop-cleaner", Shape::Smell),
    ph("unnecessary abstraction", "ai-slop-cleaner", Shape::Smell),
    ph("unnecessary abstractions", "ai-slop-cleaner", Shape::Smell),
    ph("ai-generated", "ai-slop-cleaner", Shape::Smell),
    ph("generated code", "ai-slop-cleaner", Shape::Smell),
    ph("tech debt", "ai-slop-cleaner", Shape::Smell),
    ph("over-engineered", "ai-slop-cleaner", Shape::Smell),
    ph("overengineered", "ai-slop-cleaner", Shape::Smell),
    ph("over-engineering", "ai-slop-cleaner", Shape::Smell),
    // tdd
    a("tdd", "tdd", Explicit),
    a("test-first", "tdd", Command),
    a("test first", "tdd", Command),
    a("red green", "tdd", Command),
    a("red-green", "tdd", Command),
    a("테스트퍼스트", "tdd", Explicit),
    a("테스트 퍼스트", "tdd", Explicit),
    a("テストファースト", "tdd", Explicit),
    a("テスト ファースト", "tdd", Explicit),
    a("测试驱动", "tdd", Explicit),
    // code-review
    a("code review", "code-review", Explicit),
    a("code-review", "code-review", Explicit),
    ph("review code", "code-review", Shape::Review),
    an("코드리뷰", "code-review", Explicit, REVIEWER_KO),
    an("코드 리뷰", "code-review", Explicit, REVIEWER_KO),
    an("コードレビュー", "code-review", Explicit, REVIEWER_JA),
    an("コード レビュー", "code-review", Explicit, REVIEWER_JA),
    a("代码审查", "code-review", Explicit),
    // security-review
    a("security review", "security-review", Explicit),
    a("security-review", "security-review", Explicit),
    ph("review security", "security-review", Shape::Review),
    an("보안리뷰", "security-review", Explicit, REVIEWER_KO),
    an("보안 리뷰", "security-review", Explicit, REVIEWER_KO),
    an(
        "セキュリティレビュー",
        "security-review",
        Explicit,
        REVIEWER_JA,
    ),
    an(
        "セキュリティーレビュー",
        "security-review",
        Explicit,
        REVIEWER_JA,
    ),
    an(
        "セキュリティ レビュー",
        "security-review",
        Explicit,
        REVIEWER_JA,
    ),
    a("安全审查", "security-review", Explicit),
    // ultrathink
    a("ultrathink", "ultrathink", Mention),
    a("think hard", "ultrathink", Command),
    a("think deeply", "ultrathink", Command),
    a("울트라씽크", "ultrathink", Mention),
    a("ウルトラシンク", "ultrathink", Mention),
    // deepsearch
    a("deepsearch", "deepsearch", Mention),
    a("deep-search", "deepsearch", Mention),
    a("deep search", "deepsearch", Explicit),
    a("딥서치", "deepsearch", Mention),
    a("딥 서치", "deepsearch", Explicit),
    a("ディープサーチ", "deepsearch", Mention),
    a("ディープ サーチ", "deepsearch", Explicit),
    a("深度搜索", "deepsearch", Explicit),
    ph("search the codebase", "deepsearch", Shape::Search),
    ph("search codebase", "deepsearch", Shape::Search),
    ph("search the code", "deepsearch", Shape::Search),
    ph("search code", "deepsearch", Shape::Search),
    ph("search the files", "deepsearch", Shape::Search),
    ph("search files", "deepsearch", Shape::Search),
    ph("search the project", "deepsearch", Shape::Search),
    ph("search the repo", "deepsearch", Shape::Search),
    ph("search the repository", "deepsearch", Shape::Search),
    ph("find in codebase", "deepsearch", Shape::Search),
    ph("find in the codebase", "deepsearch", Shape::Search),
    ph("find in code", "deepsearch", Shape::Search),
    ph("find all files", "deepsearch", Shape::Search),
    // analyze
    a("deep-analyze", "analyze", Mention),
    a("deepanalyze", "analyze", Mention),
    a("deep analyze", "analyze", Explicit),
    a("analyze", "analyze", Prefix),
    a("딥분석", "analyze", Mention),
    a("딥 분석", "analyze", Explicit),
    a("ディープアナライズ", "analyze", Mention),
    a("ディープ アナライズ", "analyze", Explicit),
    a("深度分析", "analyze", Explicit),
];

/// A one-word name of a mode (`ulw`, `ralph`, `tdd`): an earlier one in a clause is skipped as a
/// lead-in (`ultrathink and then ralph fix …`).
pub fn is_mode_word(w: &str) -> bool {
    // (asked of many words of a long prompt: a sorted list, built once, not a scan of the table)
    static WORDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    WORDS
        .get_or_init(|| {
            let mut v: Vec<&str> = ALIASES
                .iter()
                .filter(|a| a.gate != Prefix && a.shape == Shape::Name)
                .map(|a| a.text)
                .collect();
            v.sort_unstable();
            v
        })
        .binary_search(&w)
        .is_ok()
}

/// `ws` opens with a mode's name (`ralph …`, `deep interview me …`).
pub fn opens_with_mode(ws: &[String]) -> bool {
    let two = ws.get(..2).map(|p| p.join(" "));
    ALIASES.iter().any(|a| {
        a.gate != Prefix
            && a.shape == Shape::Name
            && (ws.first().is_some_and(|w| w == a.text) || two.as_deref() == Some(a.text))
    })
}

/// Names whose activation does not need a task after the keyword (`cancelomc` alone is a
/// complete request; `ralph` alone is not).
pub fn needs_task(name: &str) -> bool {
    name != "cancel"
}

/// Names for which `about …` / `through …` after the keyword is a task (`think hard about X`).
pub fn takes_topic(name: &str) -> bool {
    matches!(name, "ultrathink" | "analyze" | "deepsearch")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::KEYWORD_CHAIN;

    #[test]
    fn every_alias_names_a_chain_entry_and_every_name_has_an_alias() {
        for al in ALIASES {
            assert!(KEYWORD_CHAIN.contains(&al.name), "{}", al.name);
            assert_eq!(al.text, al.text.to_lowercase(), "aliases are lowercase");
            let first = al.text.chars().next().unwrap();
            let last = al.text.chars().last().unwrap();
            assert!(
                first.is_alphanumeric() && last.is_alphanumeric(),
                "{}",
                al.text
            );
        }
        for name in KEYWORD_CHAIN {
            assert!(ALIASES.iter().any(|al| al.name == name), "{name}");
        }
    }

    #[test]
    fn aliases_are_unique() {
        let mut texts: Vec<_> = ALIASES.iter().map(|a| a.text).collect();
        texts.sort();
        let n = texts.len();
        texts.dedup();
        assert_eq!(texts.len(), n);
    }

    #[test]
    fn persistent_modes_have_cjk_forms_and_never_trust_a_mention() {
        for name in ["ralph", "autopilot", "ultrawork", "ralplan"] {
            let forms: Vec<_> = ALIASES.iter().filter(|a| a.name == name).collect();
            for script in [0xAC00..=0xD7A3u32, 0x30A0..=0x30FF, 0x4E00..=0x9FFF] {
                assert!(
                    forms
                        .iter()
                        .any(|a| a.text.chars().any(|c| script.contains(&(c as u32)))),
                    "{name} lacks a form in {script:?}"
                );
            }
            assert!(forms.iter().all(|a| a.effective_gate() != Gate::Mention));
        }
    }
}
