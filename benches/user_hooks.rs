//! What user hooks cost a hook invocation (issue 17), next to `/bin/true` measured in the same
//! run:
//!
//! * in-process: loading the hooks configuration when no `hooks.toml` exists (the case of
//!   almost every project), and when a small trusted project file exists;
//! * whole process: `pre-tool-use` for a Bash call — the event that now fires for every tool —
//!   with no `hooks.toml`, with one entry that does not match, with a `true` script that does,
//!   and with a webhook on a loopback server answering `{"action":"allow"}`;
//! * `omc-hooks --version`, the start-up floor (set `OMC_BENCH_BASELINE_BIN` to other builds,
//!   `:`-separated — e.g. main's and one without ureq — to time them in the same run).
//!
//! Run: `cargo bench --bench user_hooks` (`OMC_BENCH_RUNS`, default 200). Prints Markdown.

use omc_hooks::env::Env;
use omc_hooks::state::{Root, Store};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_omc-hooks");

fn runs() -> usize {
    std::env::var("OMC_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    (pct(0.5), pct(0.1), pct(0.9))
}

/// Wall time and CPU time (user + system, with whatever it waited for) of one process: spawn,
/// write stdin, reap with wait4.
fn once(program: &str, args: &[&str], stdin: &[u8], cwd: &Path, config: &Path) -> (f64, f64) {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("XDG_CONFIG_HOME", config)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin);
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    let mut usage = zeroed_rusage();
    assert_eq!(wait4(pid, &mut status, &mut usage), pid, "wait4 failed");
    let wall = start.elapsed().as_secs_f64() * 1e3;
    let st = std::process::ExitStatus::from_raw(status);
    assert!(
        st.success() || program == "/bin/true",
        "{program} exited {st}"
    );
    std::mem::forget(child);
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    (wall, tv(usage.ru_utime) + tv(usage.ru_stime))
}

#[allow(unsafe_code)]
fn zeroed_rusage() -> libc::rusage {
    // SAFETY: rusage is a plain C struct of integers; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

#[allow(unsafe_code)]
fn wait4(pid: libc::pid_t, status: &mut libc::c_int, usage: &mut libc::rusage) -> libc::pid_t {
    // SAFETY: valid pointers to live locals; pid is our own unreaped child (std's `Child` is
    // forgotten afterwards, so nothing waits on it twice).
    unsafe { libc::wait4(pid, status, 0, usage) }
}

/// A loopback server that answers every request with `{"action":"allow"}`.
fn allow_server() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut s = s;
                let mut buf = [0u8; 65536];
                let mut got = Vec::new();
                // Headers, then Content-Length bytes of body.
                loop {
                    let n = s.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                    if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                        let len: usize = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        if got.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                let body = br#"{"action":"allow"}"#;
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(body);
            });
        }
    });
    port
}

fn size(p: &str) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

