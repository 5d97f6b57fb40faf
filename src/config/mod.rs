//! Project configuration, `.omc/config.json`, and the limits that follow from it.
//!
//! Optional, written by a person, never written or moved by us. It is checked against
//! `state-schema/config.schema.json` ([`schema`]): what the schema refuses (invalid JSON, an
//! unknown key, a value of the wrong type) is left out and recorded as a [`Problem`], and the
//! rest applies. Hooks tell the session once that the file has errors
//! ([`crate::capabilities::config_notice`]); `omc-hooks doctor` names each one with its fix.
//!
//! The environment's `OMC_RALPH_HARD_MAX` is folded in here ([`Config::with_env`]) so that every
//! place that shows or enforces an iteration limit asks the same object.

pub mod hooks_toml;
pub mod prices;
pub mod schema;

pub use schema::Problem;

use crate::env::Env;
use crate::state::{Scope, StateFile, Store};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The configuration file's name in `.omc/`.
pub const FILE: &str = "config.json";

/// The hard ceiling on any run's iterations, whatever the configuration says.
pub const RALPH_HARD_MAX: u32 = 500;

/// The hard maximum in force: [`RALPH_HARD_MAX`], or a lower `OMC_RALPH_HARD_MAX`.
pub fn hard_max(env_value: Option<&str>) -> u32 {
    env_value
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .map_or(RALPH_HARD_MAX, |n| n.min(RALPH_HARD_MAX))
}

/// The project's configuration as loaded (its valid part); accessors give typed views with
/// defaults.
#[derive(Debug, Clone)]
pub struct Config {
    raw: Value,
    problems: Vec<Problem>,
    path: Option<PathBuf>,
    hard_max: u32,
    withheld: Option<Withheld>,
}

/// Verify commands of the project's file that are not used because the person has not trusted
/// them (contract §6, §17): set by `crate::capabilities::verify_trust`, told once per session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withheld {
    /// Each list left out: its key (`verify`, `ralph.verify`) and its commands as written.
    pub lists: Vec<(String, Vec<String>)>,
    /// Trusted once with other commands (rather than never).
    pub changed: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            raw: Value::Object(serde_json::Map::new()),
            problems: Vec::new(),
            path: None,
            hard_max: RALPH_HARD_MAX,
            withheld: None,
        }
    }
}

impl Config {
    /// Reads and checks `.omc/config.json` (see [`Config::read`]), with one line on stderr when
    /// it has problems. For the hooks.
    pub fn load(store: &Store) -> Config {
        let config = Config::read(store);
        if let (Some(first), Some(path)) = (config.problems.first(), &config.path) {
            crate::diag!(
                "{}: {} problem(s), first {}; using the rest ('omc-hooks doctor' lists them)",
                path.display(),
                config.problems.len(),
                first.summary()
            );
        }
        config
    }

    /// Reads and checks `.omc/config.json`, quietly. A missing file is an empty configuration; a
    /// file with errors is used for what is valid in it, and its problems are kept.
    pub fn read(store: &Store) -> Config {
        let Some(file) = StateFile::new(&Scope::Omc, FILE) else {
            return Config::default();
        };
        let path = store.path(&file);
        let text = match store.read_text_or_missing(&file) {
            Ok(Some(text)) => text,
            Ok(None) => return Config::default(),
            // Present but unreadable (a symlink, a directory, no permission): say so rather
            // than report "no configuration". (A refused path whose file is not there: none.)
            Err(_) => {
                if std::fs::symlink_metadata(&path).is_err() {
                    return Config::default();
                }
                return Config {
                    problems: vec![Problem {
                        key: String::new(),
                        problem:
                            "cannot be read (it must be a regular, readable file, not a symlink)"
                                .into(),
                        fix: "replace it with a regular file; until then none of it is used".into(),
                    }],
                    path: Some(path),
                    ..Config::default()
                };
            }
        };
        Config {
            path: Some(path),
            ..Config::parse(&text)
        }
    }

