//! Property tests over every hook subcommand: whatever the payload — arbitrary bytes, mangled
//! real payloads, JSON objects with the known field names holding values of any type, huge
//! strings, deep nesting — a hook answers nothing or one well-shaped JSON object, never panics
//! (not even a panic the dispatcher would catch and hide), returns within a hang bound, and
//! leaves a state tree that satisfies [`kit::check_tree`].
//!
//! The bulk runs in-process through `dispatch::decide` (what the binary does after reading
//! stdin); a smaller share spawns the real binary, where stdin handling and exit codes count.

use super::kit::{self, CLEAN, HANG, NOW_MS};
use omc_hooks::dispatch;
use omc_hooks::env::Env;
use omc_hooks::hooks::{self, Hook};
use omc_hooks::protocol::HookInput;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Once, mpsc};

/// Every field name `HookInput::decode` reads, in both spellings, plus fields it does not know.
const FIELDS: &[&str] = &[
    "hook_event_name",
    "hookEventName",
    "session_id",
    "sessionId",
    "sessionid",
    "transcript_path",
    "transcriptPath",
    "cwd",
    "directory",
    "permission_mode",
    "permissionMode",
    "prompt",
    "message",
    "parts",
    "tool_name",
    "toolName",
    "tool_input",
    "toolInput",
    "tool_response",
    "toolResponse",
    "toolOutput",
    "tool_use_id",
    "toolUseId",
    "error",
    "is_interrupt",
    "isInterrupt",
    "stop_hook_active",
    "stopHookActive",
    "last_assistant_message",
    "lastAssistantMessage",
    "stop_reason",
    "stopReason",
    "end_turn_reason",
    "endTurnReason",
    "user_requested",
    "userRequested",
    "agent_id",
    "agentId",
    "agent_type",
    "agentType",
    "agent_transcript_path",
    "agentTranscriptPath",
    "source",
    "trigger",
    "custom_instructions",
    "customInstructions",
    "reason",
    "background_tasks",
    "model",
    "duration_ms",
    "session_crons",
    "brand_new_field",
];

/// Keys found inside `tool_input`, `tool_response`, `message`, `parts`.
const INNER_KEYS: &[&str] = &[
    "skill",
    "args",
    "command",
    "file_path",
    "content",
    "old_string",
    "new_string",
    "todos",
    "status",
    "text",
    "type",
    "success",
    "commandName",
    "stdout",
    "stderr",
    "interrupted",
];

/// Strings that mean something to some capability, or to a path builder.
const MEANINGFUL: &[&str] = &[
    "",
    " ",
    "s1",
    "3f2b1c9e-7a4d-4e8b-9c1a-0d2e3f4a5b6c",
    "../../escape",
    "..",
    ".",
    "a/b",
    "/etc/passwd",
    "C:\\Windows",
    "\u{0}",
    "\u{202e}",
    "Skill",
    "Bash",
    "Agent",
    "Task",
    "oh-my-claudecode:ralph",
    "deep-interview",
    "ralph",
    "cancel",
    "cancelomc",
    "ulw",
    "autopilot",
    "true",
    "TRUE",
    "false",
    "startup",
    "resume",
    "compact",
    "auto",
    "manual",
    "context_limit",
    "user_interrupt",
    "rate_limit",
    "<promise>DONE</promise>",
    "[RALPH LOOP 3/100]",
    "[MAGIC KEYWORD: RALPH]",
    "```\nralph\n```",
    "Exit code 1",
];

