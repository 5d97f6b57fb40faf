//! Checks `.omc/config.json` against `state-schema/config.schema.json` (compiled in) and keeps
//! only what the schema accepts.
//!
//! A configuration mistake must neither stop the hooks nor be silently ignored: each refused
//! key or value becomes a [`Problem`] that names the key, says what is wrong and how to fix it,
//! and is removed from the value the hooks then use, so the rest of the file still applies.
//!
//! Only the part of JSON Schema 2020-12 that the config schema uses is interpreted: `type`,
//! `enum`, `properties`, `additionalProperties` (boolean or schema), `items`, `minimum`,
//! `maximum` and `$ref` to `#/$defs/…`. A test checks the schema uses nothing else.

use serde_json::{Map, Value};

/// The schema text, as shipped in `state-schema/`.
pub const SCHEMA: &str = include_str!("../../state-schema/config.schema.json");

/// One thing wrong with the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where: `ralph.max_iterations`, `keywords.disabled[1]`, or empty for the whole file.
    pub key: String,
    /// What is wrong, as a sentence fragment: "expected an integer, found the string \"fifty\"".
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl Problem {
    /// `` `key`: problem `` (or just the problem for the whole file).
    pub fn summary(&self) -> String {
        if self.key.is_empty() {
            self.problem.clone()
        } else {
            format!("`{}`: {}", self.key, self.problem)
        }
    }
}

/// Keeps what the schema accepts in `value`, and returns a problem for everything it removed.
pub fn prune(value: &mut Value) -> Vec<Problem> {
    let schema: Value = match serde_json::from_str(SCHEMA) {
        Ok(s) => s,
        // A broken build, not a broken config: check nothing rather than refuse everything.
        Err(_) => return Vec::new(),
    };
    let mut problems = Vec::new();
    if !check(&schema, &schema, value, "", &mut problems) {
        *value = Value::Object(Map::new());
    }
    problems
}

/// Checks `v` against `s`; returns whether `v` may stay. Inside objects and arrays, refused
/// members are removed and the container stays.
fn check(root: &Value, s: &Value, v: &mut Value, at: &str, out: &mut Vec<Problem>) -> bool {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let target = r
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name));
        return match target {
            Some(t) => check(root, t, v, at, out),
            None => true,
        };
    }
    if let Some(t) = s.get("type").and_then(Value::as_str)
        && !type_ok(t, v)
    {
        out.push(Problem {
            key: at.to_string(),
            problem: format!("expected {}, found {}", type_name(t), describe(v)),
            fix: format!("make it {}", type_name(t)),
        });
        return false;
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array)
        && !allowed.contains(v)
    {
        let names: Vec<String> = allowed.iter().map(short).collect();
        // A long list makes the one-line notice unreadable; the fix (doctor) has it in full.
        let problem = if names.len() <= 5 {
            format!("{} is not one of {}", describe(v), names.join(", "))
        } else {
            format!("{} is not an allowed value", describe(v))
        };
        out.push(Problem {
            key: at.to_string(),
            problem,
            fix: format!("use one of {}", names.join(", ")),
        });
        return false;
    }
    if let Some(n) = v.as_f64() {
        for (word, bound, below) in [("minimum", "minimum", true), ("maximum", "maximum", false)] {
            if let Some(b) = s.get(bound).and_then(Value::as_f64)
                && (if below { n < b } else { n > b })
            {
                out.push(Problem {
                    key: at.to_string(),
                    problem: format!(
                        "{} is {} the {word} {b}",
                        short(v),
                        if below { "below" } else { "above" }
                    ),
                    fix: format!(
                        "use a number {} {b}",
                        if below { "of at least" } else { "of at most" }
                    ),
                });
                return false;
            }
        }
    }
    if let Value::Object(map) = v {
        let props = s.get("properties").and_then(Value::as_object);
        let extra = s.get("additionalProperties");
        let keys: Vec<String> = map.keys().cloned().collect();
        for k in keys {
            let sub_at = join(at, &k);
            let member = map.get_mut(&k).expect("listed key");
            let keep = match (props.and_then(|p| p.get(&k)), extra) {
                (Some(ps), _) => check(root, ps, member, &sub_at, out),
                (None, Some(Value::Bool(false))) => {
                    let known: Vec<&str> = props
                        .map(|p| {
                            p.keys()
                                .map(String::as_str)
                                .filter(|k| *k != "$schema")
                                .collect()
                        })
                        .unwrap_or_default();
                    out.push(unknown_key(&sub_at, &k, &known));
                    false
                }
                (None, Some(extra @ Value::Object(_))) => check(root, extra, member, &sub_at, out),
                (None, _) => true,
            };
            if !keep {
                map.remove(&k);
            }
        }
    }
    if let (Some(items), Value::Array(arr)) = (s.get("items"), v) {
        let mut i = 0;
        let mut index = 0;
        while i < arr.len() {
            if check(root, items, &mut arr[i], &format!("{at}[{index}]"), out) {
                i += 1;
            } else {
                arr.remove(i);
            }
            index += 1;
        }
    }
    true
}

