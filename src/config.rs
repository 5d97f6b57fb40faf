//! Project configuration, `.omc/config.json`. Optional, written by a person: a file that does
//! not parse is reported on stderr and ignored (never quarantined — it is not ours to move).

use crate::state::{Scope, StateFile, Store};
use serde_json::Value;

/// The project's configuration as loaded; accessors give typed views with defaults.
#[derive(Debug, Clone, Default)]
pub struct Config {
    raw: Value,
}

impl Config {
    pub fn load(store: &Store) -> Config {
        let Some(file) = StateFile::new(&Scope::Omc, "config.json") else {
            return Config::default();
        };
        let Some(text) = store.read_text(&file) else {
            return Config::default();
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(raw @ Value::Object(_)) => Config { raw },
            Ok(_) => {
                crate::diag!(
                    "{}: not a JSON object; ignored",
                    store.path(&file).display()
                );
                Config::default()
            }
            Err(e) => {
                crate::diag!("{}: {e}; ignored", store.path(&file).display());
                Config::default()
            }
        }
    }

    pub fn from_value(raw: Value) -> Config {
        Config { raw }
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
