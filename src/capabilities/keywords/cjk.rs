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
    // (`为什么` after the name opens what it is asked to find out: `深度分析一下为什么内存一直在涨`)
    let after = s.sentence_after.replace("为什么", "");
    let found = |ms: &[&str]| {
        ms.iter()
            .any(|m| has_marker(s.sentence_before, m) || has_marker(&after, m))
    };
    // (`について`, "about", only of the mode itself: `ラルフについて`, not the topic of its request,
    // `ディープインタビューして、新しい請求機能について`)
    let topic = TOPIC_AFTER_CJK
        .iter()
        .any(|m| s.rest_after().trim_start().starts_with(m));
    // (the question of a task done with the mode is the task's: `用ccg分析一下，这个设计合理吗？`)
    (found(INFO_CJK) && !instrument_task(s)) || topic || (!instrument && found(COMPARE_CJK))
}

/// A context-only mode named in Chinese as the instrument of a task verb (`用ccg分析一下这个方案有没有
/// 问题？`): the question after the verb is the task's, not one about the mode.
pub(crate) fn instrument_task(s: &Scene) -> bool {
    !s.persistent()
        && ["用", "使用", "请用"]
            .iter()
            .any(|o| s.near_before.trim_end().ends_with(o))
        && ZH_TASK_VERBS
            .iter()
            .any(|v| s.rest_after().trim_start().starts_with(v))
}

/// Chinese verbs of a task done with a mode (`用ccg分析`, `用ultrathink想一下`).
#[rustfmt::skip]
const ZH_TASK_VERBS: &[&str] = &[
    "分析", "看", "检查", "审查", "想", "评估", "排查", "修", "实现", "优化", "重构", "测", "写", "设计", "规划",
    "研究", "梳理", "查",
];

/// Right after the name, these make it the topic of what is said (`ラルフについて`).
const TOPIC_AFTER_CJK: &[&str] = &["について"];

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
    MEANING_CJK.iter().any(|m| has_marker(text, m))
}

/// `marker` is in `text` as a word of its own: a katakana marker not the tail of a longer
/// katakana word (`オフ` in `トレードオフ`, `キックオフ`), and the particle `とは` not the tail of
/// a kana word (`あとは`, `ことは`). One pass over the text per marker, no allocation.
fn has_marker(text: &str, marker: &str) -> bool {
    let katakana = |c: char| ('\u{30A1}'..='\u{30FF}').contains(&c);
    let kana = |c: char| katakana(c) || ('\u{3041}'..='\u{309F}').contains(&c);
    // `contains` first: its search of a short needle is much cheaper to start than
    // `match_indices`' (which builds a two-way searcher every call), and most texts hold none
    if !text.contains(marker) {
        return false;
    }
    let first = marker.chars().next();
    text.match_indices(marker).any(|(i, _)| {
        let prev = text[..i].chars().next_back();
        match (first, prev) {
            (Some(f), Some(p)) if katakana(f) => !katakana(p),
            (Some('と'), Some(p)) => !kana(p),
            _ => true,
        }
    })
}

/// Negated (`쓰지 마`, `使わないで`, `不要`).
pub(crate) fn negation(s: &Scene) -> bool {
    NEGATION_CJK_AFTER
        .iter()
        .any(|m| has_marker(&s.near_after, m))
        || addressed_limit(s)
        || NEGATION_CJK_BEFORE
            .iter()
            .any(|m| s.near_before.contains(m))
}

/// The mode addressed in Korean (`오토파일럿한테`, `랄프에게`) and told, later in its sentence, not
/// to do something (`… 건드리지 말라고 해`, `… 못하게 해`): a limit on it, not a start.
fn addressed_limit(s: &Scene) -> bool {
    // (40 bytes on: the particle follows the name, a space at most between)
    let rest = super::text::fwd(s.t, s.end, 40).trim_start_matches(' ');
    ["한테", "에게", "더러"].iter().any(|p| rest.starts_with(p))
        && ["지 말", "지말", "못하게", "않게", "않도록", "못 하게"]
            .iter()
            .any(|m| s.sentence_after.contains(m))
}

