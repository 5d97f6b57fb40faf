//! Spooling and delivery through the real binary: batching, the timer, signing, header
//! variables, retries, refusals, redaction, the drop policy, detachment, status and doctor.

use super::server::{Mode, Server};
use super::*;
use crate::common::assert_has;
use crate::common::command_in;
use crate::common::{Hook, Project, payload};
use crate::schema::assert_valid;
use omc_hooks::export::spec::{SinkKind, SinkSpec};
use omc_hooks::export::{enqueue, sources};
use std::process::Command;

/// A post-tool-use hook run with the export switches `env`.
fn hook(p: &Project, env: &[(&str, &str)], tool_input: Value) -> crate::common::Outcome {
    let mut h = Hook::new("post-tool-use")
        .cwd(p.path())
        .payload({
            let mut v = payload("PostToolUse", "sess-1", p.path());
            v["tool_name"] = json!("Bash");
            v["tool_input"] = tool_input;
            v["tool_response"] = json!({"stdout": "ok"});
            v
        })
        .env("OMC_EXPORT_LINGER_MS", "300");
    for (k, v) in env {
        h = h.env(k, v);
    }
    let out = h.run();
    out.expect_valid();
    out
}

/// Spools the events numbered `ids` of `session` for a batch webhook at `url` taking `batch` per
/// request, through the library's own `enqueue`, as a hook does (it starts a flusher).
fn spool_for_webhook(
    p: &Project,
    url: &str,
    batch: usize,
    ids: std::ops::Range<usize>,
    session: &str,
) {
    let batch = batch.to_string();
    let env_t = env_of(&[
        ("OMC_EXPORT_WEBHOOK_URL", url),
        ("OMC_EXPORT_BATCH_SIZE", &batch),
    ]);
    let (sinks, _) = sources::from_env(|k| env_t.var(k).map(str::to_string));
    let s = store(p.path());
    for i in ids {
        enqueue(&s, &env_t, &event(i, session), &sinks);
    }
}

fn stop_hook(p: &Project, env: &[(&str, &str)]) {
    let mut h = Hook::new("stop")
        .cwd(p.path())
        .payload(payload("Stop", "sess-1", p.path()))
        .env("OMC_EXPORT_LINGER_MS", "300");
    for (k, v) in env {
        h = h.env(k, v);
    }
    h.run().expect_valid();
}

fn verify_signature(key: &str, body: &[u8], header: &str) {
    assert_eq!(header, signature(key, body));
}

#[test]
fn hooks_spool_and_the_flusher_delivers_one_signed_batch() {
    let p = Project::new();
    let srv = Server::start(Mode::Ok);
    let url = srv.url("/batch");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_WEBHOOK_SECRET", "s1gning-k3y"),
        (
            "OMC_EXPORT_WEBHOOK_HEADERS",
            "Authorization=Bearer ${OMC_TEST_TOKEN},X-Team=core",
        ),
        ("OMC_EXPORT_BATCH_SIZE", "3"),
        ("OMC_EXPORT_FLUSH_INTERVAL_MS", "3600000"),
        ("OMC_TEST_TOKEN", "t0ken-from-env"),
    ];
    hook(&p, &env, json!({"command": "ls"}));
    hook(&p, &env, json!({"command": "pwd"}));
    stop_hook(&p, &env);
    // Only the batch size can have triggered this (the interval is an hour).
    srv.wait_for(PATIENCE, "one batch", |s| s.answered_ok() >= 1);
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 1, "one request for the batch of three");
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/batch");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-omc-version"), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(r.header("x-omc-batch-size"), Some("3"));
    assert_eq!(r.header("x-omc-event"), Some("post-tool-use,stop"));
    assert_eq!(r.header("authorization"), Some("Bearer t0ken-from-env"));
    assert_eq!(r.header("x-team"), Some("core"));
    verify_signature("s1gning-k3y", &r.body, r.header("x-omc-signature").unwrap());
    let body = r.json();
    let events = body["events"].as_array().unwrap();
    assert_eq!(events.len(), 3);
    for e in events {
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "id",
                "event",
                "session_id",
                "agent",
                "timestamp_ms",
                "payload"
            ]
        );
        assert_eq!(e["session_id"], "sess-1");
        assert_eq!(e["agent"], "claude");
        assert_eq!(e["id"].as_str().unwrap().len(), 36);
    }
    assert_eq!(events[0]["payload"]["tool_input"]["command"], "ls");
    assert_eq!(events[2]["event"], "stop");
    // The progress file is valid; neither the token nor the key was ever written down.
    wait_until("the flusher to exit", || flusher_pid(p.path()).is_none());
    let progress = std::fs::read_dir(p.omc().join("export"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".progress.json"))
        .unwrap();
    let v: Value = serde_json::from_slice(&std::fs::read(progress.path()).unwrap()).unwrap();
    assert_valid("export-progress", &v);
    assert_eq!(v["delivered_total"], 3);
    let lock: Value =
        serde_json::from_slice(&std::fs::read(p.omc().join("export/flusher.lock")).unwrap())
            .unwrap();
    assert_valid("export-flusher-lock", &lock);
    let bytes = all_state_bytes(p.path());
    assert!(!contains(&bytes, "t0ken-from-env"));
    assert!(!contains(&bytes, "s1gning-k3y"));
    crate::hardening::kit::check_tree(p.path(), &[], crate::hardening::kit::CLEAN);
}

