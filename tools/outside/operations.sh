#!/usr/bin/env bash
# Issue 24's check from outside: the jars a user builds, two `sluice run` instances under load,
# and an operator's commands, judged from the provider's own record (docs/operations.md).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/operations.sh [--work DIR]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, two `java -jar app/target/sluice.jar run` instances (every role in each), and on
# Node.js three providers that allow no burst (ops-provider.mjs): paced-api (20 in any second;
# Sluice calls it at 19/s, the load 25/s, so it always has a backlog), flaky-api (answers 400
# while broken) and quota-api (50 in any second; tenant `grow` sends 6/s under a quota of 2/s).
# kcat writes the events. The operator's steps, each stamped in ops.jsonl:
#   1. `sluice pause provider paced-api` for 20 s, then `sluice resume provider paced-api`;
#   2. 200 events to flaky-api while it answers 400 (dead-lettered non_retryable_4xx), then it
#      is mended and `sluice dlq replay --reason non_retryable_4xx` runs twice;
#   3. `sluice tenants set grow --tier free --quota quota-api=10,8/s` under load;
#   4. redis-server SIGKILLed for 10 s while /live of both instances is read every 200 ms (it
#      runs with its append-only file, as a registry of tenants and pauses needs, and restarts
#      from it);
#   5. `sluice status --json` saved to status.json.
# Exit 0 when every verdict of ops-judge.mjs holds. Everything started is stopped on any exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
W=${WORK:-$ROOT/target/outside/ops-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node kcat redis-server redis-cli python3 curl; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done

mkdir -p "$W"/{logs,records,node,broker,redis}
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/operations.log"; }
now_ms() { date +%s%3N; }
stamp() { echo "{\"step\":\"$1\",\"t\":$2${3:+,$3}}" >> "$W/ops.jsonl"; }   # stamp STEP MS [JSON-FIELDS]

# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
secret() { head -c 24 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

cp "$ROOT"/tools/outside/*.mjs "$W/node/"

# --- servers
REDIS_APPENDONLY=yes
start_servers

# --- the providers
echo broken > "$W/flaky.mode"
peer() {   # peer NAME RATE: an ops-provider.mjs process; its port lands in $W/NAME.port
  (cd "$W/node" && exec env RECORD_FILE="$W/records/$1.jsonl" PORT_FILE="$W/$1.port" RATE="$2" \
     MODE_FILE="$W/${1%%-*}.mode" node ops-provider.mjs) > "$W/logs/$1.log" 2>&1 &
  PIDS+=($!)
}
peer paced-api 20; peer flaky-api 20; peer quota-api 50
for name in paced-api flaky-api quota-api; do wait_for 10 "peer $name" test -s "$W/$name.port"; done
port() { cat "$W/$1.port"; }

# --- Sluice, two instances of `run`
export OPS_READ_TOKEN=$(secret) OPS_WRITE_TOKEN=$(secret)
cat > "$W/sluice.yaml" <<EOF
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 5s, 30s]
maxAttempts: 8
tiers: { free: { weight: 1 } }
defaultTier: free
admin: { readToken: "\${env:OPS_READ_TOKEN}", writeToken: "\${env:OPS_WRITE_TOKEN}" }
providers:
  paced-api:
    url: http://127.0.0.1:$(port paced-api)/v1/calls
    rate: 19/s
    quotas: { free: { capacity: 100, refill: 100/s } }
  flaky-api:
    url: http://127.0.0.1:$(port flaky-api)/v1/calls
    rate: 10/s
    quotas: { free: { capacity: 500, refill: 100/s } }
  quota-api:
    url: http://127.0.0.1:$(port quota-api)/v1/calls
    rate: 40/s
    quotas: { free: { capacity: 2, refill: 2/s } }
http: { port: 0 }
EOF
SLUICE=(java -Xmx384m -XX:+UseSerialGC -jar "$APP_JAR")
sluice() { "${SLUICE[@]}" "$@" --config "$W/sluice.yaml"; }
sluice topics create --partitions 4 --replicas 1 > "$W/logs/topics.log" 2>&1
instance() {   # instance NAME: `sluice run`, its ops port in $W/NAME.http
  local port; port=$(free_port); echo "$port" > "$W/$1.http"
  SLUICE_HTTP__PORT=$port "${SLUICE[@]}" run --config "$W/sluice.yaml" > "$W/logs/$1.log" 2>&1 &
  PIDS+=($!)
}
instance one; instance two
for name in one two; do
  wait_for 120 "sluice run ($name) ready" curl -sf "http://127.0.0.1:$(cat "$W/$name.http")/ready"
done
log "two instances of sluice run ready"

# --- load: paced-api 25/s round t1..t5, grow 10/s to quota-api, a burst of 200 to flaky-api
DURATION=150
mkfifo "$W/events.fifo"
kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/events.fifo" > "$W/logs/kcat-produce.log" 2>&1 &
PIDS+=($!); PID_kcat=$!
(cd "$W/node" && exec env RATES="paced-api:25::0,quota-api:6:grow:0,flaky-api:0::200" \
   DURATION="$DURATION" BURST=0 COUNT_FILE="$W/produced.json" node produce.mjs) \
   > "$W/events.fifo" 2> "$W/logs/produce.log" &
PIDS+=($!); PID_produce=$!
START=$(date +%s)
stamp load "$(now_ms)"
log "producing for ${DURATION}s"
sleep_until() { local now; now=$(date +%s); [ $((START + $1)) -le "$now" ] || sleep $((START + $1 - now)); }

# 1. pause and resume
sleep_until 20
t=$(now_ms); sluice pause provider paced-api --reason "outside check" > "$W/logs/pause.log" 2>&1
stamp pause "$t" "\"returned\":$(now_ms)"; log "paused paced-api"
sleep_until 40
t=$(now_ms); sluice resume provider paced-api > "$W/logs/resume.log" 2>&1
stamp resume "$t" "\"returned\":$(now_ms)"; log "resumed paced-api"

# 2. dead letters: the 200 to flaky-api are dead-lettered by now; mend it and replay twice
dead_letters() { kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f '%h\n' 2>/dev/null \
  | grep -c 'non_retryable_4xx' || true; }
wait_for 60 "200 dead letters non_retryable_4xx" test "$(dead_letters)" -ge 200
echo ok > "$W/flaky.mode"
sluice dlq replay --reason non_retryable_4xx --limit 1000 --dry-run --json > "$W/replay-dry.json" 2> "$W/logs/replay-dry.log"
t=$(now_ms); sluice dlq replay --reason non_retryable_4xx --limit 1000 --json > "$W/replay-1.json" 2> "$W/logs/replay-1.log"
stamp replay-1 "$t"
t=$(now_ms); sluice dlq replay --reason non_retryable_4xx --limit 1000 --json > "$W/replay-2.json" 2> "$W/logs/replay-2.log"
stamp replay-2 "$t"; log "replayed twice"

# 3. a tenant's quota raised under load
sleep_until 60
t=$(now_ms); rc=0
sluice tenants set grow --tier free --quota quota-api=10,8/s > "$W/logs/tenants-set.log" 2>&1 || rc=$?
stamp tenants-set "$t" "\"exit\":$rc,\"returned\":$(now_ms)"; log "raised grow's quota on quota-api to 8/s (exit $rc)"

# 4. /live while Redis is down
sleep_until 90
kill -KILL "$PID_redis"; wait "$PID_redis" 2>/dev/null || true
t=$(now_ms); stamp redis-down "$t"; log "redis-server SIGKILLed"
for _ in $(seq 50); do
  for name in one two; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$(cat "$W/$name.http")/live" || true)
    echo "{\"instance\":\"$name\",\"t\":$(now_ms),\"status\":\"$code\"}" >> "$W/live.jsonl"
  done
  sleep 0.2
done
start_redis; stamp redis-up "$(now_ms)"; log "redis-server back (empty)"

# 5. status
wait "$PID_produce"; wait "$PID_kcat"
sluice status --json > "$W/status.json" 2> "$W/logs/status.log" || true
PRODUCED=$(node -p 'Object.values(require(process.argv[1])).reduce((a, b) => a + b)' "$W/produced.json")
log "produced $PRODUCED events ($(cat "$W/produced.json"))"
settled() {
  local n
  n=$( (kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f 'x\n'
        kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n') 2>/dev/null | wc -l)
  [ "$n" -ge $((PRODUCED + 200)) ]
}
wait_for 300 "every event settled" settled
kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f '%k\t%h\n' > "$W/outcomes.txt" 2>/dev/null || true
kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f '%k\t%h\n' > "$W/dlq.txt" 2>/dev/null || true
for name in one two; do
  curl -s "http://127.0.0.1:$(cat "$W/$name.http")/metrics" > "$W/logs/$name.metrics.txt" || true
done
cleanup

judge "$W/logs/operations.log" node "$W/node/ops-judge.mjs" "$W"
HITS=$(grep -rFao -e "$OPS_READ_TOKEN" -e "$OPS_WRITE_TOKEN" "$W/logs" "$W/records" "$W"/*.json "$W"/*.txt | wc -l || true)
log "admin tokens in any log, record or output: $HITS"
[ "$HITS" -eq 0 ] || VERDICT=1
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
