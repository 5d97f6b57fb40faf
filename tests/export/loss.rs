//! At-least-once under failure: 10 000 events through the batch webhook sink, the endpoint
//! down (connections refused) while the first half is spooled, the flusher SIGKILLed three
//! times (once while the endpoint is down, twice in the middle of delivery). Every event
//! arrives; duplicates are allowed and counted by idempotency key.

use super::server::{Mode, Server};
use super::*;
use crate::common::{Hook, Project, payload};
use omc_hooks::export::{enqueue, sources};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

const N: usize = 10_000;
/// Of which this many go through the hook binary (the rest through the library call the
/// binary makes, to keep the test's run time reasonable on two cores).
const THROUGH_THE_BINARY: usize = 40;
const THREADS: usize = 4;
const SECRET: &str = "loss-test-key";

#[test]
fn ten_thousand_events_arrive_despite_a_down_endpoint_and_three_sigkills() {
    let p = Project::new();
    let port = Server::free_port();
    let url = format!("http://127.0.0.1:{port}/batch");
    let env_pairs = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_WEBHOOK_SECRET", SECRET),
        ("OMC_EXPORT_BATCH_SIZE", "100"),
        ("OMC_EXPORT_FLUSH_INTERVAL_MS", "50"),
        ("OMC_EXPORT_LINGER_MS", "300"),
    ];
    let env = env_of(&env_pairs);
    let (sinks, errors) = sources::from_env(|k| env.var(k).map(str::to_string));
    assert!(errors.is_empty() && sinks.len() == 1, "{errors:?}");
    let s = store(p.path());
    let sent: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let markers: Vec<String> = (0..THROUGH_THE_BINARY)
        .map(|i| format!("through-the-binary-{i}"))
        .collect();

    // The first half, with nothing listening on the port.
    let spool_half = |range: std::ops::Range<usize>| {
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (s, env, sinks, sent) = (&s, &env, &sinks, &sent);
                let range = range.clone();
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for i in range.filter(|i| i % THREADS == t) {
                        let ev = event(i, &format!("sess-{t}"));
                        let done = enqueue(s, env, &ev, sinks);
                        assert_eq!(done.spooled, 1, "{done:?}");
                        mine.push(ev.id);
                    }
                    sent.lock().unwrap().extend(mine);
                });
            }
        });
    };
    let half = (N - THROUGH_THE_BINARY) / 2;
    spool_half(0..half);
    for m in &markers[..THROUGH_THE_BINARY / 2] {
        run_hook(&p, &env_pairs, m);
    }
    // Kill 1: while the endpoint is down, after the flusher has failed at least once.
    wait_until("a failed delivery attempt", || {
        omc_hooks::export::progress::report(&s)
            .first()
            .is_some_and(|r| r.consecutive_failures >= 1)
    });
    assert!(kill_flusher(p.path()).is_some(), "kill 1");

    // The endpoint comes up; the second half is spooled while delivery runs, and the
    // flusher is killed twice more, in the middle of delivery.
    let srv = Server::start_on(port, Mode::Ok);
    let kills = std::sync::atomic::AtomicUsize::new(1);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for at in [15, 50] {
                srv.wait_for(PATIENCE, "delivery progress", |s| s.answered_ok() >= at);
                if kill_flusher(p.path()).is_some() {
                    kills.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                // What the next hook would do if no more came.
                omc_hooks::export::flusher::ensure_running(&s, &env);
            }
        });
        spool_half(half..N - THROUGH_THE_BINARY);
        for m in &markers[THROUGH_THE_BINARY / 2..] {
            run_hook(&p, &env_pairs, m);
        }
    });
    assert_eq!(
        kills.load(std::sync::atomic::Ordering::SeqCst),
        3,
        "three SIGKILLs"
    );
    omc_hooks::export::flusher::ensure_running(&s, &env);

    let sent: HashSet<String> = sent.into_inner().unwrap().into_iter().collect();
    assert_eq!(sent.len(), N - THROUGH_THE_BINARY);
    let arrived = |srv: &Server| -> (HashMap<String, usize>, HashSet<String>) {
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut seen_markers = HashSet::new();
        for r in srv.requests() {
            for e in r.json()["events"].as_array().unwrap() {
                *by_id
                    .entry(e["id"].as_str().unwrap().to_string())
                    .or_default() += 1;
                if let Some(c) = e["payload"]["tool_input"]["command"].as_str()
                    && c.starts_with("through-the-binary-")
                {
                    seen_markers.insert(c.to_string());
                }
            }
        }
        (by_id, seen_markers)
    };
    srv.wait_for(Duration::from_secs(180), "every event", |srv| {
        let (by_id, seen) = arrived(srv);
        sent.iter().all(|id| by_id.contains_key(id)) && seen.len() == THROUGH_THE_BINARY
    });
    let (by_id, seen) = arrived(&srv);
    let lost: Vec<&String> = sent.iter().filter(|id| !by_id.contains_key(*id)).collect();
    assert!(lost.is_empty(), "{} events lost", lost.len());
    assert_eq!(seen.len(), THROUGH_THE_BINARY);
    assert_eq!(by_id.len(), N, "no event arrived that was not sent");
    let duplicates: usize = by_id.values().map(|n| n - 1).sum();
    eprintln!(
        "export loss test: {N} events, {} requests, {duplicates} duplicate deliveries (by id)",
        srv.request_count()
    );
    // Every request was signed, carried the protocol headers, and a batch of at most 100.
    for r in srv.requests() {
        let want = signature(SECRET, &r.body);
        assert_eq!(r.header("x-omc-signature"), Some(want.as_str()));
        let n = r.json()["events"].as_array().unwrap().len();
        assert!((1..=100).contains(&n));
        assert_eq!(r.header("x-omc-batch-size"), Some(n.to_string().as_str()));
    }
    // Nothing dropped; the files left are valid.
    wait_until("the flusher to finish", || flusher_pid(p.path()).is_none());
    let report = omc_hooks::export::progress::report(&s);
    assert_eq!(report[0].pending, 0);
    assert_eq!(report[0].dropped, 0);
    assert!(
        report[0].delivered >= N as u64,
        "every event acknowledged at least once"
    );
    let mut expect = crate::hardening::kit::CLEAN;
    expect.allow_temp = true; // a flusher killed while writing its cursor
    crate::hardening::kit::check_tree(p.path(), &[], expect);
}

fn run_hook(p: &Project, env: &[(&str, &str)], marker: &str) {
    let mut v = payload("PostToolUse", "sess-bin", p.path());
    v["tool_name"] = json!("Bash");
    v["tool_input"] = json!({ "command": marker });
    let mut h = Hook::new("post-tool-use").cwd(p.path()).payload(v);
    for (k, val) in env {
        h = h.env(k, val);
    }
    h.run().expect_valid();
}
