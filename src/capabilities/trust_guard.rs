//! Refuses a tool call that would run `omc-hooks trust` (contract §17): trust lets a project's
//! own hooks run commands, so it must be the person's word, and a model steered by a cloned
//! repository must not give it to itself. `trust` has its own refusals (the agent's variables,
//! the processes above it, the evidence of a detached run); this is the first layer, before
//! the command runs at all, on every agent with a pre-tool event — a detached form
//! (`setsid -f`, `script -c`, a tmux server started without the agent's variables) hides the
//! agent from `trust` itself, but not the command from this hook.
//!
//! The command is read the way a shell would split it, loosely: quotes and backslashes are
//! dropped (`omc-ho''oks`, `"trust"`), `$(`, `` ` ``, `(`, `)`, `{`, `}` and `=` separate words
//! (`$(command -v omc-hooks) trust`, `tmux new-session 'omc-hooks trust'`), and `;`, `|`, `&`
//! and new lines end a command. A word naming this binary — `omc-hooks` (with `.exe`, `.js`
//! for the npm launcher, or an `@version` of `npx omc-hooks@1`), its path, or the running
//! binary's own file name — followed in the same command by the word `trust` is refused,
//! unless `--list`, `--revoke` or `--help` is among its words (they only show or take trust
//! away). A command that only mentions the word (`grep trust notes.md`) is left alone.

use crate::capabilities::Ctx;
use crate::protocol::Answer;
use serde_json::Value;

const REFUSED: &str = include_str!("../../templates/user-hooks/trust-refused.md");

/// The fields of a tool's input that hold a command to run (Claude Code's and Gemini CLI's
/// `command`, Codex's `command` as an argument list, `cmd` of other shells' tools).
const COMMAND_FIELDS: &[&str] = &["command", "cmd", "script"];

/// At most this many bytes of a command are read: a longer one is still checked in its first
/// part, which is where a person-length command line is.
const MAX_COMMAND_BYTES: usize = 64 * 1024;

pub fn on_pre_tool_use(ctx: &Ctx<'_>) -> Answer {
    let Some(input) = ctx.input.tool_input.as_ref() else {
        return Answer::default();
    };
    let own = ctx
        .env
        .extra
        .get(crate::env::EXE_VAR)
        .map(|p| base(p).to_string());
    let hit = COMMAND_FIELDS.iter().any(|f| match input.get(*f) {
        Some(Value::String(s)) => runs_trust(s, own.as_deref()),
        Some(Value::Array(a)) => {
            let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            runs_trust(&words.join(" "), own.as_deref())
        }
        _ => false,
    });
    if !hit {
        return Answer::default();
    }
    crate::diag!("pre-tool-use: a tool call that runs `omc-hooks trust` refused");
    Answer {
        deny: Some(REFUSED.trim_end().to_string()),
        ..Answer::default()
    }
}

/// The last part of a path, either separator.
fn base(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// Whether `word` names this binary: `omc-hooks`, `omc-hooks.exe`, the npm launcher
/// `omc-hooks.js`, `omc-hooks@1.2`, by any path, or the running binary's own file name.
fn names_binary(word: &str, own: Option<&str>) -> bool {
    let b = base(word);
    let b = b.split('@').next().unwrap_or(b);
    let b = b
        .strip_suffix(".exe")
        .or_else(|| b.strip_suffix(".js"))
        .unwrap_or(b);
    b.eq_ignore_ascii_case("omc-hooks") || own.is_some_and(|o| !o.is_empty() && base(word) == o)
}

/// Whether a shell command would run `omc-hooks trust` (not `--list`, `--revoke`, `--help`).
/// Read twice: with backslashes as a POSIX shell's escapes (dropped), and as a Windows path's
/// separators (`C:\tools\omc-hooks.exe trust`).
pub fn runs_trust(command: &str, own: Option<&str>) -> bool {
    let cut = command.len().min(MAX_COMMAND_BYTES);
    let cut = (0..=cut)
        .rev()
        .find(|i| command.is_char_boundary(*i))
        .unwrap_or(0);
    // A backslash before a new line continues the command on the next line.
    let command = command[..cut].replace("\\\n", " ");
    scan(&command, None, own) || scan(&command, Some('/'), own)
}

/// [`runs_trust`] with a backslash read as `backslash` (`None`: dropped).
fn scan(command: &str, backslash: Option<char>, own: Option<&str>) -> bool {
    let mut cleaned = String::with_capacity(command.len());
    for c in command.chars() {
        match c {
            '\\' => cleaned.extend(backslash),
            '\'' | '"' => {}
            '$' | '`' | '(' | ')' | '{' | '}' | '=' | '\t' | ' ' => cleaned.push(' '),
            ';' | '|' | '&' | '\n' | '\r' => cleaned.push('\n'),
            c => cleaned.push(c),
        }
    }
    cleaned.lines().any(|segment| {
        let words: Vec<&str> = segment.split(' ').filter(|w| !w.is_empty()).collect();
        let Some(at) = words.iter().position(|w| names_binary(w, own)) else {
            return false;
        };
        let rest = &words[at + 1..];
        rest.iter().any(|w| w.eq_ignore_ascii_case("trust"))
            && !rest
                .iter()
                .any(|w| matches!(*w, "--list" | "--revoke" | "--help" | "-h"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shell form of `trust` the audit (issue 43) and its variants tried.
    #[test]
    fn every_shell_form_of_trust_is_seen() {
        for c in [
            "omc-hooks trust",
            "omc-hooks trust --yes",
            "/home/a/.local/bin/omc-hooks trust --yes",
            "(env -u CLAUDECODE -u CLAUDE_CODE_SESSION_ID setsid -f omc-hooks trust --yes &)",
            "echo y | setsid -f script -qc 'omc-hooks trust' /dev/null",
            "tmux -L x new-session -d 'omc-hooks trust'",
            "tmux -L x new-session -d \"env -u CLAUDECODE omc-hooks trust\" && tmux send-keys y Enter",
            "nohup omc-hooks trust --yes >/dev/null 2>&1 &",
            "bash -c \"omc-hooks trust --yes\"",
            "sh -c 'cd /p && omc-hooks --agent claude trust --yes'",
            "$(command -v omc-hooks) trust --yes",
            "`which omc-hooks` trust --yes",
            "omc-ho''oks tr\"u\"st --yes",
            "omc-hooks \\\n  trust --yes",
            "npx omc-hooks trust --yes",
            "npx -y omc-hooks@1.4.0 trust --yes",
            "node node_modules/omc-hooks/omc-hooks.js trust --yes",
            "C:\\tools\\omc-hooks.exe trust --yes",
            "X=1 omc-hooks trust --project=/p --yes",
        ] {
            assert!(runs_trust(c, None), "{c}");
        }
        assert!(runs_trust(
            "/tmp/build/my-hooks trust --yes",
            Some("my-hooks")
        ));
    }

    #[test]
    fn commands_that_only_mention_trust_or_list_it_are_left_alone() {
        for c in [
            "grep -rn trust src/",
            "omc-hooks trust --list",
            "omc-hooks trust --revoke",
            "omc-hooks trust --help",
            "omc-hooks status; echo trust me",
            "cat docs/trust.md | grep omc-hooks",
            "cargo test trust",
            "omc-hooks doctor",
        ] {
            assert!(!runs_trust(c, None), "{c}");
        }
    }
}
