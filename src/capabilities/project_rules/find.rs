//! Which rule files apply to a path in the project: `.claude/rules/**/*.md` whose `paths:`
//! globs match it (or that have none), and the `AGENTS.md` files from its directory up to the
//! project's. Reads the project's own files, bounded: rules are small documents a person
//! wrote, not data.

use sha2::{Digest, Sha256};
use std::path::Path;

/// The most rule files looked at under `.claude/rules/`, and how deep.
const MAX_RULE_FILES: usize = 200;
const MAX_DEPTH: usize = 6;
/// The longest rule body given, in characters (the whole context is cut at 9 500).
const MAX_BODY_CHARS: usize = 4_000;
/// The largest rule file read at all: anything bigger is not a rule a person wrote.
const MAX_RULE_BYTES: u64 = 256 * 1024;

/// One rule that applies.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Rule {
    /// Where it comes from, relative to the project (`.claude/rules/api.md`).
    pub(super) source: String,
    /// Why it applies: the glob that matched, or "every file", or "files under src/api/".
    pub(super) applies: String,
    pub(super) body: String,
    /// 16 hex digits of the SHA-256 of the source name and the body.
    pub(super) hash: String,
}

/// The rules for `rel` (a `/`-separated path inside `project`): Claude Code rule files when
/// `claude_rules`, and the `AGENTS.md` files of its directories (the project's own only when
/// `root_agents`), nearest last.
/// A path inside the project as the model reads it, `/` between its parts on every system.
fn slash_path(rel: &Path) -> String {
    let parts: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
    parts.join("/")
}

pub(super) fn rules_for(
    project: &Path,
    rel: &str,
    claude_rules: bool,
    root_agents: bool,
) -> Vec<Rule> {
    let mut out = Vec::new();
    if claude_rules {
        let dir = project.join(".claude/rules");
        let mut files: Vec<std::path::PathBuf> = if dir_inside(project, &dir) {
            crate::state::folder::tree(&dir, ".md", MAX_DEPTH, MAX_RULE_FILES, |_| true)
                .iter()
                .map(|rel| dir.join(rel))
                .collect()
        } else {
            Vec::new()
        };
        // In path order, as a person reads the folder (`a/x.md` before `a.md`).
        files.sort();
        for f in files {
            let Some(text) = read_rule(project, &f) else {
                continue;
            };
            let (globs, body) = front_matter(&text);
            let applies = if globs.is_empty() {
                Some("every file".to_string())
            } else {
                globs
                    .iter()
                    .find(|g| glob_match(g, rel))
                    .map(|g| format!("paths matching {g}"))
            };
            if let Some(applies) = applies
                && !body.trim().is_empty()
            {
                let source = f
                    .strip_prefix(project)
                    .map_or_else(|_| f.display().to_string(), slash_path);
                out.push(rule(source, applies, body));
            }
        }
    }
    let mut dirs: Vec<String> = Vec::new();
    let parts: Vec<&str> = rel.split('/').collect();
    for n in 0..parts.len() {
        dirs.push(parts[..n].join("/"));
    }
    for dir in dirs {
        if dir.is_empty() && !root_agents {
            continue;
        }
        let rel_file = if dir.is_empty() {
            "AGENTS.md".to_string()
        } else {
            format!("{dir}/AGENTS.md")
        };
        let Some(text) = read_rule(project, &project.join(&rel_file)) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let applies = if dir.is_empty() {
            "every file".to_string()
        } else {
            format!("files under {dir}/")
        };
        out.push(rule(rel_file, applies, &text));
    }
    out
}

/// A rule file's text: only a regular file of bounded size whose real path is inside the
/// project (a committed symlink to `/proc/self/environ` or `~/.ssh` gives nothing), read
/// without waiting on a FIFO, and redacted like everything else the model or `.omc/` gets.
fn read_rule(project: &Path, path: &Path) -> Option<String> {
    match crate::state::fs::read_within(project, path, MAX_RULE_BYTES) {
        Ok(Some(bytes)) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Some(crate::redact::text(&text).map_or(text, |(clean, _)| clean))
        }
        Ok(None) => None,
        Err(e) => {
            crate::diag!("project rules: not read: {e}");
            None
        }
    }
}

/// Whether the rule folder, if present, really lies inside the project (not a symlinked
/// `.claude` or `.claude/rules` pointing elsewhere).
fn dir_inside(project: &Path, dir: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return false;
    };
    if crate::state::fs::inside_root(project, &real).unwrap_or(false) {
        return true;
    }
    crate::diag!(
        "project rules: {} resolves outside the project; its rules are not read",
        dir.display()
    );
    false
}

fn rule(source: String, applies: String, body: &str) -> Rule {
    let body = crate::protocol::output::truncate_chars(body.trim(), MAX_BODY_CHARS);
    let digest = Sha256::digest(format!("{source}\n{body}").as_bytes());
    let hash = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Rule {
        source,
        applies,
        body,
        hash,
    }
}

/// The `paths:` globs of a rule's front matter and the body after it. `paths` may be a YAML
/// list (`- "src/**"` lines or `["a", "b"]`) or one string (comma-separated globs allowed).
fn front_matter(text: &str) -> (Vec<String>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (Vec::new(), text);
    };
    let Some(end) = rest.find("\n---") else {
        return (Vec::new(), text);
    };
    let head = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['-', '\r']);
    let body = body.strip_prefix('\n').unwrap_or(body);
    let mut globs = Vec::new();
    let mut in_paths = false;
    for line in head.lines() {
        let t = line.trim_end();
        if let Some(v) = t.strip_prefix("paths:") {
            in_paths = true;
            let v = v.trim();
            if v.is_empty() {
                continue;
            }
            let v = v.trim_start_matches('[').trim_end_matches(']');
            globs.extend(v.split(',').map(unquote).filter(|g| !g.is_empty()));
            in_paths = false;
        } else if in_paths && let Some(item) = t.trim_start().strip_prefix("- ") {
            globs.push(unquote(item));
        } else if !t.starts_with([' ', '\t']) {
            in_paths = false;
        }
    }
    (globs, body)
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches(['"', '\'']).trim().to_string()
}

