//! A tiny flag parser for the human commands: `--flag`, `--option VALUE`, `--option=VALUE`.
//! Anything else is a usage error (exit 2) that prints the command's help.

use std::collections::HashMap;

/// The flags and option values a command was given.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    flags: Vec<&'static str>,
    values: HashMap<&'static str, String>,
    pub(super) positional: Vec<String>,
}

impl Parsed {
    pub(super) fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }

    pub(super) fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

/// Parses `args` against the accepted `flags` (no value) and `options` (one value each).
/// Positional arguments are refused unless `positional` is true.
pub(super) fn parse(
    args: &[String],
    flags: &[&'static str],
    options: &[&'static str],
    positional: bool,
) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            if !positional {
                if let Some(extra) = it.next() {
                    return Err(format!("unexpected argument '{extra}'"));
                }
                break;
            }
            out.positional.extend(it.by_ref().cloned());
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            if let Some(f) = flags.iter().find(|f| **f == name) {
                if inline.is_some() {
                    return Err(format!("--{name} takes no value"));
                }
                if !out.flags.contains(f) {
                    out.flags.push(f);
                }
                continue;
            }
            if let Some(o) = options.iter().find(|o| **o == name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("--{name} needs a value"))?,
                };
                if value.is_empty() {
                    return Err(format!("--{name} needs a non-empty value"));
                }
                if out.values.insert(o, value).is_some() {
                    return Err(format!("--{name} given twice"));
                }
                continue;
            }
            return Err(format!("unknown option '{arg}'"));
        }
        if arg.starts_with('-') && arg.len() > 1 {
            return Err(format!("unknown option '{arg}'"));
        }
        if !positional {
            return Err(format!("unexpected argument '{arg}'"));
        }
        out.positional.push(arg.clone());
    }
    Ok(out)
}

/// Reports a usage error with the command's help on stderr; returns exit code 2.
pub(super) fn usage_error(command: &str, help: &str, message: &str) -> i32 {
    eprintln!("omc-hooks {command}: {message}\n\n{help}");
    2
}

/// Reports a failure the person can fix; returns exit code 1.
pub(super) fn fail(command: &str, message: &str) -> i32 {
    eprintln!("omc-hooks {command}: {message}");
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags_and_options_in_both_spellings() {
        let p = parse(
            &s(&["--json", "--session=a1"]),
            &["json"],
            &["session"],
            false,
        )
        .unwrap();
        assert!(p.flag("json"));
        assert_eq!(p.value("session"), Some("a1"));
        let p = parse(&s(&["--session", "b2"]), &["json"], &["session"], false).unwrap();
        assert!(!p.flag("json"));
        assert_eq!(p.value("session"), Some("b2"));
    }

    #[test]
    fn unknown_and_malformed_are_errors() {
        for bad in [
            vec!["--nope"],
            vec!["-x"],
            vec!["stray"],
            vec!["--session"],
            vec!["--json=1"],
            vec!["--session", "a", "--session", "b"],
        ] {
            assert!(
                parse(&s(&bad), &["json"], &["session"], false).is_err(),
                "{bad:?}"
            );
        }
    }
}
