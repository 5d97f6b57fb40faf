//! Output that lies: a shell command that exited 0 but whose output shows a failure — a test
//! run piped into `tail`, a build followed by `; echo done`, `|| true` — gets one short hint to
//! read the output again (contract §8). Agents act on the exit status; a model that sees
//! "exit 0" tends to carry on past `test result: FAILED`.
//!
//! Precision comes first: a hint on a success teaches the model to ignore hints. Words alone
//! ("error", "failed", "panic") say nothing — passing test runs name tests after errors, `git
//! log` lists commits that fixed a panic, `grep ERROR` finds log lines. So only shapes that
//! tools print *when they fail* count: a test summary with a non-zero failure count, a
//! compiler's or git's `error:` / `fatal:` at the start of a line, `npm error`, Python's
//! `Traceback` header, an uncaught exception with its stack, `make: ***`, a shell's "No such
//! file or directory". Held to the labelled real outputs in `tests/data/tool-outputs/`
//! (precision at least 0.98), which were captured before this file was written.

use super::Ctx;
use crate::protocol::Answer;

const HINT: &str = include_str!("../../templates/output-check/hint.md");

/// The longest evidence line quoted in the hint, in characters.
const MAX_EVIDENCE_CHARS: usize = 160;

/// PostToolUse: a shell call that succeeded (as far as the agent reported) whose output shows
/// a failure gets the hint.
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let input = ctx.input;
    if input.tool_name.as_deref() != Some("Bash") || input.outcome_unknown {
        return Answer::default();
    }
    let Some(response) = &input.tool_response else {
        return Answer::default();
    };
    // A failure the agent reported is the failure capabilities' business, not a lie.
    if crate::protocol::agents::outcome::failure(response).is_some() {
        return Answer::default();
    }
    // A command whose job is to show text (`cat` of a fixture, `git show`) prints what the
    // text says, not its own verdict.
    if input.tool_input_str("command").is_some_and(only_shows_text) {
        return Answer::default();
    }
    let Some(text) = crate::protocol::agents::outcome::output_text(response) else {
        return Answer::default();
    };
    match shows_failure(&ends(&text)) {
        Some(evidence) => Answer::context(hint(&evidence)),
        None => Answer::default(),
    }
}

/// Of an output longer than twice [`CHECKED_END`], the lines it starts and ends with (about
/// that much of each): where a tool prints its verdict — a summary, the error it stopped at, the
/// header of its stack trace. A huge output (a test run's 8 MiB log) is then checked at the
/// cost of a short one; a failure line only in its middle is not seen.
pub fn ends(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= 2 * CHECKED_END {
        return text.into();
    }
    let mut head = CHECKED_END;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let head = text[..head].rfind('\n').map_or(head, |i| i + 1);
    let mut tail = text.len() - CHECKED_END;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let tail = text[tail..].find('\n').map_or(tail, |i| tail + i + 1);
    format!("{}{}", &text[..head], &text[tail..]).into()
}

/// How much of each end of a long output is checked ([`ends`]).
const CHECKED_END: usize = 64 * 1024;

/// Commands whose job is to show text — a file, a record, a search's hits, an explanation:
/// their output is that text, never their own failure. `(program, what must follow it)`: a
/// subcommand or flag (`git show`, `sed -n`, `rustc --explain`), or `""` for the program
/// alone.
const SHOWS_TEXT: &[(&str, &str)] = &[
    ("cat", ""),
    ("head", ""),
    ("tail", ""),
    ("less", ""),
    ("more", ""),
    ("bat", ""),
    ("batcat", ""),
    ("nl", ""),
    ("grep", ""),
    ("egrep", ""),
    ("fgrep", ""),
    ("rg", ""),
    ("ag", ""),
    ("sed", "-n"),
    ("git", "show"),
    ("git", "log"),
    ("git", "diff"),
    ("git", "blame"),
    ("git", "grep"),
    ("git", "cat-file"),
    ("rustc", "--explain"),
    ("man", ""),
    ("echo", ""),
    ("printf", ""),
    ("wc", ""),
    ("sort", ""),
    ("uniq", ""),
    ("cut", ""),
    ("jq", ""),
    ("xxd", ""),
    ("od", ""),
    ("strings", ""),
];

