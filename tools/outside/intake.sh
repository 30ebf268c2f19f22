#!/usr/bin/env bash
# Issue 35's check from outside: a dedup window and delivery at a time, on the jars a user builds,
# every part a process of its own, judged from the provider's own record and the topics
# (docs/gate.md, "A dedup window" and "Delivery at a time").
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/intake.sh [--events 10000] [--schedule-minutes 10]
#       [--only dedup|schedule|order|eta|priority] [--keys 100] [--per-key 50] [--work DIR]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, the three roles apart (`sluice gate`, `sluice relay`, `sluice dispatch`), one
# Node.js provider per part (ops-provider.mjs: at most its RATE calls in any sliding second, no
# burst, 429 beyond; one record line per call), kcat writing the events at their times.
#   dedup:    provider dedup-api (`dedupWindow: 10m`, 400/s, a quota that defers nothing) gets
#             --events events over 100 s, each sent twice: the copy 1-60 s after the first (uniform,
#             among new events). The gate is SIGKILLed at 40 s and started again 3 s later (its
#             open transaction aborted, its partitions read again from the last commit).
#             Verdicts: every id accepted by the provider exactly once; exactly --events `duplicate`
#             outcomes, one per id; 0 lost (`sluice verify`).
#   schedule: provider at-api gets --events events, each with a `deliverAt` uniform over the next
#             --schedule-minutes minutes (sent at once). Verdicts: none called before its time (the
#             provider's clock, the same host's); the lateness p50/p99/max; the delay-topic records
#             written per event; 0 lost.
#   order:    provider order-api (`ordering: perKey`, 100/s, every 10th call it accepts answers
#             500) and its unordered twin free-api (the same but no ordering) each get --keys keys x
#             --per-key events (10 tenants, 10 keys each at the defaults), all sent at once, under a
#             quota that defers most of them (5 units, 5/s per tenant); the dispatcher SIGKILLed
#             at 30 s and 60 s, started again 3 s later. Verdicts: each key's accepted calls in
#             production order, no event of a key called before the one before it was accepted;
#             every event accepted once at least; 0 lost; the two providers' rates side by side.
#   eta:      (issue 37) provider eta-api (1000/s allowed, Sluice 800/s: the quota is the bound; every
#             50th call it accepts answers 500) gets --events events of 30 tenants (10 free at 2/s,
#             10 pro at 5/s, 10 ent at 10/s, capacity 10 each) over 20 s, `gate.receipts` on. 300
#             events sent in the last 5 s carry a `deadline` 3 s after their sending (behind their
#             tenant's backlog: unreachable), 300 others one an hour ahead (feasible). Verdicts:
#             each event's ETA at admission (its first receipt's etaMillis) against its first call
#             at the provider: the error's median and p99; every unreachable deadline dead-lettered
#             `deadline_unreachable` at once and never called, 0 feasible ones; `sluice trace` of one
#             event deferred by its quota and retried after a 500 (in trace.txt).
#   priority: (issue 36) provider prio-api (allows 52 in any second; Sluice paced at 50/s) and three
#             tenants of one tier: `bulk` writes 20,000 `low` events at once, `other1` and `other2`
#             10/s each throughout; 30 s after the lows, bulk writes 200 `high` events over 10 s.
#             Verdicts: the highs' p99 from produce to call within 10 s; the others' calls/s during
#             the highs (and 10 s after) within 2% of the 20 s before; lows still called meanwhile.
#             Ends 11 s after every high was called (the judge's window runs 10 s past them; the
#             lows' whole backlog, 11 minutes at bulk's share, is not waited for: not judged).
# Exit 0 when every verdict of intake-judge.mjs holds. Everything started is stopped on any exit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EVENTS=10000
MINUTES=10
ONLY=""
KEYS=100
PER_KEY=50
W=""
while [ $# -gt 0 ]; do
  case $1 in
    --events) EVENTS=$2; shift 2 ;;
    --schedule-minutes) MINUTES=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --per-key) PER_KEY=$2; shift 2 ;;
    --work) W=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
