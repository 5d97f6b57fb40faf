//! Diagnostics on stderr. stdout belongs to the protocol; everything a person or a log should
//! know about a no-op goes here, prefixed so it is recognisable in Claude Code's debug log.

/// Writes one diagnostic line to stderr. A diagnostic often quotes what it could not use (a
/// path from a payload, a value from a file), so escape sequences are stripped from it
/// ([`crate::terminal::strip`]): stderr is the person's terminal when a command runs.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        eprintln!("{}", $crate::diag::line(&::std::format!($($arg)*)));
    }};
}

/// The line [`diag!`] prints for `message`: one `omc-hooks: ` prefix (a message that already
/// carries it — a notice also shown to the person, say — does not get a second), escape
/// sequences stripped.
pub fn line(message: &str) -> String {
    let mut m = message;
    while let Some(rest) = m.strip_prefix("omc-hooks: ") {
        m = rest;
    }
    format!("omc-hooks: {}", crate::terminal::strip(m))
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_prefix_and_no_escapes() {
        assert_eq!(super::line("cannot read x"), "omc-hooks: cannot read x");
        assert_eq!(
            super::line("omc-hooks: /p/.omc/hooks.toml is not trusted"),
            "omc-hooks: /p/.omc/hooks.toml is not trusted"
        );
        assert_eq!(super::line("bad \x1b[2Jcwd"), "omc-hooks: bad cwd");
    }
}
