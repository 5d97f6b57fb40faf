//! Diagnostics on stderr. stdout belongs to the protocol; everything a person or a log should
//! know about a no-op goes here, prefixed so it is recognisable in Claude Code's debug log.

/// Writes one diagnostic line to stderr. A diagnostic often quotes what it could not use (a
/// path from a payload, a value from a file), so escape sequences are stripped from it
/// ([`crate::terminal::strip`]): stderr is the person's terminal when a command runs.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        eprintln!(
            "omc-hooks: {}",
            $crate::terminal::strip(&::std::format!($($arg)*))
        );
    }};
}