#[test]
fn the_timer_flushes_a_partial_batch_with_no_further_hook() {
    let p = Project::new();
    let srv = Server::start(Mode::Ok);
    let url = srv.url("/b");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "50"),
        ("OMC_EXPORT_FLUSH_INTERVAL_MS", "200"),
    ];
    hook(&p, &env, json!({"command": "a"}));
    hook(&p, &env, json!({"command": "b"}));
    // No hook runs any more: only the flusher's own timer can send these two.
    srv.wait_for(PATIENCE, "the timed flush", |s| s.answered_ok() >= 1);
    let ids = webhook_ids(&srv.requests());
    assert_eq!(ids.len(), 2, "both events, in one batch");
    assert_eq!(srv.request_count(), 1);
}

/// A receiver named by host name rather than address is reached: the flusher resolves the name
/// through the C library's name services (`localhost`, from the hosts file), also when the
/// executable is linked statically (build.rs).
#[test]
fn a_receiver_named_by_host_name_is_reached() {
    let p = Project::new();
    let srv = Server::start(Mode::Ok);
    let url = srv.url("/named").replace("127.0.0.1", "localhost");
    assert!(url.starts_with("http://localhost:"), "{url}");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "1"),
    ];
    hook(&p, &env, json!({"command": "ls"}));
    srv.wait_for(PATIENCE, "the batch at localhost", |s| s.answered_ok() >= 1);
    let reqs = srv.requests();
    assert_eq!(reqs[0].path, "/named");
    assert_eq!(webhook_ids(&reqs).len(), 1);
}

#[test]
fn a_hook_never_touches_the_network_and_spools_valid_records() {
    let p = Project::new();
    let srv = Server::start(Mode::Hang);
    let url = srv.url("/b");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "1"),
    ];
    // Hold the flusher's lock: no flusher can run, so any connection would be the hook's.
    let held = hold_lock(p.path());
    for i in 0..5 {
        hook(&p, &env, json!({"command": format!("echo {i}")}));
    }
    assert_eq!(srv.connections(), 0, "a hook opened a connection");
    let records = spooled_records(p.path());
    assert_eq!(records.len(), 5);
    for r in &records {
        assert_valid("export-record", r);
    }
    drop(held);
    srv.set_mode(Mode::Ok);
    assert!(omc_hooks::export::flusher::ensure_running(
        &store(p.path()),
        &env_of(&env)
    ));
    srv.wait_for(PATIENCE, "delivery after release", |s| {
        webhook_ids(&s.requests()).len() >= 5
    });
}

