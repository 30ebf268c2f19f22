#!/usr/bin/env bash
# Issue 24's check from outside: the jars a user builds, two `sluice run` instances under load,
# and an operator's commands, judged from the provider's own record (docs/operations.md).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/operations.sh [--pause-seconds S] [--work DIR]
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
#
# --pause-seconds S (at least 30; issue 39's "a provider paused for 10 minutes while the others
# run": S=600) pauses paced-api for S seconds instead, with the numbers changed so that its backlog
# drains in minutes: paced-api allows 50 in any second, Sluice calls it at 48/s and the load is
# 30/s from the start until the resume (then none): a backlog of about 30 x S events, 18,000 for
# S=600, about 6 min at 48/s (the first 60 s judged); two runs at S=60: 1,688 and 1,662 waited
# when `resume` returned, accepted in 43 s (39.3/s: 48/s for 27 s, then 17 to 36/s as parked
# events came back) and 36 s (46.2/s).
# A fourth provider, steady-api (the same ops-provider.mjs: 50 in any second; Sluice at 48/s, 96%;
# the load 55/s, 110%, so it always has a backlog), runs throughout. The steps' times: pause at
# 40 s, the dead letters and `tenants set` (at 60 s) during the pause, resume at 40+S s, Redis
# SIGKILLed at 40+S+65 s (after the drain's first minute), the load (but paced-api's) until
# 40+S+80 s. Verdicts added: steady-api's accepted rate over the pause (from 1 s after `pause`
# returned until `resume`) within 2% of its rate in the 30 s before `pause`; paced-api's drain
# from `resume` at >= 90% of 48/s over its first 60 s, or until its backlog (every paced-api event
# not accepted when `resume` returned) has been accepted, if sooner. Always: every event of
# paced-api, grow (and steady-api) accepted at its provider.
# INSTANCE_JAVA_OPTS (environment, split on spaces): JVM options for the two `sluice run`
# instances only, e.g. "-Xlog:gc:file=/tmp/gc-%p.log -XX:StartFlightRecording=filename=/tmp/%p.jfr"
# to see where their CPU goes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=""
PAUSE_SECONDS=""   # empty: today's 20 s pause, without steady-api
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --pause-seconds) PAUSE_SECONDS=$2; shift 2 ;;
    -h|--help) sed -n '2,42p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$PAUSE_SECONDS" ]; then
  [[ "$PAUSE_SECONDS" =~ ^[0-9]+$ ]] && [ "$PAUSE_SECONDS" -ge 30 ] \
    || { echo "--pause-seconds takes a whole number of seconds, at least 30 (see --help)" >&2; exit 2; }
fi
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
if [ -n "$PAUSE_SECONDS" ]; then
  PACED_ALLOWS=50 PACED_RATE=48 PACED_LOAD=30
  PAUSE_AT=40 RESUME_AT=$((40 + PAUSE_SECONDS)); REDIS_AT=$((RESUME_AT + 65)); DURATION=$((RESUME_AT + 80))
  PROVIDERS=(paced-api flaky-api quota-api steady-api)
else
  PACED_ALLOWS=20 PACED_RATE=19 PACED_LOAD=25
  PAUSE_AT=20 RESUME_AT=40 REDIS_AT=90 DURATION=150
  PROVIDERS=(paced-api flaky-api quota-api)
fi
echo "{\"pauseSeconds\":${PAUSE_SECONDS:-null},\"pacedAllows\":$PACED_ALLOWS,\"pacedRate\":$PACED_RATE,\"pacedLoad\":$PACED_LOAD}" > "$W/mode.json"
peer paced-api $PACED_ALLOWS; peer flaky-api 20; peer quota-api 50
[ -z "$PAUSE_SECONDS" ] || peer steady-api 50
for name in "${PROVIDERS[@]}"; do wait_for 10 "peer $name" test -s "$W/$name.port"; done
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
    rate: $PACED_RATE/s
    quotas: { free: { capacity: 100, refill: 100/s } }
  flaky-api:
    url: http://127.0.0.1:$(port flaky-api)/v1/calls
    rate: 10/s
    quotas: { free: { capacity: 500, refill: 100/s } }
  quota-api:
    url: http://127.0.0.1:$(port quota-api)/v1/calls
    rate: 40/s
    quotas: { free: { capacity: 2, refill: 2/s } }