/// A subject or topic particle right after the name (`랄프가`, `ラルフは`), or after a space
/// that follows a name in Latin letters (`ralph 가 …`, `deep interview 는 …`; only the particles
/// that are not also words of their own there: `ralph 이 이슈` is "ralph this issue"), or after
/// the mode's own noun (`ralph 루프가 계속 …`, `ラルフのループが …`); in Chinese, which has no
/// particles, an adverb that makes the sentence a statement about it (`拉尔夫循环一直停不下来`,
/// `ralph 每次都从头开始`).
pub(crate) fn subject(s: &Scene) -> bool {
    let rest = &s.t[s.end..];
    let noun = MODE_NOUNS_CJK
        .iter()
        .find_map(|n| rest.trim_start_matches(' ').strip_prefix(n));
    let after_noun = noun.is_some();
    let rest = noun.unwrap_or(rest);
    let spaced = !after_noun && rest.starts_with(' ') && s.alias().text.is_ascii();
    let mut after = rest.trim_start_matches(' ').chars();
    let particles: &[char] = if spaced {
        SPACED_SUBJECT_PARTICLES
    } else if rest.starts_with(' ') {
        &[]
    } else {
        SUBJECT_PARTICLES
    };
    let p = after.next();
    let next = after.next();
    // (a Japanese particle is one before anything but more kana of a word: `ラルフがテストを …`;
    // `ラルフはじめて` may be a verb)
    let kana_particle = matches!(p, Some('が' | 'は' | 'も'))
        && next.is_some_and(|c| !('\u{3041}'..='\u{309F}').contains(&c));
    let particle = p.is_some_and(|c| particles.contains(&c))
        && (next.is_none_or(|c| !c.is_alphanumeric() || c.is_ascii()) || kana_particle);
    // (not the instrument of a request: `用拉尔夫一直修到测试通过`)
    let adverb = STATEMENT_ADVERBS_ZH
        .iter()
        .any(|a| rest.trim_start_matches(' ').starts_with(a))
        && !CJK_BEFORE
            .iter()
            .any(|m| s.near_before.trim_end().ends_with(m));
    particle || adverb
}

/// The name in a condition or a concession, the circumstances of a report rather than the
/// request: `울트라워크 켜면 …` (when I turn it on), `cancelomc 쳤는데도 …` (even though I typed
/// it), `ウルトラワークを使うと …`, `超级工作模式启动以后 …` — unless the condition is itself the
/// polite form of a request (`랄프로 돌리면 좋겠어`: "I'd like it run with ralph") or the
/// mode is its instrument (`用拉尔夫修复以后 …`).
pub(crate) fn condition(s: &Scene) -> bool {
    if s.sentence_after.is_ascii() {
        return false;
    }
    let clause: String = s
        .sentence_after
        .split(['，', ',', '、'])
        .next()
        .unwrap_or("")
        .chars()
        .take(24)
        .collect();
    // Korean: the first words after the name, one of them a verb in a connective form
    let ko = clause.split_whitespace().take(2).enumerate().any(|(k, w)| {
        KO_CONNECTIVES.iter().any(|c| w.ends_with(c))
            && !clause
                .split_whitespace()
                .nth(k + 1)
                .is_some_and(|next| KO_POLITE_AFTER.iter().any(|p| next.starts_with(p)))
    });
    // Japanese: a verb's dictionary form and と, or たら / ても / ば
    let ja = {
        let cs: Vec<char> = clause.chars().collect();
        cs.windows(2)
            .enumerate()
            .any(|(i, w)| i > 0 && w[1] == 'と' && "うくすつぬふむゆるぐぶぷ".contains(w[0]))
            || ["たら", "ても", "れば", "時に", "ときに"]
                .iter()
                .any(|m| clause.contains(m))
    };
    // (or in the mode, as where something happens: `超级工作模式下子代理太多了`)
    let rest = s.rest_after().trim_start_matches(' ');
    let within = MODE_NOUNS_CJK
        .iter()
        .filter_map(|n| rest.strip_prefix(n))
        .any(|r| ["下", "中", "里"].iter().any(|m| r.starts_with(m)));
    let zh = (within
        || ["以后", "之后", "的时候", "时候"]
            .iter()
            .any(|m| clause.contains(m)))
        && !CJK_BEFORE
            .iter()
            .any(|m| s.near_before.trim_end().ends_with(m));
    ko || ja || zh
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
    // a Chinese name is a verb itself (`深度分析` is "analyse deeply"): heading a command, with
    // what it acts on right after it (`深度分析为什么接口变慢`, `代码审查这个PR`)
    let han = s
        .alias()
        .text
        .chars()
        .all(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c));
    // (after a request's opening, glued to it: `帮我深度分析这个函数`)
    let opened = ["帮我", "请", "给我", "麻烦"]
        .iter()
        .any(|o| s.near_before.trim_end().ends_with(o));
    if han && (s.command_pos || opened) && ZH_OBJECTS.iter().any(|o| imm.starts_with(o)) {
        return true;
    }
    // a Chinese light verb right before it: do / carry out a review (`对支付回调做安全审查`,
    // `帮我做个安全审查`), not in a statement of what is being done (`他们在做安全审查`)
    let before = s.near_before.trim_end();
    if let Some(v) = ZH_LIGHT_VERBS.iter().find(|v| before.ends_with(*v)) {
        let head = &before[..before.len() - v.len()];
        if !ZH_NOT_ASKED.iter().any(|m| head.ends_with(m)) {
            return true;
        }
    }
    // a review or an interview is done, as the object of "do" or "please" (`コードレビューをして`,
    // `セキュリティレビューをお願いします`, `코드리뷰를 해줘`); a loop only started (`랄프를 켜줘`)
    let near: &[&str] = match object {
        true if !s.persistent() && CJK_DO.iter().any(|m| s.near_after.contains(m)) => CJK_DO,
        true => CJK_ACTIVATE,
        false => CJK_NEAR,
    };
    CJK_IMMEDIATE.iter().any(|m| imm.starts_with(m))
        || near.iter().any(|m| s.near_after.contains(m))
        || (s.command_pos && near.iter().any(|m| whole_sentence.contains(m)))
        || CJK_BEFORE
            .iter()
            .any(|m| s.near_before.trim_end().ends_with(m))
}

