//! Korean, Japanese and Chinese (and a little Thai): the particles and verbs that make a mode
//! name a request (`울트라워크 돌려`, `ラルフで直して`, `用ralph修复`), a question (`랄프가 뭐야`),
//! a negation (`쓰지 마`, `不要`), or a modifier (`랄프의 상태`).
//! These scripts put no spaces between words, so the rules look at characters right next to the
//! name rather than at words.

use super::lexicon::{ALIASES, Gate, Shape};
use super::scene::Scene;

/// Asks about the mode, anywhere in its sentence (`뭐야`, `とは`, `什么`, `คืออะไร`). A word that
/// compares (`비교`, `違い`, `区别`) does not when the mode is the instrument of the request
/// (`씨씨지로 스키마 설계 비교해줘`: compare the designs with ccg).
pub(crate) fn informational(s: &Scene) -> bool {
    // (two modes compared, each an instrument: `랄프로 하는 거랑 울트라워크로 하는 거 비교해줘`)
    let instrument = INSTRUMENT_PARTICLES
        .iter()
        .any(|p| s.rest_after().starts_with(p))
        && !names_another_mode(s);
    let found = |ms: &[&str]| {
        ms.iter()
            .any(|m| s.sentence_before.contains(m) || s.sentence_after.contains(m))
    };
    found(INFO_CJK) || (!instrument && found(COMPARE_CJK))
}

/// The candidate's sentence names a mode besides the candidate's.
fn names_another_mode(s: &Scene) -> bool {
    let sentence = format!("{} {}", s.sentence_before, s.sentence_after).to_lowercase();
    ALIASES.iter().any(|a| {
        a.name != s.name
            && a.shape == Shape::Name
            && a.gate != Gate::Prefix
            && sentence.contains(a.text)
    })
}

/// `text` asks what a word means (`무슨 뜻`, `とは`, `什么意思`).
pub(crate) fn asks_meaning(text: &str) -> bool {
    MEANING_CJK.iter().any(|m| text.contains(m))
}

/// Negated (`쓰지 마`, `使わないで`, `不要`).
pub(crate) fn negation(s: &Scene) -> bool {
    NEGATION_CJK_AFTER.iter().any(|m| s.near_after.contains(m))
        || NEGATION_CJK_BEFORE
            .iter()
            .any(|m| s.near_before.contains(m))
}

/// A subject or topic particle right after the name (`랄프가`, `ラルフは`), or after a space
/// that follows a name in Latin letters (`ralph 가 …`, `deep interview 는 …`; only the particles
/// that are not also words of their own there: `ralph 이 이슈` is "ralph this issue").
pub(crate) fn subject(s: &Scene) -> bool {
    let rest = &s.t[s.end..];
    let spaced = rest.starts_with(' ') && s.alias().text.is_ascii();
    let mut after = rest.trim_start_matches(' ').chars();
    let particles: &[char] = if spaced {
        SPACED_SUBJECT_PARTICLES
    } else if rest.starts_with(' ') {
        &[]
    } else {
        SUBJECT_PARTICLES
    };
    after.next().is_some_and(|c| particles.contains(&c))
        && after
            .next()
            .is_none_or(|c| !c.is_alphanumeric() || c.is_ascii())
}

/// A modifier: a possessive particle or a noun right after (`랄프의 상태`, `ラルフ 関連`).
pub(crate) fn modifier(s: &Scene) -> bool {
    let rest = s.rest_after();
    let imm = rest.trim_start_matches(' ');
    let next_token: String = imm.chars().take_while(|c| !c.is_whitespace()).collect();
    CJK_MODIFIER_PARTICLES.iter().any(|p| rest.starts_with(p))
        || CJK_MODIFIER_NOUNS.iter().any(|n| next_token.starts_with(n))
}

/// A CJK directive. The verb ends a Korean or Japanese sentence, so a name that opens its
/// sentence is judged by the whole sentence; as an object (`랄프를 …`, `ラルフを …`) only a verb
/// that starts a mode counts (`랄프를 켜줘`, not `랄프를 삭제해줘`).
pub(crate) fn directive(s: &Scene) -> bool {
    let rest = s.rest_after();
    let imm = rest.trim_start_matches(' ');
    let whole_sentence: String = s.sentence_after.chars().take(60).collect();
    // the name is what an editing verb acts on (`keywords.disabled 에 ralph 추가해줘`: add the
    // word ralph to a list), whichever particle it takes
    let after_particle = imm
        .trim_start_matches(['를', '을', 'を', '에', '은', '는'])
        .trim_start();
    if CJK_EDIT.iter().any(|m| after_particle.starts_with(m)) {
        return false;
    }
    let object = ["를", "을", "を"].iter().any(|p| rest.starts_with(p));
    let near: &[&str] = if object { CJK_ACTIVATE } else { CJK_NEAR };
    CJK_IMMEDIATE.iter().any(|m| imm.starts_with(m))
        || near.iter().any(|m| s.near_after.contains(m))
        || (s.command_pos && near.iter().any(|m| whole_sentence.contains(m)))
        || CJK_BEFORE
            .iter()
            .any(|m| s.near_before.trim_end().ends_with(m))
}

