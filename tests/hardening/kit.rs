//! Shared tools of the hardening suites: the scale knob, a seeded random source, realistic
//! payloads for every event, scratch projects on a fast filesystem, and the invariants every
//! suite checks on a project's state tree.

use crate::common::{Outcome, Project, manifest_hooks, payload};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The pinned clock of every run here (the same instant `common::Hook` pins).
pub const NOW_MS: i64 = 1_796_305_500_000;

/// A hang bound, not a speed measure: far above any sane run, far below "forever".
pub const HANG: Duration = Duration::from_secs(15);

/// `OMC_HARDENING_SCALE` (default 1): multiplies every count in the suite.
pub fn scale() -> usize {
    std::env::var("OMC_HARDENING_SCALE")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1)
}

/// SplitMix64: small, seedable, good enough to pick delays and payloads. No dependency.
pub struct Rng(u64);

impl Rng {
    /// Seeded from `OMC_HARDENING_SEED` or the clock; the seed is printed so a failure can be
    /// replayed.
    pub fn new(label: &str) -> Rng {
        let seed = std::env::var("OMC_HARDENING_SEED")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(7)
            });
        eprintln!("{label}: seed {seed} (replay with OMC_HARDENING_SEED={seed})");
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// Where scratch projects go: `/dev/shm` when usable (every state write fsyncs, and a RAM
/// filesystem keeps thousands of them cheap), else the system temp directory.
pub fn scratch_root() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && tempfile::Builder::new()
            .prefix("omc-probe-")
            .tempdir_in(shm)
            .is_ok()
    {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// A scratch directory (not a project).
pub fn scratch_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("omc-hard-")
        .tempdir_in(scratch_root())
        .expect("scratch dir")
}

/// A throw-away project (a `.git` marker) on the scratch filesystem.
pub fn project() -> Project {
    let dir = scratch_dir();
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    Project { dir }
}

/// The hook subcommands and their events, from the shipped manifest, each once.
pub fn hooks() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for h in manifest_hooks() {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    assert!(out.len() >= 10, "the manifest names every event: {out:?}");
    out
}

/// Prompts a person might type, from plain requests to every kind of keyword use.
pub const PROMPTS: &[&str] = &[
    "ralph fix the failing tests in src/parser.rs",
    "ulw refactor the config loader and keep the API",
    "autopilot build a small todo app with tests",
    "tdd: add a test for parse_duration first",
    "what does ralph do exactly?",
    "don't use autopilot for this, just rename the function",
    "ultrathink about why the cache misses",
    "deepsearch for where the auth token is refreshed",
    "cancelomc",
    "please look at `ralph_count` in src/ralph/mod.rs",
    "ralplan the migration to the new schema",
    "code-review the last commit",
    "> ralph fix everything\nthat was a quote, just explain it",
    "랄프 테스트를 고쳐줘",
    "add an autopilot toggle to the settings page",
    "cancel",
];

/// Skill names as Claude Code reports them in `tool_input.skill`.
pub const SKILLS: &[&str] = &[
    "oh-my-claudecode:ralplan",
    "plan",
    "deep-interview",
    "review",
    "my-own-skill",
    "oh-my-claudecode:cancel",
    "ask",
];

