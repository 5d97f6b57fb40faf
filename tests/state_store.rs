//! The state store across processes: concurrent read-modify-writes lose no update, corrupt
//! files are quarantined, and nothing is written outside `<project>/.omc/`.

use crate::common::Project;
use omc_hooks::state::{Change, Root, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;

#[derive(Serialize, Deserialize, Default)]
struct Tally {
    n: u64,
    writers: Vec<u32>,
}

fn store_at(project: &Path) -> Store {
    Store::new(
        Root {
            project: project.to_path_buf(),
            omc: project.join(".omc"),
        },
        1_796_305_500_000,
    )
}

/// Run only as a child of `concurrent_updates_from_many_processes_lose_nothing`.
#[test]
#[ignore = "child process of a concurrency test"]
fn child_bumps_the_tally() {
    let Ok(dir) = std::env::var("OMC_TEST_TALLY_DIR") else {
        return;
    };
    let rounds: u32 = std::env::var("OMC_TEST_ROUNDS").unwrap().parse().unwrap();
    let st = store_at(Path::new(&dir));
    let f = StateFile::new(&Scope::for_session(Some("shared")), "tally.json").unwrap();
    for _ in 0..rounds {
        st.update(&f, |t: Option<Tally>| {
            let mut t = t.unwrap_or_default();
            t.n += 1;
            t.writers.push(std::process::id());
            (Change::Write(t), ())
        })
        .expect("update");
    }
}

#[test]
fn concurrent_updates_from_many_processes_lose_nothing() {
    // Each update fsyncs the file and its directory (~10 ms here), and a waiter gives up after
    // the store's bounded lock wait (2 s, inside a hook's deadline): 72 serialised updates stay
    // well inside that even on a loaded 2-core machine.
    const PROCS: usize = 12;
    const ROUNDS: u32 = 6;
    let p = Project::new();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCS)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "state_store::child_bumps_the_tally",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env("OMC_TEST_TALLY_DIR", p.path())
                .env("OMC_TEST_ROUNDS", ROUNDS.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let st = store_at(p.path());
    let f = StateFile::new(&Scope::for_session(Some("shared")), "tally.json").unwrap();
    let t: Tally = st.read(&f).expect("tally exists and is valid");
    assert_eq!(t.n, PROCS as u64 * ROUNDS as u64);
    assert_eq!(t.writers.len(), PROCS * ROUNDS as usize);
    let mut pids = t.writers.clone();
    pids.sort();
    pids.dedup();
    assert_eq!(pids.len(), PROCS, "every process wrote");
    // No temporary files were left behind.
    p.assert_no_file(|f| f.contains(".tmp-"));
}

#[test]
fn a_corrupt_state_file_is_quarantined_and_the_next_write_succeeds() {
    let p = Project::new();
    p.write_json(
        ".omc/state/sessions/s1/tally.json",
        &serde_json::json!({"n": "not a number"}),
    );
    let st = store_at(p.path());
    let f = StateFile::new(&Scope::for_session(Some("s1")), "tally.json").unwrap();
    let n = st
        .update(&f, |t: Option<Tally>| {
            let mut t = t.unwrap_or_default();
            t.n += 1;
            let n = t.n;
            (Change::Write(t), n)
        })
        .unwrap();
    assert_eq!(n, 1, "the corrupt file was treated as absent");
    let files = p.files();
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(".omc/state/sessions/s1/tally.json.corrupt-")),
        "{files:?}"
    );
}