/// Whether a CJK directive appears in `line` (a colon directive's body: `ralph: 이 버그 고쳐줘`).
pub(crate) fn has_directive(line: &str) -> bool {
    CJK_NEAR.iter().any(|m| line.contains(m))
}

/// Informational markers in CJK and Thai, anywhere in the keyword's sentence.
#[rustfmt::skip]
const INFO_CJK: &[&str] = &[
    "뭐야", "뭐예요", "뭔가요", "뭐지", "뭐에요", "무엇", "설명", "사용법", "어떻게", "관계", "알려줘", "알려 줘",
    "알려주", "이란", "란 ", "뜻", "とは", "使い方", "何", "説明", "どう", "教えて", "について", "って何", "什么", "怎么",
    "如何", "解释", "介绍", "吗", "呢", "是啥", "คืออะไร", "อะไร", "ยังไง", "อย่างไร",
];

/// Words that compare: informational, unless the mode is the request's instrument.
const COMPARE_CJK: &[&str] = &["차이", "비교", "違い", "比較", "区别", "比较"];

/// Particles that make the mode the instrument of the request (`씨씨지로`, `ラルフで`).
const INSTRUMENT_PARTICLES: &[&str] = &["로", "으로", "で"];

/// Asking what a word means.
const MEANING_CJK: &[&str] = &["뜻", "의미", "意味", "意思", "含义", "とは"];

/// Verbs that edit a list or a setting: right after the name they make it their object, not a
/// mode to run (`ralph 추가해줘`, `ラルフを削除して`, `删除拉尔夫`).
#[rustfmt::skip]
const CJK_EDIT: &[&str] = &[
    "추가", "삭제", "제거", "지워", "빼", "등록", "넣어", "이름", "追加", "削除", "除外", "登録", "添加", "删除", "移除", "去掉",
];

#[rustfmt::skip]
const NEGATION_CJK_AFTER: &[&str] = &[
    "하지 마", "하지마", "쓰지 마", "쓰지마", "쓰지 말", "하지 말", "말고", "끄고", "꺼줘", "꺼 줘", "끄기", "꺼", "금지", "없이",
    "안 써", "안써", "使わない", "使わず", "しないで", "やめて", "止めて", "禁止", "なしで", "無しで", "オフ", "不要", "别用", "不用",
    "关闭", "停止", "以外",
];

const NEGATION_CJK_BEFORE: &[&str] = &["不要", "别", "不用", "禁止", "关闭", "停止", "无需", "不"];

/// CJK directives right after a keyword (`ralph로`, `ラルフで`, `ralph模式`).
const CJK_IMMEDIATE: &[&str] = &["로", "으로", "で", "を使", "を起動", "を実行", "模式"];

/// Right after a keyword, these make it a modifier (`랄프의 상태`, `ラルフのバグ`, `拉尔夫的代码`).
const CJK_MODIFIER_PARTICLES: &[&str] = &["의", "の", "的"];

/// Nouns that, as the next word, make a keyword a modifier (`랄프 관련 코드`, `ラルフ 関連`).
#[rustfmt::skip]
const CJK_MODIFIER_NOUNS: &[&str] = &[
    "관련", "코드", "상태", "파일", "기능", "설정", "문서", "버그", "결과", "보고서", "리포트", "내용", "의견", "코멘트", "지적",
    "템플릿", "체크리스트", "関連", "コード", "状態", "ファイル", "機能", "設定", "バグ", "結果", "報告", "レポート",
    "コメント", "指摘", "内容", "相关", "代码", "状态", "文件", "功能", "设置", "错误", "结果", "报告", "意见", "评论", "内容",
];

/// CJK verbs that start or use a mode (a subset of [`CJK_NEAR`]).
#[rustfmt::skip]
const CJK_ACTIVATE: &[&str] = &[
    "켜", "실행", "시작", "돌려", "돌리", "써줘", "써 줘", "써서", "사용", "起動", "開始", "実行", "使って", "使用", "启动", "开始",
    "运行", "执行", "모드", "モード", "模式",
];

/// CJK directives within a few characters after a keyword.
#[rustfmt::skip]
const CJK_NEAR: &[&str] = &[
    "켜", "실행", "시작", "돌려", "돌리", "써줘", "써 줘", "써서", "사용해", "사용하", "진행", "해줘", "해 줘", "해주", "고쳐",
    "구현", "만들어", "모드", "처리", "수정", "起動", "開始", "実行", "使って", "使用", "やって", "して", "したい", "しよう", "お願い",
    "モード", "修正", "実装", "启动", "开始", "使用", "运行", "执行", "来", "帮我", "修复", "实现", "处理", "完成",
    "부탁", "一下",
];

/// CJK directives right before a keyword (`用ralph`, `启动拉尔夫`).
#[rustfmt::skip]
const CJK_BEFORE: &[&str] = &[
    "用", "使用", "启动", "开启", "打开", "运行", "请用", "开始", "执行",
];

const SUBJECT_PARTICLES: &[char] = &['가', '이', '는', '은', '도', 'が', 'は', 'も'];

/// After a space, only these read as the name's particle (`이` would be "this", `도` "degree").
const SPACED_SUBJECT_PARTICLES: &[char] = &['가', '는', '은', 'が', 'は'];
