#!/usr/bin/env bash
# Issue 36's batches checked from outside: the jars a user builds, every part a process of its
# own, judged from the provider's own record and the outcomes topic (docs/providers.md#batches).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/batch.sh [--events 20000] [--rate 9.8] [--min 950]
#       [--work DIR]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, the gate, the relay and the dispatcher (`java -jar app/target/sluice.jar ROLE`),
# and on Node.js a batch endpoint accepting at most 10 calls in any sliding second, no burst
# (batch-provider.mjs), which answers the first call carrying one chosen event with that event
# listed as failed ({"results":[{"id":...,"status":503}]}). Sluice calls it at --rate calls/s with
# `batch: {maxEvents: 100}`; the events are written to sluice.inbound before the roles start.
#
# Exit 0 when: 0 calls answered 429, at least --min events/s delivered, every event in exactly
# one outcome record, and only the failed event sent twice. Everything started is stopped on any
# exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EVENTS=20000
RATE=9.8
MIN=950
WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --events) EVENTS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --min) MIN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
W=${WORK:-$ROOT/target/outside/batch-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node kcat redis-server python3; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done
mkdir -p "$W"/{logs,records,topics,node,broker,redis}
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/batch.log"; }
# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
FAIL_ID=ev-$(printf '%06d' $((EVENTS / 2)))

cp "$ROOT"/tools/outside/{peer,batch-provider}.mjs "$W/node/"
start_servers
peer batch-api batch-provider.mjs RATE=10 FAIL_ID="$FAIL_ID"
wait_for 10 "peer batch-api" test -s "$W/batch-api.port"

cat > "$W/sluice.yaml" <<YAML
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 5s, 30s]
tiers: { free: { weight: 1 } }
defaultTier: free
providers:
  batch-api:
    url: http://127.0.0.1:$(cat "$W/batch-api.port")/v1/events:batch
    rate: $RATE/s
    maxInFlight: 4
    batch: { maxEvents: 100 }
    quotas: { free: { capacity: 100000, refill: 100000/s } }
dispatcher: { bufferSize: 2000 }
http: { port: 0 }
YAML
SLUICE=(java -Xmx512m -XX:+UseSerialGC -jar "$APP_JAR")
"${SLUICE[@]}" topics create --config "$W/sluice.yaml" --partitions 2 --replicas 1 \
  > "$W/logs/topics.log" 2>&1
python3 - "$EVENTS" > "$W/events.tsv" <<'PY'
import json, sys
for n in range(int(sys.argv[1])):
    tenant = f"t{n % 5 + 1}"
    event = {"id": f"ev-{n:06d}", "tenant": tenant, "provider": "batch-api",
             "payload": {"id": f"ev-{n:06d}", "order": n, "note": "outside batch check"}}
    print(f"{tenant}\t{json.dumps(event)}")
PY
kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/events.tsv"
log "wrote $EVENTS events to sluice.inbound; the failed one will be $FAIL_ID"

role() {   # role NAME: one Sluice role, its ops port in $W/NAME.http
  local name=$1 port; port=$(free_port); echo "$port" > "$W/$name.http"
  SLUICE_HTTP__PORT=$port "${SLUICE[@]}" "$name" --config "$W/sluice.yaml" > "$W/logs/$name.log" 2>&1 &
  PIDS+=($!)
  eval "PID_$name=$!"
}
role gate; role relay; role dispatch
for name in gate relay dispatch; do
  wait_for 120 "sluice $name ready" curl -sf "http://127.0.0.1:$(cat "$W/$name.http")/ready"
done
log "gate, relay, dispatch ready (pids $PID_gate $PID_relay $PID_dispatch)"
settled() {
  local n
  n=$( (kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f 'x\n'
        kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n') 2>/dev/null | wc -l)
  [ "$n" -ge "$EVENTS" ]
}
wait_for 300 "every event settled (outcome or dead letter)" settled
log "every event settled"
curl -s "http://127.0.0.1:$(cat "$W/dispatch.http")/metrics" > "$W/logs/dispatch.metrics.txt" || true
stop "$PID_dispatch" "$PID_relay" "$PID_gate"
kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f '%h\n' 2>/dev/null \
  | sed -n 's/.*sluice-event-id=\([^,]*\).*/\1/p' > "$W/topics/outcome-ids.txt"
DLQ=$(kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n' 2>/dev/null | wc -l)
log "outcome records $(wc -l < "$W/topics/outcome-ids.txt"), dead letters $DLQ"
cleanup
judge "$W/logs/batch.log" python3 "$ROOT/tools/outside/batch-judge.py" \
  "$W/records/batch-api.jsonl" "$W/topics/outcome-ids.txt" "$EVENTS" "$FAIL_ID" "$MIN"
[ "$DLQ" -eq 0 ] || VERDICT=1
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
