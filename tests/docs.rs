//! The documentation travels with the clone: every relative link in README.md, docs/ and the
//! other top-level pages resolves to a file of the repository (and, with `#anchor`, to a
//! heading in it), and nothing in the docs or the code points outside the repository — not to
//! the workspace the project was written in, not to an absolute local path, not to the team's
//! internal notes (a reader of the clone follows the FINDINGS files, the recorded fixtures and
//! the clients' public documentation instead).

use std::path::{Component, Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages whose links are checked: README.md, docs/**/*.md and the other guides.
fn pages() -> Vec<PathBuf> {
    let root = repo();
    let mut out: Vec<PathBuf> = [
        "README.md",
        "BENCHMARKS.md",
        "HARDENING.md",
        "tests/README.md",
        "tests/e2e/FINDINGS.md",
        "tests/e2e/codex-FINDINGS.md",
        "tests/e2e/gemini-FINDINGS.md",
        "tests/e2e/qwen-FINDINGS.md",
    ]
    .iter()
    .map(|p| root.join(p))
    .filter(|p| p.is_file())
    .collect();
    let mut docs = Vec::new();
    walk(&root.join("docs"), &mut |p| {
        if p.extension().is_some_and(|e| e == "md") {
            docs.push(p.to_path_buf());
        }
    });
    docs.sort();
    out.extend(docs);
    out
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, f);
        } else {
            f(&p);
        }
    }
}

/// Markdown with fenced code blocks and inline code spans blanked: links there are not links.
fn prose(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if fenced {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                out.push(' ');
            } else {
                out.push(if in_code { ' ' } else { c });
            }
        }
        out.push('\n');
    }
    out
}

/// Inline link targets `[text](target)` and reference definitions `[label]: target`.
fn links(md: &str) -> Vec<String> {
    let text = prose(md);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end..];
    }
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some(i) = t.find("]:")
            && !t[1..i].contains('[')
            && let Some(target) = t[i + 2..].split_whitespace().next()
        {
            out.push(target.to_string());
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case; letters, digits, `-` and `_` kept, spaces
/// become `-`, everything else dropped; repeated headings get `-1`, `-2`, ….
fn anchors(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.push(if *n == 0 { slug } else { format!("{slug}-{n}") });
        *n += 1;
    }
    out
}

