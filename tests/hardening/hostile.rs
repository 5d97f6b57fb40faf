//! Hostile paths: session ids, `cwd`, `transcript_path` and tool inputs crafted to escape
//! `.omc/`, and symlinks planted in `.omc/` pointing outside. Nothing outside the project's
//! state is written, nothing outside is read (a sentinel directory next to the project holds
//! state that would change an answer — an active run, notes — marked `SENTINEL`, and no answer
//! may ever carry that mark), and every hook still answers within the contract.

use super::kit::{self, CLEAN, Expect};
use omc_hooks::state::files::ModeState;
use omc_hooks::state::{Change, Root, Scope, StateFile, Store};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

const SID: &str = "hostile-sid-5e1";

/// The state files a capability may keep in a session directory.
const SESSION_FILES: &[&str] = &[
    "ralph-state.json",
    "autopilot-state.json",
    "ultrawork-state.json",
    "skill-active-state.json",
    "last-tool-error.json",
    "subagents.json",
];

/// A project next to a sentinel directory shaped like a `.omc` full of live state.
struct Arena {
    outer: tempfile::TempDir,
    before: BTreeMap<String, String>,
}

impl Arena {
    fn new() -> Arena {
        let outer = kit::scratch_dir();
        let project = outer.path().join("project");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let s = outer.path().join("sentinel");
        let active = |mode: &str| {
            serde_json::to_vec_pretty(&ModeState::start(
                mode,
                Some(SID),
                &project.to_string_lossy(),
                &format!("SENTINEL-TASK-{mode}"),
                "2026-12-02T13:44:00.000Z",
                100,
            ))
            .unwrap()
        };
        let write = |rel: &str, bytes: &[u8]| {
            let p = s.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        };
        for dir in [
            "state/sessions/".to_string() + SID,
            "state".into(),
            "files".into(),
        ] {
            for mode in ["ralph", "autopilot", "ultrawork"] {
                write(&format!("{dir}/{mode}-state.json"), &active(mode));
            }
            write(
                &format!("{dir}/skill-active-state.json"),
                br#"{"schema_version":1,"stack":[{"skill":"SENTINEL-SKILL","level":"heavy"}]}"#,
            );
            write(
                &format!("{dir}/last-tool-error.json"),
                br#"{"tool_name":"SENTINEL-TOOL","retry_count":9,"error":"SENTINEL-ERROR"}"#,
            );
            write(
                &format!("{dir}/subagents.json"),
                br#"{"agents":["SENTINEL-AGENT"]}"#,
            );
        }
        write(
            "notepad.md",
            b"## Priority Context\nSENTINEL-NOTE\n\n## Working Memory\n\n## MANUAL\n",
        );
        write("project-memory.json", br#"{"facts":["SENTINEL-MEMORY"]}"#);
        write(
            "config.json",
            br#"{"skills":{"protection":{"plan":"none"}},"ralph":{"max_iterations":1}}"#,
        );
        write(
            &format!("sessions/{SID}.json"),
            br#"{"note":"SENTINEL-SUMMARY"}"#,
        );
        write("secret.txt", b"SENTINEL secret, not state\n");
        write("lockfile", b"SENTINEL lock\n");
        let before = kit::snapshot(&s);
        Arena { outer, before }
    }

    fn project(&self) -> PathBuf {
        self.outer.path().join("project")
    }

    fn sentinel(&self) -> PathBuf {
        self.outer.path().join("sentinel")
    }

    /// The sentinel is byte-identical and nothing new appeared beside the project.
    #[track_caller]
    fn assert_untouched(&self, what: &str) {
        assert_eq!(
            kit::snapshot(&self.sentinel()),
            self.before,
            "{what}: the sentinel changed"
        );
        let mut names: Vec<_> = std::fs::read_dir(self.outer.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["project", "sentinel"],
            "{what}: written beside the project"
        );
    }

    fn store(&self) -> Store {
        Store::new(
            Root {
                project: self.project(),
                omc: self.project().join(".omc"),
            },
            kit::NOW_MS,
        )
    }
}

/// Runs every hook on `payload_for(event, k)` for two rounds; the answers keep the wire
/// contract and never carry anything read from the sentinel.
#[track_caller]
fn lifecycle(
    what: &str,
    cwd: &Path,
    env: &[(&str, &str)],
    payload_for: &dyn Fn(&str, usize) -> Value,
) -> usize {
    let mut runs = 0;
    for k in 0..2 {
        for (event, sub) in kit::hooks() {
            let bytes = serde_json::to_vec(&payload_for(&event, k)).unwrap();
            let out = kit::run_hook(&sub, &bytes, cwd, env);
            kit::assert_wire(&event, &sub, &out);
            assert!(
                !out.stdout.contains("SENTINEL"),
                "{what}/{sub}: read from outside the project: {}",
                out.stdout
            );
            assert!(
                !out.stderr.contains("panicked"),
                "{what}/{sub}: {}",
                out.stderr
            );
            runs += 1;
        }
    }
    runs
}

fn hostile_session_ids() -> Vec<String> {
    let mut ids: Vec<String> = [
        "../sentinel",
        "../../sentinel",
        "../../../sentinel/state/sessions/hostile-sid-5e1",
        "..",
        ".",
        "",
        "/",
        "a/../../..",
        "hostile-sid-5e1/../../../../sentinel",
        "sid\0../../sentinel",
        "sid\n",
        "-rf",
        "_x",
        "sid with spaces",
        "ｓｉｄ",
        "..\\..\\sentinel",
        "%2e%2e%2fsentinel",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ids.push(format!("/{}", "sentinel"));
    ids.push("a".repeat(257));
    ids.push("b".repeat(10_000));
    // Valid by the contract's pattern, but one byte over NAME_MAX (255) as a directory name.
    ids.push("c".repeat(256));
    ids
}

#[test]
fn hostile_session_ids_never_leave_the_project_state() {
    let a = Arena::new();
    let project = a.project();
    let dir = project.to_string_lossy().into_owned();
    let abs_sentinel = a.sentinel().to_string_lossy().into_owned();
    let mut runs = 0;
    let ids = hostile_session_ids();
    for sid in ids.iter().chain([&abs_sentinel]) {
        for env in [vec![("CLAUDE_PROJECT_DIR", dir.as_str())], vec![]] {
            runs += lifecycle(sid, &project, &env, &|event, k| {
                kit::realistic(event, sid, &project, k)
            });
        }
        a.assert_untouched(sid);
    }
    // Session directories are only ever made from valid ids.
    let sessions = project.join(".omc/state/sessions");
    for e in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            omc_hooks::state::SessionId::parse(&name).is_some(),
            "a session directory from an invalid id: {name:?}"
        );
    }
    kit::check_tree(&project, &[], CLEAN);
    eprintln!(
        "hostile/session-ids: {} ids, {runs} hook runs",
        ids.len() + 1
    );
}