$([ -z "$PAUSE_SECONDS" ] || printf '  steady-api:\n    url: http://127.0.0.1:%s/v1/calls\n    rate: 48/s\n    quotas: { free: { capacity: 100, refill: 100/s } }' "$(port steady-api)")
http: { port: 0 }
EOF
JVM=(java -Xmx384m -XX:+UseSerialGC)
SLUICE=("${JVM[@]}" -jar "$APP_JAR")
sluice() { "${SLUICE[@]}" "$@" --config "$W/sluice.yaml"; }
sluice topics create --partitions 4 --replicas 1 > "$W/logs/topics.log" 2>&1
instance() {   # instance NAME: `sluice run`, its ops port in $W/NAME.http
  local port; port=$(free_port); echo "$port" > "$W/$1.http"
  # shellcheck disable=SC2086 # INSTANCE_JAVA_OPTS is a list of options
  SLUICE_HTTP__PORT=$port "${JVM[@]}" ${INSTANCE_JAVA_OPTS:-} -jar "$APP_JAR" \
    run --config "$W/sluice.yaml" > "$W/logs/$1.log" 2>&1 &
  PIDS+=($!)
}
instance one; instance two
for name in one two; do
  wait_for 120 "sluice run ($name) ready" curl -sf "http://127.0.0.1:$(cat "$W/$name.http")/ready"
done
log "two instances of sluice run ready"

# --- load: paced-api 25/s round t1..t5 (with --pause-seconds: 30/s until the resume, and
# steady-api 55/s), grow 6/s to quota-api, a burst of 200 to flaky-api
RATES="paced-api:$PACED_LOAD::0,quota-api:6:grow:0,flaky-api:0::200"
[ -z "$PAUSE_SECONDS" ] || RATES="paced-api:$PACED_LOAD::0:$RESUME_AT,steady-api:55::0,quota-api:6:grow:0,flaky-api:0::200"
mkfifo "$W/events.fifo"
kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/events.fifo" > "$W/logs/kcat-produce.log" 2>&1 &
PIDS+=($!); PID_kcat=$!
(cd "$W/node" && exec env RATES="$RATES" \
   DURATION="$DURATION" BURST=0 COUNT_FILE="$W/produced.json" node produce.mjs) \
   > "$W/events.fifo" 2> "$W/logs/produce.log" &
PIDS+=($!); PID_produce=$!
START=$(date +%s)
stamp load "$(now_ms)"
log "producing for ${DURATION}s"
sleep_until() { local now; now=$(date +%s); [ $((START + $1)) -le "$now" ] || sleep $((START + $1 - now)); }

# 1. pause and resume
pause_step() {
  local t; t=$(now_ms); sluice pause provider paced-api --reason "outside check" > "$W/logs/pause.log" 2>&1
  stamp pause "$t" "\"returned\":$(now_ms)"; log "paused paced-api"
}
resume_step() {
  local t; t=$(now_ms); sluice resume provider paced-api > "$W/logs/resume.log" 2>&1
  stamp resume "$t" "\"returned\":$(now_ms)"; log "resumed paced-api"
}

# 2. dead letters: the 200 to flaky-api are dead-lettered by now; mend it and replay twice
dead_letters() { kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f '%h\n' 2>/dev/null \
  | grep -c 'non_retryable_4xx' || true; }
replay_step() {
  local t
  wait_for 60 "200 dead letters non_retryable_4xx" test "$(dead_letters)" -ge 200
  echo ok > "$W/flaky.mode"
  sluice dlq replay --reason non_retryable_4xx --limit 1000 --dry-run --json > "$W/replay-dry.json" 2> "$W/logs/replay-dry.log"
  t=$(now_ms); sluice dlq replay --reason non_retryable_4xx --limit 1000 --json > "$W/replay-1.json" 2> "$W/logs/replay-1.log"
  stamp replay-1 "$t"
  t=$(now_ms); sluice dlq replay --reason non_retryable_4xx --limit 1000 --json > "$W/replay-2.json" 2> "$W/logs/replay-2.log"
  stamp replay-2 "$t"; log "replayed twice"
}

# 3. a tenant's quota raised under load
tenants_step() {
  local t rc=0; t=$(now_ms)
  sluice tenants set grow --tier free --quota quota-api=10,8/s > "$W/logs/tenants-set.log" 2>&1 || rc=$?
  stamp tenants-set "$t" "\"exit\":$rc,\"returned\":$(now_ms)"; log "raised grow's quota on quota-api to 8/s (exit $rc)"
}

# 4. /live while Redis is down
redis_step() {
  local t code name
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
}

if [ -n "$PAUSE_SECONDS" ]; then   # the operator's other steps during the long pause, Redis after it
  sleep_until $PAUSE_AT; pause_step
  replay_step
  sleep_until 60; tenants_step
  sleep_until $RESUME_AT; resume_step
  sleep_until $REDIS_AT; redis_step
else
  sleep_until $PAUSE_AT; pause_step
  sleep_until $RESUME_AT; resume_step
  replay_step
  sleep_until 60; tenants_step
  sleep_until $REDIS_AT; redis_step
fi

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
SETTLE=300   # with --pause-seconds, and the time paced-api's and steady-api's backlogs take at 48/s
[ -z "$PAUSE_SECONDS" ] || SETTLE=$((300 + (PACED_LOAD * PAUSE_SECONDS + 7 * DURATION) / PACED_RATE))
wait_for $SETTLE "every event settled" settled
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
