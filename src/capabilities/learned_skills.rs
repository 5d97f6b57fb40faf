//! Learned skills: Markdown files with front matter (`name`, `description`, `triggers`,
//! `matching`), as OMC's learner writes them, in `.omc/skills/` (the project's) and, for the
//! person's own (every project), in the `skills/` folder beside the user's `hooks.toml` and in
//! the folders OMC's learner writes to: `~/.omc/skills/` and
//! `{CLAUDE_CONFIG_DIR|~/.claude}/skills/omc-learned/`. When a prompt holds a trigger in the
//! person's own words, the skill's body is given to the model with that prompt, once per
//! session per skill. A skill whose front matter says `matching: fuzzy` also matches a
//! trigger whose every word is near a word of the prompt (a Levenshtein similarity of 60 or
//! more, as OMC's injector scores it), so "deploy to stagging" still finds it.
//!
//! "In the person's own words" is the keyword capability's care: the prompt is first passed
//! through its sanitizer, so a trigger inside pasted code, logs, a quote or a URL does not
//! count; a trigger in quotes, or in a question about the skill ("what does the deploy to
//! staging skill do?"), does not either. The front matter is the small YAML subset the learner
//! writes, read by hand: `key: value` lines and a `triggers` list, in block (`- phrase`) or
//! flow (`[a, "b"]`) form.

use crate::capabilities::Ctx;
use crate::capabilities::keywords::sanitize;
use crate::protocol::Answer;
use crate::state::StateFile;
use crate::state::folder::{Listing, read_folder};
use std::path::PathBuf;

/// The session's record of the skills it was given.
pub const FILE: &str = "skills-given.json";
/// At most this many skills are given with one prompt.
pub const MAX_PER_PROMPT: usize = 3;
/// A skill's body is cut to this many bytes.
pub const MAX_BODY_BYTES: usize = 4 * 1024;
/// At most this many skill files are read from one folder.
pub const MAX_FILES: usize = 100;
/// A skill file larger than this is skipped.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// At most this many triggers per skill are read.
const MAX_TRIGGERS: usize = 20;

const SKILL: &str = include_str!("../../templates/learned-skills/skill.md");

/// One learned skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub triggers: Vec<String>,
    pub body: String,
    /// `matching: fuzzy` in the front matter.
    pub fuzzy: bool,
    /// `project` or `user`.
    pub source: &'static str,
    pub path: PathBuf,
}

/// The skills found, project first, and the files left out with why (for `doctor`).
pub fn load(
    ctx_store: Option<&crate::state::Store>,
    env: &crate::env::Env,
) -> (Vec<Skill>, Vec<(PathBuf, String)>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut skipped = Vec::new();
    let mut take = |listing: Listing, source: &'static str| {
        skipped.extend(listing.skipped);
        for f in listing.files {
            let text = String::from_utf8_lossy(&f.bytes);
            match parse(&text) {
                Some((name, description, triggers, body)) => {
                    // The project's skill wins over the person's of the same name.
                    if skills.iter().any(|s| s.name == name) {
                        continue;
                    }
                    skills.push(Skill {
                        name,
                        description,
                        triggers,
                        fuzzy: fuzzy_matching(&text),
                        body,
                        source,
                        path: f.path,
                    });
                }
                None => skipped.push((
                    f.path,
                    "no front matter with a name and triggers".to_string(),
                )),
            }
        }
    };
    if let Some(store) = ctx_store {
        take(
            store.person_folder("skills", MAX_FILES, MAX_FILE_BYTES),
            "project",
        );
    }
    for dir in user_dirs(env) {
        take(read_folder(&dir, ".md", MAX_FILES, MAX_FILE_BYTES), "user");
    }
    (skills, skipped)
}

/// The person's skill folders, in the order a same-named skill is taken from: `skills/` beside
/// the user's `hooks.toml`, then OMC's `~/.omc/skills/` and
/// `{CLAUDE_CONFIG_DIR|~/.claude}/skills/omc-learned/` (where OMC's learner writes them).
pub fn user_dirs(env: &crate::env::Env) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = crate::env::user_config_dir(env) {
        dirs.push(dir.join("skills"));
    }
    let home = env
        .var("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    if let Some(home) = &home {
        dirs.push(home.join(".omc").join("skills"));
    }
    let claude = env
        .var("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".claude")));
    if let Some(claude) = claude {
        dirs.push(claude.join("skills").join("omc-learned"));
    }
    dirs
}

