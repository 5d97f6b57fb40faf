"""Runs each case of cases.txt in its sample project and writes one JSON line per case:
the command, its exit status, its combined output verbatim, and the label given before it ran."""
import json, os, subprocess, sys
base = sys.argv[1]
out = []
env = dict(os.environ, NO_COLOR="1", TERM="dumb", FORCE_COLOR="0", CARGO_TERM_COLOR="never", GIT_PAGER="cat", PAGER="cat")
for n, line in enumerate(open(sys.argv[2])):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    label, tool, d, cmd = line.split("|", 3)
    cwd = os.path.join(base, d)
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, timeout=300)
        text = (p.stdout + p.stderr).decode("utf-8", "replace")
        code = p.returncode
    except subprocess.TimeoutExpired:
        text, code = "", -1
    out.append({"label": "failure" if label == "F" else "success", "tool": tool, "command": cmd, "exit": code, "output": text})
    print(f"{len(out):3} {label} {code:3} {tool:8} {cmd[:60]}", file=sys.stderr, flush=True)
with open(sys.argv[3], "w") as f:
    for r in out:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
