//! What tokens cost (issue 42, contract §6 "Cost"): a price per million tokens per model and
//! token type, from the dated list-price table shipped in `templates/cost/prices.json`, which
//! `.omc/config.json`'s `"prices"` overrides or extends per model.
//!
//! A model is found by its exact name, else by the longest name in the table (the person's
//! rows first) that it starts with followed by `-` or `@` (`claude-sonnet-4-5-20250929`,
//! `claude-sonnet-4-5@20250929` → `claude-sonnet-4-5`). A model found nowhere has no price, and
//! any tokens of it make a cost unknown — never $0.

use super::Config;
use crate::state::usage::{ByModel, Tokens};
use serde::Deserialize;
use serde_json::Value;

/// The shipped table.
pub const TABLE: &str = include_str!("../../templates/cost/prices.json");

/// Dollars per million tokens of each type.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Missing in a person's row: the input price.
    #[serde(default)]
    pub cache_read: Option<f64>,
    #[serde(default)]
    pub cache_write: Option<f64>,
}

#[derive(Deserialize)]
struct Row {
    model: String,
    #[serde(flatten)]
    price: Price,
    source_date: String,
}

#[derive(Deserialize)]
struct Table {
    rows: Vec<Row>,
}

fn shipped() -> Vec<Row> {
    serde_json::from_str::<Table>(TABLE)
        .map(|t| t.rows)
        .unwrap_or_default()
}

/// The shipped rows as `(model, source_date)`, for the docs and tests.
pub fn shipped_models() -> Vec<(String, String)> {
    shipped()
        .into_iter()
        .map(|r| (r.model, r.source_date))
        .collect()
}

/// Whether `model` is `name` or a dated or suffixed variant of it.
fn matches(model: &str, name: &str) -> bool {
    model == name
        || model
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('@'))
}

/// The price of `model` under `config` (its `"prices"` first), or `None`.
pub fn price(model: &str, config: &Config) -> Option<Price> {
    let model = model.trim().to_ascii_lowercase();
    if model.is_empty() {
        return None;
    }
    let own: Vec<(String, Price)> = config
        .get("prices")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            Some((
                k.to_ascii_lowercase(),
                serde_json::from_value(v.clone()).ok()?,
            ))
        })
        .collect();
    let best = |rows: &[(String, Price)]| {
        rows.iter()
            .filter(|(name, _)| matches(&model, name))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
    };
    best(&own).or_else(|| {
        let table: Vec<(String, Price)> =
            shipped().into_iter().map(|r| (r.model, r.price)).collect();
        best(&table)
    })
}

/// Dollars for `t` tokens at `p`.
pub fn cost_of(t: &Tokens, p: &Price) -> f64 {
    let per = |n: u64, price: f64| n as f64 * price / 1_000_000.0;
    per(t.input, p.input)
        + per(t.output, p.output)
        + per(t.cache_read, p.cache_read.unwrap_or(p.input))
        + per(t.cache_write, p.cache_write.unwrap_or(p.input))
}

/// What `by_model` cost under `config`'s prices; `None` when a model with tokens has no price.
pub fn cost(by_model: &ByModel, config: &Config) -> Option<f64> {
    let mut total = 0.0;
    for (model, t) in by_model {
        if t.sum() == 0 {
            continue;
        }
        total += cost_of(t, &price(model, config)?);
    }
    Some(total)
}

/// The models of `by_model` with tokens and no price (for "cost unknown: no price for …").
pub fn unpriced(by_model: &ByModel, config: &Config) -> Vec<String> {
    by_model
        .iter()
        .filter(|(m, t)| t.sum() > 0 && price(m, config).is_none())
        .map(|(m, _)| {
            if m.is_empty() {
                "(a model the client did not name)".to_string()
            } else {
                m.clone()
            }
        })
        .collect()
}

