//! The small syntax checks shared by the `hooks.toml` reader and the notification entries:
//! an http(s) URL with a host, an environment variable's name.

/// An `http://` or `https://` URL with a host (`${VAR}` may stand anywhere after the scheme).
pub fn check_url(s: &str) -> Result<(), String> {
    let rest = s
        .strip_prefix("http://")
        .or_else(|| s.strip_prefix("https://"))
        .ok_or_else(|| format!("{s:?} is not an http:// or https:// URL"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("{s:?} is not a usable URL"));
    }
    Ok(())
}

/// A variable name as `${NAME}` and `token_env` / `secret_env` take it.
pub fn is_env_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}
