//! Session ids. A session id becomes a directory name, so it is validated before any path is
//! built from it (contract §4): `^[A-Za-z0-9][A-Za-z0-9_-]{0,255}$`.

use std::fmt;

/// A session id that is safe to use as a path component.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// Validates `raw`; `None` for anything that could not be a single safe path component.
    pub fn parse(raw: &str) -> Option<SessionId> {
        let bytes = raw.as_bytes();
        let ok = !bytes.is_empty()
            && bytes.len() <= 256
            && bytes[0].is_ascii_alphanumeric()
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-');
        ok.then(|| SessionId(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uuids_and_simple_ids() {
        assert!(SessionId::parse("3f2b1c9e-7a4d-4e8b-9c1a-0d2e3f4a5b6c").is_some());
        assert!(SessionId::parse("a").is_some());
        assert!(SessionId::parse("A_b-1").is_some());
        assert!(SessionId::parse(&"a".repeat(256)).is_some());
    }

    #[test]
    fn rejects_anything_path_like() {
        for bad in [
            "", "../../x", "..", ".", "a/b", "a\\b", "-a", "_a", "a b", "a\0b", "ä", "a.b",
        ] {
            assert!(SessionId::parse(bad).is_none(), "{bad:?}");
        }
        assert!(SessionId::parse(&"a".repeat(257)).is_none());
    }
}