#[test]
fn the_hook_returns_while_its_detached_flusher_hangs_on_the_network() {
    let p = Project::new();
    let srv = Server::start(Mode::Hang);
    let url = srv.url("/b");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "1"),
    ];
    hook(&p, &env, json!({"command": "one"}));
    srv.wait_for(PATIENCE, "the flusher's request", |s| s.in_flight() == 1);
    // The flusher is blocked on a request that is never answered; hooks carry on.
    let second = hook(&p, &env, json!({"command": "two"}));
    assert_eq!(second.code, Some(0));
    assert_eq!(
        srv.in_flight(),
        1,
        "the flusher's request is still unanswered"
    );
    let pid = flusher_pid(p.path()).expect("the flusher runs");
    let flusher = rustix::process::Pid::from_raw(pid as i32).unwrap();
    // Detached: it leads a session of its own, not the test's (the agent's) session.
    assert_eq!(rustix::process::getsid(Some(flusher)).unwrap(), flusher);
    assert_ne!(rustix::process::getsid(None).unwrap(), flusher);
    srv.set_mode(Mode::Ok);
    srv.wait_for(PATIENCE, "both events", |s| {
        let ids = webhook_ids(&s.requests());
        ids.len() >= 2 && s.answered_ok() >= 2
    });
}

#[test]
fn the_flusher_survives_the_hook_process_group_being_killed() {
    let p = Project::new();
    let srv = Server::start(Mode::Hang);
    let url = srv.url("/b");
    // The hook runs inside a shell in a process group of its own; the shell lingers after
    // the hook, then the whole group is SIGKILLed, as an agent does at a hook's timeout.
    let input = payload("PostToolUse", "sess-1", p.path()).to_string();
    std::fs::write(p.path().join("payload.json"), &input).unwrap();
    let mut group = {
        use std::os::unix::process::CommandExt;
        Command::new("sh")
            .arg("-c")
            .arg(format!("'{BIN}' post-tool-use < payload.json; sleep 60"))
            .current_dir(p.path())
            .env("OMC_EXPORT_WEBHOOK_URL", &url)
            .env("OMC_EXPORT_BATCH_SIZE", "1")
            .env("OMC_EXPORT_LINGER_MS", "300")
            .process_group(0)
            .spawn()
            .unwrap()
    };
    srv.wait_for(PATIENCE, "the flusher's request", |s| s.in_flight() == 1);
    let pgid = rustix::process::Pid::from_raw(group.id() as i32).unwrap();
    rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL).unwrap();
    group.wait().unwrap();
    let pid = flusher_pid(p.path()).expect("the flusher outlived the hook's process group");
    srv.set_mode(Mode::Ok);
    srv.wait_for(PATIENCE, "the delivery", |s| s.answered_ok() >= 1);
    assert_eq!(webhook_ids(&srv.requests()).len(), 1);
    let _ = pid;
    std::fs::remove_file(p.path().join("payload.json")).unwrap();
}

#[test]
fn retries_with_the_same_ids_until_the_endpoint_recovers() {
    let p = Project::new();
    let srv = Server::start(Mode::Status(503));
    let url = srv.url("/b");
    spool_for_webhook(&p, &url, 4, 0..4, "sess-r");
    srv.wait_for(PATIENCE, "three refused attempts", |s| {
        s.request_count() >= 3
    });
    let st = status_json(p.path());
    let sink = &st["export"]["sinks"][0];
    assert!(
        sink["last_error"].as_str().unwrap().contains("503"),
        "{st:#}"
    );
    assert_eq!(sink["pending"], 4);
    srv.set_mode(Mode::Ok);
    srv.wait_for(PATIENCE, "the delivery", |s| s.answered_ok() >= 1);
    let reqs = srv.requests();
    let first: Vec<String> = webhook_ids(&reqs[..1]);
    for r in &reqs {
        assert_eq!(
            webhook_ids(std::slice::from_ref(r)),
            first,
            "a retry carries the same ids"
        );
    }
    wait_until("the cursor to be saved", || {
        status_json(p.path())["export"]["sinks"][0]["delivered"] == 4
    });
    let sink = &status_json(p.path())["export"]["sinks"][0];
    assert_eq!(sink["pending"], 0);
    assert_eq!(sink["consecutive_failures"], 0);
}

