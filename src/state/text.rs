//! Person-edited text files (the notepad, project memory): a locked read-modify-write that
//! never rewrites what it could not read faithfully. A file that is not UTF-8, or too large,
//! is left alone rather than "repaired" — it belongs to a person, not to us. What is written
//! is redacted like every state file ([`super::redacted_text`]).

use super::{StateFile, Store, fs};
use std::io;

impl Store {
    /// Read-modify-write of a text file under its lock. `f` sees the current text (`None` when
    /// the file does not exist) and returns the new text, or `None` to leave the file as it is.
    /// Returns whether the file was written.
    pub fn update_text(
        &self,
        file: &StateFile,
        f: impl FnOnce(Option<&str>) -> Option<String>,
    ) -> io::Result<bool> {
        let dir = self.ensure(&file.rel_dir)?;
        let path = dir.join(&file.name);
        let lock = fs::lock_for(&path)?;
        let current = match fs::read_regular(&path)? {
            None => None,
            Some(bytes) if bytes.len() as u64 > fs::MAX_STATE_FILE_BYTES => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is too large to edit safely", path.display()),
                ));
            }
            Some(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is not UTF-8; left untouched", path.display()),
                )
            })?),
        };
        let written = match f(current.as_deref()).map(|new| super::redacted_text(&file.name, new)) {
            Some(new) if Some(new.as_str()) != current.as_deref() => {
                fs::write_atomic(&path, new.as_bytes())?;
                true
            }
            _ => false,
        };
        super::release(lock, &path);
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Root, Scope};
    use super::*;

    #[test]
    fn non_utf8_text_is_never_rewritten() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::new(
            Root {
                project: t.path().into(),
                omc: t.path().join(".omc"),
            },
            0,
        );
        let f = StateFile::new(&Scope::Omc, "notes.md").unwrap();
        assert!(store.update_text(&f, |_| Some("a".into())).unwrap());
        assert!(!store.update_text(&f, |t| t.map(str::to_string)).unwrap());
        std::fs::write(store.path(&f), [0xff, 0xfe, b'x']).unwrap();
        assert!(store.update_text(&f, |_| Some("b".into())).is_err());
        assert_eq!(std::fs::read(store.path(&f)).unwrap(), [0xff, 0xfe, b'x']);
    }
}