/// Whether a CJK directive appears in `line` (a colon directive's body: `ralph: 이 버그 고쳐줘`).
pub(crate) fn has_directive(line: &str) -> bool {
    CJK_NEAR.iter().chain(CJK_MAKE).any(|m| line.contains(m))
}

/// A request in Korean, Japanese or Chinese ending before a tag in Latin letters (`把这个bug修了
/// ralph`, `테스트 고쳐줘 ulw`): a directive verb, a Chinese request's opening (`把`, `请`, `帮我`),
/// or a Korean or Japanese imperative ending.
pub(crate) fn imperative(line: &str) -> bool {
    let l = line.trim_end_matches([' ', '\t', '，', ',', '。', '、']);
    if l.is_ascii() {
        return false;
    }
    let l = l.trim_start();
    has_directive(l)
        || ["把", "请", "帮我", "给我"]
            .iter()
            .any(|o| l.starts_with(o))
        || ["줘", "주세요", "해", "して", "ください", "て"]
            .iter()
            .any(|e| l.ends_with(e))
}

/// Informational markers in CJK and Thai, anywhere in the keyword's sentence.
#[rustfmt::skip]
const INFO_CJK: &[&str] = &[
    "뭐야", "뭐예요", "뭔가요", "뭐지", "뭐에요", "무엇", "설명", "사용법", "어떻게", "관계", "알려줘", "알려 줘",
    "알려주", "이란", "란 ", "뜻", "とは", "使い方", "何", "説明", "どう", "教えて", "って何", "什么", "怎么",
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
    "템플릿", "체크리스트", "주행", "데이터", "모듈", "시스템", "関連", "コード", "状態", "ファイル", "機能", "設定", "バグ", "結果", "報告", "レポート",
    "コメント", "指摘", "内容", "相关", "代码", "状态", "文件", "功能", "设置", "错误", "结果", "报告", "意见", "评论", "内容",
    "模块", "数据", "系统", "模型", "算法", "项目", "工具", "汽车", "技术", "公司", "行业", "方案", "芯片", "软件", "仿真", "感知",
    "标注", "单元", "场景", "车辆",
    // the parts of a product or a screen named after it (`코드리뷰 페이지`, `울트라워크 요금제`,
    // `ラルフ画面`, `自动驾驶面板`)
    "페이지", "버튼", "화면", "컴포넌트", "요금제", "플랜", "탭", "메뉴", "아이콘", "배너", "토글", "모달", "팝업", "위젯", "폼",
    "링크", "문구", "텍스트", "라벨", "레이블", "패널", "카드", "섹션", "스위치", "창", "アイコン", "ページ", "ボタン", "画面",
    "コンポーネント", "プラン", "タブ", "メニュー", "バナー", "トグル", "モーダル", "ポップアップ", "ウィジェット", "フォーム", "リンク",
    "文言", "テキスト", "ラベル", "パネル", "カード", "セクション", "スイッチ", "ウィンドウ", "页面", "按钮", "界面", "组件", "套餐",
    "标签页", "菜单", "图标", "横幅", "开关", "弹窗", "窗口", "表单", "链接", "文案", "标签", "面板", "卡片", "选项", "入口",
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
    // keep at it (`直し続けて`), a polite imperative (`書いてください`)
    "続けて", "てください",
];

