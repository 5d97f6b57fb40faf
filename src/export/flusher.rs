//! The flusher: the detached `omc-hooks flush` process that delivers spooled events, one per
//! project at a time (it holds `.omc/export/flusher.lock`).
//!
//! A hook starts it when none holds the lock ([`ensure_running`]); it then lingers while any
//! spool holds events, so the flush interval is a real timer: an event waits at most
//! `flush_interval_ms` (plus one poll) for its batch to fill, even if no other hook ever runs.
//! It exits once everything is delivered and nothing new arrived for a few seconds, or when
//! nothing could be delivered and nothing new arrived for ten minutes (the next hook starts
//! a new one).
//!
//! Per sink, the live spool is rotated into a segment when a batch is due; the segment is
//! sent in batches of `batch_size`, and after each acknowledged batch the cursor is saved
//! atomically ([`Progress`]). Killed at any point, the next flusher resumes at the cursor and
//! sends the unacknowledged batch again, with the same event ids.

use super::deliver::{self, Client, Outcome, Verb};
use super::progress::{self, Progress};
use super::spec::{Method, SinkKind, SinkSpec};
use super::{ExportEvent, names, otlp, sources, webhook};
use crate::env::Env;
use crate::state::Store;
use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How often the flusher looks at the spools while waiting.
const POLL: Duration = Duration::from_millis(50);
/// How long it stays after the last event was delivered (`OMC_EXPORT_LINGER_MS`).
const LINGER: Duration = Duration::from_secs(5);
/// How long it keeps retrying with nothing delivered and nothing new spooled.
const GIVE_UP: Duration = Duration::from_secs(600);
/// How often the sink configuration is read again.
const RELOAD: Duration = Duration::from_secs(1);
/// Retry backoff: first wait, cap.
const BACKOFF_FIRST: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// A batch the receiver refuses this many times in a row is given up on (counted).
const REJECT_LIMIT: u32 = 3;
/// The least time between two messages to one chat (notification) sink: what arrives
/// meanwhile is folded into the next message.
const NOTIFY_GAP: Duration = Duration::from_secs(1);

/// Starts a flusher for the project unless one holds the lock. Returns whether one was
/// started. The hook does not wait for it: the child gets no stdio, detaches itself
/// (`--detached`: a new session, so the agent killing the hook's process group does not reach
/// it) and is reaped by init once the hook exits.
pub fn ensure_running(store: &Store, env: &Env) -> bool {
    match store.flusher_busy() {
        Ok(true) => false,
        Ok(false) => match spawn(store, env) {
            Ok(()) => true,
            Err(e) => {
                crate::diag!("export: cannot start the flusher: {e}");
                false
            }
        },
        Err(e) => {
            crate::diag!("export: cannot probe the flusher lock: {e}");
            false
        }
    }
}

fn spawn(store: &Store, env: &Env) -> std::io::Result<()> {
    let exe = match env.var(crate::env::EXE_VAR) {
        Some(p) => std::path::PathBuf::from(p),
        None => std::env::current_exe()?,
    };
    let mut cmd = Command::new(exe);
    // The export switches the hook saw (the same as its environment's, unless a test built
    // the table by hand), so that the flusher delivers to the sinks the hook spooled for.
    for (k, v) in &env.extra {
        if k.starts_with("OMC_EXPORT_") {
            cmd.env(k, v);
        }
    }
    crate::platform::detached_child(&mut cmd);
    let mut child = cmd
        .arg("flush")
        .arg("--detached")
        .arg("--project")
        .arg(store.project())
        .arg("--state-dir")
        .arg(store.omc_dir())
        .current_dir(store.project())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    // Reap it if it ends while we still live (a long-lived caller, such as a test, would
    // otherwise keep a zombie); a hook exits long before and init reaps it instead.
    let _ = std::thread::Builder::new()
        .name("flusher-reaper".into())
        .spawn(move || {
            let _ = child.wait();
        });
    Ok(())
}