/// A realistic payload of `event` for session `sid` in `project`; `k` varies the details
/// (prompt, tool, agent id…) so a loop over `k` covers the interesting shapes.
pub fn realistic(event: &str, sid: &str, project: &Path, k: usize) -> Value {
    let mut v = payload(event, sid, project);
    let o = v.as_object_mut().unwrap();
    let mut set = |key: &str, val: Value| {
        o.insert(key.to_string(), val);
    };
    match event {
        "SessionStart" => {
            set(
                "source",
                json!(["startup", "resume", "clear", "compact"][k % 4]),
            );
            set("model", json!("claude-sonnet-4-5"));
        }
        "UserPromptSubmit" => set("prompt", json!(PROMPTS[k % PROMPTS.len()])),
        "PreToolUse" => {
            set("tool_name", json!("Skill"));
            set("tool_input", json!({"skill": SKILLS[k % SKILLS.len()]}));
            set("tool_use_id", json!(format!("toolu_pre_{k}")));
        }
        "PostToolUse" => match k % 4 {
            0 => {
                set("tool_name", json!("Skill"));
                set("tool_input", json!({"skill": SKILLS[k % SKILLS.len()]}));
                set(
                    "tool_response",
                    json!({"success": true, "commandName": SKILLS[k % SKILLS.len()]}),
                );
            }
            1 => {
                set("tool_name", json!("Edit"));
                set(
                    "tool_input",
                    json!({"file_path": project.join("src/lib.rs"), "old_string": "a", "new_string": "b\nc"}),
                );
                set(
                    "tool_response",
                    json!({"filePath": project.join("src/lib.rs")}),
                );
            }
            2 => {
                set("tool_name", json!("Read"));
                set(
                    "tool_input",
                    json!({"file_path": project.join("README.md")}),
                );
                set("tool_response", json!({"type": "text"}));
            }
            _ => {
                set("tool_name", json!("TodoWrite"));
                set(
                    "tool_input",
                    json!({"todos": [{"content": "fix parser", "status": "in_progress", "activeForm": "Fixing parser"}]}),
                );
                set("tool_response", json!({}));
            }
        },
        "PostToolUseFailure" => {
            set("tool_name", json!("Bash"));
            set(
                "tool_input",
                json!({"command": "cargo test", "description": "run tests"}),
            );
            set("tool_use_id", json!(format!("toolu_fail_{k}")));
            set(
                "error",
                json!("Exit code 101\nerror: test failed, to rerun pass `--lib`"),
            );
            set("is_interrupt", json!(false));
            set("duration_ms", json!(1234));
        }
        "SubagentStart" => {
            set("agent_id", json!(format!("agent{k:04}")));
            set(
                "agent_type",
                json!(["general-purpose", "Explore", "Plan"][k % 3]),
            );
        }
        "SubagentStop" => {
            set("agent_id", json!(format!("agent{k:04}")));
            set(
                "agent_type",
                json!(["general-purpose", "Explore", "Plan"][k % 3]),
            );
            set(
                "agent_transcript_path",
                json!(project.join(format!("subagents/agent-{k}.jsonl"))),
            );
            set("stop_hook_active", json!(false));
            set("last_assistant_message", json!("Found it in src/auth.rs."));
        }
        "PreCompact" => {
            set("trigger", json!(["auto", "manual"][k % 2]));
            set("custom_instructions", json!(""));
        }
        "Stop" => {
            set("stop_hook_active", json!(k % 3 == 2));
            set(
                "last_assistant_message",
                json!("I changed the parser; tests pass."),
            );
        }
        "SessionEnd" => set(
            "reason",
            json!(["clear", "logout", "prompt_input_exit", "other"][k % 4]),
        ),
        _ => {}
    }
    v
}

