//! A state directory that cannot be written — read-only, not a directory, or on a full disk:
//! every hook fails open (exit 0, the wire contract, no block or deny the same hook would not
//! give on a healthy disk) and, when it needed to write, says why on stderr. Existing state
//! survives a failed write intact, and no temporary file is left behind.
//!
//! Tests run as root, where `chmod 0500` does not stop a write, so read-only means a read-only
//! filesystem: `OMC_STATE_DIR` on sysfs or procfs (always there), a regular file where `.omc`
//! should be (always), and — where this process may mount, as in this sandbox — a read-only
//! bind mount of a seeded `.omc` and a full 64 KiB tmpfs. A case that cannot be set up is
//! skipped with a printed reason; the always-available ones are always asserted.

use super::kit::{self, CLEAN, Mount};
use crate::common::Outcome;
use omc_hooks::state::files::ModeState;
use omc_hooks::state::{Change, Root, Scope, StateFile, Store};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

const SID: &str = "ro-session-3c9";

fn store(project: &Path, omc: &Path) -> Store {
    Store::new(
        Root {
            project: project.to_path_buf(),
            omc: omc.to_path_buf(),
        },
        kit::NOW_MS,
    )
}

fn ralph_file() -> StateFile {
    StateFile::new(&Scope::for_session(Some(SID)), "ralph-state.json").unwrap()
}

/// An active ralph run for the session: state the hooks act on.
fn seed(project: &Path) {
    store(project, &project.join(".omc"))
        .write(
            &ralph_file(),
            &ModeState::start(
                "ralph",
                Some(SID),
                &project.to_string_lossy(),
                "fix the failing tests",
                "2026-12-02T13:44:00.000Z",
                100,
            ),
        )
        .unwrap();
}

fn blocks_or_denies(out: &Outcome) -> bool {
    let v = out.json();
    v["decision"] == "block" || v["hookSpecificOutput"]["permissionDecision"] == "deny"
}

/// Runs hook `sub` on a healthy twin prepared the same way: its answer, and whether it
/// changed anything under `.omc`.
fn control(seeded: bool, event: &str, sub: &str, k: usize) -> (Outcome, bool) {
    let p = kit::project();
    if seeded {
        seed(p.path());
    }
    let before = kit::snapshot(&p.omc());
    let bytes = serde_json::to_vec(&kit::realistic(event, SID, p.path(), k)).unwrap();
    let dir = p.path().to_string_lossy().into_owned();
    let out = kit::run_hook(sub, &bytes, p.path(), &[("CLAUDE_PROJECT_DIR", &dir)]);
    let changed = kit::snapshot(&p.omc()) != before;
    (out, changed)
}

/// Every hook, twice, on the broken project. Returns (runs, runs that had to say why).
#[track_caller]
fn run_broken(
    what: &str,
    project: &Path,
    extra_env: &[(&str, &str)],
    seeded: bool,
) -> (usize, usize) {
    let dir = project.to_string_lossy().into_owned();
    let mut env = vec![("CLAUDE_PROJECT_DIR", dir.as_str())];
    env.extend_from_slice(extra_env);
    let (mut runs, mut reasons) = (0, 0);
    for k in 0..2 {
        for (event, sub) in kit::hooks() {
            let (healthy, writes) = control(seeded, &event, &sub, k);
            let bytes = serde_json::to_vec(&kit::realistic(&event, SID, project, k)).unwrap();
            let out = kit::run_hook(&sub, &bytes, project, &env);
            kit::assert_wire(&event, &sub, &out);
            assert!(
                !out.stderr.contains("panicked"),
                "{what}/{sub}: {}",
                out.stderr
            );
            assert!(
                !blocks_or_denies(&out) || blocks_or_denies(&healthy),
                "{what}/{sub}: the broken disk added a block or deny: {}",
                out.stdout
            );
            if writes {
                assert!(
                    out.stderr.contains("omc-hooks:"),
                    "{what}/{sub}: its write failed without a word on stderr"
                );
                reasons += 1;
            }
            runs += 1;
        }
    }
    (runs, reasons)
}

/// The store on a root it cannot write: writes and updates are errors that say something.
#[track_caller]
fn assert_store_refuses(what: &str, st: &Store) {
    let f = StateFile::new(&Scope::for_session(Some(SID)), "probe.json").unwrap();
    let e = st.write(&f, &json!({"x": 1})).expect_err(what);
    assert!(
        !e.to_string().is_empty(),
        "{what}: an error without a message"
    );
    let e = st
        .update(&f, |_: Option<Value>| (Change::Write(json!({"x": 2})), ()))
        .expect_err(what);
    assert!(
        !e.to_string().is_empty(),
        "{what}: an error without a message"
    );
}