/// How the flusher runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Started by a hook: leave the hook's session first.
    pub detached: bool,
    /// Run by a person: send what is pending now (no batching wait), no lingering, and stop
    /// after one failed attempt per sink instead of retrying for minutes.
    pub once: bool,
}

/// Why a delivery round ended.
#[derive(Debug, PartialEq, Eq)]
enum Exit {
    /// Everything delivered and nothing new for the linger time.
    Drained,
    /// Events remain that could not be delivered.
    GaveUp,
    /// The state directory went away.
    Gone,
}

/// The `flush` command: holds the lock, delivers, exits. Returns the exit code: 0, or 1 when
/// `once` left events undelivered or the lock could not be probed.
pub fn run(store: &Store, env: &Env, opts: Options) -> i32 {
    if opts.detached {
        // A new session and process group: the agent killing the hook's group at its timeout
        // must not take the flusher with it. Fails only if we already lead a group.
        crate::platform::detach_self();
    }
    let get = |k: &str| std::env::var(k).ok();
    loop {
        let info = serde_json::json!({
            "pid": std::process::id(),
            "started_at": crate::time::iso(wall_ms()),
        });
        let lock = match store.flusher_try_lock(info.to_string().as_bytes()) {
            Ok(Some(l)) => l,
            Ok(None) => {
                if opts.once {
                    eprintln!("omc-hooks flush: another flusher is running for this project");
                }
                return 0;
            }
            Err(e) => {
                eprintln!("omc-hooks flush: cannot take the flusher lock: {e}");
                return 1;
            }
        };
        let mut round = Round::new(store, env, opts, &get);
        let exit = round.deliver_until_idle();
        drop(lock);
        match exit {
            // Something arrived between our last look and the release: a hook saw the lock
            // held and started nobody, so carry on (unless another flusher took over).
            Exit::Drained if !opts.once && round.anything_pending() => continue,
            Exit::GaveUp if opts.once => return 1,
            _ => return 0,
        }
    }
}

/// One lock tenure: the sinks and their delivery state.
struct Round<'a> {
    store: &'a Store,
    env: &'a Env,
    opts: Options,
    get: &'a dyn Fn(&str) -> Option<String>,
    sinks: HashMap<String, SinkRun>,
    loaded_at: Option<Instant>,
    host: String,
    project: String,
}

/// What one look at a sink did.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Nothing spooled.
    Idle,
    /// Events are spooled but not due yet, or waiting for a retry.
    Waiting,
    /// A batch was delivered or settled, or a segment finished: look again at once.
    Worked,
}

/// One sink's delivery state.
struct SinkRun {
    spec: SinkSpec,
    progress: Progress,
    client: Client,
    /// When the oldest undelivered event in the live spool was first seen.
    pending_since: Option<Instant>,
    /// Incremental count of the live spool: bytes scanned, records seen.
    scanned: (u64, u64),
    retry_at: Option<Instant>,
    /// A chat sink's next message not before this ([`NOTIFY_GAP`]).
    next_send: Option<Instant>,
    backoff: Duration,
    rejects: u32,
    /// Failed attempts at the batch being delivered (for the sink's `retries`).
    attempts: u32,
    /// A delivery failed since the round began (for `once`).
    failed_once: bool,
    /// The last time this sink delivered or saw a new event.
    last_activity: Instant,
}

