//! The one reader of folders of Markdown files a person (or OMC's learner) writes. [`tree`]
//! lists a folder and its subfolders (the wiki's pages of `.omc/wiki/`, a project's
//! `.claude/rules/`); [`read_folder`] reads the files of one folder: the learned skills of
//! `.omc/skills/` and of the user's skills folder. Only regular files directly in the folder
//! (or, for `.md`, a `<name>/SKILL.md` one level down) are read, each bounded, through [`super::fs::read_regular`] (no symlink followed, no FIFO
//! waited on); a symlink, a file that resolves outside the folder and a file too large are
//! skipped and named, so `doctor` can say why.

use std::path::{Path, PathBuf};

/// One file read.
#[derive(Debug, Clone)]
pub struct FolderFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// What [`read_folder`] found.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub files: Vec<FolderFile>,
    /// Files left out, each with why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// The regular files of `dir` whose names end with `ext`, by name, at most `max_files`, each
/// at most `max_bytes`. A missing folder, or one that is itself a symlink, gives nothing.
pub fn read_folder(dir: &Path, ext: &str, max_files: usize, max_bytes: u64) -> Listing {
    let mut out = Listing::default();
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(m) if m.file_type().is_symlink() => {
            out.skipped
                .push((dir.to_path_buf(), "the folder is a symbolic link".into()));
            return out;
        }
        _ => return out,
    }
    let Ok(real_dir) = dir.canonicalize() else {
        return out;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut names: Vec<(PathBuf, std::fs::FileType)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .filter(|(p, kind)| p.to_string_lossy().ends_with(ext) || (kind.is_dir() && ext == ".md"))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in names {
        if kind.is_symlink() {
            out.skipped.push((path, "a symbolic link".into()));
            continue;
        }
        // A skill kept as `<name>/SKILL.md` (the layout of Claude Code's skills): that file.
        let (path, kind) = if kind.is_dir() && ext == ".md" {
            let inner = path.join("SKILL.md");
            match std::fs::symlink_metadata(&inner) {
                Ok(m) if m.file_type().is_symlink() => {
                    out.skipped.push((inner, "a symbolic link".into()));
                    continue;
                }
                Ok(m) => (inner, m.file_type()),
                Err(_) => continue,
            }
        } else {
            (path, kind)
        };
        if !kind.is_file() {
            continue;
        }
        if out.files.len() == max_files {
            out.skipped
                .push((path, format!("more than {max_files} files in the folder")));
            continue;
        }
        let parent = path.canonicalize().ok().and_then(|p| {
            let p = p.parent()?;
            // `<name>/SKILL.md`: the folder's folder.
            Some(if path.ends_with("SKILL.md") && p != real_dir {
                p.parent()?.to_path_buf()
            } else {
                p.to_path_buf()
            })
        });
        if parent.as_deref() != Some(real_dir.as_path()) {
            out.skipped
                .push((path, "resolves outside its folder".into()));
            continue;
        }
        match super::fs::read_regular(&path) {
            Ok(Some(bytes)) if bytes.len() as u64 <= max_bytes => {
                out.files.push(FolderFile { path, bytes })
            }
            Ok(Some(_)) => out
                .skipped
                .push((path, format!("larger than {max_bytes} bytes"))),
            Ok(None) => {}
            Err(e) => out.skipped.push((path, e.to_string())),
        }
    }
    out
}

/// The files under `dir` whose names end with `ext`, subfolders included (at most `max_depth`
/// deep), as paths relative to `dir` with `/` between parts, sorted, at most `max` of them
/// (the first in that order). Nothing is read; a symlink (a file or a folder) is never
/// followed, and a name `keep` refuses (a file's or a folder's) is left out.
pub fn tree(
    dir: &Path,
    ext: &str,
    max_depth: usize,
    max: usize,
    keep: fn(&str) -> bool,
) -> Vec<String> {
    fn walk(
        dir: &Path,
        prefix: &str,
        (ext, depth, max, keep): (&str, usize, usize, fn(&str) -> bool),
        out: &mut Vec<String>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<(String, std::fs::FileType)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| Some((e.file_name().into_string().ok()?, e.file_type().ok()?)))
            .filter(|(n, _)| keep(n))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            if out.len() >= max {
                return;
            }
            let rel = format!("{prefix}{name}");
            if kind.is_file() && name.ends_with(ext) {
                out.push(rel);
            } else if kind.is_dir() && depth > 0 {
                walk(
                    &dir.join(&name),
                    &format!("{rel}/"),
                    (ext, depth - 1, max, keep),
                    out,
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", (ext, max_depth, max, keep), &mut out);
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Wine cannot make a link std sees as one (contract §20); the Windows side refuses links
    // through the same platform call.
    #[cfg(unix)]
    #[test]
    fn regular_files_only_symlinks_named() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("skills");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a.md"), "A").unwrap();
        std::fs::write(dir.join("b.txt"), "B").unwrap();
        std::fs::write(dir.join("big.md"), "x".repeat(100)).unwrap();
        std::fs::write(d.path().join("secret.md"), "S").unwrap();
        std::os::unix::fs::symlink(d.path().join("secret.md"), dir.join("link.md")).unwrap();
        let l = read_folder(&dir, ".md", 10, 50);
        assert_eq!(l.files.len(), 1);
        assert_eq!(l.files[0].bytes, b"A");
        let why: Vec<&str> = l.skipped.iter().map(|(_, w)| w.as_str()).collect();
        assert_eq!(why, ["larger than 50 bytes", "a symbolic link"]);
        std::fs::create_dir(dir.join("deploy")).unwrap();
        std::fs::write(dir.join("deploy/SKILL.md"), "D").unwrap();
        let l = read_folder(&dir, ".md", 10, 50);
        assert_eq!(l.files.len(), 2);
        assert!(l.files[1].path.ends_with("deploy/SKILL.md"));
        std::os::unix::fs::symlink(&dir, d.path().join("linked")).unwrap();
        assert!(
            read_folder(&d.path().join("linked"), ".md", 10, 50)
                .files
                .is_empty()
        );
    }

    #[test]
    fn a_tree_is_sorted_bounded_in_depth_and_count_and_filtered() {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        };
        for rel in [
            "b.md",
            "a/x.md",
            "a/deep/y.md",
            "a/deep/deeper/z.md",
            "c.txt",
            "_d.md",
        ] {
            w(rel);
        }
        let all = tree(d.path(), ".md", 9, 99, |_| true);
        assert_eq!(
            all,
            [
                "_d.md",
                "a/deep/deeper/z.md",
                "a/deep/y.md",
                "a/x.md",
                "b.md"
            ]
        );
        assert_eq!(
            tree(d.path(), ".md", 1, 99, |_| true),
            ["_d.md", "a/x.md", "b.md"]
        );
        assert_eq!(
            tree(d.path(), ".md", 9, 2, |_| true),
            ["_d.md", "a/deep/deeper/z.md"]
        );
        let plain = |n: &str| !n.starts_with('_');
        assert_eq!(tree(d.path(), ".md", 0, 99, plain), ["b.md"]);
        assert!(tree(&d.path().join("missing"), ".md", 9, 99, |_| true).is_empty());
    }
}