#[test]
fn hostile_cwds_never_move_the_state_outside() {
    let a = Arena::new();
    let project = a.project();
    let dir = project.to_string_lossy().into_owned();
    let p = |s: &str| format!("{dir}/{s}");
    symlink(a.sentinel(), project.join("link-to-sentinel")).unwrap();
    // Without CLAUDE_PROJECT_DIR (the process runs in the project): none of these names a real
    // directory outside, so the root must stay the project.
    let relative_or_bogus = vec![
        "../sentinel".to_string(),
        "..".into(),
        ".".into(),
        "".into(),
        "~".into(),
        "file:///".into(),
        p("missing/../../sentinel"),
        p("\0/../../sentinel"),
        p(&"long/".repeat(2_000)),
        format!("/{}", "x".repeat(5_000)),
        p("link-to-sentinel"),
        p("link-to-sentinel/state"),
    ];
    // With CLAUDE_PROJECT_DIR (as Claude Code always sets it): no cwd at all may move the root.
    let mut anything = relative_or_bogus.clone();
    anything.extend([
        a.sentinel().to_string_lossy().into_owned(),
        a.outer.path().to_string_lossy().into_owned(),
        p("../sentinel"),
        "/".into(),
    ]);
    let mut runs = 0;
    for (cwds, env) in [
        (&relative_or_bogus, vec![]),
        (&anything, vec![("CLAUDE_PROJECT_DIR", dir.as_str())]),
    ] {
        for cwd in cwds {
            runs += lifecycle(cwd, &project, &env, &|event, k| {
                let mut v = kit::realistic(event, SID, &project, k);
                v["cwd"] = json!(cwd);
                v
            });
            a.assert_untouched(cwd);
        }
    }
    kit::check_tree(
        &project,
        &["link-to-sentinel"],
        Expect {
            allow_links: true,
            ..CLEAN
        },
    );
    eprintln!(
        "hostile/cwd: {} cwds, {runs} hook runs",
        relative_or_bogus.len() + anything.len()
    );
}