/// `path` with `.` and `..` resolved lexically (the target may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every problem with the links of one page, as messages.
fn check_page(page: &Path, root: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(page).unwrap();
    let rel = page.strip_prefix(root).unwrap().display().to_string();
    let mut problems = Vec::new();
    for target in links(&md) {
        if target.is_empty() {
            problems.push(format!("{rel}: empty link target"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        if path.starts_with('/') || path.starts_with('~') {
            problems.push(format!(
                "{rel}: {target}: an absolute path is not in the clone"
            ));
            continue;
        }
        let file = if path.is_empty() {
            page.to_path_buf()
        } else {
            normalize(&page.parent().unwrap().join(path))
        };
        if !file.starts_with(root) {
            problems.push(format!("{rel}: {target}: points outside the repository"));
            continue;
        }
        if !file.exists() {
            problems.push(format!("{rel}: {target}: no such file in the repository"));
            continue;
        }
        if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
            let is_md = file.extension().is_some_and(|e| e == "md");
            let text = if is_md {
                std::fs::read_to_string(&file).unwrap()
            } else {
                String::new()
            };
            if !is_md || !anchors(&text).iter().any(|a| a == anchor) {
                problems.push(format!("{rel}: {target}: no heading with that anchor"));
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_resolves_inside_the_repository() {
    let root = repo();
    let pages = pages();
    assert!(
        pages.iter().any(|p| p.ends_with("docs/contract.md"))
            && pages.iter().any(|p| p.ends_with("docs/architecture.md"))
            && pages.iter().any(|p| p.ends_with("docs/style.md")),
        "the docs pages are missing: {pages:?}"
    );
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in &pages {
        checked += links(&std::fs::read_to_string(page).unwrap()).len();
        problems.extend(check_page(page, &root));
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
    // The README leads to the docs (so the check above has something to check).
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for doc in ["docs/contract.md", "docs/architecture.md", "docs/style.md"] {
        assert!(
            links(&readme).iter().any(|l| l == doc),
            "README does not link {doc}"
        );
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the parser broken?"
    );
}

/// What no file of the clone may name: the workspace the project was written in (paths into
/// it, its shared contract and style notes) and the team's internal reference notes, which a
/// reader of the clone cannot open. Built from pieces so that this file does not match itself.
/// The second field says whether the name is also refused in `tests/data/` (the keyword corpora
/// hold prompts as typed, which may mention anything that is not a pointer into the workspace).
fn forbidden() -> Vec<(String, bool)> {
    vec![
        (format!("{}/shared", ".."), true),
        (format!("/{}/", "work"), true),
        (format!("shared/{}", "reference"), true),
        (format!("{}.md", "CONTRACT"), true),
        (format!("{}.md", "STYLE"), true),
        (format!("agents-{}", "live"), false),
        (format!("agent-hook-{}", "protocols"), false),
        (format!("omc-{}", "behaviour"), false),
        (format!("omc-{}", "behavior"), false),
        (format!("{}/", "reference"), false),
    ]
}

/// The forbidden names on each line of `text`: `(line number, name)`. `corpus` is true for a
/// file under `tests/data/`, where only the names marked for it count.
fn outside_refs(text: &str, corpus: bool) -> Vec<(usize, String)> {
    let names = forbidden();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (bad, everywhere) in &names {
            if (*everywhere || !corpus) && line.contains(bad.as_str()) {
                out.push((n + 1, bad.clone()));
            }
        }
    }
    out
}

/// Every file of the clone a reader may open to follow a pointer: the pages, the code, its
/// comments, the tests and their data, the manifests and packaging.
fn scanned_files() -> Vec<PathBuf> {
    let root = repo();
    let mut files = pages();
    for dir in [
        "src",
        "tests",
        "benches",
        "templates",
        "fuzz",
        ".ci",
        ".claude-plugin",
        ".codex-plugin",
        ".github",
        "commands",
        "extensions",
        "packaging",
        "state-schema",
    ] {
        walk(&root.join(dir), &mut |p| {
            let text_like = p.extension().is_some_and(|e| {
                ["rs", "md", "sh", "json", "toml", "tsv", "yml", "yaml", "py"]
                    .contains(&e.to_str().unwrap_or(""))
            }) || p.ends_with(".ci/run");
            if text_like && !p.components().any(|c| c.as_os_str() == "target") {
                files.push(p.to_path_buf());
            }
        });
    }
    for f in ["hooks.json", "Cargo.toml", "dist-workspace.toml"] {
        files.push(root.join(f));
    }
    files
}

#[test]
fn nothing_points_outside_the_repository() {
    let root = repo();
    let files = scanned_files();
    let mut hits = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let rel = f.strip_prefix(&root).unwrap();
        for (line, bad) in outside_refs(&text, rel.starts_with("tests/data")) {
            hits.push(format!("{}:{line}: {bad}", rel.display()));
        }
    }
    assert!(files.len() > 50, "only {} files scanned", files.len());
    for must in [
        "README.md",
        "docs/contract.md",
        "src/protocol/agents/codex.rs",
        "tests/golden/agents/codex/stop-completed.json",
        "benches/latency.rs",
    ] {
        assert!(
            files.iter().any(|f| f.ends_with(must)),
            "{must} is not scanned"
        );
    }
    assert!(
        hits.is_empty(),
        "references outside the repository (the FINDINGS files, the recorded fixtures or the \
         clients' public docs are what a reader of the clone can follow):\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_outside_pointer_check_catches_each_name() {
    // One line per forbidden name, in the way a comment or a golden file would cite it.
    let mut text = String::from("nothing to see here\n");
    for (bad, _) in forbidden() {
        text.push_str(&format!("//! as measured (see {bad} §1.4)\n"));
    }
    let hits = outside_refs(&text, false);
    let names = forbidden();
    assert_eq!(hits.len(), names.len(), "{hits:?}");
    for (i, (bad, _)) in names.iter().enumerate() {
        assert!(
            hits.iter().any(|(l, b)| *l == i + 2 && b == bad),
            "{bad}: {hits:?}"
        );
    }
    // In the keyword corpora only workspace paths count; elsewhere a clean text has none.
    let in_corpus = outside_refs(&text, true);
    assert_eq!(
        in_corpus.len(),
        names.iter().filter(|(_, everywhere)| *everywhere).count(),
        "{in_corpus:?}"
    );
    assert!(outside_refs("see tests/e2e/codex-FINDINGS.md §3\n", false).is_empty());
}

#[test]
fn the_checker_catches_what_it_should() {
    // The parser and the checker, on a page written to fail.
    let md = "# Title\n## 1. Two words\n[ok](#1-two-words) [bad](#nope) `[code](nowhere)`\n\
              ```\n[fenced](nowhere)\n```\n[abs](/etc/passwd) [up](../../outside.md)\n\
              [missing](docs/none.md) [web](https://example.com/x)\n[ref]: also-missing.md\n";
    assert_eq!(
        links(md),
        vec![
            "#1-two-words",
            "#nope",
            "/etc/passwd",
            "../../outside.md",
            "docs/none.md",
            "https://example.com/x",
            "also-missing.md"
        ]
    );
    assert_eq!(
        anchors("# A b\n## A b\n### C, d!\n## A\n"),
        vec!["a-b", "a-b-1", "c-d", "a"]
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(&page, md).unwrap();
    let problems = check_page(&page, dir.path());
    assert_eq!(problems.len(), 5, "{problems:#?}");
    for (needle, what) in [
        ("#nope", "no heading"),
        ("/etc/passwd", "absolute"),
        ("../../outside.md", "outside"),
        ("docs/none.md", "no such file"),
        ("also-missing.md", "no such file"),
    ] {
        assert!(
            problems
                .iter()
                .any(|p| p.contains(needle) && p.contains(what)),
            "{needle}: {problems:#?}"
        );
    }
}
