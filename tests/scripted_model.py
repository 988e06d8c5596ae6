#!/usr/bin/env python3
"""A scripted model for tests, spoken to through kforge's `cmd:` provider.

  cmd:python3 tests/scripted_model.py SCRIPT.json LOG.jsonl

SCRIPT.json maps a role to its replies: {"planner": [...], "coder": [...], ...}. An entry is
either a string, or {"when": TEXT, "reply": REPLY}. A request gets the first {"when": …} entry
whose TEXT occurs in its messages; failing that, the n-th plain string for the n-th request of
the role (the last one once they run out). Every request is appended to LOG.jsonl, so tests can
assert what each role was shown. A top-level "latency_s": SECONDS makes every reply wait that
long first, like a real model, so that measurements of concurrency mean something.
"""
import fcntl
import json
import sys
import time


def main():
    script_path, log_path = sys.argv[1], sys.argv[2]
    request = json.load(sys.stdin)
    role = request.get("role", "")
    text = "\n".join(m.get("content", "") for m in request.get("messages", []))
    with open(log_path, "a+") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        seen = sum(1 for line in log if line.strip() and json.loads(line).get("role") == role)
        log.write(json.dumps(request) + "\n")
    script = json.load(open(script_path))
    time.sleep(float(script.get("latency_s", 0)))
    entries = script.get(role) or []
    for entry in entries:
        if isinstance(entry, dict) and entry["when"] in text:
            sys.stdout.write(entry["reply"])
            return 0
    plain = [e for e in entries if isinstance(e, str)]
    if not plain:
        print(f"scripted model: no reply for role {role!r}", file=sys.stderr)
        return 3
    sys.stdout.write(plain[min(seen, len(plain) - 1)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