#[test]
fn a_batch_refused_three_times_is_given_up_and_counted() {
    let p = Project::new();
    let srv = Server::start(Mode::Status(400));
    let url = srv.url("/b");
    spool_for_webhook(&p, &url, 2, 0..2, "sess-x");
    wait_until("the batch to be given up on", || {
        status_json(p.path())["export"]["sinks"][0]["rejected"] == 2
    });
    assert_eq!(srv.request_count(), 3, "three attempts, then no more");
    let sink = &status_json(p.path())["export"]["sinks"][0];
    assert!(
        sink["last_error"].as_str().unwrap().contains("given up"),
        "{sink}"
    );
    // Later events are not held back.
    srv.set_mode(Mode::Ok);
    spool_for_webhook(&p, &url, 2, 2..4, "sess-x");
    srv.wait_for(PATIENCE, "the next batch", |s| s.answered_ok() >= 1);
}

#[test]
fn a_redirect_keeps_the_batch_and_says_so() {
    // Issue 30, item 5: a receiver answering 307 (or 308, 301, 302, 303) has moved; that is
    // no refusal. Each batch is kept and retried, and status names the redirect.
    for code in [307, 308, 301] {
        let p = Project::new();
        let srv = Server::start(Mode::Redirect(code));
        let url = srv.url("/b");
        spool_for_webhook(&p, &url, 20, 0..20, "sess-m");
        // More attempts than a refused batch gets before it is given up on.
        srv.wait_for(PATIENCE, "four redirected attempts", |s| {
            s.request_count() >= 4
        });
        let st = status_json(p.path());
        let sink = &st["export"]["sinks"][0];
        let err = sink["last_error"].as_str().unwrap();
        assert!(
            err.contains(&format!("HTTP {code}, a redirect to /moved; not followed")),
            "{st:#}"
        );
        assert_eq!(sink["rejected"], 0, "{st:#}");
        assert_eq!(sink["pending"], 20, "{st:#}");
        // The receiver is fixed: every event arrives.
        srv.set_mode(Mode::Ok);
        srv.wait_for(PATIENCE, "the delivery", |s| s.answered_ok() >= 1);
        wait_until("all 20 delivered", || {
            status_json(p.path())["export"]["sinks"][0]["delivered"] == 20
        });
        let mut ids = webhook_ids(&srv.requests()[srv.request_count() - 1..]);
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 20, "the one batch carries all 20 events");
        // Nothing was sent anywhere but the sink's own URL.
        assert!(srv.requests().iter().all(|r| r.path == "/b"));
    }
}

#[test]
fn secrets_never_reach_the_spool_or_the_receiver() {
    let secrets = [
        "ghp_0123456789abcdefghijABCDEFGHIJ012345",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
        "hunter2-db-pass",
        "AKIAIOSFODNN7EXAMPLE",
        "MIIEpAIBAAKCAQEA",
    ];
    let command = format!(
        "GITHUB_TOKEN={} ANTHROPIC_API_KEY={} psql 'password={}' && aws --key {} && cat <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\nEOF",
        secrets[0], secrets[1], secrets[2], secrets[3], secrets[4]
    );
    for redact in [true, false] {
        let p = Project::new();
        let srv = Server::start(Mode::Ok);
        let url = srv.url("/b");
        let mut env = vec![
            ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
            ("OMC_EXPORT_BATCH_SIZE", "1"),
        ];
        if !redact {
            env.push(("OMC_EXPORT_REDACT", "0"));
        }
        let held = hold_lock(p.path());
        hook(&p, &env, json!({"command": command}));
        let spool = all_state_bytes(p.path());
        drop(held);
        assert!(omc_hooks::export::flusher::ensure_running(
            &store(p.path()),
            &env_of(&env)
        ));
        srv.wait_for(PATIENCE, "the delivery", |s| s.answered_ok() >= 1);
        let body = srv.requests()[0].body.clone();
        for s in secrets {
            assert_eq!(
                contains(&spool, s),
                !redact,
                "{s} in the spool (redact: {redact})"
            );
            assert_eq!(
                contains(&body, s),
                !redact,
                "{s} delivered (redact: {redact})"
            );
        }
        if redact {
            let e = &srv.requests()[0].json()["events"][0];
            let cmd = e["payload"]["tool_input"]["command"].as_str().unwrap();
            assert_has(cmd, "GITHUB_TOKEN=[REDACTED");
            assert_has(cmd, "[REDACTED:private-key]");
            assert!(
                cmd.starts_with("GITHUB_TOKEN="),
                "the rest of the text stays: {cmd}"
            );
        }
    }
}