/// Words prompts are made of, keywords and their look-alikes included.
const WORDS: &[&str] = &[
    "ralph",
    "autopilot",
    "ultrawork",
    "ulw",
    "ccg",
    "ralplan",
    "deep-interview",
    "deslop",
    "tdd",
    "test first",
    "code-review",
    "security-review",
    "ultrathink",
    "think hard",
    "deepsearch",
    "analyze",
    "deep-analyze",
    "cancel",
    "cancelomc",
    "stopomc",
    "don't",
    "not",
    "what is",
    "?",
    "fix",
    "the",
    "tests",
    "`",
    "```",
    "\"",
    ">",
    "/",
    ":",
    "-",
    "_",
    "\n",
    "http://x.io/ralph",
    "src/ralph/",
    "<!--",
    "-->",
    "$ ",
    "+",
    "랄프",
    "ラルフ",
    "拉尔夫",
    "é",
    "\u{200b}",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(MEANINGFUL).prop_map(String::from),
        4 => prop::collection::vec(prop::sample::select(WORDS), 0..24).prop_map(|w| w.join(" ")),
        3 => prop::collection::vec(any::<char>(), 0..48).prop_map(|c| c.into_iter().collect()),
        1 => (prop::sample::select(WORDS), 1usize..150_000).prop_map(|(w, n)| w.repeat(n)),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        text().prop_map(Value::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(FIELDS).prop_map(String::from),
        2 => prop::sample::select(INNER_KEYS).prop_map(String::from),
        1 => text(),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A JSON object with the known field names holding anything, optionally on top of a realistic
/// payload (so the odd field sits among sane ones), plus nesting deeper than a parser allows.
#[derive(Debug, Clone)]
struct ObjectCase {
    base: Option<usize>,
    /// A prompt made of keywords and their look-alikes (keyword detection gets most cases).
    prompt: Option<String>,
    set: Vec<(String, Value)>,
    remove: Vec<String>,
    deep: Option<(String, usize, bool)>,
}

fn object_case() -> impl Strategy<Value = ObjectCase> {
    (
        prop::option::weighted(0.6, 0usize..64),
        prop::option::weighted(0.6, text()),
        prop::collection::vec(
            (prop::sample::select(FIELDS).prop_map(String::from), value()),
            0..10,
        ),
        prop::collection::vec(prop::sample::select(FIELDS).prop_map(String::from), 0..4),
        prop::option::weighted(
            0.1,
            (
                prop::sample::select(FIELDS).prop_map(String::from),
                1usize..3_000,
                any::<bool>(),
            ),
        ),
    )
        .prop_map(|(base, prompt, set, remove, deep)| ObjectCase {
            base,
            prompt,
            set,
            remove,
            deep,
        })
}

impl ObjectCase {
    /// The payload bytes for `event` in `project`.
    fn bytes(&self, event: &str, project: &Path) -> Vec<u8> {
        let mut map = match self.base {
            Some(k) => match kit::realistic(event, "prop-session", project, k) {
                Value::Object(m) => m,
                _ => unreachable!(),
            },
            None => Map::new(),
        };
        if let Some(p) = &self.prompt {
            map.insert("prompt".into(), json!(p));
        }
        for k in &self.remove {
            map.remove(k);
        }
        for (k, v) in &self.set {
            map.insert(k.clone(), v.clone());
        }
        let mut text = serde_json::to_string(&Value::Object(map)).unwrap();
        if let Some((field, depth, arrays)) = &self.deep {
            // Built as text: a `Value` this deep could not even be dropped safely.
            let (open, close) = if *arrays {
                ("[", "]")
            } else {
                ("{\"a\":", "}")
            };
            let nested = format!("{}1{}", open.repeat(*depth), close.repeat(*depth));
            text.pop();
            if !text.ends_with('{') {
                text.push(',');
            }
            text.push_str(&format!("{}:{nested}}}", json!(field)));
        }
        text.into_bytes()
    }
}

/// Byte-level input: arbitrary bytes, or a real payload with a few bytes mangled or cut.
#[derive(Debug, Clone)]
enum ByteCase {
    Raw(Vec<u8>),
    Mangled {
        k: usize,
        edits: Vec<(usize, u8, u8)>,
        cut: Option<usize>,
    },
}

fn byte_case() -> impl Strategy<Value = ByteCase> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..2048).prop_map(ByteCase::Raw),
        (
            0usize..64,
            prop::collection::vec((any::<usize>(), 0u8..3, any::<u8>()), 0..6),
            prop::option::of(any::<usize>()),
        )
            .prop_map(|(k, edits, cut)| ByteCase::Mangled { k, edits, cut }),
    ]
}

