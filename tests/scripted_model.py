#!/usr/bin/env python3
"""A scripted model for tests, spoken to through kforge's `cmd:` provider.

  cmd:python3 tests/scripted_model.py SCRIPT.json LOG.jsonl

SCRIPT.json maps a role to its replies in order: {"planner": ["...", ...], "coder": [...], ...}.
The n-th request of a role gets the role's n-th reply (the last one once they run out). Every
request is appended to LOG.jsonl, so tests can assert what each role was shown.
"""
import fcntl
import json
import sys


def main():
    script_path, log_path = sys.argv[1], sys.argv[2]
    request = json.load(sys.stdin)
    role = request.get("role", "")
    with open(log_path, "a+") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        seen = sum(1 for line in log if line.strip() and json.loads(line).get("role") == role)
        log.write(json.dumps(request) + "\n")
    replies = json.load(open(script_path)).get(role)
    if not replies:
        print(f"scripted model: no replies for role {role!r}", file=sys.stderr)
        return 3
    sys.stdout.write(replies[min(seen, len(replies) - 1)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