#[test]
fn hostile_transcripts_and_tool_inputs_neither_escape_nor_hang() {
    let a = Arena::new();
    let project = a.project();
    let dir = project.to_string_lossy().into_owned();
    let pipes = kit::scratch_dir();
    let fifo = pipes.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let secret = a.sentinel().join("secret.txt");
    let transcripts: Vec<Value> = vec![
        json!("/dev/zero"),
        json!("/dev/urandom"),
        json!(fifo),
        json!(secret),
        json!(a.sentinel()),
        json!("../../sentinel/secret.txt"),
        json!(format!("/{}", "t".repeat(10_000))),
        json!("\0"),
        json!(42),
        json!({"path": "/dev/zero"}),
    ];
    let env = [("CLAUDE_PROJECT_DIR", dir.as_str())];
    let mut runs = 0;
    for t in &transcripts {
        runs += lifecycle("transcript", &project, &env, &|event, k| {
            let mut v = kit::realistic(event, SID, &project, k);
            v["transcript_path"] = t.clone();
            v["agent_transcript_path"] = t.clone();
            v
        });
    }
    a.assert_untouched("transcripts");
    // Tool inputs and ids that look like paths out.
    let escapes = [
        "../../sentinel/secret",
        "../../../../../../etc/passwd",
        "oh-my-claudecode:../../sentinel",
        "/abs/skill",
        "a\0b",
    ];
    for esc in escapes.iter().map(|s| s.to_string()).chain([format!(
        "{}:{}",
        "n".repeat(300),
        "s".repeat(10_000)
    )]) {
        runs += lifecycle(&esc, &project, &env, &|event, k| {
            let mut v = kit::realistic(event, SID, &project, k);
            v["tool_input"] = json!({
                "skill": esc, "file_path": secret, "command": format!("cat {esc}"),
                "content": "SENTINEL overwrite", "todos": [{"content": esc, "status": "pending"}],
            });
            v["tool_name"] = json!(if k == 0 { "Skill" } else { "Write" });
            v["agent_id"] = json!(esc);
            v["agent_type"] = json!(esc);
            v["tool_use_id"] = json!(esc);
            v["source"] = json!(esc);
            v["trigger"] = json!(esc);
            v["reason"] = json!(esc);
            v["prompt"] = json!(format!("ralph write to {esc} and {}", secret.display()));
            v
        });
        a.assert_untouched(&esc);
    }
    kit::check_tree(&project, &[], CLEAN);
    eprintln!(
        "hostile/inputs: {} transcripts, {} tool inputs, {runs} hook runs",
        transcripts.len(),
        escapes.len() + 1
    );
}

/// Where a symlink is planted (relative to the project) and where it points (relative to the
/// sentinel). Each gets a fresh arena.
fn plants() -> Vec<Vec<(String, String)>> {
    let sd = format!(".omc/state/sessions/{SID}");
    let mut out = vec![
        vec![(".omc".into(), "".into())],
        vec![(".omc/state".into(), "state".into())],
        vec![(".omc/state/sessions".into(), "state/sessions".into())],
        vec![(sd.clone(), format!("state/sessions/{SID}"))],
        vec![(format!("{sd}/checkpoints"), "state".into())],
        vec![(".omc/sessions".into(), "sessions".into())],
        vec![
            (".omc/notepad.md".into(), "notepad.md".into()),
            (
                ".omc/project-memory.json".into(),
                "project-memory.json".into(),
            ),
            (".omc/config.json".into(), "config.json".into()),
            (
                format!(".omc/sessions/{SID}.json"),
                format!("sessions/{SID}.json"),
            ),
        ],
    ];
    // Every session and session-less state file, and their lock files.
    let mut files = Vec::new();
    for name in SESSION_FILES {
        files.push((format!("{sd}/{name}"), format!("files/{name}")));
        files.push((format!(".omc/state/{name}"), format!("files/{name}")));
        files.push((format!("{sd}/.{name}.lock"), "lockfile".into()));
    }
    out.push(files);
    out
}

fn plant(a: &Arena, links: &[(String, String)]) {
    for (at, to) in links {
        let at = a.project().join(at);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(a.sentinel().join(to), &at).unwrap();
    }
}

#[test]
fn planted_symlinks_are_not_followed_by_any_hook() {
    let mut runs = 0;
    let plants = plants();
    for links in &plants {
        let a = Arena::new();
        plant(&a, links);
        let project = a.project();
        let dir = project.to_string_lossy().into_owned();
        let what = format!("{links:?}");
        runs += lifecycle(
            &what,
            &project,
            &[("CLAUDE_PROJECT_DIR", dir.as_str())],
            &|event, k| {
                let mut v = kit::realistic(event, SID, &project, k);
                if event == "UserPromptSubmit" {
                    v["prompt"] = json!("ralph fix the failing tests");
                }
                v
            },
        );
        a.assert_untouched(&what);
        // What the hooks wrote is real files; a planted link is either still the same link or
        // was replaced, never written through.
        kit::check_tree(
            &project,
            &[],
            Expect {
                allow_links: true,
                ..CLEAN
            },
        );
    }
    eprintln!(
        "hostile/symlinks: {} plants, {runs} hook runs",
        plants.len()
    );
}

