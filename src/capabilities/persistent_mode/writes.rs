//! What may change the project's files, so that no change after a passing check goes unseen
//! (issue 41, contract §6 "Completion from evidence").
//!
//! A verify command's passing run speaks for the workspace only until something changes it, and
//! changes come by every route: an edit tool, Codex's `apply_patch` (a shell command, which
//! fires PreToolUse and no PostToolUse: tests/e2e/codex-FINDINGS.md §15), `sed -i`, a
//! redirection, `mv`, `git checkout`, a formatter, a script. The hook cannot see the files
//! change without walking the tree (too slow for a hook around every tool call), so it judges
//! the call instead: a tool event **may write** unless it is known to only read. Known to only
//! read are the tools of [`READ_ONLY_TOOLS`] and shell command lines every part of which is a
//! program of [`READ_ONLY`] (under that row's condition) or a verify command, with no
//! redirection into a file, no command substitution, no here-document and no shell wrapper
//! around anything else. Everything else — an unknown program, a script, a line the parser
//! cannot follow (an unclosed quote) — may write. A false alarm costs one more run of the check
//! (the model is told so); a change taken for a read would let a claim pass unverified, so
//! every doubt falls on the side of "may write".
//!
//! Pure functions of the command text: no process is spawned, nothing is read from disk.

use serde_json::Value;

/// What one tool call does to the evidence, in the order it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// It may have changed the project's files.
    Write,
    /// It ran this verify command (as configured), its success meaning the command's.
    Check(String),
}

/// Tools that only read (named as the adapters name them, or as the agents do where an adapter
/// keeps the agent's own name). Any other tool without a shell `command` may write: an edit
/// tool, a subagent, an MCP tool.
pub const READ_ONLY_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "update_plan",
    "BashOutput",
    "read_file",
    "read_many_files",
    "list_directory",
    "glob",
    "search_file_content",
    "grep_search",
    "web_fetch",
    "google_web_search",
    "web_search",
    "todo_write",
];

/// A program's condition: `true` when these arguments may make it write.
type Unless = fn(&[String]) -> bool;

/// Shell programs that only read, each with the arguments under which it may write after all.
/// A program not listed may write. Programs that run another program (`env cmd`, `xargs`,
/// `timeout`, `bash script.sh`) are not listed.
pub const READ_ONLY: &[(&str, Unless)] = &[
    ("ls", never),
    ("cat", never),
    ("head", never),
    ("tail", never),
    ("wc", never),
    ("nl", never),
    ("grep", never),
    ("egrep", never),
    ("fgrep", never),
    ("rg", rg_writes),
    ("find", find_writes),
    ("tree", tree_writes),
    ("sort", sort_writes),
    ("uniq", two_operands),
    ("cut", never),
    ("tr", never),
    ("rev", never),
    ("tac", never),
    ("column", never),
    ("paste", never),
    ("fold", never),
    ("strings", never),
    ("od", never),
    ("hexdump", never),
    ("cmp", never),
    ("comm", never),
    ("diff", never),
    ("md5sum", never),
    ("sha1sum", never),
    ("sha256sum", never),
    ("jq", never),
    ("file", file_writes),
    ("stat", never),
    ("du", never),
    ("df", never),
    ("pwd", never),
    ("cd", never),
    ("pushd", never),
    ("popd", never),
    ("echo", never),
    ("printf", never),
    ("true", never),
    ("false", never),
    (":", never),
    ("test", never),
    ("[", never),
    ("[[", never),
    ("sleep", never),
    ("exit", never),
    ("which", never),
    ("type", never),
    ("basename", never),
    ("dirname", never),
    ("realpath", never),
    ("readlink", never),
    ("date", never),
    ("whoami", never),
    ("id", never),
    ("uname", never),
    ("hostname", never),
    ("nproc", never),
    ("ps", never),
    ("printenv", never),
    ("sed", sed_writes),
    ("awk", awk_writes),
    ("git", git_writes),
];