impl<'a> Round<'a> {
    fn new(
        store: &'a Store,
        env: &'a Env,
        opts: Options,
        get: &'a dyn Fn(&str) -> Option<String>,
    ) -> Round<'a> {
        let host = crate::platform::host_name();
        let project = store
            .project()
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Round {
            store,
            env,
            opts,
            get,
            sinks: HashMap::new(),
            loaded_at: None,
            host,
            project,
        }
    }

    fn linger(&self) -> Duration {
        if self.opts.once {
            return Duration::ZERO;
        }
        self.env
            .var(sources::LINGER_MS)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(LINGER, Duration::from_millis)
    }

    /// Reads the sink configuration again; a sink whose spec changed keeps its progress.
    fn reload(&mut self) {
        let specs = sources::all(self.store, self.env);
        let mut next = HashMap::new();
        for spec in specs {
            if next.contains_key(&spec.name) {
                continue;
            }
            let run = match self.sinks.remove(&spec.name) {
                Some(run) if run.spec == spec => run,
                Some(run) => SinkRun::new(spec, Some(run.progress)),
                None => SinkRun::new(spec, None),
            };
            next.insert(run.spec.name.clone(), run);
        }
        for run in next.values_mut() {
            if run.progress.sink.is_empty() || run.progress.kind.is_empty() {
                run.progress = Progress::load(self.store, &run.spec.name);
                run.resume_hold();
            }
            run.describe(self.get);
        }
        self.sinks = next;
        self.loaded_at = Some(Instant::now());
    }

    fn deliver_until_idle(&mut self) -> Exit {
        let linger = self.linger();
        let mut idle_since: Option<Instant> = None;
        loop {
            if !self
                .store
                .omc_dir()
                .join(crate::state::outbox::DIR)
                .is_dir()
            {
                return Exit::Gone;
            }
            if self.loaded_at.is_none_or(|t| t.elapsed() >= RELOAD) {
                self.reload();
            }
            let files = self.store.outbox_list();
            let (mut worked, mut pending) = (false, false);
            let names: Vec<String> = self.sinks.keys().cloned().collect();
            for name in names {
                let step = self.step(&name, &files);
                worked |= step == Step::Worked;
                pending |= step != Step::Idle;
            }
            if worked {
                idle_since = None;
                continue;
            }
            let now = Instant::now();
            if !pending {
                let since = *idle_since.get_or_insert(now);
                if now.duration_since(since) >= linger {
                    return Exit::Drained;
                }
            } else {
                idle_since = None;
                let stuck: Vec<&SinkRun> =
                    self.sinks.values().filter(|s| s.has_pending()).collect();
                if !stuck.is_empty() {
                    if self.opts.once && stuck.iter().all(|s| s.failed_once) {
                        return Exit::GaveUp;
                    }
                    if stuck.iter().all(|s| s.last_activity.elapsed() >= GIVE_UP) {
                        return Exit::GaveUp;
                    }
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Whether any configured sink has spooled events (checked after the lock is released).
    fn anything_pending(&self) -> bool {
        let files = self.store.outbox_list();
        self.sinks.keys().any(|sink| {
            !progress::segments(&files, sink).is_empty()
                || self
                    .store
                    .outbox_count(&names::spool(sink), 0)
                    .is_ok_and(|c| c.0 > 0)
        })
    }

    fn step(&mut self, name: &str, files: &[String]) -> Step {
        let (store, opts, get) = (self.store, self.opts, self.get);
        let (host, project) = (self.host.clone(), self.project.clone());
        let Some(run) = self.sinks.get_mut(name) else {
            return Step::Idle;
        };
        run.fold_drops(store, files);
        let now = Instant::now();
        let segment = run.current_segment(files);
        let segment = match segment {
            Some(s) => s,
            None => {
                let spool = names::spool(name);
                let (fresh, size) = match store.outbox_count(&spool, run.scanned.0) {
                    Ok(c) => c,
                    Err(e) => {
                        run.fail(store, format!("cannot read the spool: {e}"));
                        return Step::Waiting;
                    }
                };
                if size < run.scanned.0 {
                    run.scanned = (0, 0); // replaced behind our back: count again next time
                    return Step::Waiting;
                }
                if fresh > 0 {
                    run.last_activity = now;
                }
                run.scanned = (size, run.scanned.1 + fresh);
                if run.scanned.1 == 0 {
                    run.pending_since = None;
                    return Step::Idle;
                }
                let since = *run.pending_since.get_or_insert(now);
                let due = opts.once
                    || run.scanned.1 >= u64::from(run.spec.batch_size)
                    || now.duration_since(since)
                        >= Duration::from_millis(run.spec.flush_interval_ms);
                if !due {
                    return Step::Waiting;
                }
                let stamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let seg = names::segment(name, stamp);
                match store.outbox_rotate(&spool, &seg) {
                    Ok(true) => {}
                    Ok(false) => {
                        run.scanned = (0, 0);
                        run.pending_since = None;
                        return Step::Idle;
                    }
                    Err(e) => {
                        run.fail(store, format!("cannot rotate the spool: {e}"));
                        return Step::Waiting;
                    }
                }
                run.scanned = (0, 0);
                run.pending_since = None;
                run.progress.segment = Some(seg.clone());
                run.progress.offset = 0;
                run.save(store);
                seg
            }
        };
        if run.retry_at.is_some_and(|t| now < t) || run.next_send.is_some_and(|t| now < t) {
            return Step::Waiting;
        }
        let chunk = match store.outbox_read(
            &segment,
            run.progress.offset,
            run.spec.batch_size as usize,
            true,
        ) {
            Ok(c) => c,
            Err(e) => {
                run.fail(store, format!("cannot read {segment}: {e}"));
                return Step::Waiting;
            }
        };
        let mut corrupt = chunk.corrupt;
        let events: Vec<ExportEvent> = chunk
            .records
            .iter()
            .filter_map(|r| {
                let ev = serde_json::from_slice::<ExportEvent>(r).ok();
                corrupt += u64::from(ev.is_none());
                ev
            })
            .collect();
        if events.is_empty() {
            run.progress.corrupt_total += corrupt;
            if chunk.eof {
                if let Err(e) = store.outbox_remove(&segment) {
                    run.fail(store, format!("cannot remove {segment}: {e}"));
                    return Step::Waiting;
                }
                run.progress.segment = None;
                run.progress.offset = 0;
            } else {
                run.progress.offset = chunk.end;
            }
            run.save(store);
            return Step::Worked;
        }
        match run.deliver(&events, get, &project, &host) {
            Outcome::Delivered { note } => {
                run.progress.offset = chunk.end;
                run.progress.delivered_total += events.len() as u64;
                run.progress.corrupt_total += corrupt;
                run.progress.last_delivery_at = Some(crate::time::iso(wall_ms()));
                run.progress.consecutive_failures = 0;
                if note.is_some() {
                    run.progress.last_error = note;
                    run.progress.last_error_at = Some(crate::time::iso(wall_ms()));
                }
                run.retry_at = None;
                run.progress.not_before = None;
                run.backoff = BACKOFF_FIRST;
                run.rejects = 0;
                run.attempts = 0;
                run.last_activity = now;
                if matches!(run.spec.kind, SinkKind::Notify(_)) {
                    run.next_send = Some(Instant::now() + NOTIFY_GAP);
                }
                run.save(store);
                Step::Worked
            }
            Outcome::Retry(msg) | Outcome::RetryAfter(msg, _)
                if run.spec.retries.is_some_and(|n| run.attempts >= n) =>
            {
                // The sink's `retries` are spent: the batch is dropped and counted, so later
                // events are not held back by a receiver that is down.
                run.progress.offset = chunk.end;
                run.progress.dropped_total += events.len() as u64;
                run.progress.corrupt_total += corrupt;
                let tries = run.attempts + 1;
                run.attempts = 0;
                run.fail(
                    store,
                    format!(
                        "{msg} (batch of {} dropped after {tries} attempts)",
                        events.len()
                    ),
                );
                run.retry_at = None;
                Step::Worked
            }
            Outcome::Retry(msg) => {
                run.attempts += 1;
                run.fail(store, msg);
                Step::Waiting
            }
            Outcome::RetryAfter(msg, wait) => {
                run.attempts += 1;
                run.fail(store, msg);
                run.hold(store, wait);
                Step::Waiting
            }
            Outcome::Reject(msg) => {
                run.rejects += 1;
                if run.rejects < REJECT_LIMIT {
                    run.fail(store, msg);
                    return Step::Waiting;
                }
                // Given up on: skip the batch so later events are not held back forever.
                run.progress.offset = chunk.end;
                run.progress.rejected_total += events.len() as u64;
                run.progress.corrupt_total += corrupt;
                run.rejects = 0;
                run.fail(
                    store,
                    format!("{msg} (batch of {} given up on)", events.len()),
                );
                run.retry_at = None;
                Step::Worked
            }
        }
    }
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl SinkRun {
    fn new(spec: SinkSpec, progress: Option<Progress>) -> SinkRun {
        SinkRun {
            client: Client::new(spec.timeout_ms),
            progress: progress.unwrap_or_default(),
            spec,
            pending_since: None,
            scanned: (0, 0),
            retry_at: None,
            next_send: None,
            backoff: BACKOFF_FIRST,
            rejects: 0,
            attempts: 0,
            failed_once: false,
            last_activity: Instant::now(),
        }
    }

    /// Waits `wait` before the next attempt, as the receiver asked, and records the time in
    /// the progress file so that a flusher started later waits for it too.
    fn hold(&mut self, store: &Store, wait: Duration) {
        let until = Instant::now() + wait;
        self.retry_at = Some(self.retry_at.map_or(until, |t| t.max(until)));
        self.progress.not_before = Some(crate::time::iso(
            wall_ms().saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2)),
        ));
        self.save(store);
    }

    /// Takes up a `Retry-After` recorded by an earlier flusher.
    fn resume_hold(&mut self) {
        let Some(at) = self
            .progress
            .not_before
            .as_deref()
            .and_then(crate::time::parse_iso)
        else {
            return;
        };
        let left = at - wall_ms();
        if left > 0 {
            let left = Duration::from_millis(left as u64).min(deliver::MAX_RETRY_AFTER);
            self.retry_at = Some(Instant::now() + left);
            // A person's `flush --once` is told the sink is waiting, not kept waiting.
            self.failed_once = true;
        }
    }

    /// Records what the sink is and where it delivers, for `status`.
    fn describe(&mut self, get: &dyn Fn(&str) -> Option<String>) {
        self.progress.sink = self.spec.name.clone();
        let (kind, dest, note) = match &self.spec.kind {
            SinkKind::BatchWebhook { url, .. } => ("webhook", Some(url.clone()), None),
            SinkKind::Otlp { endpoint, headers } => {
                match otlp::target(endpoint.as_deref(), headers, get) {
                    Ok(t) => ("otlp", Some(t.url), t.note),
                    Err(e) => ("otlp", None, Some(e)),
                }
            }
            // Never the URL itself: for a webhook it is the credential.
            SinkKind::Notify(t) => {
                self.progress.kind = "notify".to_string();
                self.progress.destination = Some(super::notify::destination(t));
                self.progress.note = None;
                return;
            }
        };
        self.progress.kind = kind.to_string();
        self.progress.destination = dest.map(|d| crate::redact::text(&d).map_or(d, |r| r.0));
        self.progress.note = note;
    }

    fn has_pending(&self) -> bool {
        self.progress.segment.is_some() || self.scanned.1 > 0
    }

    /// The segment being delivered: the recorded one if it still exists, else the oldest one
    /// on disk (a flusher killed between rotating and saving its cursor left it unrecorded).
    fn current_segment(&mut self, files: &[String]) -> Option<String> {
        if let Some(seg) = &self.progress.segment
            && files.contains(seg)
        {
            return Some(seg.clone());
        }
        let oldest = progress::segments(files, &self.spec.name)
            .into_iter()
            .next();
        if oldest != self.progress.segment {
            self.progress.segment = oldest.clone();
            self.progress.offset = 0;
        }
        oldest
    }

    fn save(&mut self, store: &Store) {
        // A cursor that cannot be saved means duplicates after a crash, never a loss.
        let _ = self.progress.save(store);
    }

    fn fail(&mut self, store: &Store, msg: String) {
        self.failed_once = true;
        self.progress.consecutive_failures = self.progress.consecutive_failures.saturating_add(1);
        self.progress.last_error = Some(msg);
        self.progress.last_error_at = Some(crate::time::iso(wall_ms()));
        // Full jitter within the current step, so that many flushers do not retry in step.
        let jitter = super::event::new_id()
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
        let wait = self.backoff.mul_f64(0.5 + (jitter % 1000) as f64 / 2000.0);
        self.retry_at = Some(Instant::now() + wait);
        self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
        self.save(store);
    }

    /// Folds the drop log into `dropped_total`: rotate it aside, count, record, remove.
    fn fold_drops(&mut self, store: &Store, files: &[String]) {
        let (log, folding) = (
            names::dropped(&self.spec.name),
            names::folding(&self.spec.name),
        );
        if !files.contains(&folding) {
            if !files.contains(&log) || !matches!(store.outbox_rotate(&log, &folding), Ok(true)) {
                return;
            }
            self.progress.folding_counted = false;
        }
        if !self.progress.folding_counted {
            let Ok((n, _)) = store.outbox_count(&folding, 0) else {
                return;
            };
            self.progress.dropped_total += n;
            self.progress.folding_counted = true;
            self.save(store);
        }
        if store.outbox_remove(&folding).is_ok() {
            self.progress.folding_counted = false;
            self.save(store);
        }
    }

    fn deliver(
        &self,
        events: &[ExportEvent],
        get: &dyn Fn(&str) -> Option<String>,
        project: &str,
        host: &str,
    ) -> Outcome {
        let expand_all = |headers: &[(String, String)]| -> Result<Vec<(String, String)>, String> {
            headers
                .iter()
                .map(|(k, v)| {
                    deliver::expand(v, get)
                        .map(|v| (k.clone(), v))
                        .map_err(|e| format!("header {k}: {e}"))
                })
                .collect()
        };
        match &self.spec.kind {
            // One message per batch: a burst is folded into one message listing each event.
            SinkKind::Notify(target) => {
                super::notify::send(&self.client, target, &super::notify::digest(events), get)
            }
            SinkKind::BatchWebhook {
                url,
                method,
                headers,
                secret_env,
            } => {
                let key = match secret_env {
                    Some(var) => match get(var).filter(|k| !k.is_empty()) {
                        Some(k) => Some(k),
                        None => {
                            return Outcome::Retry(format!(
                                "{var}, which holds the signing key, is not set"
                            ));
                        }
                    },
                    None => None,
                };
                let extra = match expand_all(headers) {
                    Ok(h) => h,
                    Err(e) => return Outcome::Retry(e),
                };
                let body = webhook::body(events);
                let mut all = webhook::headers(events, &body, key.as_deref().map(str::as_bytes));
                all.extend(extra);
                let verb = match method {
                    Method::Post => Verb::Post,
                    Method::Put => Verb::Put,
                };
                self.client.send(verb, url, &all, &body).0
            }
            SinkKind::Otlp { endpoint, headers } => {
                let target = match otlp::target(endpoint.as_deref(), headers, get) {
                    Ok(t) => t,
                    Err(e) => return Outcome::Retry(e),
                };
                let extra = match expand_all(&target.headers) {
                    Ok(h) => h,
                    Err(e) => return Outcome::Retry(e),
                };
                let body = otlp::body(events, project, host, wall_ms());
                let mut all = vec![
                    ("Content-Type".to_string(), "application/json".to_string()),
                    (
                        "User-Agent".to_string(),
                        format!("omc-hooks/{}", env!("CARGO_PKG_VERSION")),
                    ),
                ];
                all.extend(extra);
                match self.client.send(Verb::Post, &target.url, &all, &body) {
                    (Outcome::Delivered { .. }, Some(resp)) => Outcome::Delivered {
                        note: otlp::partial_success(&resp),
                    },
                    (o, _) => o,
                }
            }
        }
    }
}