/// Whether every command of a shell command line (split at `|`, `;`, `&&`, `||` and new
/// lines) only shows text ([`SHOWS_TEXT`]): `cat log | grep FAILED` does, `cargo test | tail`
/// does not (its first command runs the tests). Quotes are not parsed: a `|` inside one
/// splits a command wrongly, which can only make a command look less like showing text.
pub fn only_shows_text(command: &str) -> bool {
    let mut any = false;
    for segment in command.split(['|', ';', '\n']).flat_map(|s| s.split("&&")) {
        let words: Vec<&str> = segment
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        let Some(first) = words.first() else {
            continue;
        };
        let program = first.rsplit('/').next().unwrap_or(first);
        let args = &words[1..];
        let shows = SHOWS_TEXT.iter().any(|(p, needs)| {
            *p == program
                && match (*p, *needs) {
                    (_, "") => true,
                    // `sed -n …p` prints; `sed -i` edits.
                    ("sed", flag) => {
                        args.contains(&flag) && !args.iter().any(|a| a.starts_with("-i"))
                    }
                    ("git", sub) => git_subcommand(args) == Some(sub),
                    (_, flag) => args.first() == Some(&flag),
                }
        });
        if !shows {
            return false;
        }
        any = true;
    }
    any
}

/// `git [-C dir] [-c k=v] [--no-pager] <subcommand>`: the subcommand.
fn git_subcommand<'a>(args: &[&'a str]) -> Option<&'a str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "-C" | "-c" => {
                it.next();
            }
            a if a.starts_with('-') => {}
            a => return Some(a),
        }
    }
    None
}

/// The hint for an evidence line.
pub fn hint(evidence: &str) -> String {
    let line = crate::protocol::output::truncate_chars(evidence.trim(), MAX_EVIDENCE_CHARS);
    crate::modes::fill(HINT, &[("evidence", &line)])
        .trim_end()
        .to_string()
}

/// The first line of `output` that shows a failure, if any.
pub fn shows_failure(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let test_harness = lines.iter().any(|l| is_running_tests(l));
    let has_stack = lines.iter().any(|l| {
        l.starts_with("    at ")
            || l.starts_with("  File \"")
            || l.trim_end() == "Traceback (most recent call last):"
    });
    let mut after_go_package = false;
    for line in &lines {
        let l = line.trim_end();
        if failure_line(l, test_harness, has_stack, after_go_package) {
            return Some(l.to_string());
        }
        after_go_package = (l.starts_with("# ") && is_go_package(l))
            || (after_go_package && starts_with_location(l));
    }
    None
}

/// `running 4 tests` (cargo's test harness).
fn is_running_tests(l: &str) -> bool {
    l.strip_prefix("running ")
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|n| n.parse::<u32>().is_ok())
        && (l.ends_with(" tests") || l.ends_with(" test"))
}

/// `# example.com/pkg`: the header Go prints above a package's compile or vet errors.
fn is_go_package(l: &str) -> bool {
    let rest = &l[2..];
    !rest.is_empty() && !rest.contains(' ') && (rest.contains('/') || rest.contains('.'))
}