    /// A configuration from the text of a file, checked against the schema (no path).
    pub fn parse(text: &str) -> Config {
        let mut config = Config::default();
        match serde_json::from_str::<Value>(text) {
            Ok(mut raw) => {
                config.problems = schema::prune(&mut raw);
                config.raw = raw;
            }
            Err(e) => config.problems.push(Problem {
                key: String::new(),
                problem: format!("not valid JSON ({e})"),
                fix: "repair the JSON; until then none of the file is used".into(),
            }),
        }
        config
    }

    /// This configuration without the value at `path` (a missing one is no change).
    pub fn without(mut self, path: &[&str]) -> Config {
        let Some((last, parents)) = path.split_last() else {
            return self;
        };
        let node = parents
            .iter()
            .try_fold(&mut self.raw, |v, key| v.get_mut(*key));
        if let Some(Value::Object(o)) = node {
            o.remove(*last);
        }
        self
    }

    /// This configuration recording what was withheld from it.
    pub fn withholding(mut self, withheld: Withheld) -> Config {
        self.withheld = Some(withheld);
        self
    }

    /// The project's verify commands left out until trusted, if any.
    pub fn withheld(&self) -> Option<&Withheld> {
        self.withheld.as_ref()
    }

    /// Applies the environment's limits: `OMC_RALPH_HARD_MAX` lowers the hard maximum.
    pub fn with_env(mut self, env: &Env) -> Config {
        self.hard_max = hard_max(env.var("OMC_RALPH_HARD_MAX"));
        self
    }

    /// What the schema refused, in file order (empty when the file is fine or absent).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The file the configuration came from, when one was read.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The hard maximum of iterations in force for every run (500, or lower by the
    /// environment).
    pub fn hard_max(&self) -> u32 {
        self.hard_max
    }

    /// A configuration taken as given, without the schema check (tests, the demo).
    pub fn from_value(raw: Value) -> Config {
        Config {
            raw,
            ..Config::default()
        }
    }

    /// This configuration with `value` set at `path` (objects made on the way): how a budget
    /// said with a request (`ralph 2h …`) becomes that run's limits, as if configured.
    pub fn with_value(mut self, path: &[&str], value: Value) -> Config {
        let Some((last, parents)) = path.split_last() else {
            return self;
        };
        let mut node = &mut self.raw;
        for key in parents {
            if !node.get(*key).is_some_and(Value::is_object) {
                node[*key] = Value::Object(serde_json::Map::new());
            }
            node = &mut node[*key];
        }
        if node.is_object() {
            node[*last] = value;
        }
        self
    }

    /// A value at a `/`-separated path, e.g. `skills/protection/plan`.
    pub fn get(&self, path: &str) -> Option<&Value> {
        path.split('/').try_fold(&self.raw, |v, key| v.get(key))
    }

    /// Keyword names the project switched off (`keywords.disabled`). `cancel` is never listed.
    pub fn disabled_keywords(&self) -> Vec<String> {
        self.get("keywords/disabled")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.trim().to_ascii_lowercase())
                    .filter(|s| s != "cancel")
                    .collect()
            })
            .unwrap_or_default()
    }

    /// An unsigned number at `path`, if present and sane.
    pub fn u32_at(&self, path: &str) -> Option<u32> {
        self.get(path)?.as_u64().and_then(|n| u32::try_from(n).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cancel_cannot_be_disabled() {
        let c = Config::from_value(json!({"keywords":{"disabled":["TDD","cancel"," ralph "]}}));
        assert_eq!(c.disabled_keywords(), vec!["tdd", "ralph"]);
    }

    #[test]
    fn paths_and_numbers() {
        let c = Config::from_value(json!({"ralph":{"max_iterations":7}}));
        assert_eq!(c.u32_at("ralph/max_iterations"), Some(7));
        assert_eq!(c.u32_at("ralph/missing"), None);
    }
}
