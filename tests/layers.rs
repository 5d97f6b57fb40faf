//! The code is layered one way (dispatch → capabilities → protocol → state; docs/architecture.md
//! "Layers"): no two files of `src/` may reach each other, directly or through others. This
//! test reads every file of `src/`, finds each reference it makes to another file's module
//! (`use crate::…`, `super::…`, inline `crate::x::y` paths), and fails on any cycle, naming
//! the files in it and the lines that close it.
//!
//! What counts as an edge: file A names an item of module M, and M is defined in file B. A
//! module's own file naming the modules declared under it (`mod.rs` registering its children,
//! re-exporting them) is not an edge: that is how a folder is put together, and the children
//! are free to use what their parent defines. Test code (`#[cfg(test)]` items) is left out:
//! it is not part of the product's layering.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root (`["capabilities", "keywords"]`).
type ModPath = Vec<String>;

#[test]
fn no_import_cycle_between_files_of_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::of(&src);
    let cycles = graph.cycles();
    let described: Vec<String> = cycles.iter().map(|c| graph.describe(c)).collect();
    assert!(
        described.is_empty(),
        "{} import cycle(s) between files of src/:\n\n{}",
        described.len(),
        described.join("\n\n")
    );
}

/// The top-level modules of `src/`, highest first, as docs/architecture.md ("Layers") draws
/// them. A file may use a module of its own folder or of a lower layer, never of a higher one;
/// the ground floor uses nothing of the crate.
const LAYERS: &[&[&str]] = &[
    &["cli"],
    &["dispatch"],
    &["capabilities"],
    &["export"],
    &["user_hooks"],
    &["protocol"],
    &["modes"],
    &["config"],
    &["state"],
    &["hooks", "env", "time", "diag"],
    &["terminal"],
    &["redact", "platform"],
];