/// Whether the front matter says `matching: fuzzy`.
fn fuzzy_matching(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---") else {
        return false;
    };
    rest.lines()
        .skip(1)
        .take_while(|l| l.trim_end() != "---" && l.trim_end() != "...")
        .filter_map(|l| l.split_once(':'))
        .any(|(k, v)| k == "matching" && unquote(v).eq_ignore_ascii_case("fuzzy"))
}

/// A skill file's (name, description, triggers, body); `None` without front matter holding a
/// name and at least one trigger.
pub fn parse(text: &str) -> Option<(String, String, Vec<String>, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut lines = rest.split_inclusive('\n');
    let mut consumed = text.len() - rest.len();
    let mut name = None;
    let mut description = String::new();
    let mut triggers: Vec<String> = Vec::new();
    let mut in_triggers = false;
    let mut closed = false;
    for line in lines.by_ref() {
        consumed += line.len();
        let l = line.trim_end();
        if l == "---" || l == "..." {
            closed = true;
            break;
        }
        if in_triggers {
            if let Some(item) = l.trim_start().strip_prefix("- ") {
                push_trigger(&mut triggers, item);
                continue;
            }
            if l.trim_start() == "-" || l.trim().is_empty() {
                continue;
            }
            in_triggers = false;
        }
        let Some((key, value)) = l.split_once(':') else {
            continue;
        };
        if key.starts_with([' ', '\t']) {
            continue;
        }
        let value = value.trim();
        match key.trim() {
            "name" => name = Some(unquote(value).to_string()).filter(|n| !n.is_empty()),
            "description" => description = unquote(value).to_string(),
            "triggers" => {
                if let Some(flow) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                    for item in split_flow(flow) {
                        push_trigger(&mut triggers, &item);
                    }
                } else if value.is_empty() {
                    in_triggers = true;
                } else {
                    push_trigger(&mut triggers, value);
                }
            }
            _ => {}
        }
    }
    if !closed || triggers.is_empty() {
        return None;
    }
    let body = text[consumed..].trim().to_string();
    Some((name?, description, triggers, body))
}

fn push_trigger(triggers: &mut Vec<String>, raw: &str) {
    let t = unquote(raw.trim()).trim();
    if !t.is_empty() && triggers.len() < MAX_TRIGGERS && !triggers.iter().any(|x| x == t) {
        triggers.push(t.to_string());
    }
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|x| x.strip_suffix(q))
            && v.len() >= 2
        {
            return inner;
        }
    }
    v
}

/// `a, "b, c", 'd'` → the items, commas inside quotes kept.
fn split_flow(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                cur.push(c);
            }
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (None, ',') => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Where `trigger` occurs in the person's own words of `prompt` (`own` is the sanitized
/// prompt, same length), not quoted, not in a question about the skill: its byte offset.
pub fn said(prompt: &str, own: &str, trigger: &str, skill: &str) -> Option<usize> {
    let needle = trigger.to_ascii_lowercase();
    let hay = own.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = hay[from..].find(&needle) {
        let at = from + i;
        let end = at + needle.len();
        from = at + needle.len().max(1);
        let before = hay[..at].chars().next_back();
        let after = hay[end..].chars().next();
        if before.is_some_and(char::is_alphanumeric) || after.is_some_and(char::is_alphanumeric) {
            continue;
        }
        let quoted = |c: Option<char>| matches!(c, Some('"' | '\'' | '`' | '“' | '”' | '‘' | '’'));
        if quoted(prompt[..at].chars().next_back()) && quoted(prompt[end..].chars().next()) {
            continue;
        }
        if about_the_skill(prompt, at, end, skill) {
            continue;
        }
        return Some(at);
    }
    None
}

/// The least similarity (0–100) at which a word of a fuzzy trigger counts as said, as OMC's
/// injector has it.
const FUZZY_MIN: u32 = 60;

/// A fuzzy skill's trigger said nearly: every word of `trigger` is near a word of the person's
/// own words (`own`), the first such word not quoted and not in a question about the skill.
/// Its offset and points (the sum over the trigger's words of a tenth of each similarity).
pub fn said_nearly(prompt: &str, own: &str, trigger: &str, skill: &str) -> Option<(usize, u32)> {
    let words: Vec<(usize, String)> = word_spans(own)
        .map(|(at, w)| (at, w.to_lowercase()))
        .collect();
    let mut points = 0;
    let mut first: Option<usize> = None;
    for tw in word_spans(trigger).map(|(_, w)| w.to_lowercase()) {
        let (sim, at) = words
            .iter()
            .map(|(at, w)| (similarity(&tw, w), *at))
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
        if sim < FUZZY_MIN {
            return None;
        }
        points += (sim + 5) / 10;
        first = Some(first.map_or(at, |f| f.min(at)));
    }
    let at = first?;
    let end = at
        + own[at..]
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(own.len() - at);
    let quoted = |c: Option<char>| matches!(c, Some('"' | '\'' | '`' | '“' | '”' | '‘' | '’'));
    if quoted(prompt[..at].chars().next_back()) && quoted(prompt[end..].chars().next()) {
        return None;
    }
    if about_the_skill(prompt, at, end, skill) {
        return None;
    }
    Some((at, points))
}