fn main() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".git")).unwrap();
    std::fs::create_dir(project.path().join(".omc")).unwrap();
    let config = tempfile::tempdir().unwrap();
    let hooks_dir = config.path().join("omc-hooks");
    std::fs::create_dir_all(&hooks_dir).unwrap();
    let user_file = hooks_dir.join("hooks.toml");

    // ---- in-process: loading ----
    let mut extra = HashMap::new();
    extra.insert(
        "XDG_CONFIG_HOME".to_string(),
        config.path().to_string_lossy().into_owned(),
    );
    let env = Env::from_lookup(|_| None, None, extra);
    let store = Store::new(
        Root {
            project: project.path().to_path_buf(),
            omc: project.path().join(".omc"),
        },
        0,
    );
    let time_load = |n: usize| {
        let samples: Vec<f64> = (0..n)
            .map(|_| {
                let t = Instant::now();
                let l = omc_hooks::config::hooks_toml::load(&env, Some(&store));
                let us = t.elapsed().as_secs_f64() * 1e6;
                std::hint::black_box(l);
                us
            })
            .collect();
        stats(samples)
    };
    let (none, none10, none90) = time_load(20_000);
    let project_file = project.path().join(".omc/hooks.toml");
    std::fs::write(
        &project_file,
        "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"script\"\ncommand = \"sh ci/guard.sh\"\ntimeout_ms = 2000\n\n\
         [[hooks]]\nevent = \"post-tool-use\"\ntype = \"async_webhook\"\nurl = \"http://127.0.0.1:9000/batch\"\n",
    )
    .unwrap();
    let (some, some10, some90) = time_load(5_000);
    let trust_t: Vec<f64> = (0..5_000)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(omc_hooks::state::trust::read(&env));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    let (tr, tr10, tr90) = stats(trust_t);
    std::fs::remove_file(&project_file).unwrap();
    println!("In-process (µs):\n");
    println!("| case | median | p10–p90 |\n|---|---:|---:|");
    println!("| load, no hooks.toml anywhere | {none:.2} | {none10:.2}–{none90:.2} |");
    println!(
        "| load, a 2-entry project hooks.toml (read, SHA-256, parse) | {some:.1} | {some10:.1}–{some90:.1} |"
    );
    println!("| read trusted.json (absent) | {tr:.2} | {tr10:.2}–{tr90:.2} |");

    // ---- whole process, interleaved: one run of every case per round ----
    let payload = serde_json::to_vec(&serde_json::json!({
        "session_id": "bench-uh-1",
        "cwd": project.path(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cargo test"},
        "tool_use_id": "toolu_1",
        "permission_mode": "default",
    }))
    .unwrap();
    let port = allow_server();
    let entry = |rest: &str| format!("[[hooks]]\nevent = \"pre-tool-use\"\n{rest}\n");
    struct Case {
        name: String,
        program: String,
        args: Vec<&'static str>,
        hooks: Option<String>,
    }
    let hook = |name: &str, hooks: Option<String>| Case {
        name: name.to_string(),
        program: BIN.to_string(),
        args: vec!["pre-tool-use"],
        hooks,
    };
    let mut cases = vec![
        Case {
            name: "`/bin/true` (baseline)".into(),
            program: "/bin/true".into(),
            args: vec![],
            hooks: None,
        },
        hook("`pre-tool-use`, no hooks.toml", None),
        hook(
            "`pre-tool-use`, one entry, not matching (Edit)",
            Some(entry(
                "matcher = \"Edit\"\ntype = \"script\"\ncommand = \"true\"",
            )),
        ),
        hook(
            "`pre-tool-use`, a `true` script matching Bash",
            Some(entry(
                "matcher = \"Bash\"\ntype = \"script\"\ncommand = \"true\"",
            )),
        ),
        hook(
            "`pre-tool-use`, a loopback webhook answering allow",
            Some(entry(&format!(
                "matcher = \"Bash\"\ntype = \"webhook\"\nurl = \"http://127.0.0.1:{port}/\""
            ))),
        ),
        Case {
            name: format!("`--version`, this build ({} bytes)", size(BIN)),
            program: BIN.to_string(),
            args: vec!["--version"],
            hooks: None,
        },
    ];
    let others = std::env::var("OMC_BENCH_BASELINE_BIN").unwrap_or_default();
    for other in others.split(':').filter(|o| !o.is_empty()) {
        cases.push(Case {
            name: format!("`--version`, {other} ({} bytes)", size(other)),
            program: other.to_string(),
            args: vec!["--version"],
            hooks: None,
        });
    }
    let cwd = project.path();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for round in 0..runs() + 5 {
        for (i, c) in cases.iter().enumerate() {
            match &c.hooks {
                Some(text) => std::fs::write(&user_file, text).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&user_file);
                }
            }
            let stdin: &[u8] = if c.args == ["--version"] {
                b""
            } else {
                &payload
            };
            let (ms, cpu_ms) = once(&c.program, &c.args, stdin, cwd, config.path());
            if round >= 5 {
                samples[i].push(ms);
                cpu[i].push(cpu_ms);
            }
        }
    }
    let _ = std::fs::remove_file(&user_file);
    let (t, _, _) = stats(samples[0].clone());
    println!(
        "\nWhole process, a Bash call ({} rounds, every case once per round):\n",
        runs()
    );
    println!(
        "| case | wall median (ms) | p10–p90 (ms) | × `/bin/true` | CPU median (ms) | p10–p90 (ms) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for ((c, v), u) in cases.iter().zip(samples).zip(cpu) {
        let (m, p10, p90) = stats(v);
        let (cm, c10, c90) = stats(u);
        println!(
            "| {} | {m:.2} | {p10:.2}–{p90:.2} | {:.2} | {cm:.2} | {c10:.2}–{c90:.2} |",
            c.name,
            m / t
        );
    }
}