/// One line that, where it stands, only a failing tool prints.
fn failure_line(l: &str, test_harness: bool, has_stack: bool, after_go_package: bool) -> bool {
    // Line-start markers, at column 0 exactly: indented text is quoted or printed by a program.
    const STARTS: [&str; 12] = [
        "error:",
        "error[E",
        "fatal:",
        "npm ERR!",
        "npm error ",
        "make: *** ",
        "ERROR: ",
        "FAILED ",
        "FAILED (",
        "--- FAIL: ",
        "not ok ",
        "test result: FAILED",
    ];
    if STARTS.iter().any(|s| l.starts_with(s)) {
        return true;
    }
    if l == "Traceback (most recent call last):" || l == "FAIL" || l.starts_with("FAIL\t") {
        return true;
    }
    // cargo's harness: `test tests::parses ... FAILED`.
    if l.starts_with("test ") && l.ends_with(" ... FAILED") {
        return true;
    }
    // jest: `FAIL src/parse.test.js`.
    if let Some(rest) = l.strip_prefix("FAIL ")
        && rest
            .split_whitespace()
            .next()
            .is_some_and(|p| p.contains('.') || p.contains('/'))
    {
        return true;
    }
    // A `thread 'main' panicked at` of a program. A test's thread is named after the test
    // (`tests::parses`), and a passing `#[should_panic]` test prints its panic too: inside
    // cargo's harness, or on a test thread, the summary and the assertion line decide.
    if !test_harness
        && l.starts_with("thread '")
        && l.contains(" panicked at ")
        && !l.split('\'').nth(1).is_some_and(|name| name.contains("::"))
    {
        return true;
    }
    // Rust's failed assertion, the message of a failing test.
    if l.starts_with("assertion `left == right` failed")
        || l.starts_with("assertion `left != right` failed")
        || l.starts_with("assertion failed: ")
    {
        return true;
    }
    // An uncaught exception, with its stack: `TypeError: Cannot read …` after `    at …`
    // lines, `ZeroDivisionError: …` after a traceback.
    if has_stack && is_exception_line(l) {
        return true;
    }
    // Compilers: `main.c:4:5: error: …`, `ts/x.ts(6,14): error TS2322: …`.
    let error = l.contains("error");
    if error && (l.contains(": error: ") || l.contains("): error TS")) && starts_with_location(l) {
        return true;
    }
    // Go: `./parse.go:19:9: cannot use …` under a `# package` header.
    if after_go_package && starts_with_location(l) && l.contains(".go:") {
        return true;
    }
    // The shell or a core utility: `cat: x: No such file or directory`.
    if is_program_prefix(l)
        && [
            "No such file or directory",
            "command not found",
            "Permission denied",
            "cannot access",
            "cannot stat",
            "not recoverable",
        ]
        .iter()
        .any(|m| l.contains(m))
    {
        return true;
    }
    // Every word a count goes with holds one of these: most lines are passed over with a look.
    (error || l.contains("fail")) && nonzero_count(l)
}

/// `TypeError: …`, `json.decoder.JSONDecodeError: …`, `java.lang.IllegalStateException: …` at
/// column 0.
fn is_exception_line(l: &str) -> bool {
    let Some((name, _)) = l.split_once(": ") else {
        return false;
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && (name.ends_with("Error") || name.ends_with("Exception"))
}

/// `path:line:col:` or `path(line,col):` at the start of a line.
fn starts_with_location(l: &str) -> bool {
    let head = l.split(": ").next().unwrap_or("");
    let digits = head
        .rsplit([':', '(', ','])
        .take(2)
        .all(|p| !p.is_empty() && p.trim_end_matches(')').chars().all(|c| c.is_ascii_digit()));
    !head.starts_with(' ') && !head.is_empty() && digits && head.contains(['.', '/'])
}

/// `cat: …`, `bash: line 1: …`: a program's name and a colon at column 0.
fn is_program_prefix(l: &str) -> bool {
    // The name is at most 24 bytes: its `: ` is among the first 26.
    let head = &l.as_bytes()[..l.len().min(26)];
    let Some(end) = head.windows(2).position(|w| w == b": ") else {
        return false;
    };
    let name = &l[..end];
    !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' '))
}

