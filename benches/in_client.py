#!/usr/bin/env python3
"""The in-client figure (issue 44): whole Claude Code sessions with and without the plugin.

Runs the real Claude Code binary headless (`claude -p PROMPT --output-format json`) against a
scripted model server on 127.0.0.1 that this script starts: every main-loop request (one that
carries `tools`) is answered with one `tool_use` of an instant tool (Bash `true`), CALLS times,
then with a final text; anything else (title, count_tokens, ...) gets a minimal answer, streamed
as SSE when the request says `stream`.

Three arms, interleaved (with, floor, without, with, ...) after one untimed warm-up of each:
`with` loads the checkout as the plugin (`--plugin-dir <checkout>`; its launcher runs
`<checkout>/target/release/omc-hooks`); `floor` loads a plugin with the same manifest, slash
commands and hooks.json (same events, same matchers) whose every hook command only appends a line
to a file with a shell builtin, which is what any plugin with these hooks costs in the client;
`without` loads no plugin. Each session gets a fresh HOME and git project in a temporary
directory, and is timed from process start to exit (wall), and by the CPU time `wait4` reports
for the client, which counts every hook process it waited for. Every hook process appends a line to
`OMC_TRACE_FILE`, so the report says how many hook events each session served; the added
milliseconds are given per tool call ((arm - without) / CALLS), per hook event, and for omc-hooks
over the floor per hook event. A session fails the run unless it exits 0 with a non-error result,
the model was asked CALLS + 1 times, every tool call succeeded and (ralph prompt) a ralph run
was started.

    cargo build --release
    OMC_E2E_CLIENT_DIR=/path/to/client python3 benches/in_client.py [--sessions 15] [--calls 20]
        [--variant plain|ralph|both]

Python 3 stdlib only. Prints a Markdown table. Not part of CI; no test asserts a duration.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
CLIENT_VERSION = "2.1.332"
CLIENT_PACKAGE = "@anthropic-ai/claude-code"

PROMPTS = {
    # a plain request: no keyword, no run
    "plain": "Check that the build tools answer; run each check with Bash.",
    # starts a ralph run; the final text claims completion the way the e2e ralph tests do
    "ralph": "ralph fix the tests",
}
FINAL = {
    "plain": "All checks answered.",
    "ralph": "The tests are fixed and pass.\n<omc-complete/>",
}
SIDE_TEXT = "Scripted side reply"
# Main-loop requests answered past the script before the session is called runaway.
MAX_EXTRA_TURNS = 20


class Script:
    """What the scripted model answers; reset before every session."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset(0, "done")

    def reset(self, calls, final):
        with self.lock:
            self.calls = calls
            self.final = final
            self.main_loop = 0
            self.tool_results = {}
            self.other = 0
            self.next_id = 0

    def next_main(self, req):
        with self.lock:
            # every tool result the conversation holds so far, by the call it answers
            for m in req.get("messages") or []:
                content = m.get("content") if isinstance(m, dict) else None
                for b in content if isinstance(content, list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        self.tool_results[b.get("tool_use_id")] = b
            i = self.main_loop
            self.main_loop += 1
            self.next_id += 1
            if i < self.calls:
                block = {
                    "type": "tool_use",
                    "id": "toolu_bench_%04d" % self.next_id,
                    "name": "Bash",
                    "input": {"command": "true", "description": "check %d" % (i + 1)},
                }
                return [block], "tool_use"
            if i > self.calls + MAX_EXTRA_TURNS:
                raise RuntimeError("runaway session")
            return [{"type": "text", "text": self.final}], "end_turn"

    def side(self):
        with self.lock:
            self.other += 1


SCRIPT = Script()


def sse(model, content, stop_reason):
    out = []

    def ev(name, data):
        out.append("event: %s\ndata: %s\n\n" % (name, json.dumps(data)))

    ev("message_start", {"type": "message_start", "message": {
        "id": "msg_bench_%d" % time.monotonic_ns(), "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
    for i, b in enumerate(content):
        if b["type"] == "text":
            ev("content_block_start", {"type": "content_block_start", "index": i,
                                       "content_block": {"type": "text", "text": ""}})
            ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                       "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            ev("content_block_start", {"type": "content_block_start", "index": i,
                                       "content_block": {"type": "tool_use", "id": b["id"],
                                                         "name": b["name"], "input": {}}})
            ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                       "delta": {"type": "input_json_delta",
                                                 "partial_json": json.dumps(b["input"])}})
        ev("content_block_stop", {"type": "content_block_stop", "index": i})
    ev("message_delta", {"type": "message_delta",
                         "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                         "usage": {"output_tokens": 5}})
    ev("message_stop", {"type": "message_stop"})
    return "".join(out).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def send(self, status, ctype, payload):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.body()
        SCRIPT.side()
        self.send(404, "application/json", b'{"type":"error","error":{"type":"not_found_error",'
                  b'"message":"not scripted"}}')

    do_HEAD = do_GET

    def do_POST(self):
        raw = self.body()
        path = self.path.split("?")[0]
        try:
            req = json.loads(raw or b"null")
        except ValueError:
            req = None
        req = req if isinstance(req, dict) else {}
        if path.endswith("/v1/messages/count_tokens"):
            SCRIPT.side()
            self.send(200, "application/json",
                      json.dumps({"input_tokens": max(len(raw) // 4, 1)}).encode())
            return
        if not path.endswith("/v1/messages"):
            self.do_GET()
            return
        if req.get("tools"):
            content, stop = SCRIPT.next_main(req)
        else:
            SCRIPT.side()
            content, stop = [{"type": "text", "text": SIDE_TEXT}], "end_turn"
        model = req.get("model") or "claude-sonnet-4-5"
        if req.get("stream"):
            self.send(200, "text/event-stream", sse(model, content, stop))
        else:
            msg = {"id": "msg_bench_%d" % time.monotonic_ns(), "type": "message",
                   "role": "assistant", "model": model, "content": content,
                   "stop_reason": stop, "stop_sequence": None,
                   "usage": {"input_tokens": 10, "output_tokens": 5,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
            self.send(200, "application/json", json.dumps(msg).encode())


def client_bin():
    """The pinned claude binary: OMC_E2E_CLAUDE_BIN, else under OMC_E2E_CLIENT_DIR (as the
    e2e harness finds it), else <checkout>/target/e2e-client."""
    if os.environ.get("OMC_E2E_CLAUDE_BIN"):
        b = Path(os.environ["OMC_E2E_CLAUDE_BIN"])
    else:
        d = Path(os.environ.get("OMC_E2E_CLIENT_DIR") or CHECKOUT / "target" / "e2e-client")
        b = d / "node_modules" / CLIENT_PACKAGE / "bin" / "claude.exe"
    try:
        v = subprocess.run([str(b), "--version"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60).stdout.strip()
    except OSError as e:
        sys.exit("in_client: cannot run %s (%s); set OMC_E2E_CLIENT_DIR to the installed "
                 "client (the e2e tests install it)" % (b, e))
    if not v.startswith(CLIENT_VERSION):
        sys.exit("in_client: %s --version says %r, want %s" % (b, v, CLIENT_VERSION))
    return b, v


def scrubbed_env():
    """The parent's environment less what would change the client (as the e2e harness)."""
    drop = ("ANTHROPIC_", "CLAUDE", "OTEL_", "AWS_", "GOOGLE_", "VERTEX_", "OMC_")
    return {k: v for k, v in os.environ.items()
            if not k.startswith(drop) and k not in ("MCP_TIMEOUT", "DISABLE_AUTOUPDATER")}


def floor_plugin(root):
    """A plugin with the checkout's manifest, slash commands and hooks.json (same events, same
    matchers), each hook command replaced by one that only appends a line to OMC_TRACE_FILE with
    a shell builtin: what any plugin with these hooks costs in the client, before its program."""
    d = Path(root) / "floor-plugin"
    (d / ".claude-plugin").mkdir(parents=True)
    manifest = json.loads((CHECKOUT / ".claude-plugin" / "plugin.json").read_text())
    manifest.pop("icon", None)
    (d / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    shutil.copytree(CHECKOUT / "commands", d / "commands")
    hooks = json.loads((CHECKOUT / "hooks.json").read_text())
    n = 0
    for entries in hooks["hooks"].values():
        for entry in entries:
            for h in entry["hooks"]:
                if h.get("type") == "command":
                    # the subcommand is the launcher's last word (`...; o pre-tool-use`)
                    sub = h["command"].rsplit(" ", 1)[-1]
                    h["command"] = "printf '{\"hook\":\"%s\"}\\n' >> \"$OMC_TRACE_FILE\"" % sub
                    n += 1
    if not n:
        sys.exit("in_client: the checkout's hooks.json has no command hook")
    (d / "hooks.json").write_text(json.dumps(hooks))
    return d


def session(claude, base_url, variant, calls, plugin, timeout):
    """One timed session in a fresh sandbox: (wall seconds, CPU seconds of the client and every
    process it waited for, hooks served by name, main-loop requests). `plugin` is the directory
    for --plugin-dir, or None."""
    root = Path(tempfile.mkdtemp(prefix="omc-in-client-"))
    try:
        project, home, tmp = root / "project", root / "home", root / "tmp"
        for d in (project, home, tmp):
            d.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=project, check=True,
                       stdin=subprocess.DEVNULL)
        trace = root / "trace.jsonl"
        env = scrubbed_env()
        env.update({
            "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TMPDIR": str(tmp),
            "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "x",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",  # lets --dangerously-skip-permissions run as root
            "DISABLE_AUTOUPDATER": "1", "OMC_TRACE_FILE": str(trace),
        })
        cmd = [str(claude), "-p", PROMPTS[variant], "--output-format", "json",
               "--dangerously-skip-permissions"]
        if plugin:
            cmd += ["--plugin-dir", str(plugin)]
        SCRIPT.reset(calls, FINAL[variant])
        out, err = open(root / "stdout", "w+"), open(root / "stderr", "w+")
        start = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err, start_new_session=True)
        killer = threading.Timer(timeout, os.killpg, (p.pid, signal.SIGKILL))
        killer.start()
        # wait4: the client's rusage counts every hook process it waited for
        _, status, ru = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        killer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        try:  # hooks the client left behind must not outlive the session
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        cpu = ru.ru_utime + ru.ru_stime
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        out.close()
        err.close()
        try:
            result = json.loads(stdout)
        except ValueError:
            result = {}
        if p.returncode != 0 or result.get("is_error", True):
            sys.exit("in_client: session failed (exit %d)\nstdout: %s\nstderr: %s"
                     % (p.returncode, stdout[-2000:], stderr[-2000:]))
        if SCRIPT.main_loop < calls + 1:
            sys.exit("in_client: the client asked the model %d times, want %d"
                     % (SCRIPT.main_loop, calls + 1))
        failed = [json.dumps(r.get("content"))[:300]
                  for r in SCRIPT.tool_results.values() if r.get("is_error")]
        if len(SCRIPT.tool_results) < calls or failed:
            sys.exit("in_client: %d of %d tool calls answered, failed: %s"
                     % (len(SCRIPT.tool_results), calls, failed))
        hooks = {}
        if trace.exists():
            for line in trace.read_text().splitlines():
                try:
                    h = json.loads(line).get("hook")
                except ValueError:
                    continue
                if h:
                    hooks[h] = hooks.get(h, 0) + 1
        if plugin == CHECKOUT and variant == "ralph" and not list(
                (project / ".omc" / "state" / "sessions").glob("*/ralph-state.json")):
            sys.exit("in_client: the ralph prompt started no ralph run")
        if plugin and not hooks:
            sys.exit("in_client: the plugin served no hook (is target/release/omc-hooks built?)")
        if not plugin and hooks:
            sys.exit("in_client: hooks ran without the plugin: %s" % hooks)
        return elapsed, cpu, hooks, SCRIPT.main_loop
    finally:
        shutil.rmtree(root, ignore_errors=True)


def pct(xs, q):
    """Nearest-rank percentile."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


ARMS = ("with", "floor", "without")


def paired_ms(arm, other):
    """Median over rounds of (arm - other) in one round, in milliseconds."""
    return statistics.median((a - b) * 1000 for a, b in zip(arm, other))


def measure(claude, base_url, variant, args, plugins):
    """Sessions of every arm, interleaved (with, floor, without, with, ...), after one
    untimed warm-up of each: {arm: (wall seconds, CPU seconds, hooks, model turns set)}."""
    print("variant %s: warm-up" % variant, file=sys.stderr)
    for arm in ARMS:
        session(claude, base_url, variant, args.calls, plugins[arm], args.timeout)
    out = {arm: ([], [], [], set()) for arm in ARMS}
    for i in range(args.sessions):
        for arm in ARMS:
            t, c, h, n = session(claude, base_url, variant, args.calls, plugins[arm],
                                 args.timeout)
            out[arm][0].append(t)
            out[arm][1].append(c)
            out[arm][2].append(h)
            out[arm][3].add(n)
            print("variant %s session %d %s: %.3f s wall, %.3f s CPU, %d model turns, hooks %s"
                  % (variant, i + 1, arm, t, c, n, json.dumps(h, sort_keys=True)),
                  file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=15, help="timed sessions per arm")
    ap.add_argument("--calls", type=int, default=20, help="tool calls per session")
    ap.add_argument("--variant", choices=("plain", "ralph", "both"), default="plain")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per session")
    args = ap.parse_args()
    if args.sessions < 1 or args.calls < 1:
        sys.exit("in_client: --sessions and --calls must be at least 1")
    hook_bin = CHECKOUT / "target" / "release" / "omc-hooks"
    if not os.access(hook_bin, os.X_OK):
        sys.exit("in_client: %s is missing: run `cargo build --release` first" % hook_bin)
    claude, version = client_bin()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = "http://127.0.0.1:%d" % server.server_address[1]
    variants = ("plain", "ralph") if args.variant == "both" else (args.variant,)
    scratch = tempfile.mkdtemp(prefix="omc-in-client-floor-")
    plugins = {"with": CHECKOUT, "floor": floor_plugin(scratch), "without": None}
    try:
        print("Claude Code %s, %d tool calls (Bash `true`) per session, %d sessions per arm, "
              "interleaved; `uptime` before: %s"
              % (version, args.calls, args.sessions,
                 subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()))
        print()
        print("| prompt | plugin | hook events per session | wall: median (p10–p90) s "
              "| × without | added ms per tool call: medians | paired "
              "| added ms per hook event, paired | over the floor, ms per hook event, paired "
              "| CPU: median s | added CPU ms per tool call, paired "
              "| CPU over the floor, ms per hook event, paired |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        details = []
        for v in variants:
            res = measure(claude, base_url, v, args, plugins)
            base = statistics.median(res["without"][0])
            for arm in ARMS:
                secs, cpus, hooks, turns = res[arm]
                m = statistics.median(secs)
                events = statistics.median(sum(h.values()) for h in hooks)
                # the medians' difference, and the median of each round's own difference (the
                # sessions of one round ran back to back, so a load that drifts cancels out)
                added = (m - base) * 1000
                paired = paired_ms(secs, res["without"][0])
                cpu_paired = paired_ms(cpus, res["without"][1])
                cells = [""] * 4
                cpu_cells = [""] * 2
                if arm != "without":
                    cells = ["%.1f" % (added / args.calls), "%.1f" % (paired / args.calls),
                             "%.1f" % (paired / events), ""]
                    cpu_cells = ["%.1f" % (cpu_paired / args.calls), ""]
                if arm == "with":
                    cells[3] = "%.1f" % (paired_ms(secs, res["floor"][0]) / events)
                    cpu_cells[1] = "%.1f" % (paired_ms(cpus, res["floor"][1]) / events)
                print("| `%s` | %s | %g | %.3f (%.2f–%.2f) | %.3f | %s | %.3f | %s |"
                      % (PROMPTS[v], LABEL[arm], events, m, pct(secs, 10), pct(secs, 90),
                         m / base, " | ".join(cells), statistics.median(cpus),
                         " | ".join(cpu_cells)), flush=True)
                details.append("`%s` %s: %s model turns" % (
                    v, arm, "–".join(str(t) for t in sorted({min(turns), max(turns)}))))
                per_hook = {}
                for h in hooks:
                    for name, n in h.items():
                        per_hook.setdefault(name, set()).add(n)
                if per_hook:
                    details[-1] += ", hooks " + (", ".join(
                        "%s %s" % (name, "/".join(str(n) for n in sorted(ns)))
                        for name, ns in sorted(per_hook.items())))
        print()
        print("Per session: " + "; ".join(details))
        print()
        print("`uptime` after: %s"
              % subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    finally:
        server.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)


LABEL = {
    "with": "omc-hooks (release)",
    "floor": "same hooks, each only `printf >> file`",
    "without": "none",
}


if __name__ == "__main__":
    main()