#[test]
fn a_full_spool_drops_new_events_and_counts_them() {
    let p = Project::new();
    let srv = Server::start(Mode::Ok);
    let url = srv.url("/b");
    let env = [("OMC_EXPORT_WEBHOOK_URL", url.as_str())];
    let env_t = env_of(&env);
    let (mut sinks, _) = sources::from_env(|k| env_t.var(k).map(str::to_string));
    sinks[0].max_spool_bytes = 65_536;
    let s = store(p.path());
    let held = hold_lock(p.path());
    let (mut spooled, mut dropped) = (0, 0);
    for i in 0..300 {
        let mut ev = event(i, "sess-d");
        ev.payload["tool_response"]["stdout"] = json!("x".repeat(1000));
        let done = enqueue(&s, &env_t, &ev, &sinks);
        spooled += done.spooled;
        dropped += done.dropped;
    }
    assert!(
        spooled > 30 && dropped > 200,
        "{spooled} spooled, {dropped} dropped"
    );
    assert_eq!(spooled + dropped, 300);
    let size = std::fs::metadata(p.omc().join(format!("export/{}.jsonl", sinks[0].name)))
        .unwrap()
        .len();
    assert!(size <= 65_536, "the spool respects its bound: {size}");
    for line in std::fs::read_to_string(
        p.omc()
            .join(format!("export/{}.dropped.jsonl", sinks[0].name)),
    )
    .unwrap()
    .lines()
    .filter(|l| !l.is_empty())
    {
        assert_valid("export-dropped", &serde_json::from_str(line).unwrap());
    }
    let st = status_json(p.path());
    let sink = &st["export"]["sinks"][0];
    assert_eq!(sink["pending"], spooled as u64, "{st:#}");
    assert_eq!(sink["dropped"], dropped as u64, "{st:#}");
    let doctor = command_in(p.path()).arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert_has(&text, &format!("{dropped} event(s) were dropped"));
    drop(held);
    // Delivery by hand: flush --once folds the drop log and sends the rest.
    let out = command_in(p.path())
        .args(["flush", "--once"])
        .env("OMC_EXPORT_WEBHOOK_URL", &url)
        .output()
        .unwrap();
    crate::common::assert_exit_ok(&out);
    assert_eq!(webhook_ids(&srv.requests()).len(), spooled);
    let sink = &status_json(p.path())["export"]["sinks"][0];
    assert_eq!(sink["pending"], 0);
    assert_eq!(sink["dropped"], dropped as u64);
    assert_eq!(sink["delivered"], spooled as u64);
    assert!(
        !p.omc()
            .join(format!("export/{}.dropped.jsonl", sinks[0].name))
            .exists()
    );
}