/// The store itself, for every plant: reads through a planted link find nothing, writes are
/// refused or land inside, listings do not enumerate the outside. Meaningful before any
/// capability writes state.
#[test]
fn the_store_neither_reads_nor_writes_through_planted_symlinks() {
    let scopes = [Scope::for_session(Some(SID)), Scope::Global];
    let mut ops = 0;
    for links in plants() {
        let a = Arena::new();
        plant(&a, &links);
        let st = a.store();
        let what = format!("{links:?}");
        for scope in &scopes {
            for name in SESSION_FILES {
                let f = StateFile::new(scope, name).unwrap();
                let seen: Option<Value> = st.read(&f);
                assert!(
                    !seen
                        .as_ref()
                        .is_some_and(|v| v.to_string().contains("SENTINEL")),
                    "{what}: read {} through a planted symlink: {seen:?}",
                    st.path(&f).display()
                );
                assert!(
                    !st.read_text(&f).is_some_and(|t| t.contains("SENTINEL")),
                    "{what}: read_text through a planted symlink"
                );
                let _ = st.write(&f, &json!({"schema_version": 1, "written": "inside"}));
                let _ = st.update(&f, |v: Option<Value>| {
                    assert!(!v.is_some_and(|v| v.to_string().contains("SENTINEL")));
                    (
                        Change::Write(json!({"schema_version": 1, "updated": true})),
                        (),
                    )
                });
                let _ = st.remove(&f);
                ops += 4;
            }
            let listed = st.list(scope, None);
            assert!(
                !listed.iter().any(|n| n.contains("ralph-state"))
                    || a.project().join(".omc").exists(),
                "{what}: listed the outside: {listed:?}"
            );
            for n in &listed {
                let f = StateFile::new(scope, n).unwrap();
                assert!(
                    !st.read_text(&f).is_some_and(|t| t.contains("SENTINEL")),
                    "{what}: {n} listed and read from outside"
                );
            }
        }
        for name in ["notepad.md", "project-memory.json", "config.json"] {
            let f = StateFile::new(&Scope::Omc, name).unwrap();
            assert!(
                !st.read_text(&f).is_some_and(|t| t.contains("SENTINEL")),
                "{what}: read {name} through a planted symlink"
            );
        }
        let sessions: Vec<String> = st.sessions().iter().map(|s| s.to_string()).collect();
        if !sessions.is_empty() {
            let real = a.project().join(".omc/state/sessions");
            let real_dir = std::fs::symlink_metadata(&real).is_ok_and(|m| m.is_dir());
            assert!(
                real_dir,
                "{what}: sessions listed from outside: {sessions:?}"
            );
        }
        a.assert_untouched(&what);
    }
    eprintln!("hostile/store: {ops} store operations through planted symlinks");
}

#[test]
fn hostile_session_ids_map_to_the_session_less_scope() {
    for sid in hostile_session_ids() {
        let scope = Scope::for_session(Some(&sid));
        if sid.len() <= 256 && sid.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue; // the 256-char id is valid by the contract's pattern
        }
        assert_eq!(scope, Scope::Global, "{sid:?}");
    }
}

/// A 256-character session id is valid by the contract's pattern but longer than a directory
/// name may be (NAME_MAX is 255 on Linux): the hooks must still answer, and write nothing
/// anywhere else.
#[test]
fn a_session_id_longer_than_a_file_name_fails_open() {
    let p = kit::project();
    let dir = p.path().to_string_lossy().into_owned();
    let sid = "c".repeat(256);
    assert!(omc_hooks::state::SessionId::parse(&sid).is_some());
    let st = Store::new(
        Root {
            project: p.path().to_path_buf(),
            omc: p.omc(),
        },
        kit::NOW_MS,
    );
    let f = StateFile::new(&Scope::for_session(Some(&sid)), "ralph-state.json").unwrap();
    let err = st.write(&f, &json!({})).expect_err("ENAMETOOLONG");
    assert!(!err.to_string().is_empty());
    for (event, sub) in kit::hooks() {
        let bytes = serde_json::to_vec(&kit::realistic(&event, &sid, p.path(), 0)).unwrap();
        let out = kit::run_hook(&sub, &bytes, p.path(), &[("CLAUDE_PROJECT_DIR", &dir)]);
        kit::assert_wire(&event, &sub, &out);
    }
    kit::check_tree(p.path(), &[], CLEAN);
}