/// Starts a hook process with `stdin` as its payload; stdin is closed after the write.
/// The environment is scrubbed of switches, the clock pinned; `env` adds to it.
pub fn spawn_hook(sub: &str, stdin: &[u8], cwd: &Path, env: &[(&str, &str)]) -> Child {
    let mut cmd = crate::common::hook_command();
    cmd.arg(sub)
        .current_dir(cwd)
        .env_remove("OMC_DEBUG")
        .env("OMC_NOW_MS", NOW_MS.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn omc-hooks");
    let mut pipe = child.stdin.take().unwrap();
    // Payloads here are small (well under a pipe buffer) unless a test says otherwise; a
    // writer thread keeps large ones from deadlocking against a hook that stops reading.
    let data = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    child
}

/// Waits for a hook started by [`spawn_hook`] and collects what it did.
pub fn finish(child: Child, started: Instant) -> Outcome {
    let out = child.wait_with_output().expect("wait");
    Outcome {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// Runs one hook to the end.
pub fn run_hook(sub: &str, stdin: &[u8], cwd: &Path, env: &[(&str, &str)]) -> Outcome {
    let started = Instant::now();
    finish(spawn_hook(sub, stdin, cwd, env), started)
}

/// The wire contract on a finished hook: exit 0 within the hang bound, nothing or one JSON
/// object on one line, in a shape Claude Code accepts for `event`.
#[track_caller]
pub fn assert_wire(event: &str, sub: &str, out: &Outcome) {
    out.expect_valid();
    assert!(out.elapsed < HANG, "{sub} took {:?}", out.elapsed);
    if !out.stdout.is_empty() {
        assert_answer_shape(event, &out.json(), sub);
    }
}

/// An encoded answer uses only the keys Claude Code reads, a block only where the event
/// accepts one, and never `"continue": false`.
#[track_caller]
pub fn assert_answer_shape(event: &str, v: &Value, what: &str) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object: {v}"));
    assert!(!obj.is_empty(), "{what}: an empty object is not a no-op");
    for key in obj.keys() {
        assert!(
            ["decision", "reason", "hookSpecificOutput", "systemMessage"].contains(&key.as_str()),
            "{what}: unexpected key {key} in {v}"
        );
    }
    assert!(obj.get("continue").is_none(), "{what}: continue in {v}");
    if let Some(d) = obj.get("decision") {
        assert_eq!(d, "block", "{what}: {v}");
        assert!(
            matches!(event, "Stop" | "SubagentStop"),
            "{what}: a block on {event}: {v}"
        );
        assert!(
            obj.get("reason").and_then(Value::as_str).is_some(),
            "{what}: {v}"
        );
    }
    if let Some(s) = obj.get("hookSpecificOutput") {
        assert_eq!(s["hookEventName"], event, "{what}: {v}");
        if s.get("permissionDecision").is_some() {
            assert_eq!(event, "PreToolUse", "{what}: {v}");
        }
    }
}

/// What the invariants found in a state tree.
#[derive(Debug, Default)]
pub struct Tree {
    /// Every regular file, relative to the project.
    pub files: Vec<String>,
    /// JSON state files checked.
    pub json_files: usize,
    /// Leftover `.tmp-*` files (only a killed writer may leave them).
    pub temp_files: Vec<String>,
}

/// Options of [`check_tree`].
#[derive(Clone, Copy)]
pub struct Expect {
    /// Leftover temporary files are allowed (a writer was killed mid-write).
    pub allow_temp: bool,
    /// Quarantined `*.corrupt-*` files are allowed (the test planted corrupt state).
    pub allow_corrupt: bool,
    /// Symlinks are allowed (the test planted them); they are never followed.
    pub allow_links: bool,
    /// JSON files no schema describes are allowed (the test wrote them through the store).
    pub foreign_json: bool,
}

pub const CLEAN: Expect = Expect {
    allow_temp: false,
    allow_corrupt: false,
    allow_links: false,
    foreign_json: false,
};

/// For tests that write their own files through the store.
pub const STORE: Expect = Expect {
    foreign_json: true,
    ..CLEAN
};

/// The invariants of a project after hooks ran on it:
/// * nothing but `.git` and `.omc` at the project's top level (plus `keep`, what the test put
///   there itself);
/// * no symlink anywhere under `.omc` (the binary never makes one), unless the test planted
///   some — those are skipped, never followed;
/// * every `*.json` under `.omc` parses and is valid against the schema in `state-schema/`
///   that describes it (see [`schema_for`]); one no schema describes is an error unless the
///   test wrote it itself;
/// * no `*.corrupt-*` (a torn write would be quarantined by the next reader and so hidden);
/// * no temporary file, unless allowed.
#[track_caller]
pub fn check_tree(project: &Path, keep: &[&str], expect: Expect) -> Tree {
    let mut tree = Tree::default();
    for e in std::fs::read_dir(project).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            name == ".git" || name == ".omc" || keep.contains(&name.as_str()),
            "written outside .omc: {}",
            e.path().display()
        );
    }
    let omc = project.join(".omc");
    if std::fs::symlink_metadata(&omc).is_ok_and(|m| m.file_type().is_symlink()) {
        assert!(expect.allow_links, ".omc is a symlink");
        return tree;
    }
    let mut stack = vec![omc.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(project)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
            if ft.is_symlink() {
                assert!(expect.allow_links, "a symlink under .omc: {rel}");
                continue;
            }
            if ft.is_dir() {
                stack.push(p);
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") {
                tree.temp_files.push(rel.clone());
            } else if name.contains(".corrupt-") {
                assert!(
                    expect.allow_corrupt,
                    "quarantined file (torn write?): {rel}"
                );
            } else if name.ends_with(".json") {
                let bytes = std::fs::read(&p).unwrap();
                let v: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                    panic!(
                        "{rel} is not valid JSON ({e}): {:?}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
                    )
                });
                match schema_for(&rel) {
                    Some(schema) => crate::schema::assert_valid(&schema, &v),
                    None => assert!(
                        expect.foreign_json,
                        "{rel}: written without a schema in state-schema/"
                    ),
                }
                tree.json_files += 1;
            }
            tree.files.push(rel);
        }
    }
    assert!(
        expect.allow_temp || tree.temp_files.is_empty(),
        "temporary files left behind: {:?}",
        tree.temp_files
    );
    tree.files.sort();
    tree
}

/// The schema that describes a state file. Each schema's `title` opens with the file it
/// describes (`<mode>-state.json — …`, `checkpoints/<stamp>.json — …`,
/// `.omc/sessions/<session_id>.json — …`); a title naming a path from `.omc/` matches that
/// path, any other matches the end of the file's path, `<…>` standing for one name or part of
/// one. The most specific match wins. New schemas are picked up without touching this suite.
pub fn schema_for(rel: &str) -> Option<String> {
    static PATTERNS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("state-schema");
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_suffix(".schema.json") else {
                continue;
            };
            let v: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
            let title = v["title"].as_str().unwrap_or_default();
            let pattern = title.split_whitespace().next().unwrap_or_default();
            if pattern.ends_with(".json") {
                out.push((pattern.to_string(), name.to_string()));
            }
        }
        // Most specific first: anchored at .omc, then more path segments, then fewer
        // placeholders (`skill-active-state.json` before `<mode>-state.json`).
        out.sort_by_key(|(p, _)| {
            (
                !p.starts_with(".omc/"),
                std::cmp::Reverse(p.matches('/').count()),
                p.matches('<').count(),
            )
        });
        out
    });
    let segs: Vec<&str> = rel.split('/').collect();
    patterns
        .iter()
        .find(|(pattern, _)| {
            let pat: Vec<&str> = pattern.split('/').collect();
            if pattern.starts_with(".omc/") && pat.len() != segs.len() {
                return false;
            }
            pat.len() <= segs.len()
                && pat
                    .iter()
                    .rev()
                    .zip(segs.iter().rev())
                    .all(|(p, s)| segment_matches(p, s))
        })
        .map(|(_, name)| name.clone())
}