/// `git` subcommands that only read the repository (refreshing `.git/index` is not a change
/// to the project's files), and those that only read with the arguments given.
const GIT_READS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "ls-tree",
    "cat-file",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "grep",
    "merge-base",
    "name-rev",
    "for-each-ref",
    "count-objects",
    "check-ignore",
    "whatchanged",
    "help",
    "version",
];

/// The steps of a tool call: `tool` its name, `input` its `tool_input`, `verify` the
/// configured verify commands (normalized, [`normalize_command`]).
pub fn steps(tool: &str, input: Option<&Value>, verify: &[String]) -> Vec<Step> {
    let command = input.and_then(|ti| ti.get("command"));
    match command {
        Some(Value::String(line)) => of_line(line, verify),
        // Codex's exec arguments: ["bash", "-lc", "ls"].
        Some(Value::Array(a)) => {
            let words: Option<Vec<String>> =
                a.iter().map(|w| w.as_str().map(str::to_string)).collect();
            match words {
                Some(w) if !w.is_empty() => match shell_script(&w) {
                    Some(script) => of_line(script, verify),
                    None if reads_only(&w, verify) => vec![],
                    None => vec![Step::Write],
                },
                _ => vec![Step::Write],
            }
        }
        _ if READ_ONLY_TOOLS.contains(&tool) => vec![],
        _ => vec![Step::Write],
    }
}

/// The steps of a shell command line.
pub fn of_line(line: &str, verify: &[String]) -> Vec<Step> {
    let normalized = normalize_command(line);
    if let Some(v) = verify.iter().find(|v| **v == normalized) {
        return vec![Step::Check(v.clone())];
    }
    let Some(parsed) = parse(line) else {
        return vec![Step::Write];
    };
    if parsed.unsafe_syntax {
        // A redirection into a file, a substitution, a here-document: it may write whatever
        // else the line does; a check in it is not credited.
        return vec![Step::Write];
    }
    let and_chain = parsed.ops.iter().all(|op| op == "&&");
    let mut out = Vec::new();
    for part in &parsed.parts {
        let text = normalize_command(&line[part.span.0..part.span.1]);
        let step = if let Some(v) = verify.iter().find(|v| **v == text) {
            and_chain.then(|| Step::Check(v.clone()))
        } else if let Some(script) = shell_script(&part.words) {
            // `bash -lc '…'`: what the script does; a check inside it is not credited.
            of_line(script, verify)
                .into_iter()
                .any(|s| s == Step::Write)
                .then_some(Step::Write)
        } else if reads_only(&part.words, verify) {
            None
        } else {
            Some(Step::Write)
        };
        if let Some(s) = step
            && !(s == Step::Write && out.last() == Some(&Step::Write))
        {
            out.push(s);
        }
    }
    out
}

/// A shell command with its spacing made regular and the client's own wrapper taken off
/// (`bash -lc 'ls'` → `ls`).
pub fn normalize_command(c: &str) -> String {
    let words: Vec<&str> = c.split_whitespace().collect();
    let joined = words.join(" ");
    for wrapper in ["bash -lc ", "bash -c ", "sh -c ", "zsh -lc ", "zsh -c "] {
        if let Some(rest) = joined.strip_prefix(wrapper) {
            let rest = rest.trim();
            let unquoted = rest
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .or_else(|| rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
                .unwrap_or(rest);
            return unquoted.trim().to_string();
        }
    }
    joined
}

/// The script of `sh -c '…'` (bash, zsh; `-lc`, `-c`), when that is the whole command.
fn shell_script(words: &[String]) -> Option<&str> {
    match words {
        [sh, flag, script] if is_shell(sh) && matches!(flag.as_str(), "-c" | "-lc" | "-ic") => {
            Some(script)
        }
        _ => None,
    }
}

fn is_shell(w: &str) -> bool {
    let name = w.rsplit('/').next().unwrap_or(w);
    matches!(name, "sh" | "bash" | "zsh" | "dash")
}

/// Whether a simple command (its words, redirections taken off) only reads.
fn reads_only(words: &[String], verify: &[String]) -> bool {
    let Some(program) = words.first() else {
        return true;
    };
    // `NAME=value cmd` can change what a listed program runs (`GIT_PAGER=…`); a bare
    // assignment, too, when the variable is already exported.
    if program.contains('=') && !program.starts_with('=') {
        return false;
    }
    if verify.contains(&words.join(" ")) {
        return true;
    }
    READ_ONLY
        .iter()
        .find(|(name, _)| name == program)
        .is_some_and(|(_, unless)| !unless(&words[1..]))
}

fn never(_: &[String]) -> bool {
    false
}

/// Any argument equal to one of `flags` or starting with `flag=`.
fn has(args: &[String], flags: &[&str]) -> bool {
    args.iter().any(|a| {
        flags
            .iter()
            .any(|f| a == f || a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    })
}

/// A cluster of short options (`-ni`) holding `c`, or the option attached (`-ofile`).
fn short(args: &[String], c: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c))
}