/// The words of `s` (letters and digits) with their byte offsets.
fn word_spans(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(move |w| (w.as_ptr() as usize - s.as_ptr() as usize, w))
}

/// OMC's word similarity: 100 for the same word, 80 when one holds the other, else
/// `100 × (1 − distance / longer length)` by Levenshtein distance over characters.
pub fn similarity(a: &str, b: &str) -> u32 {
    if a == b {
        return 100;
    }
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    if a.contains(b) || b.contains(a) {
        return 80;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(here + 1);
            prev = here;
        }
    }
    let longer = a.len().max(b.len());
    (100 * (longer - row[b.len()]) / longer) as u32
}

/// Whether the sentence holding `at..end` asks about the skill rather than for its work: a
/// question that names a skill ("what does the deploy to staging skill do?"), or one that opens
/// with what, why, which or explain ("what is 'deploy to staging'?").
fn about_the_skill(prompt: &str, at: usize, end: usize, skill: &str) -> bool {
    let start = prompt[..at]
        .rfind(['.', '!', '?', '\n'])
        .map_or(0, |i| i + 1);
    let stop = prompt[end..]
        .find(['.', '!', '?', '\n'])
        .map_or(prompt.len(), |i| end + i);
    let sentence = prompt[start..stop].trim().to_lowercase();
    let question = prompt[stop..].starts_with('?');
    let names_skill = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
        .any(|w| w == "skill" || w == "skills" || w == skill.to_lowercase());
    let opener = [
        "what ",
        "what's ",
        "whats ",
        "why ",
        "which ",
        "explain ",
        "describe ",
    ]
    .iter()
    .any(|o| sentence.starts_with(o));
    (question && names_skill) || opener || sentence.starts_with("tell me about ")
}

/// UserPromptSubmit: the skills whose trigger the person said, not yet given this session.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let Some(prompt) = ctx.input.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Answer::default();
    };
    let (skills, _) = load(ctx.store.as_ref(), ctx.env);
    if skills.is_empty() {
        return Answer::default();
    }
    let lower = prompt.to_ascii_lowercase();
    // The sanitizer runs only when a trigger is anywhere in the prompt (or a skill matches
    // fuzzily, which no substring test can rule out).
    let candidates: Vec<&Skill> = skills
        .iter()
        .filter(|s| {
            s.fuzzy
                || s.triggers
                    .iter()
                    .any(|t| lower.contains(&t.to_ascii_lowercase()))
        })
        .collect();
    if candidates.is_empty() {
        return Answer::default();
    }
    let own = sanitize::sanitize(prompt).text;
    // (score, first offset, skill, the trigger said first): as OMC scores them, 10 for each
    // trigger said, and for a fuzzy skill the similarity points of a trigger said nearly.
    let mut hits: Vec<(u32, usize, &Skill, &str)> = candidates
        .into_iter()
        .filter_map(|s| {
            let mut score = 0;
            let mut first: Option<(usize, &str)> = None;
            for t in &s.triggers {
                let found = match said(prompt, &own, t, &s.name) {
                    Some(at) => Some((at, 10)),
                    None if s.fuzzy => said_nearly(prompt, &own, t, &s.name),
                    None => None,
                };
                if let Some((at, points)) = found {
                    score += points;
                    if first.is_none_or(|(f, _)| at < f) {
                        first = Some((at, t.as_str()));
                    }
                }
            }
            first.map(|(at, t)| (score, at, s, t))
        })
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let hits: Vec<(usize, &Skill, &str)> =
        hits.into_iter().map(|(_, at, s, t)| (at, s, t)).collect();
    if hits.is_empty() {
        return Answer::default();
    }
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let Some(file) = StateFile::new(&ctx.scope, FILE) else {
        return Answer::default();
    };
    let key = |s: &Skill| format!("{}:{}", s.source, s.name);
    let candidates: Vec<(&Skill, &str)> = hits.iter().map(|(_, s, t)| (*s, *t)).collect();
    let fresh = super::given::once(
        store,
        &file,
        &candidates,
        |(s, _)| key(s),
        MAX_PER_PROMPT,
        "learned skills",
    );
    if fresh.is_empty() {
        return Answer::default();
    }
    let texts: Vec<String> = fresh.iter().map(|(s, t)| render(s, t)).collect();
    // A skill file is anyone's text (a cloned repository's): a secret in it is not handed on,
    // and an escape sequence in its name or body does not reach the terminal that shows the
    // context (issue 43).
    Answer::context(crate::terminal::shown(&texts.join("\n\n")))
}

