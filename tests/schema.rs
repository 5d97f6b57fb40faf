//! The JSON Schemas in `state-schema/`, and a small validator for the subset of JSON Schema
//! 2020-12 they use (type, properties, required, additionalProperties, items, minItems/maxItems, enum, const,
//! minimum/maximum, minLength/maxLength, anyOf/oneOf, `$ref` to `#/$defs/…`). Every state file
//! a test writes through the binary is checked against its schema with [`assert_valid`].

use serde_json::Value;
use std::path::Path;

/// Loads `state-schema/<name>.schema.json`.
pub fn schema(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("state-schema")
        .join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Panics with every violation if `value` does not satisfy schema `name`.
#[track_caller]
pub fn assert_valid(name: &str, value: &Value) {
    let s = schema(name);
    let mut errors = Vec::new();
    check(&s, &s, value, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "{name}: {value:#}\nviolations:\n  {}",
        errors.join("\n  ")
    );
}

/// The violations of `value` against `schema` (empty when valid).
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", &mut errors);
    errors
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
        _ => false,
    }
}

fn check(root: &Value, s: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(b) = s.as_bool() {
        if !b {
            errors.push(format!("{at}: not allowed"));
        }
        return;
    }
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("only local $defs refs");
        check(root, &root["$defs"][name], v, at, errors);
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
            _ => true,
        };
        if !ok {
            errors.push(format!("{at}: expected type {t}, got {v}"));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{at}: {v} not in {e:?}"));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        errors.push(format!("{at}: expected {c}, got {v}"));
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            errors.push(format!("{at}: {n} < minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            errors.push(format!("{at}: {n} > maximum {max}"));
        }
    }
    if let Some(text) = v.as_str() {
        let len = text.chars().count() as u64;
        if let Some(min) = s.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            errors.push(format!("{at}: shorter than {min}"));
        }
        if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            errors.push(format!("{at}: longer than {max}"));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            let passing = alts
                .iter()
                .filter(|alt| {
                    let mut e = Vec::new();
                    check(root, alt, v, at, &mut e);
                    e.is_empty()
                })
                .count();
            let ok = if key == "anyOf" {
                passing >= 1
            } else {
                passing == 1
            };
            if !ok {
                errors.push(format!("{at}: {key} matched {passing} alternatives"));
            }
        }
    }
    if let Some(obj) = v.as_object() {
        if let Some(req) = s.get("required").and_then(Value::as_array) {
            for r in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    errors.push(format!("{at}: missing required {r}"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, val) in obj {
            let sub_at = format!("{at}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, val, &sub_at, errors),
                None => {
                    if let Some(ap) = s.get("additionalProperties") {
                        check(root, ap, val, &sub_at, errors);
                    }
                }
            }
        }
    }
    if let Some(arr) = v.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (arr.len() as u64) < min
        {
            errors.push(format!("{at}: fewer than {min} items"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && (arr.len() as u64) > max
        {
            errors.push(format!("{at}: more than {max} items"));
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            check(root, items, item, &format!("{at}[{i}]"), errors);
        }
    }
}

#[test]
fn every_schema_is_draft_2020_12_with_an_id_and_a_title() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("state-schema");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".schema.json") else {
            panic!("unexpected file in state-schema/: {name}");
        };
        let s = schema(stem);
        assert_eq!(
            s["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        assert!(s["title"].is_string() && s["$id"].is_string(), "{name}");
        n += 1;
    }
    assert!(n > 0, "no schemas found");
}

#[test]
fn the_validator_rejects_what_it_should() {
    let s = schema("mode-state");
    assert!(violations(&s, &serde_json::json!({"active": "yes"})).len() >= 2);
    assert!(!violations(&s, &serde_json::json!([])).is_empty());
}