/// A request to make something, as a directive's body after its colon or before its tag
/// (`自动驾驶：做一个记账工具`), not anywhere in the name's sentence (`代码审查流程太慢了，写一个说明`
/// is about code review).
const CJK_MAKE: &[&str] = &["做一个", "做个", "写一个", "写个", "搭一个", "开发一个"];

/// After a mode's name and its object particle, the verbs that do it or ask for it (context-only
/// modes).
#[rustfmt::skip]
const CJK_DO: &[&str] = &[
    "して", "お願い", "やって", "実施", "해줘", "해 줘", "해주", "부탁", "진행", "해요", "하자",
];

/// Chinese light verbs right before a mode's name: "do", "carry out", "run" one (`做安全审查`,
/// `进行代码审查`, `跑个ralph`).
#[rustfmt::skip]
const ZH_LIGHT_VERBS: &[&str] = &[
    "做", "做个", "做一下", "做一次", "做一个", "做一轮", "进行", "进行一次", "来个", "来一次", "来一个", "来一轮", "搞个",
    "跑个", "跑一下", "跑一次",
];

/// Before a Chinese light verb, what makes it a statement of what is (not) being done: `在做`,
/// `已经做了`, `没做`.
const ZH_NOT_ASKED: &[&str] = &["在", "正在", "已经", "没", "没有", "不"];

/// CJK directives right before a keyword (`用ralph`, `启动拉尔夫`).
#[rustfmt::skip]
const CJK_BEFORE: &[&str] = &[
    "用", "使用", "启动", "开启", "打开", "运行", "请用", "开始", "执行",
];

const SUBJECT_PARTICLES: &[char] = &['가', '이', '는', '은', '도', 'が', 'は', 'も'];

/// A mode's own noun after its name (`ralph 루프`, `ラルフのループ` is a modifier already).
const MODE_NOUNS_CJK: &[&str] = &["루프", "모드", "ループ", "モード", "循环", "模式"];

/// Chinese adverbs that, right after the name, make it the subject of a statement.
#[rustfmt::skip]
const STATEMENT_ADVERBS_ZH: &[&str] = &[
    "一直", "总是", "老是", "每次", "又", "还是", "还在", "经常", "偶尔", "有时", "已经", "没有", "没", "不会", "不能", "不停",
    "居然", "竟然", "好像", "似乎",
];

/// What a Chinese name used as a verb acts on, right after it: a question it is to answer, or a
/// determiner of its object.
const ZH_OBJECTS: &[&str] = &[
    "为什么",
    "是否",
    "哪些",
    "哪里",
    "怎样",
    "这个",
    "这段",
    "这条",
    "这些",
    "那个",
    "那些",
    "所有",
    "全部",
    "整个",
    "我们的",
];

/// Korean connective endings: the verb is a condition or a concession (`켜면`, `쳤는데도`,
/// `돌렸더니`, `쓰니까`).
const KO_CONNECTIVES: &[&str] = &[
    "면",
    "면서",
    "는데",
    "는데도",
    "ㄴ데",
    "었는데",
    "더니",
    "니까",
    "지만",
    "어도",
    "아도",
    "해도",
];

/// After a Korean condition, words that make it a polite request (`돌리면 좋겠어`).
const KO_POLITE_AFTER: &[&str] = &["좋겠", "돼", "되", "고맙", "감사", "안될까", "안 될까"];

/// After a space, only these read as the name's particle (`이` would be "this", `도` "degree").
const SPACED_SUBJECT_PARTICLES: &[char] = &['가', '는', '은', 'が', 'は'];