/// A test or lint summary with a non-zero count of failures: `1 failed`, `(2 errors,`,
/// `Tests: 1 failed`, `# fail 1`, `2 tests, 1 failure`, `failed: 2`. A zero count, and
/// pytest's `xfailed` (an expected failure: a pass), are not failures.
fn nonzero_count(l: &str) -> bool {
    const WORDS: [&str; 5] = ["failed", "failures", "failure", "errors", "error"];
    let words: Vec<&str> = l
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '=' | '!'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        let n = pair[0].parse::<u64>().ok();
        // `attempt 1 failed: ECONNRESET` is a sentence, not a summary: no colon after the word.
        if n.is_some_and(|n| n > 0) && WORDS.contains(&pair[1].trim_end_matches('.')) {
            return true;
        }
        // `failed: 2`, `failures: 1` — a count after the word.
        if WORDS.contains(&pair[0].trim_end_matches(':'))
            && pair[0].ends_with(':')
            && pair[1].parse::<u64>().is_ok_and(|n| n > 0)
        {
            return true;
        }
    }
    // node --test: `# fail 1`.
    l.strip_prefix("# fail ")
        .and_then(|n| n.trim().parse::<u64>().ok())
        .is_some_and(|n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_output_is_checked_by_its_ends() {
        let mut log = String::from("running 200000 tests\n");
        for i in 0..200_000 {
            log.push_str(&format!("test case_{i} ... ok\n"));
        }
        let failing = format!("{log}test result: FAILED. 199999 passed; 1 failed\n");
        let checked = ends(&failing);
        assert!(checked.len() <= 2 * CHECKED_END);
        assert!(checked.starts_with("running 200000 tests\n"));
        assert!(
            checked
                .lines()
                .all(|l| l.starts_with("test") || l.starts_with("running"))
        );
        assert_eq!(
            shows_failure(&checked).as_deref(),
            Some("test result: FAILED. 199999 passed; 1 failed")
        );
        // Short outputs are checked whole.
        assert_eq!(ends("a\nb\n"), "a\nb\n");
    }

    #[test]
    fn summaries_count_only_non_zero_failures() {
        assert!(nonzero_count("1 failed, 4 passed, 1 skipped in 0.07s"));
        assert!(nonzero_count("Tests:       1 failed, 3 passed, 4 total"));
        assert!(nonzero_count("✖ 3 problems (2 errors, 1 warning)"));
        assert!(nonzero_count("# fail 1"));
        assert!(nonzero_count("failed: 2"));
        assert!(!nonzero_count(
            "test result: ok. 4 passed; 0 failed; 0 ignored"
        ));
        assert!(!nonzero_count("4 passed, 1 skipped, 1 xfailed in 0.19s"));
        assert!(!nonzero_count("  errors found: 0"));
        assert!(!nonzero_count("# fail 0"));
        assert!(!nonzero_count(
            "    attempt 1 failed: ECONNRESET (expected in this test)"
        ));
    }

    #[test]
    fn a_should_panic_test_in_a_passing_run_is_no_failure() {
        let out = "running 2 tests\nthread 'tests::p' (7) panicked at src/lib.rs:10:9:\ndivision by zero\ntest tests::p - should panic ... ok\n";
        assert_eq!(shows_failure(out), None);
        let crash = "thread 'main' (9) panicked at src/bin/main.rs:3:48:\ncalled `Result::unwrap()` on an `Err` value";
        assert!(shows_failure(crash).is_some());
    }

    #[test]
    fn locations_are_told_from_prose() {
        assert!(starts_with_location("main.c:4:5: error: expected ';'"));
        assert!(starts_with_location(
            "ts/errors.ts(6,14): error TS2322: Type"
        ));
        assert!(!starts_with_location("note: error: something"));
    }

    #[test]
    fn commands_that_show_text_are_told_from_commands_that_run_something() {
        for c in [
            "cat tests/fixtures/failing-run.txt",
            "sed -n '1,40p' target/log.txt",
            "git show HEAD~1",
            "git --no-pager log -p -3",
            "git -C sub diff",
            "rustc --explain E0425",
            "head -50 build.log",
            "tail -n 20 build.log",
            "less build.log",
            "bat src/main.rs",
            "grep -n FAILED target/test.log",
            "cat build.log | grep -n error | head",
            "LC_ALL=C /usr/bin/grep -r panic src",
        ] {
            assert!(only_shows_text(c), "{c}");
        }
        for c in [
            "cargo test 2>&1 | tail -n 5",
            "make; echo done",
            "sed -i 's/a/b/' f",
            "sed 's/a/b/' f",
            "git commit -m x",
            "npm test && cat report.txt",
            "rustc main.rs",
            "",
        ] {
            assert!(!only_shows_text(c), "{c}");
        }
    }
}