#[test]
fn status_and_doctor_show_an_undeliverable_sink_and_a_running_flusher() {
    let p = Project::new();
    let port = Server::free_port(); // nothing listens: the endpoint is down
    let url = format!("http://127.0.0.1:{port}/b");
    let env = [
        ("OMC_EXPORT_WEBHOOK_URL", url.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "1"),
        ("OMC_EXPORT_LINGER_MS", "300"),
    ];
    hook(&p, &env, json!({"command": "x"}));
    wait_until("a recorded failure", || {
        status_json(p.path())["export"]["sinks"][0]["consecutive_failures"]
            .as_u64()
            .unwrap_or(0)
            >= 1
    });
    let st = status_json(p.path());
    assert!(st["export"]["flusher_pid"].is_u64(), "{st:#}");
    assert_eq!(st["export"]["sinks"][0]["destination"], url.as_str());
    let text = command_in(p.path()).arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert_has(&text, "Export");
    assert_has(&text, "flusher running");
    assert_has(&text, "1 pending");
    let doctor = command_in(p.path()).arg("doctor").output().unwrap();
    let dtext = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(1), "{dtext}");
    assert_has(&dtext, "cannot deliver");
    kill_flusher(p.path());
    let st = status_json(p.path());
    assert!(st["export"]["flusher_pid"].is_null(), "{st:#}");
}

#[test]
fn sink_filters_choose_events_and_tools() {
    let p = Project::new();
    let s = store(p.path());
    let spec = |entry: Value| SinkSpec::from_entry(&entry).unwrap();
    let bash_only = spec(
        json!({"type": "async_webhook", "url": "http://127.0.0.1:9/a", "event": "post-tool-use", "matcher": "Bash", "name": "bash-only"}),
    );
    let stops = spec(
        json!({"type": "otlp", "endpoint": "http://127.0.0.1:9", "event": ["stop"], "name": "stops"}),
    );
    let env_t = env_of(&[]);
    // Held lock: nothing is delivered, the spools can be counted.
    let _held = hold_lock(p.path());
    let sinks = [bash_only, stops];
    let mut read = event(0, "s");
    read.tool = Some("Read".into());
    assert_eq!(enqueue(&s, &env_t, &event(1, "s"), &sinks).spooled, 1);
    assert_eq!(enqueue(&s, &env_t, &read, &sinks).spooled, 0);
    let mut stop = event(2, "s");
    stop.event = "stop".into();
    stop.tool = None;
    assert_eq!(enqueue(&s, &env_t, &stop, &sinks).spooled, 1);
    let count = |f: &str| {
        std::fs::read_to_string(p.omc().join("export").join(f))
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty())
            .count()
    };
    assert_eq!(count("bash-only.jsonl"), 1);
    assert_eq!(count("stops.jsonl"), 1);
    assert!(matches!(sinks[1].kind, SinkKind::Otlp { .. }));
}

#[test]
fn a_retry_after_is_honoured_by_this_flusher_and_by_the_next() {
    let srv = Server::start(Mode::RetryAfter(429, 3600));
    let p = Project::new();
    let url = srv.url("/batch");
    spool_for_webhook(&p, &url, 10, 0..3, "sess-ra");
    srv.wait_for(PATIENCE, "the first attempt", |s| s.request_count() >= 1);
    let progress = || {
        std::fs::read_dir(p.path().join(".omc/export"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".progress.json"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice::<Value>(&b).ok())
            .next()
    };
    // The receiver asked for an hour: no second request while we look (a retry with back-off
    // alone would have come within a second).
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(srv.request_count(), 1, "retried despite Retry-After: 3600");
    assert_eq!(spooled_records(p.path()).len(), 3, "the events are kept");
    let rec = progress().expect("a progress file");
    assert_valid("export-progress", &rec);
    assert!(rec.get("not_before").is_some(), "{rec}");
    // A flusher started afresh (the first one killed) waits too.
    assert!(kill_flusher(p.path()).is_some());
    spool_for_webhook(&p, &url, 10, 3..4, "sess-ra");
    wait_until("a new flusher", || flusher_pid(p.path()).is_some());
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        srv.request_count(),
        1,
        "a new flusher ignored the recorded wait"
    );
    assert_eq!(spooled_records(p.path()).len(), 4, "nothing lost");
    kill_flusher(p.path());
}