impl ByteCase {
    fn bytes(&self, event: &str, project: &Path) -> Vec<u8> {
        match self {
            ByteCase::Raw(b) => b.clone(),
            ByteCase::Mangled { k, edits, cut } => {
                let mut b = serde_json::to_vec(&kit::realistic(event, "prop-session", project, *k))
                    .unwrap();
                for (at, op, byte) in edits {
                    let i = at % (b.len() + 1);
                    match op {
                        0 if i < b.len() => b[i] = *byte,
                        1 => b.insert(i, *byte),
                        _ if i < b.len() => {
                            b.remove(i);
                        }
                        _ => {}
                    }
                }
                if let Some(c) = cut {
                    b.truncate(c % (b.len() + 1));
                }
                b
            }
        }
    }
}

thread_local! {
    static PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Counts panics per thread (then lets the previous hook print them), so a panic that
/// `dispatch::decide` catches and turns into a no-op is still seen by the test.
fn count_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            previous(info);
        }));
    });
}

/// The environment a hook sees in-process: the project pinned the way Claude Code pins it
/// (`CLAUDE_PROJECT_DIR`), so a payload `cwd` of `/` cannot send state anywhere else.
fn env_for(project: &Path) -> Env {
    let dir = project.to_string_lossy().into_owned();
    Env::from_lookup(
        |k| match k {
            "CLAUDE_PROJECT_DIR" => Some(dir.clone()),
            "OMC_NOW_MS" => Some(NOW_MS.to_string()),
            _ => None,
        },
        Some(project.to_path_buf()),
        HashMap::new(),
    )
}

/// The manifest's hooks as the binary knows them.
fn manifest_hooks() -> Vec<Hook> {
    kit::hooks()
        .iter()
        .map(|(_, sub)| hooks::find(sub).unwrap_or_else(|| panic!("{sub} is not a hook")))
        .collect()
}

/// What the binary does after reading stdin, with a hang bound and panic detection.
fn decide_guarded(hook: Hook, env: &Env, bytes: &[u8]) -> Result<(), TestCaseError> {
    let Ok(input) = HookInput::decode(bytes) else {
        return Ok(()); // The binary answers undecodable input with a no-op before any decision.
    };
    count_panics();
    let (tx, rx) = mpsc::channel();
    let env = env.clone();
    std::thread::spawn(move || {
        let answer = dispatch::decide(hook, &env, &input);
        let _ = tx.send((answer.encode(hook.event), PANICS.with(Cell::get)));
    });
    match rx.recv_timeout(HANG) {
        Ok((encoded, 0)) => {
            if let Some(v) = encoded {
                kit::assert_answer_shape(hook.event, &v, hook.name);
            }
            Ok(())
        }
        Ok((_, n)) => Err(TestCaseError::fail(format!(
            "{}: {n} panic(s) inside the capabilities (caught, but a bug)",
            hook.name
        ))),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "{}: no decision within {HANG:?}",
            hook.name
        ))),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(TestCaseError::fail(format!(
            "{}: panicked outside the capabilities",
            hook.name
        ))),
    }
}

fn runner(cases: usize) -> TestRunner {
    TestRunner::new(Config {
        cases: cases as u32,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    })
}

