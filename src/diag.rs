//! Diagnostics on stderr. stdout belongs to the protocol; everything a person or a log should
//! know about a no-op goes here, prefixed so it is recognisable in Claude Code's debug log.

/// Writes one diagnostic line to stderr.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {{
        eprintln!("omc-hooks: {}", format_args!($($arg)*));
    }};
}