fn unknown_key(at: &str, key: &str, known: &[&str]) -> Problem {
    let near = known
        .iter()
        .map(|k| (edit_distance(&key.to_ascii_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2 && *d < k.len())
        .min();
    let known_list = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    match near {
        Some((_, k)) => Problem {
            key: at.to_string(),
            problem: format!("unknown key (did you mean `{k}`?)"),
            fix: format!("rename it to `{k}`, or remove it"),
        },
        None => Problem {
            key: at.to_string(),
            problem: "unknown key".to_string(),
            fix: format!("remove it; the keys known here are {known_list}"),
        },
    }
}

/// Levenshtein distance, for "did you mean" on short key names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn type_name(t: &str) -> &'static str {
    match t {
        "object" => "an object ({…})",
        "array" => "a list ([…])",
        "string" => "a string",
        "boolean" => "true or false",
        "number" => "a number",
        "integer" => "a whole number",
        _ => "another type",
    }
}

/// A value as a person would name it: `the string "fifty"`, `the number 3.5`, `a list`.
fn describe(v: &Value) -> String {
    match v {
        Value::String(_) => format!("the string {}", short(v)),
        Value::Number(_) => format!("the number {v}"),
        Value::Bool(_) | Value::Null => v.to_string(),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A value as JSON, cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 40 {
        s
    } else {
        format!("{}…", s.chars().take(39).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pruned(mut v: Value) -> (Value, Vec<Problem>) {
        let p = prune(&mut v);
        (v, p)
    }

    #[test]
    fn the_schema_parses_and_uses_only_what_the_checker_reads() {
        let s: Value = serde_json::from_str(SCHEMA).unwrap();
        fn walk(node: &Value) {
            for (k, x) in node.as_object().unwrap() {
                assert!(
                    [
                        "$schema",
                        "$id",
                        "title",
                        "description",
                        "type",
                        "enum",
                        "properties",
                        "additionalProperties",
                        "items",
                        "minimum",
                        "maximum",
                        "$ref",
                        "$defs",
                    ]
                    .contains(&k.as_str()),
                    "the checker does not interpret `{k}`"
                );
                match k.as_str() {
                    "properties" | "$defs" => x.as_object().unwrap().values().for_each(walk),
                    "additionalProperties" | "items" if x.is_object() => walk(x),
                    _ => {}
                }
            }
        }
        walk(&s);
    }

    #[test]
    fn a_valid_config_is_kept_whole() {
        let v = json!({
            "$schema": "x",
            "keywords": {"disabled": ["tdd", "ultrathink"]},
            "skills": {"protection": {"my-flow": "heavy", "oh-my-claudecode:plan": "none"}},
            "ralph": {"max_iterations": 50},
            "pipeline": {"max_iterations": 9999}
        });
        let (kept, problems) = pruned(v.clone());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(kept, v);
    }

    #[test]
    fn each_mistake_is_named_and_removed_and_the_rest_is_kept() {
        let (kept, problems) = pruned(json!({
            "keyword": {"disabled": ["tdd"]},
            "ralph": {"max_iterations": "fifty"},
            "autopilot": {"max_iterations": 12, "max_iteration": 3},
            "keywords": {"disabled": ["tdd", "cancel", 7, "analyze"]},
            "skills": {"protection": {"plan": "Heavy", "ask": "light"}},
            "ultrawork": {"max_iterations": 0},
            "foo": 1
        }));
        let got: Vec<String> = problems.iter().map(Problem::summary).collect();
        assert_eq!(
            got,
            vec![
                "`keyword`: unknown key (did you mean `keywords`?)",
                "`ralph.max_iterations`: expected a whole number, found the string \"fifty\"",
                "`autopilot.max_iteration`: unknown key (did you mean `max_iterations`?)",
                "`keywords.disabled[1]`: the string \"cancel\" is not an allowed value",
                "`keywords.disabled[2]`: the number 7 is not an allowed value",
                "`skills.protection.plan`: the string \"Heavy\" is not one of \"none\", \"light\", \"medium\", \"heavy\"",
                "`ultrawork.max_iterations`: 0 is below the minimum 1",
                "`foo`: unknown key",
            ]
        );
        assert_eq!(
            kept,
            json!({
                "ralph": {},
                "autopilot": {"max_iterations": 12},
                "keywords": {"disabled": ["tdd", "analyze"]},
                "skills": {"protection": {"ask": "light"}},
                "ultrawork": {}
            })
        );
        assert_eq!(problems[0].fix, "rename it to `keywords`, or remove it");
        assert_eq!(problems[1].fix, "make it a whole number");
        assert!(
            problems[3]
                .fix
                .starts_with("use one of \"ralph\", \"autopilot\"")
        );
        assert!(
            problems[7]
                .fix
                .starts_with("remove it; the keys known here are keywords, skills, resume, ralph")
        );
    }

    #[test]
    fn a_file_that_is_not_an_object_is_refused_whole() {
        let (kept, problems) = pruned(json!(["ralph"]));
        assert_eq!(kept, json!({}));
        assert_eq!(
            problems[0].summary(),
            "expected an object ({…}), found a list"
        );
    }

    #[test]
    fn edit_distance_is_levenshtein() {
        assert_eq!(edit_distance("keyword", "keywords"), 1);
        assert_eq!(edit_distance("skils", "skills"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ralph", "ralph"), 0);
    }
}