W=${W:-$(mktemp -d /tmp/sluice-intake.XXXXXX)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node kcat redis-server redis-cli python3; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done
mkdir -p "$W"/{logs,records,node,broker,redis}
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/intake.log"; }
now_ms() { date +%s%3N; }
# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
cp "$ROOT"/tools/outside/*.mjs "$W/node/"

start_servers
provider() {   # provider NAME RATE: an ops-provider.mjs process; its port lands in $W/NAME.port
  (cd "$W/node" && exec env RECORD_FILE="$W/records/$1.jsonl" PORT_FILE="$W/$1.port" RATE="$2" \
     MODE_FILE="$W/$1.mode" FAIL_EVERY="${3:-0}" node ops-provider.mjs) > "$W/logs/$1.log" 2>&1 &
  PIDS+=($!)
}
provider dedup-api 500; provider at-api 500; provider order-api 105 10; provider free-api 105 10
provider eta-api 1000 50; provider prio-api 52
for name in dedup-api at-api order-api free-api eta-api prio-api; do wait_for 10 "provider $name" test -s "$W/$name.port"; done
cat > "$W/sluice.yaml" <<YAML
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
tiers: { free: { weight: 1 }, pro: { weight: 2 }, ent: { weight: 4 } }
defaultTier: free
gate: { receipts: true }
tenants:
$(for i in $(seq 1 10); do echo "  ef$i: { tier: free }"; echo "  ep$i: { tier: pro }"; echo "  ee$i: { tier: ent }"; done)
providers:
  dedup-api:
    url: http://127.0.0.1:$(cat "$W/dedup-api.port")/v1/calls
    rate: 400/s
    dedupWindow: 10m
    quotas: { free: { capacity: 5000, refill: 2000/s }, pro: { capacity: 5000, refill: 2000/s }, ent: { capacity: 5000, refill: 2000/s } }
  at-api:
    url: http://127.0.0.1:$(cat "$W/at-api.port")/v1/calls
    rate: 400/s
    maxDelay: 1h
    quotas: { free: { capacity: 5000, refill: 2000/s }, pro: { capacity: 5000, refill: 2000/s }, ent: { capacity: 5000, refill: 2000/s } }
  order-api:
    url: http://127.0.0.1:$(cat "$W/order-api.port")/v1/calls
    rate: 100/s
    ordering: perKey
    quotas: { free: { capacity: 5, refill: 5/s }, pro: { capacity: 5, refill: 5/s }, ent: { capacity: 5, refill: 5/s } }
  free-api:
    url: http://127.0.0.1:$(cat "$W/free-api.port")/v1/calls
    rate: 100/s
    quotas: { free: { capacity: 5, refill: 5/s }, pro: { capacity: 5, refill: 5/s }, ent: { capacity: 5, refill: 5/s } }
  prio-api:
    url: http://127.0.0.1:$(cat "$W/prio-api.port")/v1/calls
    rate: 50/s
    quotas: { free: { capacity: 30000, refill: 1000/s }, pro: { capacity: 30000, refill: 1000/s }, ent: { capacity: 30000, refill: 1000/s } }
  eta-api:
    url: http://127.0.0.1:$(cat "$W/eta-api.port")/v1/calls
    rate: 800/s
    quotas: { free: { capacity: 10, refill: 2/s }, pro: { capacity: 10, refill: 5/s }, ent: { capacity: 10, refill: 10/s } }
http: { port: 0 }
YAML
SLUICE=(java -Xmx384m -XX:+UseSerialGC -jar "$APP_JAR")
sluice() { "${SLUICE[@]}" "$@" --config "$W/sluice.yaml"; }
sluice topics create --partitions 4 --replicas 1 > "$W/logs/topics.log" 2>&1
role() {   # role NAME: `sluice NAME` on a free ops port, its pid in PID_NAME
  local port; port=$(free_port); echo "$port" > "$W/$1.http"
  SLUICE_HTTP__PORT=$port "${SLUICE[@]}" "$1" --config "$W/sluice.yaml" >> "$W/logs/$1.log" 2>&1 &
  PIDS+=($!); printf -v "PID_$1" '%s' "$!"
  wait_for 120 "sluice $1 ready" curl -sf "http://127.0.0.1:$port/ready"
}
role gate; role relay; role dispatch
log "the three roles ready apart: gate $PID_gate, relay $PID_relay, dispatch $PID_dispatch"

# The events: "offset_ms<TAB>tenant<TAB>event" lines, sorted, sent at their offsets by timed.mjs.
python3 - "$EVENTS" "$MINUTES" "$W" "$ONLY" "$KEYS" "$PER_KEY" <<'PY'
import json, random, sys
events, minutes, w, only = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
keys, per_key = int(sys.argv[5]), int(sys.argv[6])
rnd = random.Random(35)
tenants = ["t%d" % i for i in range(1, 21)]
if only in ("", "dedup"):
    lines = []
    for n in range(events):
        first = n * 100_000 // events
        tenant = tenants[n % len(tenants)]
        event = {"id": "dd-%06d" % n, "tenant": tenant, "provider": "dedup-api", "payload": {"tenant": tenant, "n": n}}
        text = json.dumps(event, separators=(",", ":"))
        lines.append((first, tenant, text))
        lines.append((first + rnd.randint(1_000, 60_000), tenant, text))
    lines.sort(key=lambda l: l[0])
    with open(w + "/dedup.tsv", "w") as f:
        for at, tenant, text in lines:
            f.write("%d\t%s\t%s\n" % (at, tenant, text))
if only in ("", "schedule"):
    with open(w + "/schedule.tsv", "w") as f:
        for n in range(events):
            tenant = tenants[n % len(tenants)]
            ahead = rnd.randint(5_000, minutes * 60_000)
            event = {"id": "at-%06d" % n, "tenant": tenant, "provider": "at-api",
                     "payload": {"tenant": tenant, "n": n}, "aheadMs": ahead}
            f.write("0\t%s\t%s\n" % (tenant, json.dumps(event, separators=(",", ":"))))
if only == "eta":
    # 30 tenants, the events spread evenly over 20 s; 300 of the last 5 s with an unreachable
    # deadline (3 s: each tenant's backlog is then far longer), 300 others with a feasible one.
    eta_tenants = ["e%s%d" % (t, i) for i in range(1, 11) for t in "fpe"]
    lines = []
    for n in range(events):
        at = n * 20_000 // events
        tenant = eta_tenants[n % len(eta_tenants)]
        event = {"id": "eta-%06d" % n, "tenant": tenant, "provider": "eta-api", "payload": {"tenant": tenant, "n": n}}
        lines.append([at, tenant, event])
    late = [l for l in lines if l[0] >= 15_000]
    picked = rnd.sample(range(len(late)), min(600, len(late)))
    for k, i in enumerate(picked):
        late[i][2]["deadlineInMs"] = 3_000 if k < 300 else 3_600_000
    with open(w + "/eta.tsv", "w") as f:
        for at, tenant, event in lines:
            f.write("%d\t%s\t%s\n" % (at, tenant, json.dumps(event, separators=(",", ":"))))
if only == "priority":
    # bulk's 20,000 lows at once; the others at 10/s each over 110 s; bulk's 200 highs over 10 s
    # from 30 s. The events of the file at their offsets; the check's times from the sent file.
    lines = []
    for n in range(20_000):
        lines.append((0, "bulk", {"id": "lo-%05d" % n, "tenant": "bulk", "provider": "prio-api", "priority": "low", "payload": {"tenant": "bulk", "n": n}}))
    for other in ("other1", "other2"):
        for n in range(1_100):
            lines.append((n * 100, other, {"id": "%s-%04d" % (other, n), "tenant": other, "provider": "prio-api", "payload": {"tenant": other, "n": n}}))
    for n in range(200):
        lines.append((30_000 + n * 50, "bulk", {"id": "hi-%03d" % n, "tenant": "bulk", "provider": "prio-api", "priority": "high", "payload": {"tenant": "bulk", "n": n}}))
    lines.sort(key=lambda l: l[0])
    with open(w + "/priority.tsv", "w") as f:
        for at, tenant, event in lines:
            f.write("%d\t%s\t%s\n" % (at, tenant, json.dumps(event, separators=(",", ":"))))
if only == "order":
    # Per provider: keys spread over 10 tenants, each key's events in production order, the keys
    # interleaved (event n of every key, then n + 1): the order a key's events enter inbound.
    with open(w + "/order.tsv", "w") as f:
        for n in range(per_key):
            for k in range(keys):
                tenant = "t%d" % (k % 10 + 1)
                for provider, prefix in (("order-api", "ok"), ("free-api", "fk")):
                    event = {"id": "%s-%03d-%03d" % (prefix, k, n), "tenant": tenant, "provider": provider,
                             "payload": {"tenant": tenant, "key": k, "n": n}}
                    if provider == "order-api":
                        event["orderingKey"] = "key-%03d" % k
                    f.write("0\t%s\t%s\n" % (tenant, json.dumps(event, separators=(",", ":"))))
PY

send() {   # send FILE: its lines at their offsets from now, through kcat; the send time per id in FILE.sent
  (cd "$W/node" && exec node timed.mjs "$1" "$1.sent") \
    | kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' > "$W/logs/kcat-$(basename "$1").log" 2>&1
}

if [ -z "$ONLY" ] || [ "$ONLY" = dedup ]; then
  log "dedup: $EVENTS events, each twice (the copy 1-60 s later), over 100 s; the gate SIGKILLed at 40 s"
  send "$W/dedup.tsv" &
  SENDER=$!
  sleep 40
  kill -KILL "$PID_gate"; echo "{\"step\":\"gate-killed\",\"t\":$(now_ms)}" >> "$W/steps.jsonl"
  log "gate SIGKILLed (pid $PID_gate)"
  sleep 3
  role gate; log "gate started again (pid $PID_gate)"
  wait "$SENDER"
  log "dedup: every copy sent"
fi
if [ "$ONLY" = order ]; then
  log "order: $KEYS keys x $PER_KEY events to order-api (ordering: perKey) and as many to free-api (none), at once; the dispatcher SIGKILLed at 30 s and 60 s"
  echo "{\"step\":\"order-sent\",\"t\":$(now_ms)}" >> "$W/steps.jsonl"
  send "$W/order.tsv"
  for at in 30 60; do
    sleep $((at == 30 ? 30 : 27))
    kill -KILL "$PID_dispatch"; echo "{\"step\":\"dispatch-killed\",\"t\":$(now_ms)}" >> "$W/steps.jsonl"
    log "dispatcher SIGKILLed (pid $PID_dispatch)"
    sleep 3
    role dispatch; log "dispatcher started again (pid $PID_dispatch)"
  done
elif [ "$ONLY" = priority ]; then
  log "priority: bulk's 20,000 lows at once, two others at 10/s, bulk's 200 highs over 10 s from 30 s"
  echo "{\"step\":\"priority-sent\",\"t\":$(now_ms)}" >> "$W/steps.jsonl"
  send "$W/priority.tsv"
  highs_called() { [ "$( (grep -o '"id":"hi-[0-9]*"' "$W/records/prio-api.jsonl" 2>/dev/null || true) | sort -u | wc -l)" -ge 200 ]; }
  wait_for 300 "every high called" highs_called
  log "priority: every high called; 11 s more, the window after them the judge reads"
  sleep 11
elif [ "$ONLY" = eta ]; then
  log "eta: $EVENTS events of 30 tenants over 20 s, under quotas that defer most of them"
  echo "{\"step\":\"eta-sent\",\"t\":$(now_ms)}" >> "$W/steps.jsonl"
  send "$W/eta.tsv"
  log "eta: every event sent"
elif [ "$ONLY" != dedup ]; then
  log "schedule: $EVENTS events with deliverAt over the next $MINUTES minutes"
  send "$W/schedule.tsv"
  log "schedule: every event sent"
fi

settled() { sluice verify > "$W/verify.txt" 2>&1; }
if [ "$ONLY" != priority ]; then
  wait_for $((MINUTES * 60 + 600)) "every event settled (sluice verify)" settled
  log "every event settled: $(head -3 "$W/verify.txt" | tr '\n' ' ')"
fi
for t in outcomes dlq receipts; do
  kcat -C -b "$BROKER" -t "sluice.$t" -o beginning -e -q -f '%s\n' > "$W/$t.jsonl" 2>/dev/null || true
done
: > "$W/delay-records.txt"
for t in $(kcat -L -b "$BROKER" 2>/dev/null | grep -o 'topic "sluice.delay[^"]*"' | cut -d'"' -f2); do
  { kcat -C -b "$BROKER" -t "$t" -o beginning -e -q -f '%s\n' 2>/dev/null \
    | grep -o '"id":"[a-z]*-[0-9]*"' || true; } | cut -d'"' -f4 | cut -d- -f1 | sort | uniq -c \
    | while read -r n kind; do echo "$t $kind $n"; done >> "$W/delay-records.txt"
done
if [ "$ONLY" = eta ]; then
  # One event the quota deferred whose first call was answered 500: its journey.
  RETRIED=$(node -e '
    const fs = require("fs"); const w = process.argv[1];
    const rows = (f) => fs.readFileSync(w + "/" + f, "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter(Boolean);
    const deferred = new Set(rows("receipts.jsonl").filter((r) => r.decision !== "admitted").map((r) => r.id));
    const failed = rows("records/eta-api.jsonl").find((c) => c.status === 500 && deferred.has(c.id));
    console.log(failed ? failed.id : "");' "$W")
  if [ -n "$RETRIED" ]; then
    sluice trace "$RETRIED" > "$W/trace.txt" 2>&1 || true
    log "eta: the journey of $RETRIED (deferred, retried) in $W/trace.txt"
  fi
fi
judge "$W/logs/intake.log" node "$W/node/intake-judge.mjs" "$W" "$EVENTS"
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