fn operands(args: &[String]) -> usize {
    args.iter().filter(|a| !a.starts_with('-')).count()
}

/// `file -C` compiles a magic file into the working directory.
fn file_writes(a: &[String]) -> bool {
    short(a, 'C') || has(a, &["--compile"])
}

fn rg_writes(a: &[String]) -> bool {
    has(a, &["--pre"])
}

fn find_writes(a: &[String]) -> bool {
    has(
        a,
        &[
            "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
    )
}

fn tree_writes(a: &[String]) -> bool {
    short(a, 'o')
}

fn sort_writes(a: &[String]) -> bool {
    short(a, 'o') || has(a, &["--output"]) || a.iter().any(|x| x.starts_with("--compress-prog"))
}

/// `uniq in out` writes `out`.
fn two_operands(a: &[String]) -> bool {
    operands(a) > 1
}

/// `-i`/`--in-place`, a script file, or a script with a `w`, `W` or `e` in it (written out
/// or executed; a regex holding those letters is a false alarm).
fn sed_writes(a: &[String]) -> bool {
    if short(a, 'i') || short(a, 'f') || has(a, &["--in-place", "--file"]) {
        return true;
    }
    if a.iter().any(|x| x.starts_with("--in-place")) {
        return true;
    }
    let mut scripts: Vec<&str> = Vec::new();
    let mut it = a.iter();
    while let Some(x) = it.next() {
        if x == "-e" || x == "--expression" {
            scripts.extend(it.next().map(String::as_str));
        } else if let Some(s) = x.strip_prefix("--expression=") {
            scripts.push(s);
        }
    }
    if scripts.is_empty() {
        scripts.extend(a.iter().find(|x| !x.starts_with('-')).map(String::as_str));
    }
    scripts.iter().any(|s| s.contains(['w', 'W', 'e']))
}

/// gawk's `-i inplace`, a program file, or a program that redirects, pipes or runs a command.
fn awk_writes(a: &[String]) -> bool {
    short(a, 'i')
        || short(a, 'f')
        || a.iter()
            .any(|x| x.contains(['>', '|']) || x.contains("system"))
}

fn git_writes(a: &[String]) -> bool {
    let mut i = 0;
    // Options before the subcommand; `-c name=value` can set a pager or a diff program.
    while let Some(x) = a.get(i) {
        match x.as_str() {
            "-C" => i += 2,
            "--no-pager" | "-P" | "--no-optional-locks" => i += 1,
            _ if x.starts_with("--git-dir=") || x.starts_with("--work-tree=") => i += 1,
            _ => break,
        }
    }
    let Some(sub) = a.get(i) else {
        return false;
    };
    let rest = &a[i + 1..];
    if has(rest, &["--output", "--ext-diff", "--open-files-in-pager"])
        || rest.iter().any(|x| x.starts_with("-O"))
    {
        return true;
    }
    let listing = |allowed: &[&str]| rest.iter().all(|x| allowed.contains(&x.as_str()));
    match sub.as_str() {
        s if GIT_READS.contains(&s) => false,
        "branch" => !listing(&[
            "-a",
            "-r",
            "-v",
            "-vv",
            "--list",
            "-l",
            "--all",
            "--remotes",
            "--show-current",
        ]),
        "tag" => !listing(&["-l", "--list"]),
        "remote" => !listing(&["-v", "show"]) || rest.len() > 1,
        "stash" => !matches!(rest.first().map(String::as_str), Some("list" | "show")),
        "config" => !rest
            .first()
            .is_some_and(|x| matches!(x.as_str(), "--get" | "--get-all" | "--list" | "-l")),
        _ => true,
    }
}

/// A command line split into simple commands.
#[derive(Debug, Default)]
struct Parsed {
    parts: Vec<Part>,
    /// The operators between them, in order (`&&`, `||`, `;`, `|`, `&`, a newline as `;`,
    /// `(` and `)`).
    ops: Vec<String>,
    /// A redirection into a file, a command or process substitution, a here-document.
    unsafe_syntax: bool,
}

#[derive(Debug, Default)]
struct Part {
    words: Vec<String>,
    /// Byte range of the part in the line.
    span: (usize, usize),
}

/// Redirection targets that are not files.
const HARMLESS_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Splits a command line as a POSIX shell would, far enough to see its simple commands and
/// what could write; `None` when it cannot be followed (an unclosed quote).
fn parse(line: &str) -> Option<Parsed> {
    let b = line.as_bytes();
    let mut p = Parsed::default();
    let mut part = Part::default();
    let mut word: Option<String> = None;
    let mut part_start: Option<usize> = None;
    let mut part_end = 0;
    // The next word is a redirection's target: `Some(true)` for an output one.
    let mut target: Option<bool> = None;
    let mut i = 0;

    let end_word = |word: &mut Option<String>,
                    part: &mut Part,
                    target: &mut Option<bool>,
                    unsafe_syntax: &mut bool| {
        if let Some(w) = word.take() {
            match target.take() {
                Some(true) => {
                    let fd_dup = w == "-" || w.bytes().all(|c| c.is_ascii_digit());
                    if !fd_dup && !HARMLESS_TARGETS.contains(&w.as_str()) {
                        *unsafe_syntax = true;
                    }
                }
                Some(false) => {}
                None => part.words.push(w),
            }
        }
    };
    macro_rules! finish_part {
        ($op:expr) => {{
            end_word(&mut word, &mut part, &mut target, &mut p.unsafe_syntax);
            if target.is_some() {
                // A redirection without a target: not a line the shell would run.
                return None;
            }
            if let Some(s) = part_start.take() {
                part.span = (s, part_end);
                p.parts.push(std::mem::take(&mut part));
            }
            p.ops.push(String::from($op));
        }};
    }

    while i < b.len() {
        let c = b[i];
        let rest = &line[i..];
        match c {
            b' ' | b'\t' => {
                end_word(&mut word, &mut part, &mut target, &mut p.unsafe_syntax);
                i += 1;
                continue;
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'#' if word.is_none() => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        if part_start.is_none() && !matches!(c, b'\n' | b';' | b'&' | b'|' | b'(' | b')') {
            part_start = Some(i);
        }
        let op = ["&&", "||", "|&", ";;", "&>>", "&>"]
            .iter()
            .find(|o| rest.starts_with(**o));
        match (c, op) {
            (_, Some(&o)) if o.starts_with("&>") => {
                end_word(&mut word, &mut part, &mut target, &mut p.unsafe_syntax);
                target = Some(true);
                i += o.len();
            }
            (_, Some(&o)) => {
                finish_part!(o);
                i += o.len();
            }
            (b'\n' | b';', _) => {
                finish_part!(";");
                i += 1;
            }
            (b'|' | b'&' | b'(' | b')', _) => {
                if c == b'('
                    && word
                        .as_deref()
                        .is_some_and(|w| w.ends_with(['$', '<', '>']))
                {
                    p.unsafe_syntax = true;
                }
                finish_part!((c as char).to_string());
                i += 1;
            }
            (b'>' | b'<', _) => {
                // An fd number written before it (`2>`) belongs to the redirection.
                if word
                    .as_deref()
                    .is_some_and(|w| w.bytes().all(|d| d.is_ascii_digit()))
                {
                    word = None;
                }
                end_word(&mut word, &mut part, &mut target, &mut p.unsafe_syntax);
                if rest.starts_with("<<")
                    || rest.starts_with("<>")
                    || rest.starts_with("<(")
                    || rest.starts_with(">(")
                {
                    p.unsafe_syntax = true;
                }
                let out = c == b'>';
                let mut n = 1;
                while i + n < b.len() && matches!(b[i + n], b'>' | b'&' | b'|' | b'<') {
                    n += 1;
                }
                target = Some(out);
                i += n;
            }
            (b'`', _) => {
                p.unsafe_syntax = true;
                i += 1;
            }
            (b'$', _) if b.get(i + 1) == Some(&b'(') => {
                p.unsafe_syntax = true;
                i += 2;
            }
            (b'\'', _) => {
                let close = line[i + 1..].find('\'')? + i + 1;
                word.get_or_insert_default().push_str(&line[i + 1..close]);
                i = close + 1;
            }
            (b'"', _) => {
                let mut j = i + 1;
                let mut text = String::new();
                loop {
                    let ch = *b.get(j)?;
                    match ch {
                        b'"' => break,
                        b'\\' if j + 1 < b.len() => {
                            text.push(b[j + 1] as char);
                            j += 2;
                            continue;
                        }
                        b'`' => p.unsafe_syntax = true,
                        b'$' if b.get(j + 1) == Some(&b'(') => p.unsafe_syntax = true,
                        _ => {}
                    }
                    let len = line[j..].chars().next().map_or(1, char::len_utf8);
                    text.push_str(&line[j..j + len]);
                    j += len;
                }
                word.get_or_insert_default().push_str(&text);
                i = j + 1;
            }
            (b'\\', _) => {
                let next = line[i + 1..].chars().next();
                if let Some(ch) = next {
                    word.get_or_insert_default().push(ch);
                    i += 1 + ch.len_utf8();
                } else {
                    i += 1;
                }
            }
            _ => {
                let ch = rest.chars().next().unwrap_or(' ');
                word.get_or_insert_default().push(ch);
                i += ch.len_utf8();
            }
        }
        if part_start.is_some() {
            part_end = i;
        }
    }
    end_word(&mut word, &mut part, &mut target, &mut p.unsafe_syntax);
    if target.is_some() {
        return None;
    }
    if let Some(s) = part_start {
        part.span = (s, part_end);
        p.parts.push(part);
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(l: &str) -> Vec<Step> {
        of_line(
            l,
            &["pytest -q".to_string(), "python3 check.py".to_string()],
        )
    }

    fn writes(l: &str) -> bool {
        line(l).contains(&Step::Write)
    }

    #[test]
    fn reading_commands_do_not_write() {
        for l in [
            "ls -la",
            "cat app.py",
            "grep -n 'a|b > c' src/app.py",
            "rg -n \"x > y\" src",
            "git status",
            "git -C app diff --stat",
            "git log --oneline -5",
            "git branch",
            "git stash list",
            "sed -n '1,80p' app.py",
            "cat app.py | head -20 | wc -l",
            "ls 2>/dev/null || true",
            "cd app && ls >/dev/null 2>&1",
            "find . -name '*.py'",
            "sort names.txt | uniq -c",
            "echo done",
            "jq .name package.json # a comment > x",
        ] {
            assert_eq!(line(l), vec![], "{l}");
        }
    }

    #[test]
    fn anything_that_may_change_a_file_writes() {
        for l in [
            "sed -i 's/2/3/' app.py",
            "sed -ni 's/2/3/p' app.py",
            "sed --in-place=.bak 's/2/3/' app.py",
            "sed -n 'w out.txt' app.py",
            "echo x > app.py",
            "echo x >> app.py",
            "echo x &> app.py",
            "cat a 2> err.log",
            "cat a | tee app.py",
            "mv a.py b.py",
            "cp a.py b.py",
            "rm app.py",
            "git checkout app.py",
            "git stash",
            "git apply fix.patch",
            "git -c core.pager=sh log",
            "git diff --output=x.patch",
            "black .",
            "python3 gen.py",
            "./script.sh",
            "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF",
            "cat <<EOF\nx\nEOF",
            "ls $(touch x)",
            "ls `touch x`",
            "echo \"$(rm app.py)\"",
            "diff <(ls) <(ls b)",
            "ls; touch x",
            "ls\ntouch x",
            "ls && (touch x)",
            "find . -name '*.pyc' -delete",
            "find . -exec rm {} +",
            "file -C -m magic",
            "git grep --open-files-in-pager=vi x",
            "sort -o out.txt in.txt",
            "uniq in.txt out.txt",
            "awk '{print > \"out\"}' in",
            "GIT_PAGER='sed -i s/a/b/ app.py' git log",
            "bash -lc 'ls && touch x'",
            "bash script.sh",
            "xargs rm < list",
            "echo 'unclosed",
            "ls >",
        ] {
            assert!(writes(l), "{l}");
        }
    }

    #[test]
    fn a_check_is_credited_where_it_ran_in_an_and_chain() {
        let check = || Step::Check("pytest -q".into());
        assert_eq!(line("pytest -q"), vec![check()]);
        assert_eq!(line("  pytest   -q "), vec![check()]);
        assert_eq!(line("cd app && pytest -q"), vec![check()]);
        assert_eq!(
            line("sed -i s/2/3/ app.py && pytest -q"),
            vec![Step::Write, check()]
        );
        assert_eq!(
            line("pytest -q && sed -i s/2/3/ app.py"),
            vec![check(), Step::Write]
        );
        // Another operator lets another command decide the exit status: not credited.
        assert_eq!(line("pytest -q || true"), vec![]);
        assert_eq!(line("pytest -q; sed -i s/2/3/ x"), vec![Step::Write]);
        assert_eq!(line("pytest -q | tail"), vec![]);
        assert_eq!(line("pytest -q > log.txt"), vec![Step::Write]);
        assert_eq!(line("bash -lc 'pytest -q'"), vec![check()]);
    }

    #[test]
    fn tools_other_than_the_shell() {
        use serde_json::json;
        let v: Vec<String> = vec![];
        assert_eq!(steps("Read", Some(&json!({"file_path": "a"})), &v), vec![]);
        assert_eq!(steps("Grep", None, &v), vec![]);
        for t in [
            "Edit",
            "Write",
            "MultiEdit",
            "Task",
            "mcp__fs__write",
            "replace",
        ] {
            assert_eq!(steps(t, Some(&json!({})), &v), vec![Step::Write], "{t}");
        }
        assert_eq!(
            steps("Bash", Some(&json!({"command": "sed -i s/2/3/ a"})), &v),
            vec![Step::Write]
        );
        assert_eq!(
            steps(
                "shell",
                Some(&json!({"command": ["bash", "-lc", "ls"]})),
                &v
            ),
            vec![]
        );
        assert_eq!(
            steps("shell", Some(&json!({"command": ["rm", "a"]})), &v),
            vec![Step::Write]
        );
    }

    #[test]
    fn every_row_is_a_bare_program_name_once() {
        let mut names: Vec<&str> = READ_ONLY.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
        assert!(names.iter().all(|n| !n.contains('/') && !n.contains(' ')));
    }
}