/// A directory on a filesystem that refuses every write even to root.
fn read_only_fs_dir() -> Option<PathBuf> {
    ["/sys/fs/omc-hooks-readonly", "/proc/omc-hooks-readonly"]
        .iter()
        .map(PathBuf::from)
        .find(|p| std::fs::create_dir(p).is_err() && !p.exists())
}

#[test]
fn a_state_dir_on_a_read_only_filesystem_fails_open_with_a_reason() {
    let ro = read_only_fs_dir().expect("sysfs or procfs refuses mkdir (a read-only filesystem)");
    let p = kit::project();
    assert_store_refuses("read-only fs", &store(p.path(), &ro));
    let state_dir = ro.to_string_lossy().into_owned();
    let (runs, reasons) = run_broken(
        "read-only fs",
        p.path(),
        &[("OMC_STATE_DIR", &state_dir)],
        false,
    );
    assert!(!ro.exists());
    kit::check_tree(p.path(), &[], CLEAN);
    eprintln!(
        "readonly/fs ({}): {runs} hook runs, {reasons} had to say why",
        ro.display()
    );
}

#[test]
fn a_file_where_the_state_dir_belongs_fails_open_with_a_reason() {
    let p = kit::project();
    std::fs::write(p.omc(), b"not a directory\n").unwrap();
    assert_store_refuses(".omc is a file", &store(p.path(), &p.omc()));
    let (runs, reasons) = run_broken(".omc is a file", p.path(), &[], false);
    assert_eq!(std::fs::read(p.omc()).unwrap(), b"not a directory\n");
    eprintln!("readonly/file: {runs} hook runs, {reasons} had to say why");
}

#[test]
fn a_read_only_mount_and_a_full_disk_fail_open_and_keep_existing_state() {
    if let Err(why) = kit::can_mount() {
        eprintln!(
            "readonly/mounts: SKIPPED (cannot mount here: {why}); the sysfs/procfs and file cases still ran"
        );
        return;
    }
    // Read-only bind mount over a seeded .omc.
    {
        let p = kit::project();
        seed(p.path());
        let ralph = p.session_dir(SID).join("ralph-state.json");
        let original = std::fs::read(&ralph).unwrap();
        let omc = p.omc();
        let bound = Mount::new(&["--bind", omc.to_str().unwrap()], &omc).unwrap();
        // A remount changes the bind mount in place; `bound` unmounts it.
        match kit::mount(&["-o", "remount,bind,ro"], &omc) {
            Err(why) => eprintln!("readonly/bind-ro: SKIPPED (remount ro failed: {why})"),
            Ok(()) => {
                let st = store(p.path(), &omc);
                assert_store_refuses("ro bind mount", &st);
                assert!(
                    st.read::<ModeState>(&ralph_file())
                        .is_some_and(|m| m.active)
                );
                let (runs, reasons) = run_broken("ro bind mount", p.path(), &[], true);
                assert_eq!(std::fs::read(&ralph).unwrap(), original);
                eprintln!("readonly/bind-ro: {runs} hook runs, {reasons} had to say why");
            }
        }
        drop(bound);
    }
    // A full disk: a 64 KiB tmpfs as .omc, seeded, then filled to the last byte.
    {
        let p = kit::project();
        std::fs::create_dir(p.omc()).unwrap();
        let _disk = Mount::new(&["-t", "tmpfs", "-o", "size=64k", "tmpfs"], &p.omc()).unwrap();
        seed(p.path());
        let ralph = p.session_dir(SID).join("ralph-state.json");
        let original = std::fs::read(&ralph).unwrap();
        let mut filler = std::fs::File::create(p.omc().join("filler")).unwrap();
        let chunk = vec![b'f'; 1024];
        let mut filled = 0;
        while filler
            .write_all(&chunk)
            .and_then(|_| filler.sync_all())
            .is_ok()
        {
            filled += chunk.len();
        }
        while filler.write_all(b"f").is_ok() {}
        drop(filler);
        let st = store(p.path(), &p.omc());
        // An update that must grow the file cannot happen; the old content stays.
        let grown = st.update(&ralph_file(), |m: Option<ModeState>| {
            let mut m = m.expect("seeded state is readable");
            m.prompt = "p".repeat(16 * 1024);
            (Change::Write(m), ())
        });
        assert!(grown.is_err(), "a 16 KiB write succeeded on a full disk");
        assert_eq!(
            std::fs::read(&ralph).unwrap(),
            original,
            "a failed write changed the file"
        );
        assert_store_refuses("full disk", &st);
        let (runs, reasons) = run_broken("full disk", p.path(), &[], true);
        let json: Value = serde_json::from_slice(&std::fs::read(&ralph).unwrap())
            .expect("the seeded state is still whole JSON");
        crate::schema::assert_valid("mode-state", &json);
        kit::check_tree(p.path(), &[], CLEAN);
        eprintln!(
            "readonly/full-disk: {filled} filler bytes; {runs} hook runs, {reasons} had to say why"
        );
    }
}