/// Runs `bytes_for` through every hook on one fresh project per case.
fn run_in_process<S: Strategy>(
    label: &str,
    cases: usize,
    strategy: S,
    bytes_for: impl Fn(&S::Value, &str, &Path) -> Vec<u8>,
) where
    S::Value: std::fmt::Debug,
{
    let hooks = manifest_hooks();
    let decided = Cell::new(0usize);
    let result = runner(cases).run(&strategy, |case| {
        let p = kit::project();
        let env = env_for(p.path());
        for hook in &hooks {
            let bytes = bytes_for(&case, hook.event, p.path());
            decide_guarded(*hook, &env, &bytes)?;
            decided.set(decided.get() + 1);
        }
        let outcome = std::panic::catch_unwind(|| kit::check_tree(p.path(), &[], CLEAN));
        outcome.map_err(|e| {
            TestCaseError::fail(format!(
                "state tree: {}",
                e.downcast_ref::<String>().cloned().unwrap_or_default()
            ))
        })?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("{label}: {e}");
    }
    eprintln!("{label}: {cases} cases, {} decisions", decided.get());
}

#[test]
fn any_json_object_gets_a_well_formed_answer_from_every_hook() {
    run_in_process(
        "props/objects",
        64 * kit::scale(),
        object_case(),
        |c, event, project| c.bytes(event, project),
    );
}

#[test]
fn any_bytes_get_a_well_formed_answer_from_every_hook() {
    run_in_process(
        "props/bytes",
        96 * kit::scale(),
        byte_case(),
        |c, event, project| c.bytes(event, project),
    );
}

/// The same inputs through the real binary: exit 0, one line of JSON or nothing, a no-op and
/// a reason on stderr when the payload cannot be decoded.
#[test]
fn real_processes_answer_any_input_within_the_contract() {
    let cases = 8 * kit::scale();
    let hooks = kit::hooks();
    let strategy = (object_case(), byte_case(), any::<bool>());
    let processes = Cell::new(0usize);
    let result = runner(cases).run(&strategy, |(obj, raw, use_obj)| {
        let p = kit::project();
        let dir = p.path().to_string_lossy().into_owned();
        for (event, sub) in &hooks {
            let bytes = if use_obj {
                obj.bytes(event, p.path())
            } else {
                raw.bytes(event, p.path())
            };
            let out = kit::run_hook(sub, &bytes, p.path(), &[("CLAUDE_PROJECT_DIR", &dir)]);
            processes.set(processes.get() + 1);
            let checked = std::panic::catch_unwind(|| {
                kit::assert_wire(event, sub, &out);
                if HookInput::decode(&bytes).is_err() {
                    out.expect_noop();
                    assert!(
                        out.stderr.contains("omc-hooks:"),
                        "{sub}: undecodable input without a reason on stderr"
                    );
                }
                assert!(
                    !out.stderr.contains("panicked"),
                    "{sub}: a panic: {}",
                    out.stderr
                );
            });
            checked.map_err(|e| {
                TestCaseError::fail(format!(
                    "{sub}: {}",
                    e.downcast_ref::<String>().cloned().unwrap_or_default()
                ))
            })?;
        }
        let tree = std::panic::catch_unwind(|| kit::check_tree(p.path(), &[], CLEAN));
        tree.map_err(|_| TestCaseError::fail("state tree"))?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("props/processes: {e}");
    }
    eprintln!(
        "props/processes: {cases} cases, {} processes",
        processes.get()
    );
}

/// Nesting far beyond the parser's limit is refused as "not JSON" (no stack overflow), and
/// nesting just inside it is decided like any payload.
#[test]
fn deep_nesting_neither_overflows_nor_blocks() {
    let p = kit::project();
    let env = env_for(p.path());
    for depth in [100, 127, 128, 129, 10_000, 200_000] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let nested = format!("{}0{}", open.repeat(depth), close.repeat(depth));
            let mut base = kit::realistic("Stop", "s1", p.path(), 0);
            base["tool_input"] = json!("PLACEHOLDER");
            let text = serde_json::to_string(&base)
                .unwrap()
                .replace("\"PLACEHOLDER\"", &nested);
            for hook in manifest_hooks() {
                decide_guarded(hook, &env, text.as_bytes()).unwrap();
            }
            let out = kit::run_hook("stop", text.as_bytes(), p.path(), &[]);
            kit::assert_wire("Stop", "stop", &out);
        }
    }
    kit::check_tree(p.path(), &[], CLEAN);
}
