#!/usr/bin/env python3
"""Writes link/hot-functions.txt: every function the hooks execute, for the linker to lay
out together (build.rs passes it to rust-lld as --symbol-ordering-file).

A hook is mostly process start-up, and much of that is mapping the pages of code it runs:
the kernel maps a 64 KiB window of the executable around each page a hook first touches, and
each mapped page costs (BENCHMARKS.md, "Issue 44, round 5"). Left where the compiler put it,
the code of one event is spread over ~60 such windows of the 6 MB of code; gathered, it fits
in a few.

Run from the repository root (the release profile keeps the symbol table for this; nothing
of it is loaded at run time):

    python3 benches/hot_functions.py

It builds the executable twice, as `cargo build --release` and as `cargo test --release` and
`cargo bench` build it (the `bench` profile: the same settings under another name, which
changes every symbol's hash), and lists the names of both.

It seeds a throw-away project the way benches/latency.rs does (a ralph run, a skill guard,
edits, a failure; a usage line in the transcript), runs every Claude Code event and a few of
the other agents' under `valgrind --tool=callgrind`, and lists the functions they executed
(mangled, as the linker knows them), those used by the most events first. Needs valgrind.
A stale list only costs speed: a name that no longer exists is skipped by the linker. Names
carry a hash of the crate's build, so re-run this after changing the dependencies or their
features (Cargo.toml, Cargo.lock) or the toolchain, as well as the hooks' code; `cargo test`
(tests/cli.rs) fails when the list no longer names the functions every hook runs.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

OUT = "link/hot-functions.txt"
SID = "bench-session-0001"
NOW = "1796305500000"


def main():
    work = tempfile.mkdtemp(prefix="omc-hot-")
    try:
        uses = {}
        cost = {}
        for i, cmd in enumerate([["cargo", "build", "--release"],
                                 ["cargo", "test", "--release", "--no-run"]]):
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            binary = os.path.join(work, f"omc-hooks-{i}")
            shutil.copy("target/release/omc-hooks", binary)
            profile(binary, os.path.join(work, f"run-{i}"), uses, cost)
        order = sorted(uses, key=lambda n: (-uses[n], -cost.get(n, 0), n))
        os.makedirs(os.path.dirname(OUT), exist_ok=True)
        with open(OUT, "w") as f:
            f.write("".join(n + "\n" for n in order))
        print(f"{OUT}: {len(order)} functions", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def profile(binary, work, uses, cost):
    """Runs the events under callgrind with `binary`, counting in `uses` how many ran each function."""
    os.makedirs(work)
    proj = os.path.join(work, "proj")
    os.makedirs(os.path.join(proj, ".git"))
    env = dict(os.environ, OMC_NOW_MS=NOW, XDG_STATE_HOME=os.path.join(work, "state"),
               XDG_CONFIG_HOME=os.path.join(work, "config"))
    for k in ("CLAUDE_PROJECT_DIR", "OMC_STATE_DIR", "DISABLE_OMC", "OMC_SKIP_HOOKS"):
        env.pop(k, None)
    transcript = os.path.join(proj, "transcript.jsonl")

    def payload(event, extra, agent="claude"):
        v = {"session_id": SID, "transcript_path": transcript, "cwd": proj,
             "hook_event_name": event, "permission_mode": "default"}
        if agent == "codex":
            v.update({"turn_id": "turn-1", "model": "gpt-5"})
        v.update(extra)
        return json.dumps(v).encode()

    def hook(sub, data, agent="claude", tool=None):
        argv = [binary, "--agent", agent, sub]
        if tool:
            argv = tool + argv
        return subprocess.run(argv, input=data, cwd=proj, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # The benchmark's state.
    hook("session-start", payload("SessionStart", {"source": "startup"}))
    hook("user-prompt-submit",
         payload("UserPromptSubmit", {"prompt": "ralph fix the failing tests in src/parser"}))
    hook("pre-tool-use", payload("PreToolUse", {"tool_name": "Skill",
         "tool_input": {"skill": "plan"}, "tool_use_id": "toolu_1"}))
    for i in range(20):
        f = f"{proj}/src/file{i % 50}.rs"
        hook("post-tool-use", payload("PostToolUse", {"tool_name": "Edit",
             "tool_input": {"file_path": f, "old_string": "fn a() {}\n",
                            "new_string": "fn a() {\n    let x = %d;\n}\n" % i},
             "tool_response": {"filePath": f, "success": True},
             "tool_use_id": f"toolu_e{i}"}))
    hook("post-tool-use-failure", payload("PostToolUseFailure", {"tool_name": "Bash",
         "tool_input": {"command": "cargo test"},
         "error": "Exit code 101\ntest parser::tests::it_parses ... FAILED",
         "is_interrupt": False, "tool_use_id": "toolu_f"}))
    with open(transcript, "w") as t:
        t.write(json.dumps({"type": "assistant", "message": {
            "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "text", "text": "working"}],
            "usage": {"input_tokens": 120000, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 10}}}) + "\n")
    live = os.path.join(proj, ".omc/state/sessions", SID)
    snap = os.path.join(work, "snap")
    shutil.copytree(live, snap)

    runs = [
        ("session-start", "SessionStart", {"source": "compact"}, "claude"),
        ("user-prompt-submit", "UserPromptSubmit",
         {"prompt": "ralph keep fixing the parser until every test passes"}, "claude"),
        ("user-prompt-submit", "UserPromptSubmit",
         {"prompt": "what does the parser do with empty input?"}, "claude"),
        ("pre-tool-use", "PreToolUse", {"tool_name": "Skill",
         "tool_input": {"skill": "review"}, "tool_use_id": "toolu_2"}, "claude"),
        ("pre-tool-use", "PreToolUse", {"tool_name": "Bash",
         "tool_input": {"command": "cargo test"}, "tool_use_id": "toolu_5"}, "claude"),
        ("post-tool-use", "PostToolUse", {"tool_name": "Edit",
         "tool_input": {"file_path": f"{proj}/src/lib.rs", "old_string": "a\n",
                        "new_string": "b\nc\n"},
         "tool_response": {"success": True}, "tool_use_id": "toolu_3"}, "claude"),
        ("post-tool-use", "PostToolUse", {"tool_name": "Bash",
         "tool_input": {"command": "cargo test"},
         "tool_response": {"stdout": "test result: ok. 3 passed\n", "stderr": "",
                           "interrupted": False}, "tool_use_id": "toolu_6"}, "claude"),
        ("post-tool-use-failure", "PostToolUseFailure", {"tool_name": "Bash",
         "tool_input": {"command": "cargo test"}, "error": "Exit code 101",
         "is_interrupt": False, "tool_use_id": "toolu_4"}, "claude"),
        ("subagent-start", "SubagentStart",
         {"agent_id": "agent-1", "agent_type": "Explore"}, "claude"),
        ("subagent-stop", "SubagentStop", {"agent_id": "agent-1", "agent_type": "Explore",
         "stop_hook_active": False, "last_assistant_message": "found it"}, "claude"),
        ("pre-compact", "PreCompact", {"trigger": "auto", "custom_instructions": None},
         "claude"),
        ("stop", "Stop", {"stop_hook_active": False,
         "last_assistant_message": "Fixed two tests; three remain.",
         "background_tasks": []}, "claude"),
        ("session-end", "SessionEnd", {"reason": "other"}, "claude"),
        ("stop", "Stop", {"stop_hook_active": False,
         "last_assistant_message": "Fixed two tests."}, "codex"),
        ("post-tool-use", "PostToolUse", {"tool_name": "Bash",
         "tool_input": {"command": "cargo test"},
         "tool_response": "Process exited with code 0\nOutput:\nok\n",
         "tool_use_id": "toolu_7"}, "codex"),
    ]
    for i, (sub, event, extra, agent) in enumerate(runs):
        shutil.rmtree(live)
        shutil.copytree(snap, live)
        out = os.path.join(work, f"cg.{i}")
        hook(sub, payload(event, extra, agent), agent,
             ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
              f"--callgrind-out-file={out}"])
        names = functions(out)
        for name, ir in names.items():
            uses[name] = uses.get(name, 0) + 1
            cost[name] = cost.get(name, 0) + ir
        print(f"{agent} {sub}: {len(names)} functions", file=sys.stderr)
    # --version: the start-up every process shares.
    out = os.path.join(work, "cg.version")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                    f"--callgrind-out-file={out}", binary, "--version"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for name in functions(out):
        uses[name] = len(runs) + 1


def functions(path):
    """The functions a callgrind profile saw executed, with their own instruction counts."""
    names = {}
    current = None
    for line in open(path, errors="replace"):
        if line.startswith("fn="):
            name = re.sub(r"'\d+$", "", line[3:].strip())  # a recursion's copies are one
            current = None if name.startswith("0x") or name.startswith("(") else name
            if current:
                names.setdefault(current, 0)
        elif current and re.match(r"^\+?\d", line):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                names[current] += int(parts[1])
    return names


if __name__ == "__main__":
    main()
