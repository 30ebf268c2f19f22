#!/usr/bin/env python3
"""Judges tools/outside/batch.sh from the provider's record and the outcomes topic:
batch-judge.py RECORD OUTCOMES EVENTS FAIL_ID MIN_EVENTS_PER_SECOND"""
import json
import sys
from collections import Counter

record, outcomes_file, events, fail_id, minimum = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
calls = [json.loads(line) for line in open(record) if line.strip()]
refused = sum(1 for c in calls if c["status"] == 429)
accepted = [c for c in calls if c["status"] == 200]
sent = Counter(i for c in accepted for i in c["ids"])
twice = sorted(i for i, n in sent.items() if n > 1)
# the pace: events sent from the first accepted call to the last (the last call's not counted:
# the span ends where it starts)
retry = [c for c in accepted if fail_id in c["ids"]][-1]
span = (accepted[-1]["t"] - accepted[0]["t"]) / 1000
per_second = (sum(c["n"] for c in accepted) - accepted[-1]["n"]) / span
calls_per_second = (len(accepted) - 1) / span
outcomes = Counter(line.strip() for line in open(outcomes_file) if line.strip())
wrong = {i: n for i, n in outcomes.items() if n != 1}
print(f"calls {len(calls)} ({len(accepted)} accepted, {refused} answered 429), "
      f"{calls_per_second:.2f} calls/s and {per_second:.0f} events/s over {span:.1f} s; "
      f"events sent twice {twice}; the retry of {fail_id}: a call of {retry['n']} event(s) "
      f"under key {retry['key']}; outcome records {sum(outcomes.values())} for {len(outcomes)} "
      f"events of {events} (not exactly one: {len(wrong)})")
ok = (refused == 0 and per_second >= minimum and twice == [fail_id] and len(outcomes) == events
      and not wrong and len(sent) == events)
print("verdict", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