/// The text the model reads for one skill.
pub fn render(s: &Skill, trigger: &str) -> String {
    let mut body = s.body.clone();
    if body.len() > MAX_BODY_BYTES {
        let mut cut = MAX_BODY_BYTES;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
        body.push_str("\n…[skill cut at 4 KB; the whole file is ");
        body.push_str(&s.path.display().to_string());
        body.push(']');
    }
    let description = if s.description.is_empty() {
        "(no description)"
    } else {
        &s.description
    };
    SKILL
        .replace("{name}", &s.name)
        .replace("{description}", description)
        .replace("{source}", s.source)
        .replace("{path}", &s.path.display().to_string())
        .replace("{trigger}", trigger)
        .replace("{body}", &body)
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE_TEXT: &str = "---\nname: deploy-staging\ndescription: \"How we deploy\"\n\
        triggers:\n  - deploy to staging\n  - 'ship it to staging'\nmatching: exact\n---\n\n\
        # Deploy\nRun `make deploy ENV=staging`.\n";

    #[test]
    fn front_matter_in_both_list_forms() {
        let (name, desc, triggers, body) = parse(FILE_TEXT).unwrap();
        assert_eq!(name, "deploy-staging");
        assert_eq!(desc, "How we deploy");
        assert_eq!(triggers, ["deploy to staging", "ship it to staging"]);
        assert_eq!(body, "# Deploy\nRun `make deploy ENV=staging`.");
        let flow = "---\nname: x\ntriggers: [a b, \"c, d\"]\n---\nbody";
        assert_eq!(parse(flow).unwrap().2, ["a b", "c, d"]);
        assert_eq!(parse("no front matter"), None);
        assert_eq!(parse("---\nname: x\n---\nno triggers"), None);
        assert_eq!(parse("---\ntriggers: [a]\n---\nno name"), None);
    }

    fn hit(prompt: &str) -> bool {
        let own = sanitize::sanitize(prompt).text;
        said(prompt, &own, "deploy to staging", "deploy-staging").is_some()
    }

    #[test]
    fn said_in_own_words_only() {
        assert!(hit("once the PR is merged, deploy to staging please"));
        assert!(hit("Deploy to staging."));
        assert!(hit("can you deploy to staging?"));
        assert!(!hit("fix the flaky login test"));
        assert!(!hit("redeploy to staging"));
        assert!(!hit("what does the deploy to staging skill do?"));
        assert!(!hit("explain deploy to staging"));
        assert!(!hit("the log says \"deploy to staging\" failed"));
        assert!(!hit("look at this:\n```\n$ make deploy to staging\n```\n"));
    }

    #[test]
    fn fuzzy_matching_as_omc_scores_words() {
        assert_eq!(similarity("staging", "staging"), 100);
        assert_eq!(similarity("stag", "staging"), 80);
        assert_eq!(similarity("stagging", "staging"), 87);
        assert!(similarity("deploy", "login") < FUZZY_MIN);
        let near = |prompt: &str| {
            let own = sanitize::sanitize(prompt).text;
            said_nearly(prompt, &own, "deploy to staging", "deploy-staging")
        };
        assert!(near("please deploi it to stagging").is_some());
        assert!(near("fix the flaky login test").is_none());
        assert!(near("what does deploi to stagging do?").is_none());
        assert!(fuzzy_matching(
            "---\nname: x\nmatching: fuzzy\ntriggers: [a]\n---\n"
        ));
        assert!(!fuzzy_matching(
            "---\nname: x\nmatching: exact\n---\nmatching: fuzzy"
        ));
    }

    #[test]
    fn the_persons_folders_include_omcs() {
        // An absolute home on every platform (`/h` has no drive on Windows).
        let home = std::env::temp_dir().join("h");
        let h = home.to_string_lossy().into_owned();
        let env = crate::env::Env::from_lookup(
            |k| (k == "HOME").then(|| h.clone()),
            None,
            [("HOME".to_string(), h.clone())].into(),
        );
        let dirs = user_dirs(&env);
        for want in [
            home.join(".omc").join("skills"),
            home.join(".claude").join("skills").join("omc-learned"),
            home.join(".config").join("omc-hooks").join("skills"),
        ] {
            assert!(dirs.contains(&want), "{want:?} in {dirs:?}");
        }
    }
}
