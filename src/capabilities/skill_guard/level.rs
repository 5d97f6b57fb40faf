//! Which skills are guarded, and how hard: the skill's name as invoked, its protection level,
//! and what each level allows (reinforcements and time to live).
//!
//! Skill names are user text (a project can name a skill anything): they are only ever
//! compared and looked up, never used to build a path or a configuration path.

use crate::config::Config;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest skill name that is guarded; anything longer is not a name a person wrote.
pub const MAX_NAME_CHARS: usize = 128;

/// How hard a running skill is held to its workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    None,
    Light,
    Medium,
    Heavy,
}

impl Level {
    /// Stop blocks the guard may send before it lets go.
    pub fn max_reinforcements(self) -> u32 {
        match self {
            Level::None => 0,
            Level::Light => 3,
            Level::Medium => 5,
            Level::Heavy => 10,
        }
    }

    /// How long after the skill's (re)start the guard lapses, in milliseconds.
    pub fn ttl_ms(self) -> i64 {
        const MIN: i64 = 60_000;
        match self {
            Level::None => 0,
            Level::Light => 5 * MIN,
            Level::Medium => 15 * MIN,
            Level::Heavy => 30 * MIN,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Light => "light",
            Level::Medium => "medium",
            Level::Heavy => "heavy",
        }
    }

    /// A level as written in configuration (any case, surrounding blanks ignored).
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Some(Level::None),
            "light" => Some(Level::Light),
            "medium" => Some(Level::Medium),
            "heavy" => Some(Level::Heavy),
            _ => None,
        }
    }
}

/// The built-in levels of well-known workflow skills (contract §7), as the seed's level table
/// has them (`tdd` and `analyze` light, `code-review` medium among them). Every other skill is
/// `none` unless the project configures it.
const DEFAULTS: &[(&str, Level)] = &[
    ("deep-interview", Level::Heavy),
    ("deepinit", Level::Heavy),
    ("plan", Level::Medium),
    ("ralplan", Level::Medium),
    ("review", Level::Medium),
    ("release", Level::Medium),
    ("ai-slop-cleaner", Level::Medium),
    ("ccg", Level::Medium),
    ("learner", Level::Medium),
    ("setup", Level::Medium),
    ("code-review", Level::Medium),
    ("ask", Level::Light),
    ("skill", Level::Light),
    ("tdd", Level::Light),
    ("analyze", Level::Light),
];

/// The built-in level of a (bare) skill name.
pub fn default_level(name: &str) -> Level {
    DEFAULTS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(Level::None, |(_, l)| *l)
}

/// The skill as the `Skill` tool call names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillName {
    /// What the call said, trimmed, e.g. `oh-my-claudecode:plan`.
    pub invoked: String,
    /// The part after the last `:`, lowercased, e.g. `plan`.
    pub bare: String,
}

impl SkillName {
    /// The skill named by a `Skill` tool input (`skill`, or the `skill_name` / `skillName`
    /// spellings), or `None` when there is no usable name.
    pub fn from_tool_input(input: Option<&Value>) -> Option<SkillName> {
        let input = input?;
        let raw = ["skill", "skill_name", "skillName"]
            .iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))?;
        SkillName::parse(raw)
    }

    pub fn parse(raw: &str) -> Option<SkillName> {
        let invoked = raw.trim();
        let bare = invoked
            .rsplit(':')
            .next()
            .unwrap_or_default()
            .trim()
            .trim_start_matches('/')
            .to_lowercase();
        let usable = !bare.is_empty()
            && invoked.chars().count() <= MAX_NAME_CHARS
            && !invoked.chars().any(char::is_control);
        usable.then(|| SkillName {
            invoked: invoked.to_string(),
            bare,
        })
    }
}