/// `$0.42`, `$12.30`, `$0.0031`: money for people (small amounts keep two significant digits).
pub fn money_text(usd: f64) -> String {
    let cents = usd * 100.0;
    if usd >= 0.1 || (cents - cents.round()).abs() < 1e-9 {
        format!("${usd:.2}")
    } else if usd >= 0.001 {
        format!("${usd:.3}")
    } else {
        format!("${usd:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shipped_row_is_dated_and_priced() {
        let rows = shipped();
        assert!(rows.len() >= 20, "the table parses");
        for r in &rows {
            assert!(
                crate::time::parse_iso(&format!("{}T00:00:00Z", r.source_date)).is_some(),
                "{}: {}",
                r.model,
                r.source_date
            );
            assert!(
                r.price.input > 0.0 && r.price.output >= r.price.input,
                "{}",
                r.model
            );
            assert!(r.price.cache_read.is_some() && r.price.cache_write.is_some());
        }
        for family in [
            "claude-opus",
            "claude-sonnet",
            "claude-haiku",
            "gpt-5",
            "o3",
            "gemini-2.5",
            "qwen3",
        ] {
            assert!(rows.iter().any(|r| r.model.starts_with(family)), "{family}");
        }
    }

    #[test]
    fn names_match_their_dated_variants_and_the_longest_row_wins() {
        let c = Config::default();
        let sonnet45 = price("claude-sonnet-4-5-20250929", &c).unwrap();
        assert_eq!(sonnet45.input, 3.0);
        assert_eq!(price("claude-opus-4-5@20251101", &c).unwrap().input, 5.0);
        assert_eq!(price("claude-opus-4-1-20250805", &c).unwrap().input, 15.0);
        assert_eq!(price("gpt-5-mini", &c).unwrap().input, 0.25);
        assert_eq!(price("gemini-3-pro-preview", &c).unwrap().output, 12.0);
        assert_eq!(
            price("gpt-5x", &c),
            None,
            "a prefix without a separator is another model"
        );
        assert_eq!(price("mock-model", &c), None);
        assert_eq!(price("", &c), None);
    }

    #[test]
    fn the_persons_prices_win_and_unknown_models_make_the_cost_unknown() {
        let c = Config::from_value(json!({"prices": {
            "claude-sonnet-4-5": {"input": 10, "output": 20},
            "mock-model": {"input": 1, "output": 2, "cache_read": 0.5, "cache_write": 4}
        }}));
        let mut by = ByModel::new();
        by.insert(
            "mock-model".into(),
            Tokens {
                input: 1_000_000,
                output: 500_000,
                cache_read: 2_000_000,
                cache_write: 250_000,
            },
        );
        assert!((cost(&by, &c).unwrap() - (1.0 + 1.0 + 1.0 + 1.0)).abs() < 1e-9);
        let sonnet = price("claude-sonnet-4-5-20250929", &c).unwrap();
        let t = Tokens {
            input: 0,
            output: 0,
            cache_read: 1_000_000,
            cache_write: 0,
        };
        assert_eq!(
            cost_of(&t, &sonnet),
            10.0,
            "a missing cache price is the input price"
        );
        by.insert(
            "who-knows".into(),
            Tokens {
                input: 5,
                ..Tokens::default()
            },
        );
        assert_eq!(cost(&by, &c), None);
        assert_eq!(unpriced(&by, &c), vec!["who-knows".to_string()]);
        by.insert("who-knows".into(), Tokens::default());
        assert!(
            cost(&by, &c).is_some(),
            "a model with no tokens costs nothing"
        );
    }

    #[test]
    fn money_for_people() {
        assert_eq!(money_text(12.3), "$12.30");
        assert_eq!(money_text(0.0123), "$0.012");
        assert_eq!(money_text(0.00014), "$0.0001");
        assert_eq!(money_text(0.0), "$0.00");
        assert_eq!(money_text(0.01), "$0.01");
        assert_eq!(money_text(0.005), "$0.005");
    }
}