/// `p` with at most one `<…>` placeholder standing for a non-empty part of `s`.
fn segment_matches(p: &str, s: &str) -> bool {
    match (p.find('<'), p.find('>')) {
        (Some(a), Some(b)) if a < b => {
            let (pre, post) = (&p[..a], &p[b + 1..]);
            s.len() > pre.len() + post.len() && s.starts_with(pre) && s.ends_with(post)
        }
        _ => p == s,
    }
}

/// Files of one session never mention another session's id: its state directory and its
/// summary (`.omc/sessions/<sid>.json`). Ids must not be substrings of each other.
#[track_caller]
pub fn assert_no_cross_session_leak(project: &Path, sids: &[&str]) -> usize {
    let mut checked = 0;
    for sid in sids {
        let mut paths = Vec::new();
        collect_files(&project.join(".omc/state/sessions").join(sid), &mut paths);
        let summary = project.join(".omc/sessions").join(format!("{sid}.json"));
        if summary.is_file() {
            paths.push(summary);
        }
        for p in paths {
            let mut text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            // A run that moved between sessions by design (a suspended run taken up by the next
            // session, contract §9) names where it came from and went: only those two fields.
            if let Ok(serde_json::Value::Object(mut m)) = serde_json::from_str(&text)
                && (m.remove("resumed_from").is_some() | m.remove("resumed_into").is_some())
            {
                text = serde_json::Value::Object(m).to_string();
            }
            for other in sids.iter().filter(|o| *o != sid) {
                assert!(
                    !text.contains(other),
                    "{} (session {sid}) mentions session {other}",
                    p.display()
                );
            }
            checked += 1;
        }
    }
    checked
}

pub fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => collect_files(&p, out),
            Ok(m) if m.is_file() => out.push(p),
            _ => {}
        }
    }
}

/// A byte-exact picture of a directory tree: every entry's kind, mode, content or link target.
pub fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    snap(dir, dir, &mut out);
    out
}

fn snap(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        let m = std::fs::symlink_metadata(&p).unwrap();
        let desc = if m.file_type().is_symlink() {
            format!("link -> {}", std::fs::read_link(&p).unwrap().display())
        } else if m.is_dir() {
            snap(base, &p, out);
            format!("dir {:o}", m.mode())
        } else {
            format!(
                "file {:o} {:?}",
                m.mode(),
                String::from_utf8_lossy(&std::fs::read(&p).unwrap())
            )
        };
        out.insert(rel, desc);
    }
}

/// Whether this process may mount filesystems (root with CAP_SYS_ADMIN, as in this sandbox).
/// Returns the reason when it may not.
pub fn can_mount() -> Result<(), String> {
    let d = scratch_dir();
    let t = d.path().join("m");
    std::fs::create_dir(&t).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&t)
        .output()
        .map_err(|e| format!("cannot run mount: {e}"))?;
    if !mounted.status.success() {
        return Err(format!(
            "mount -t tmpfs failed: {}",
            String::from_utf8_lossy(&mounted.stderr).trim()
        ));
    }
    let _ = Command::new("umount").arg(&t).status();
    Ok(())
}

/// `mount <args…> <target>`; `Err` with mount's stderr when it fails.
pub fn mount(args: &[&str], target: &Path) -> Result<(), String> {
    let out = Command::new("mount")
        .args(args)
        .arg(target)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A mount point that is unmounted when dropped.
pub struct Mount(pub PathBuf);

impl Mount {
    /// Mounts with [`mount`] and keeps the guard.
    pub fn new(args: &[&str], target: &Path) -> Result<Mount, String> {
        mount(args, target).map(|()| Mount(target.to_path_buf()))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

/// The state store of `project` (`.omc/` in it) at the pinned clock.
pub fn store_at(project: &Path) -> omc_hooks::state::Store {
    omc_hooks::state::Store::new(
        omc_hooks::state::Root {
            project: project.to_path_buf(),
            omc: project.join(".omc"),
        },
        NOW_MS,
    )
}