/// The protection level of a skill: the project's `skills.protection` table (the name as
/// invoked first, so `"oh-my-claudecode:plan"` can differ from a project's own `plan`; then the
/// bare name), else the built-in default. A configured value that is not a level is reported
/// and ignored.
pub fn level_for(name: &SkillName, config: &Config) -> Level {
    let table = config.get("skills").and_then(|s| s.get("protection"));
    if let Some(table) = table.and_then(Value::as_object) {
        let keys = [name.invoked.as_str(), name.bare.as_str()];
        for key in keys
            .iter()
            .take(if name.invoked == name.bare { 1 } else { 2 })
        {
            let Some(v) = table.get(*key) else { continue };
            match v.as_str().and_then(Level::parse) {
                Some(level) => return level,
                None => crate::diag!(
                    "config skills.protection.{key}: {v} is not none|light|medium|heavy; ignored"
                ),
            }
        }
    }
    default_level(&name.bare)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn name(s: &str) -> SkillName {
        SkillName::parse(s).unwrap()
    }

    #[test]
    fn levels_carry_the_contracts_limits() {
        assert_eq!(
            (Level::Light.max_reinforcements(), Level::Light.ttl_ms()),
            (3, 300_000)
        );
        assert_eq!(
            (Level::Medium.max_reinforcements(), Level::Medium.ttl_ms()),
            (5, 900_000)
        );
        assert_eq!(
            (Level::Heavy.max_reinforcements(), Level::Heavy.ttl_ms()),
            (10, 1_800_000)
        );
        assert_eq!(Level::None.max_reinforcements(), 0);
    }

    #[test]
    fn the_name_is_the_part_after_the_last_colon() {
        assert_eq!(name("oh-my-claudecode:plan").bare, "plan");
        assert_eq!(name("a:b:Deep-Interview").bare, "deep-interview");
        assert_eq!(name(" plan ").invoked, "plan");
        assert_eq!(name("/plan").bare, "plan");
        for bad in ["", "  ", "plugin:", "x\ny", &"a".repeat(MAX_NAME_CHARS + 1)] {
            assert!(SkillName::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn defaults_cover_the_well_known_workflow_skills() {
        let c = Config::default();
        for (s, l) in [
            ("deep-interview", Level::Heavy),
            ("oh-my-claudecode:deepinit", Level::Heavy),
            ("plan", Level::Medium),
            ("oh-my-claudecode:plan", Level::Medium),
            ("setup", Level::Medium),
            ("ask", Level::Light),
            ("skill", Level::Light),
            ("tdd", Level::Light),
            ("oh-my-claudecode:analyze", Level::Light),
            ("code-review", Level::Medium),
            ("demo", Level::None),
            ("ralph", Level::None),
        ] {
            assert_eq!(level_for(&name(s), &c), l, "{s}");
        }
    }

    #[test]
    fn configuration_overrides_defaults_and_protects_custom_skills() {
        let c = Config::from_value(json!({"skills":{"protection":{
            "plan": "none",
            "demo": "Heavy",
            "oh-my-claudecode:review": "light",
            "ask": "bogus",
            "a/b": "heavy"
        }}}));
        assert_eq!(level_for(&name("plan"), &c), Level::None);
        assert_eq!(level_for(&name("oh-my-claudecode:plan"), &c), Level::None);
        assert_eq!(level_for(&name("demo"), &c), Level::Heavy);
        assert_eq!(
            level_for(&name("oh-my-claudecode:review"), &c),
            Level::Light
        );
        assert_eq!(level_for(&name("review"), &c), Level::Medium);
        // A bad value falls back to the default rather than unprotecting.
        assert_eq!(level_for(&name("ask"), &c), Level::Light);
        // Names with separators are looked up as keys, never walked as paths.
        assert_eq!(level_for(&name("a/b"), &c), Level::Heavy);
        let c = Config::from_value(json!({"skills":{"protection":{"a":{"b":"heavy"}}}}));
        assert_eq!(level_for(&name("a/b"), &c), Level::None);
    }
}
