//! The program the hooks `install` writes will run: this executable, by its own path.
//!
//! Run through the npm package, `omc-hooks` on PATH is a Node.js launcher that starts the
//! native binary of the platform package (`packaging/npm/omc-hooks.js`); the running executable
//! is that binary, so its path is what a hook entry names, and no hook starts Node.js. Two
//! things follow: a hook entry must not name the launcher (`--use-path` looks `omc-hooks` up on
//! PATH, which finds it: refused here), and an install run with `npx` names a binary in npx's
//! cache, which lasts only as long as that cache (said here).

use std::io::Read;
use std::path::{Path, PathBuf};

/// This executable, its links resolved: what an installed hook runs.
pub(super) fn this_binary() -> std::io::Result<PathBuf> {
    std::env::current_exe().and_then(|p| crate::platform::canonicalize(&p))
}

/// Whether the file at `path` (links resolved) is a script (`#!`) rather than a compiled
/// program: the npm launcher, or any wrapper, which a hook would start before omc-hooks.
pub(super) fn is_script(path: &Path) -> bool {
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"#!")
}

/// Why `--use-path` cannot use the `omc-hooks` found on PATH at `found`, if it cannot.
pub(super) fn use_path_refusal(found: &Path, exe: Option<&Path>) -> Option<String> {
    let real = crate::platform::canonicalize(found).unwrap_or_else(|_| found.to_path_buf());
    if !is_script(&real) {
        return None;
    }
    let instead = match exe {
        Some(e) => format!("the hooks then run this binary, {}, directly", e.display()),
        None => "the hooks then run this binary directly".into(),
    };
    Some(format!(
        "--use-path: 'omc-hooks' on PATH ({}) is a script, not the omc-hooks binary (the npm \
         package's launcher is one): every hook would start it, Node.js for npm's, before \
         omc-hooks. Leave --use-path out: {instead}.",
        found.display()
    ))
}

/// A note for an install whose binary lives in npx's cache (`…/_npx/<key>/node_modules/…`):
/// the hooks work while that copy is there, and `npm cache npx rm` deletes it.
pub(super) fn npx_note(exe: &Path) -> Option<String> {
    exe.components().any(|c| c.as_os_str() == "_npx").then(|| {
        format!(
            "Note: this omc-hooks was started by npx, so the hooks run its copy in npx's cache \
             ({}); they stop working when that cache is cleared ('npm cache npx rm'). For a \
             lasting install: npm install -g omc-hooks, then run this install again.",
            exe.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_on_path_is_refused_and_a_program_is_not() {
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("omc-hooks");
        std::fs::write(&script, "#!/usr/bin/env node\nrequire('x')\n").unwrap();
        let why = use_path_refusal(&script, Some(Path::new("/opt/omc-hooks"))).unwrap();
        assert!(why.contains("is a script"), "{why}");
        assert!(why.contains("/opt/omc-hooks, directly"), "{why}");
        let program = d.path().join("program");
        std::fs::write(&program, b"\x7fELF\x02\x01\x01").unwrap();
        assert_eq!(use_path_refusal(&program, None), None);
        // Through a link, as npm's global bin/ has it: the target decides.
        #[cfg(unix)]
        {
            let link = d.path().join("link");
            crate::platform::symlink(&script, &link).unwrap();
            assert!(use_path_refusal(&link, None).is_some());
        }
        assert!(!is_script(&d.path().join("missing")));
    }

    #[test]
    fn only_a_binary_in_npx_cache_gets_the_note() {
        let npx =
            Path::new("/home/u/.npm/_npx/0a1b2c/node_modules/@omc-hooks/linux-x64/bin/omc-hooks");
        let note = npx_note(npx).unwrap();
        assert!(note.contains("npm install -g omc-hooks"), "{note}");
        assert_eq!(
            npx_note(Path::new(
                "/usr/lib/node_modules/omc-hooks/node_modules/@omc-hooks/linux-x64/bin/omc-hooks"
            )),
            None
        );
        assert_eq!(npx_note(Path::new("/home/u/my_npx/omc-hooks")), None);
    }
}