#[test]
fn hostile_session_ids_and_subdirectory_cwds_stay_inside_the_project_state() {
    let outer = tempfile::tempdir().unwrap();
    let project = outer.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let sub = project.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let env = omc_hooks::env::Env::default();
    let root = omc_hooks::state::root::resolve(&env, sub.to_str()).unwrap();
    assert_eq!(root.project, project);
    let st = Store::new(root, 0);
    for sid in ["../../x", "/etc/passwd", "a/../../b", "..", ""] {
        let scope = Scope::for_session(Some(sid));
        let f = StateFile::new(&scope, "ralph-state.json").unwrap();
        st.write(&f, &serde_json::json!({"sid": sid})).unwrap();
    }
    // Everything written is under <project>/.omc; nothing next to the project or in src/.
    let mut all = Vec::new();
    for e in walk(outer.path()) {
        all.push(e);
    }
    assert!(!all.is_empty());
    for f in &all {
        assert!(
            f.starts_with(project.join(".omc")) || f.starts_with(project.join(".git")),
            "written outside .omc: {}",
            f.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

// -------------------------------------------------------------- issue 30, item 9

fn prompt(cwd_in_payload: &str, process_cwd: &Path, text: &str) -> crate::common::Outcome {
    let mut v = crate::common::payload("UserPromptSubmit", "s1", Path::new(cwd_in_payload));
    v["prompt"] = serde_json::json!(text);
    crate::common::Hook::new("user-prompt-submit")
        .payload(v)
        .cwd(process_cwd)
        .run()
}

#[test]
fn a_cwd_that_does_not_exist_is_a_no_op_never_the_hooks_own_directory() {
    // The hook runs in a shared folder without .git; the payload's project is gone.
    let shared = tempfile::tempdir().unwrap();
    let gone = shared.path().join("deleted-project");
    let out = prompt(gone.to_str().unwrap(), shared.path(), "ralph fix the tests");
    out.expect_noop();
    assert!(
        out.stderr.contains(&format!(
            "user-prompt-submit: the payload's cwd '{}' is not an existing directory",
            gone.display()
        )),
        "{}",
        out.stderr
    );
    assert!(
        !shared.path().join(".omc").exists(),
        "state created in the hook's own working directory"
    );
    // A relative one is no directory of the project either.
    let out = prompt("project", shared.path(), "ralph fix the tests");
    out.expect_noop();
    assert!(!shared.path().join(".omc").exists());
}

#[test]
fn a_state_file_replaced_by_a_directory_is_really_moved_aside() {
    let p = Project::new();
    let dir = p.session_dir("s1").join("ralph-state.json");
    std::fs::create_dir_all(dir.join("inner")).unwrap();
    std::fs::write(dir.join("inner/keep.txt"), "kept").unwrap();
    let out = prompt(p.path().to_str().unwrap(), p.path(), "ralph fix the tests");
    out.expect_context("RALPH mode is on");
    assert!(
        out.stderr.contains("is a directory; moved aside to"),
        "{}",
        out.stderr
    );
    // The run's file is where it belongs, and the directory, whole, beside it.
    let run = p
        .read_json(".omc/state/sessions/s1/ralph-state.json")
        .unwrap();
    assert_eq!(run["active"], true);
    let aside: Vec<_> = std::fs::read_dir(p.session_dir("s1"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("ralph-state.json.corrupt-")
        })
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(
        std::fs::read_to_string(aside[0].path().join("inner/keep.txt")).unwrap(),
        "kept"
    );
}

#[test]
fn a_session_folder_keeps_no_lock_file_of_a_file_it_does_not_have() {
    let p = Project::new();
    let run = |sub: &str, event: &str, extra: serde_json::Value| {
        let mut v = crate::common::payload(event, "s1", p.path());
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        let out = crate::common::Hook::new(sub).payload(v).cwd(p.path()).run();
        out.expect_valid();
    };
    use serde_json::json;
    run(
        "session-start",
        "SessionStart",
        json!({"source": "startup"}),
    );
    run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "ralph fix it"}),
    );
    run(
        "post-tool-use-failure",
        "PostToolUseFailure",
        json!({"tool_name": "Bash", "tool_input": {"command": "x"}, "error": "Exit code 1"}),
    );
    run(
        "post-tool-use",
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "x"}, "tool_response": {"stdout": "", "exit_code": 0}}),
    );
    run(
        "pre-tool-use",
        "PreToolUse",
        json!({"tool_name": "Skill", "tool_input": {"skill": "oh-my-claudecode:plan"}}),
    );
    run(
        "subagent-start",
        "SubagentStart",
        json!({"agent_id": "a1", "agent_type": "Explore"}),
    );
    run("subagent-stop", "SubagentStop", json!({"agent_id": "a1"}));
    run("pre-compact", "PreCompact", json!({"trigger": "manual"}));
    run(
        "stop",
        "Stop",
        json!({"last_assistant_message": "done\n<omc-complete/>"}),
    );
    run("session-end", "SessionEnd", json!({"reason": "other"}));
    let mut orphans = Vec::new();
    for f in walk(&p.omc()) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(target) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".lock"))
            && !f.with_file_name(target).exists()
        {
            orphans.push(f.display().to_string());
        }
    }
    assert!(
        orphans.is_empty(),
        "lock files of absent files: {orphans:?}"
    );
}

/// A payload `cwd` of `/` (an agent run as root at the top of the file system) keeps no
/// state: a `/.omc` would be taken up by every project without its own `.git`.
#[test]
fn a_payload_cwd_of_the_filesystem_root_is_a_no_op_with_a_diagnostic() {
    let existed = Path::new("/.omc").exists();
    let mut v = crate::common::payload("UserPromptSubmit", "root-1", Path::new("/"));
    v["prompt"] = serde_json::json!("ralph fix everything");
    let out = crate::common::Hook::new("user-prompt-submit")
        .payload(v)
        .run();
    out.expect_noop();
    assert!(
        out.stderr
            .contains("the project would be the filesystem root '/'"),
        "{}",
        out.stderr
    );
    if !existed {
        assert!(!Path::new("/.omc").exists(), "/.omc was created");
    }
}

/// Issue 43: temporaries that writers killed mid-write left (`.tmp-XXXXXX`) are removed at the
/// next session start or end once older than any live writer could be, a fresh one (a writer
/// may still hold it) stays, and `doctor` removes and names what is left.
#[test]
fn orphan_temporaries_are_pruned_by_the_next_session_hooks_and_doctor() {
    let p = Project::new();
    let session = p.omc().join("state/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let old = |path: &Path| {
        std::fs::write(path, b"{\"half\":").unwrap();
        let long_ago = std::time::SystemTime::now()
            - std::time::Duration::from_secs(omc_hooks::state::fs::ORPHAN_TEMP_AGE_SECS + 10);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    };
    let left = [
        session.join(".tmp-Ab12Cd"),
        p.omc().join("state/.tmp-Ef34Gh"),
    ];
    for f in &left {
        old(f);
    }
    let fresh = session.join(".tmp-Ij56Kl");
    std::fs::write(&fresh, b"{").unwrap();
    let mut v = crate::common::payload("SessionEnd", "s1", p.path());
    v["reason"] = serde_json::json!("other");
    crate::common::Hook::new("session-end")
        .payload(v)
        .cwd(p.path())
        .run()
        .expect_valid();
    for f in &left {
        assert!(!f.exists(), "{} was kept", f.display());
    }
    assert!(fresh.exists(), "a file a live writer may hold was removed");
    // What doctor finds, it removes and says.
    let another = p.omc().join("state/.tmp-Mn78Op");
    old(&another);
    let out = crate::common::Hook::args(&["doctor"]).cwd(p.path()).run();
    assert!(!another.exists());
    assert!(
        out.stdout.contains(
            "removed 1 temporary file(s) left by writers that were killed mid-write: \
             .omc/state/.tmp-Mn78Op"
        ),
        "{}",
        out.stdout
    );
}