#[test]
fn every_file_reaches_only_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::of(&src);
    let top = |rel: &str| {
        rel.split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string()
    };
    let rank = |m: &str| LAYERS.iter().position(|layer| layer.contains(&m));
    let mut wrong = Vec::new();
    for rel in graph.modules.values() {
        let from = top(rel);
        if from == "lib" {
            continue;
        }
        let Some(r_from) = rank(&from) else {
            wrong.push(format!(
                "src/{rel}: top-level module `{from}` is in no layer"
            ));
            continue;
        };
        for (to, line) in graph.edges.get(rel).into_iter().flatten() {
            let to_top = top(to);
            if to_top == from || to_top == "lib" {
                continue;
            }
            match rank(&to_top) {
                Some(r_to) if r_to > r_from => {}
                _ => wrong.push(format!(
                    "src/{rel}:{line} → src/{to} (up or across the layers)"
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What the person writes has one room below its readers (docs/architecture.md "What the person
/// writes"): `hooks.toml` is parsed and checked in `config/`, so `user_hooks/` (which runs its
/// entries) and `export/` (which ships events to its sinks) both read their configuration from
/// `config/` and never from each other; and only `config/` parses TOML.
#[test]
fn export_and_user_hooks_read_their_configuration_from_config_not_from_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::of(&src);
    let reaches = |from: &str, to: &str| -> Vec<String> {
        graph
            .edges
            .iter()
            .filter(|(f, _)| f.starts_with(from))
            .flat_map(|(f, targets)| {
                targets
                    .iter()
                    .filter(|(t, _)| t.starts_with(to))
                    .map(move |(t, line)| format!("src/{f}:{line} → src/{t}"))
            })
            .collect()
    };
    let across: Vec<String> = [
        reaches("export/", "user_hooks/"),
        reaches("user_hooks/", "export/"),
    ]
    .concat();
    assert!(
        across.is_empty(),
        "export/ and user_hooks/ reach each other:\n{}",
        across.join("\n")
    );
    for reader in ["export/", "user_hooks/"] {
        assert!(
            !reaches(reader, "config/hooks_toml/").is_empty(),
            "{reader} no longer reads hooks.toml from config/hooks_toml/"
        );
    }
    let mut files = Vec::new();
    collect(&src, &mut files);
    let parsers: Vec<String> = files
        .iter()
        .map(|f| rel_name(&src, f))
        .filter(|rel| !rel.starts_with("config/"))
        .filter(|rel| {
            let text = std::fs::read_to_string(src.join(rel)).unwrap();
            let toks = without_test_code(lex(&text));
            toks.windows(2)
                .any(|w| w[0].0 == Tok::Ident("toml".into()) && w[1].0 == Tok::Path)
        })
        .collect();
    assert!(
        parsers.is_empty(),
        "TOML is parsed outside config/: {parsers:?}"
    );
}

#[test]
fn the_checker_sees_a_cycle_when_there_is_one() {
    // The test above can only pass honestly if the checker finds cycles: build a tiny tree
    // with one, and one without.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write("a.rs", "use crate::b::inner::Thing;\npub struct A;\n");
    write(
        "b/mod.rs",
        "pub mod inner;\npub use inner::Thing;\nfn f() { inner::g(); }\n",
    );
    write(
        "b/inner.rs",
        "pub struct Thing;\npub fn g() { let _ = super::super::c::C; }\n\
         #[cfg(test)]\nmod tests { use crate::a::A; }\n",
    );
    write("c.rs", "pub struct C;\nfn h() { let _ = crate::a::A; }\n");
    let graph = Graph::of(src);
    let cycles = graph.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let files: BTreeSet<&str> = cycles[0].iter().map(String::as_str).collect();
    assert_eq!(files, BTreeSet::from(["a.rs", "b/inner.rs", "c.rs"]));

    // Break it: c no longer reaches a. The parent → child edge of b/mod.rs and the test-only
    // reference of b/inner.rs do not make a cycle on their own.
    write("c.rs", "pub struct C;\n");
    assert!(Graph::of(src).cycles().is_empty());
}

/// Files, the modules they define, and the references between them.
struct Graph {
    /// Module path → file (relative to src/).
    modules: BTreeMap<ModPath, String>,
    /// File → (file it reaches → first line that does).
    edges: BTreeMap<String, BTreeMap<String, usize>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let mut files = Vec::new();
        collect(src, &mut files);
        let mut modules = BTreeMap::new();
        for f in &files {
            let rel = rel_name(src, f);
            if rel == "main.rs" {
                continue; // the binary: a separate crate that only calls `run`.
            }
            modules.insert(module_path(&rel), rel);
        }
        let mut refs = BTreeMap::new();
        for (here, rel) in &modules {
            let text = std::fs::read_to_string(src.join(rel)).unwrap();
            refs.insert(here.clone(), references(&without_test_code(lex(&text))));
        }
        // What each module re-exports, by name: `pub use inner::Thing;` in b/mod.rs makes
        // `crate::b::Thing` land in b/inner.rs.
        let mut reexports = BTreeMap::new();
        for (here, list) in &refs {
            for r in list {
                if let (Some(name), Some(abs)) =
                    (&r.reexported_as, absolute(here, &r.path, &modules))
                {
                    reexports.insert((here.clone(), name.clone()), abs);
                }
            }
        }
        let mut edges: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for (here, list) in &refs {
            let rel = &modules[here];
            for r in list {
                let Some(abs) = absolute(here, &r.path, &modules) else {
                    continue;
                };
                let target = land(abs, &modules, &reexports, 0);
                // A module's file reaching into the modules declared under it, or itself.
                if target.len() >= here.len() && target[..here.len()] == here[..] {
                    continue;
                }
                let to = modules[&target].clone();
                edges
                    .entry(rel.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(r.line);
            }
        }
        Graph { modules, edges }
    }

    /// Every strongly connected component of more than one file (Tarjan), files sorted.
    fn cycles(&self) -> Vec<Vec<String>> {
        struct Tarjan<'a> {
            g: &'a Graph,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            on_stack: BTreeSet<&'a str>,
            next: usize,
            out: Vec<Vec<String>>,
        }
        impl<'a> Tarjan<'a> {
            fn visit(&mut self, v: &'a str) {
                self.index.insert(v, self.next);
                self.low.insert(v, self.next);
                self.next += 1;
                self.stack.push(v);
                self.on_stack.insert(v);
                if let Some(targets) = self.g.edges.get(v) {
                    for w in targets.keys() {
                        let w = w.as_str();
                        if !self.index.contains_key(w) {
                            self.visit(w);
                            let lw = self.low[w];
                            let lv = self.low.get_mut(v).unwrap();
                            *lv = (*lv).min(lw);
                        } else if self.on_stack.contains(w) {
                            let iw = self.index[w];
                            let lv = self.low.get_mut(v).unwrap();
                            *lv = (*lv).min(iw);
                        }
                    }
                }
                if self.low[v] == self.index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = self.stack.pop().unwrap();
                        self.on_stack.remove(w);
                        comp.push(w.to_string());
                        if w == v {
                            break;
                        }
                    }
                    if comp.len() > 1 {
                        comp.sort();
                        self.out.push(comp);
                    }
                }
            }
        }
        let mut t = Tarjan {
            g: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            next: 0,
            out: Vec::new(),
        };
        for file in self.modules.values() {
            if !t.index.contains_key(file.as_str()) {
                t.visit(file);
            }
        }
        t.out.sort();
        t.out
    }

    /// The files of a cycle and, for each, the references that stay inside it.
    fn describe(&self, files: &[String]) -> String {
        let inside: BTreeSet<&String> = files.iter().collect();
        let mut lines = vec![format!("cycle: {}", files.join(", "))];
        for f in files {
            for (to, line) in self.edges.get(f).into_iter().flatten() {
                if inside.contains(to) {
                    lines.push(format!("  src/{f}:{line} → src/{to}"));
                }
            }
        }
        lines.join("\n")
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn rel_name(src: &Path, f: &Path) -> String {
    f.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// `capabilities/keywords/mod.rs` → `[capabilities, keywords]`; `lib.rs` → `[]`.
fn module_path(rel: &str) -> ModPath {
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && stem == "lib")) {
        parts.push(stem.to_string());
    }
    parts
}

/// A path made absolute from the module `here` that names it: `crate::…`, `self::…`,
/// `super::…`, or a path starting with a module declared under `here` (`inner::Thing` in
/// b/mod.rs). `None` for paths outside the crate (std, dependencies).
fn absolute(
    here: &ModPath,
    path: &[String],
    modules: &BTreeMap<ModPath, String>,
) -> Option<ModPath> {
    let first = path.first()?;
    let mut abs: ModPath = match first.as_str() {
        "crate" => Vec::new(),
        "self" | "super" => here.clone(),
        _ => {
            let mut child = here.clone();
            child.push(first.clone());
            if !modules.contains_key(&child) {
                return None;
            }
            child.extend(path[1..].iter().cloned());
            return Some(child);
        }
    };
    let mut rest = &path[1..];
    if first == "super" {
        abs.pop();
        while rest.first().is_some_and(|s| s == "super") {
            abs.pop();
            rest = &rest[1..];
        }
    }
    abs.extend(rest.iter().cloned());
    Some(abs)
}

/// The module an absolute path lands in: the longest prefix that is a file's module, followed
/// through that module's re-exports (`pub use`) to where the item is defined.
fn land(
    abs: ModPath,
    modules: &BTreeMap<ModPath, String>,
    reexports: &BTreeMap<(ModPath, String), ModPath>,
    depth: usize,
) -> ModPath {
    let n = (0..=abs.len())
        .rev()
        .find(|n| modules.contains_key(&abs[..*n]))
        .unwrap_or(0);
    let module = abs[..n].to_vec();
    if n < abs.len()
        && depth < 8
        && let Some(target) = reexports.get(&(module.clone(), abs[n].clone()))
    {
        let mut next = target.clone();
        next.extend(abs[n + 1..].iter().cloned());
        return land(next, modules, reexports, depth + 1);
    }
    module
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Path,
}

/// Rust source → identifiers and punctuation with their lines; comments, strings and
/// character literals dropped, lifetimes kept apart from character literals.
fn lex(text: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if b.get(i + 1) == Some(&'/') => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if b[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    if b[i] == '\\' {
                        i += 1;
                    }
                    if b.get(i) == Some(&'\n') {
                        line += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            'r' | 'b' if is_raw_string(&b, i) => {
                // r"…", r#"…"#, br#"…"#
                let mut j = i + 1;
                if b[i] == 'b' {
                    j += 1;
                }
                let mut hashes = 0;
                while b[j] == '#' {
                    hashes += 1;
                    j += 1;
                }
                j += 1; // the opening quote
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    if b[j] == '\n' {
                        line += 1;
                    }
                    j += 1;
                }
                i = j;
            }
            '\'' => {
                // 'x', '\n', '\u{1F600}' are characters; 'a (no closing quote) a lifetime.
                if b.get(i + 1) == Some(&'\\') {
                    i += 3;
                    while i < b.len() && b[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if b.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1;
                    while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                        i += 1;
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
                out.push((Tok::Ident(b[start..i].iter().collect()), line));
            }
            ':' if b.get(i + 1) == Some(&':') => {
                out.push((Tok::Path, line));
                i += 2;
            }
            c if c.is_whitespace() => i += 1,
            c if c.is_ascii_digit() => i += 1,
            c => {
                out.push((Tok::Punct(c), line));
                i += 1;
            }
        }
    }
    out
}

fn is_raw_string(b: &[char], i: usize) -> bool {
    let mut j = i;
    if b[j] == 'b' {
        j += 1;
        if b.get(j) != Some(&'r') {
            return false;
        }
    }
    if i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_') {
        return false;
    }
    j += 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    b.get(j) == Some(&'"')
}

/// Drops every item under `#[cfg(test)]` (a `mod tests { … }`, a test-only function or use).
fn without_test_code(tokens: Vec<(Tok, usize)>) -> Vec<(Tok, usize)> {
    let ident = |t: &Tok, s: &str| matches!(t, Tok::Ident(x) if x == s);
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let is_cfg_test = matches!(tokens[i].0, Tok::Punct('#'))
            && tokens.get(i + 1).is_some_and(|t| t.0 == Tok::Punct('['))
            && tokens.get(i + 2).is_some_and(|t| ident(&t.0, "cfg"))
            && tokens.get(i + 3).is_some_and(|t| t.0 == Tok::Punct('('))
            && tokens.get(i + 4).is_some_and(|t| ident(&t.0, "test"))
            && tokens.get(i + 5).is_some_and(|t| t.0 == Tok::Punct(')'));
        if !is_cfg_test {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // Skip the attribute, then the item: up to its `;` or its balanced `{ … }`.
        i += 7;
        let mut depth = 0;
        while i < tokens.len() {
            match tokens[i].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                Tok::Punct(';') if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// A path a file names, with the line it is on, and, for a `pub use`, the name under which
/// the file re-exports it.
struct Reference {
    path: Vec<String>,
    line: usize,
    reexported_as: Option<String>,
}

/// Every path the tokens name: the leaves of `use` trees (`use crate::a::{b, c::D}` →
/// `crate::a::b`, `crate::a::c::D`) and inline paths starting with `crate`, `super` or `self`
/// (`crate::diag!`, `super::Ctx`).
fn references(tokens: &[(Tok, usize)]) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if matches!(&tokens[i].0, Tok::Ident(s) if s == "use") {
            let line = tokens[i].1;
            // `pub use` and `pub(crate) use` re-export; a plain `use` only imports.
            let public = i > 0
                && (matches!(&tokens[i - 1].0, Tok::Ident(s) if s == "pub")
                    || tokens[i - 1].0 == Tok::Punct(')'));
            i += 1;
            let mut leaves = Vec::new();
            i = use_tree(tokens, i, Vec::new(), &mut leaves);
            for (path, alias) in leaves {
                let name = alias.or_else(|| path.last().cloned());
                let reexported_as = name.filter(|n| public && n != "self" && n != "*");
                out.push(Reference {
                    path,
                    line,
                    reexported_as,
                });
            }
            continue;
        }
        // An inline path: a root keyword followed by `::`, not itself preceded by `::`.
        let starts = matches!(&tokens[i].0, Tok::Ident(s) if s == "crate" || s == "super" || s == "self")
            && tokens.get(i + 1).is_some_and(|t| t.0 == Tok::Path)
            && (i == 0 || tokens[i - 1].0 != Tok::Path);
        if starts {
            let line = tokens[i].1;
            let mut path = Vec::new();
            let mut j = i;
            while let Some((Tok::Ident(s), _)) = tokens.get(j) {
                path.push(s.clone());
                if tokens.get(j + 1).is_some_and(|t| t.0 == Tok::Path) {
                    j += 2;
                } else {
                    j += 1;
                    break;
                }
            }
            out.push(Reference {
                path,
                line,
                reexported_as: None,
            });
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Reads one use tree from `i` with `prefix` so far; pushes its leaves; returns the index
/// after it (past a `;` when the tree ends the statement).
fn use_tree(
    tokens: &[(Tok, usize)],
    mut i: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut alias = None;
    loop {
        match tokens.get(i).map(|t| &t.0) {
            Some(Tok::Ident(s)) if s == "as" => {
                // `a::b as c`: the path is a::b, the name it binds c.
                if let Some((Tok::Ident(a), _)) = tokens.get(i + 1) {
                    alias = Some(a.clone());
                }
                i += 2;
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                i += 1;
            }
            Some(Tok::Path) => i += 1,
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match tokens.get(i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => i += 1,
                        None => return i,
                        _ => i = use_tree(tokens, i, prefix.clone(), leaves),
                    }
                }
                // Inside braces the caller goes on; at the top the `;` ends it.
                if tokens.get(i).is_some_and(|t| t.0 == Tok::Punct(';')) {
                    i += 1;
                }
                return i;
            }
            Some(Tok::Punct('*')) => {
                i += 1;
            }
            Some(Tok::Punct(';')) => {
                leaves.push((prefix, alias));
                return i + 1;
            }
            Some(Tok::Punct(',')) | Some(Tok::Punct('}')) => {
                leaves.push((prefix, alias));
                return i;
            }
            _ => {
                leaves.push((prefix, alias));
                return i + 1;
            }
        }
    }
}