/// A glob against a `/`-separated path: `**` any number of directories, `*` anything within
/// one name, `?` one character, `{a,b}` alternatives. A glob with no `/` matches the name at
/// any depth (`*.ts`), as gitignore does.
pub(super) fn glob_match(glob: &str, path: &str) -> bool {
    expand_braces(glob).iter().any(|g| {
        let g = g.trim_start_matches("./");
        if g.contains('/') {
            segments(
                &g.split('/').collect::<Vec<_>>(),
                &path.split('/').collect::<Vec<_>>(),
            )
        } else {
            path.rsplit('/').next().is_some_and(|name| wild(g, name))
        }
    })
}

fn expand_braces(g: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (g.find('{'), g.find('}')) else {
        return vec![g.to_string()];
    };
    if close < open {
        return vec![g.to_string()];
    }
    g[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{}{alt}{}", &g[..open], &g[close + 1..])))
        .collect()
}

fn segments(g: &[&str], p: &[&str]) -> bool {
    match g.split_first() {
        None => p.is_empty(),
        Some((&"**", rest)) => (0..=p.len()).any(|i| segments(rest, &p[i..])),
        Some((first, rest)) => !p.is_empty() && wild(first, p[0]) && segments(rest, &p[1..]),
    }
}

/// `*` and `?` within one name.
fn wild(g: &str, s: &str) -> bool {
    let (g, s): (Vec<char>, Vec<char>) = (g.chars().collect(), s.chars().collect());
    fn go(g: &[char], s: &[char]) -> bool {
        match g.split_first() {
            None => s.is_empty(),
            Some(('*', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..])),
            Some(('?', rest)) => !s.is_empty() && go(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(&g, &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_claude_codes_rules_read() {
        assert!(glob_match("src/api/**", "src/api/handler.py"));
        assert!(glob_match("src/api/**", "src/api/v1/x.py"));
        assert!(!glob_match("src/api/**", "src/apix/handler.py"));
        assert!(glob_match("src/**/*.{ts,tsx}", "src/a/b/c.tsx"));
        assert!(glob_match("src/**/*.{ts,tsx}", "src/c.ts"));
        assert!(!glob_match("src/**/*.{ts,tsx}", "lib/c.ts"));
        assert!(glob_match("*.md", "docs/guide/intro.md"));
        assert!(glob_match("tests/test_?.py", "tests/test_a.py"));
    }

    #[test]
    fn front_matter_paths_in_each_spelling() {
        let (g, body) = front_matter(
            "---\npaths:\n  - \"src/api/**\"\n  - 'lib/*.rs'\n---\nUse the v2 client.\n",
        );
        assert_eq!(g, vec!["src/api/**", "lib/*.rs"]);
        assert_eq!(body, "Use the v2 client.\n");
        let (g, _) = front_matter("---\ndescription: x\npaths: [\"a/**\", \"b/*\"]\n---\nx");
        assert_eq!(g, vec!["a/**", "b/*"]);
        let (g, body) = front_matter("No front matter.\n");
        assert!(g.is_empty());
        assert_eq!(body, "No front matter.\n");
    }

    #[test]
    fn rules_and_nested_agents_files_for_a_path() {
        let t = tempfile::tempdir().unwrap();
        let w = |rel: &str, s: &str| {
            let p = t.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        w(
            ".claude/rules/api.md",
            "---\npaths:\n  - \"src/api/**\"\n---\nAPI rule\n",
        );
        w(
            ".claude/rules/ui.md",
            "---\npaths: \"web/**\"\n---\nUI rule\n",
        );
        w(".claude/rules/all.md", "Always rule\n");
        w("AGENTS.md", "root\n");
        w("src/api/AGENTS.md", "nested\n");
        let got: Vec<String> = rules_for(t.path(), "src/api/h.py", true, false)
            .into_iter()
            .map(|r| format!("{} {}", r.source, r.body))
            .collect();
        assert_eq!(
            got,
            vec![
                ".claude/rules/all.md Always rule",
                ".claude/rules/api.md API rule",
                "src/api/AGENTS.md nested"
            ]
        );
        let got = rules_for(t.path(), "src/api/h.py", false, true);
        assert_eq!(
            got.iter().map(|r| r.source.as_str()).collect::<Vec<_>>(),
            vec!["AGENTS.md", "src/api/AGENTS.md"]
        );
    }

    #[test]
    fn rule_text_is_redacted_and_oversized_files_are_skipped() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("src")).unwrap();
        std::fs::write(
            t.path().join("src/AGENTS.md"),
            "Deploy with DB_PASSWORD=Tr0ub4dor-and-3 set.\n",
        )
        .unwrap();
        std::fs::write(
            t.path().join("AGENTS.md"),
            "x".repeat(MAX_RULE_BYTES as usize + 1),
        )
        .unwrap();
        let got = rules_for(t.path(), "src/a.rs", false, true);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].body, "Deploy with DB_PASSWORD=[REDACTED] set.");
    }
}
