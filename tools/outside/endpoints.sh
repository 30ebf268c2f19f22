#!/usr/bin/env bash
# Issue 23's check from outside: endpoints per tenant on the jars a user builds, every part a
# process of its own, judged from the endpoints' own record and the topics (docs/providers.md).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/endpoints.sh [--endpoints 1000] [--configured N]
#       [--rate 2] [--sluice-rate R] [--window-margin MS] [--duration 120] [--no-faults]
#       [--work DIR] [--jfr] [--no-idle] [--fault-start S] [--warmup S] [--while-disabled wait|dead]
#       [--settle 900] [--busy-heap gc|used] [--fault slow-fail|pause|pause-fail] [--faulty-rate R]
#       [--faulty-load L] [--flushall-at S] [--registry-tenants K]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, one `java -jar app/target/sluice.jar run` (every role), and ONE Node.js process
# serving the --configured endpoints (/e/1 .. /e/N on one port, endpoints-peer.mjs), each allowing
# --rate calls in any sliding second and no burst (429 + Retry-After beyond) and verifying every
# call with the npm `standardwebhooks` library. Sluice has one provider, `hooks`, with
# `endpoints: perTenant` at --sluice-rate each (96% of --rate unless given: a strict limit leaves
# no room for a call's jitter, and LeakPrecisionIT holds 0.96 L), signing with a whsec read
# from a `${file:}` secret. With --window-margin, Sluice is also told each endpoint's limit,
# `limits: [{rate: R}, {calls: RATE, per: 1s, window: sliding, margin: MS}]`. Tenants t1..tN
# each have their endpoint (and up to --configured tenants have one, sent to only by --warmup).
# kcat writes the events: a first burst of 2 x rate per tenant, then rate + 25% for --duration
# seconds, so every endpoint has a backlog from its first call to its last.
# With --warmup S, before that judged load the sluice JVM is warmed (JIT, connections) by S seconds
# of load on other endpoints: tenants t(N+1)..t(2N), each at --rate with no burst (so --configured
# must be at least 2 x --endpoints). Every warm-up event settles, then 5 s, then the judged load
# starts; the judge counts the warm-up's calls, 429s and events apart (its 429s fail the run too).
# Unless --no-faults, at half the duration (or --fault-start S seconds in) endpoint 1 starts answering after 10 s (Sluice's
# timeout is 2 s) and endpoint 2 answers 500 (both disabled automatically, then probed); both
# answer again at the end of the load. --while-disabled sets the provider's whileDisabled: wait
# (the default: a disabled endpoint's events wait) or dead (dead_letter: they are dead-lettered
# endpoint_disabled, the only dead letters the judge allows, and of the faulty ones only). The heap of
# the sluice JVM (after `jcmd GC.run`) and Redis's keys are read with every endpoint busy (at the
# end of the load) and after the lanes have gone idle (every event settled, then 70 s: lanes retire
# after 60 s idle). The busy measure's full GC stops the JVM inside the judged load; with
# --busy-heap used it reads the heap used, garbage included, without one (heapUsedKiB). The
# endpoints' process records its own stalls: on a loaded machine they, not Sluice, may bunch calls
# up. Every event must settle (outcome or dead letter) within --settle seconds (900 unless given).
# With --no-idle the run ends once every event has settled (no idle measure).
# --fault pause (instead of slow-fail): at the fault start `sluice pause provider hooks --endpoint
# t1`, `sluice resume` at the end of the load; the judge wants endpoint 1 not called meanwhile and
# its backlog drained at its paced rate after the resume; --fault pause-fail pauses t1 so and has
# endpoint 2 answer 500 (dead) meanwhile. --faulty-rate R: endpoints 1 and 2 allow
# R calls/s (Sluice calls them at 96% of it), so that a large backlog drains in minutes;
# --faulty-load L: tenants t1 and t2 send L events/s (e.g. 10 for 6,000 queued in ten minutes).
# --flushall-at S: `redis-cli FLUSHALL` S seconds into the load (Redis wiped, as a failover to an
# empty replica): the pause and the registry's tenants must be in force again within 5 s.
# --registry-tenants K: the last K judged tenants are not in the file but registered through
# `sluice tenants set` once the instance is ready (their operator state lives in the operator
# topic; Redis is its cache).
# With --jfr the sluice JVM records a flight recording (sluice.jfr: `jfr print --events
# jdk.ExecutionSample`); logs/cpu.txt has every process's CPU seconds each 5 s either way.
# Exit 0 when every verdict of endpoints-judge.mjs holds. Everything started is stopped on any exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ENDPOINTS=1000
CONFIGURED=""
RATE=2
SLUICE_RATE=""   # Sluice's rate toward each endpoint; 96% of --rate unless given
MARGIN=""        # with --window-margin MS, the endpoint's limit is declared to Sluice as well
DURATION=120
FAULTS=true
FAULT_START=""   # seconds into the load when the faults begin; half the duration unless given
WORK=""
JFR=()
IDLE=true
WARMUP=0         # seconds of load on other endpoints before the judged load
WHILE_DISABLED=wait
SETTLE=900       # seconds for every event to settle
BUSY_HEAP=gc     # the busy measure: live set after a full GC (gc) or heap used without one (used)
FAULT=slow-fail  # the faults: endpoint 1 slow and 2 failing, or endpoint 1 paused
FAULTY_RATE=""   # endpoints 1 and 2's own rate; --rate unless given
FAULTY_LOAD=""   # tenants t1 and t2's load; 25% above their rate unless given
FLUSHALL_AT=""   # seconds into the load when Redis is wiped
REGISTRY=0       # the last REGISTRY judged tenants come from the registry, not the file
while [ $# -gt 0 ]; do
  case "$1" in
    --endpoints) ENDPOINTS=$2; shift 2 ;;
    --configured) CONFIGURED=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --sluice-rate) SLUICE_RATE=$2; shift 2 ;;
    --window-margin) MARGIN=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --no-faults) FAULTS=false; shift ;;
    --fault-start) FAULT_START=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --no-idle) IDLE=false; shift ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --while-disabled) WHILE_DISABLED=$2; shift 2 ;;
    --settle) SETTLE=$2; shift 2 ;;
    --busy-heap) BUSY_HEAP=$2; shift 2 ;;
    --fault) FAULT=$2; shift 2 ;;
    --faulty-rate) FAULTY_RATE=$2; shift 2 ;;
    --faulty-load) FAULTY_LOAD=$2; shift 2 ;;
    --flushall-at) FLUSHALL_AT=$2; shift 2 ;;
    --registry-tenants) REGISTRY=$2; shift 2 ;;
    --jfr) JFR=(-XX:StartFlightRecording=filename=sluice.jfr,settings=profile,dumponexit=true); shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
CONFIGURED=${CONFIGURED:-$ENDPOINTS}
SLUICE_RATE=${SLUICE_RATE:-$(python3 -c "print(round($RATE * 0.96, 3))")}
[ "$CONFIGURED" -ge "$ENDPOINTS" ] || { echo "--configured must be at least --endpoints" >&2; exit 2; }
for n in WARMUP SETTLE; do
  [[ ${!n} =~ ^[0-9]+$ ]] || { echo "--${n,,} takes whole seconds" >&2; exit 2; }
done
[ "$WARMUP" -eq 0 ] || [ "$CONFIGURED" -ge $((2 * ENDPOINTS)) ] || {
  echo "--warmup loads tenants t$((ENDPOINTS + 1))..t$((2 * ENDPOINTS)): --configured must be at least $((2 * ENDPOINTS))" >&2; exit 2; }
case "$WHILE_DISABLED" in
  wait) ;; dead) WHILE_DISABLED=dead_letter ;;
  *) echo "--while-disabled takes wait or dead" >&2; exit 2 ;;
esac
case "$BUSY_HEAP" in gc|used) ;; *) echo "--busy-heap takes gc or used" >&2; exit 2 ;; esac
case "$FAULT" in slow-fail|pause|pause-fail) ;; *) echo "--fault takes slow-fail, pause or pause-fail" >&2; exit 2 ;; esac
FAULTY_RATE=${FAULTY_RATE:-$RATE}
FAULTY_SLUICE_RATE=$(python3 -c "print(round($FAULTY_RATE * 0.96, 3))")
[ "$REGISTRY" -lt "$ENDPOINTS" ] || { echo "--registry-tenants must be below --endpoints" >&2; exit 2; }
W=${WORK:-$ROOT/target/outside/endpoints-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java jcmd node npm kcat redis-server redis-cli python3 curl; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done

mkdir -p "$W"/{logs,records,secrets,node,broker,redis}
chmod 700 "$W/secrets"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/endpoints.log"; }
now_ms() { date +%s%3N; }
stamp() { echo "{\"step\":\"$1\",\"t\":$(now_ms)${2:+,$2}}" >> "$W/steps.jsonl"; }

# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
echo "whsec_$(head -c 32 /dev/urandom | base64 -w0)" > "$W/secrets/whsec"

cp "$ROOT"/dispatcher/src/test/node/standardwebhooks/package{,-lock}.json "$ROOT"/tools/outside/*.mjs "$W/node/"
(cd "$W/node" && npm ci --no-audit --no-fund --ignore-scripts --silent) > "$W/logs/npm.log" 2>&1
log "standardwebhooks $(node -p 'require(process.argv[1]).version' "$W/node/node_modules/standardwebhooks/package.json") installed from the pinned lock; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- servers
start_servers

# --- the endpoints, one Node.js process
echo '{}' > "$W/modes.json"
# The endpoints judge calls by when they handle them: ahead of the rest of the machine (where
# allowed), so that their own stalls bunch up fewer of the calls Sluice spaced.
PEER_NICE=(); if nice -n -10 true 2>/dev/null; then PEER_NICE=(nice -n -10); fi
(cd "$W/node" && exec env ENDPOINTS="$CONFIGURED" RATE="$RATE" FAULTY_RATE="$FAULTY_RATE" SECRET_FILE="$W/secrets/whsec" \
   MODES_FILE="$W/modes.json" RECORD_FILE="$W/records/endpoints.jsonl" PORT_FILE="$W/endpoints.port" \
   "${PEER_NICE[@]}" node endpoints-peer.mjs) > "$W/logs/endpoints-peer.log" 2>&1 &
PIDS+=($!); PID_peer=$!
wait_for 10 "the endpoints" test -s "$W/endpoints.port"
PEER=http://127.0.0.1:$(cat "$W/endpoints.port")

# --- Sluice: one provider, an endpoint per tenant
{
  cat <<EOF
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 5s, 30s]
maxAttempts: 20
tiers: { free: { weight: 1 } }
defaultTier: free
providers:
  hooks:
    endpoints: perTenant
    allowPrivateNetworks: true
    allowPlainHttp: true
    $(if [ -n "$MARGIN" ]; then
        echo "limits: [{ rate: $SLUICE_RATE/s }, { calls: $RATE, per: 1s, window: sliding, margin: ${MARGIN}ms }]"
      else echo "rate: $SLUICE_RATE/s"; fi)
    timeout: 2s
    disableAfter: 10s
    probeAfter: 10s
    whileDisabled: $WHILE_DISABLED
    signing:
      standardWebhooks:
        secrets: ["\${file:$W/secrets/whsec}"]
    sharedSigningSecret: true         # one peer process verifies every endpoint with one key
    quotas: { free: { capacity: 1000, refill: 100/s } }
http: { port: 0 }
tenants:
EOF
  for i in $(seq "$CONFIGURED"); do
    if [ "$i" -gt $((ENDPOINTS - REGISTRY)) ] && [ "$i" -le "$ENDPOINTS" ]; then continue; fi
    if [ "$i" -le 2 ] && [ "$FAULTY_RATE" != "$RATE" ]; then
      echo "  t$i: { endpoints: { hooks: { url: \"$PEER/e/$i\", rate: $FAULTY_SLUICE_RATE/s } } }"
    else echo "  t$i: { endpoints: { hooks: \"$PEER/e/$i\" } }"; fi
  done
} > "$W/sluice.yaml"
SLUICE=(java -Xmx768m -XX:+UseSerialGC -jar "$APP_JAR")
"${SLUICE[@]}" topics create --config "$W/sluice.yaml" --partitions 2 --replicas 1 > "$W/logs/topics.log" 2>&1
HTTP=$(free_port)
(cd "$W" && SLUICE_HTTP__PORT=$HTTP exec java -Xmx768m -XX:+UseSerialGC "${JFR[@]}" -jar "$APP_JAR" run --config "$W/sluice.yaml") > "$W/logs/sluice.log" 2>&1 &
PIDS+=($!); PID_sluice=$!
wait_for 180 "sluice run ready" curl -sf "http://127.0.0.1:$HTTP/ready"
log "sluice run ready (pid $PID_sluice), $CONFIGURED tenants configured and served at $PEER/e/1..$CONFIGURED, $ENDPOINTS judged"
sluice() { "${SLUICE[@]}" "$@" --config "$W/sluice.yaml"; }
for i in $(seq $((ENDPOINTS - REGISTRY + 1)) "$ENDPOINTS"); do
  [ "$REGISTRY" -gt 0 ] || break
  sluice tenants set "t$i" --endpoint "hooks=$PEER/e/$i" >> "$W/logs/registry.log" 2>&1
done
[ "$REGISTRY" -eq 0 ] || log "tenants t$((ENDPOINTS - REGISTRY + 1))..t$ENDPOINTS registered through \`sluice tenants set\` (not in the file)"

heap() {   # heap STEP gc|used, KiB: the live set (the tenured generation after a full GC), or every
           # generation's used heap as it is, garbage included (no GC, so no stop-the-world pause)
  [ "$2" = used ] || jcmd "$PID_sluice" GC.run > /dev/null
  jcmd "$PID_sluice" GC.heap_info > "$W/logs/heap-$1.txt"
  awk -v gen="$([ "$2" = used ] && echo generation || echo 'tenured generation')" '
       $0 ~ gen { for (i = 1; i <= NF; i++) if ($i == "used") { sub(/K,?/, "", $(i + 1)); s += $(i + 1) } }
       END { print s }' "$W/logs/heap-$1.txt"
}
keys() {   # keys STEP: Redis's keys, counted by pattern (a tenant's number as *)
  redis-cli -p "$REDIS_PORT" --scan | sed -E 's/\{~[^}]*\}:marker/{~*}:marker/; s/([/{:])t[0-9]+/\1t*/g' | sort | uniq -c \
    | sort -rn > "$W/logs/keys-$1.txt"
  redis-cli -p "$REDIS_PORT" dbsize
}
measure() {   # measure STEP [gc|used]
  local kib dbsize how=${2:-gc}
  kib=$(heap "$1" "$how"); dbsize=$(keys "$1")
  curl -s "http://127.0.0.1:$HTTP/metrics" > "$W/logs/metrics-$1.txt" || true
  stamp "measure-$1" "\"$([ "$how" = used ] && echo heapUsedKiB || echo heapKiB)\":$kib,\"dbsize\":$dbsize,\"load\":\"$(cut -d' ' -f1-3 /proc/loadavg)\""
  log "$1: heap $([ "$how" = used ] && echo 'used, garbage included (no GC)' || echo 'used after a full GC') $((kib / 1024)) MiB, Redis $dbsize keys, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  head -12 "$W/logs/keys-$1.txt" | sed "s/^/    /" | tee -a "$W/logs/endpoints.log"
}
measure ready
cpu() {   # every 5 s: each process's CPU seconds so far (user + system), by name (kcat and
          # produce: the load running, as produce last wrote them to load.pids)
  local tick; tick=$(getconf CLK_TCK)
  while sleep 5; do
    # shellcheck source=/dev/null
    [ ! -f "$W/load.pids" ] || source "$W/load.pids"
    printf '%s load %s' "$(date +%s)" "$(cut -d' ' -f1 /proc/loadavg)"
    for name in sluice broker redis peer kcat produce; do
      local pid_var=PID_$name
      printf ' %s %s' "$name" "$(awk -v t="$tick" '{ printf "%.1f", ($14 + $15) / t }' "/proc/${!pid_var}/stat" 2>/dev/null)"
    done
    echo
  done >> "$W/logs/cpu.txt"
}

produce() {   # produce FIFO COUNT_FILE RATES DURATION: produce.mjs's events through a fifo of their own
              # to kcat (PID_kcat, PID_produce); the count per tenant in COUNT_FILE at the end
  mkfifo "$W/$1"
  kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/$1" >> "$W/logs/kcat-produce.log" 2>&1 &
  PIDS+=($!); PID_kcat=$!
  # Through a file: at 10,000 tenants the list is past what one environment string may hold.
  printf '%s' "$3" > "$W/$1.rates"
  (cd "$W/node" && exec env RATES="@$W/$1.rates" DURATION="$4" BURST=0 COUNT_FILE="$W/$2" node produce.mjs) \
    > "$W/$1" 2>> "$W/logs/produce.log" &
  PIDS+=($!); PID_produce=$!
  echo "PID_kcat=$PID_kcat PID_produce=$PID_produce" > "$W/load.pids"
}
produced() { node -p 'Object.values(require(process.argv[1])).reduce((a, b) => a + b, 0)' "$W/$1"; }
settled() {   # settled N: at least N events in sluice.outcomes and sluice.dlq together
  local n
  n=$( (kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f 'x\n'
        kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n') 2>/dev/null | wc -l)
  [ "$n" -ge "$1" ]
}
cpu & PIDS+=($!)

# --- warm-up: tenants t(N+1)..t(2N) at --rate each for WARMUP seconds, until every event settled
PRODUCED=0
if [ "$WARMUP" -gt 0 ]; then
  WARM_START=$(date +%s)
  WARM_RATES=$(for i in $(seq $((ENDPOINTS + 1)) $((2 * ENDPOINTS))); do printf 'hooks:%s:t%d:0,' "$RATE" "$i"; done)
  stamp warmup "\"seconds\":$WARMUP,\"first\":$((ENDPOINTS + 1)),\"last\":$((2 * ENDPOINTS))"
  log "warming up for ${WARMUP}s: tenants t$((ENDPOINTS + 1))..t$((2 * ENDPOINTS)) at $RATE/s each, no burst"
  produce warmup.fifo produced-warmup.json "${WARM_RATES%,}" "$WARMUP"
  wait "$PID_produce"; wait "$PID_kcat"
  PRODUCED=$(produced produced-warmup.json)
  wait_for "$SETTLE" "every warm-up event settled (outcome or dead letter)" settled "$PRODUCED"
  stamp warmup-settled "\"produced\":$PRODUCED"
  log "the warm-up's $PRODUCED events settled $(( $(date +%s) - WARM_START ))s after it began; the judged load in 5 s"
  sleep 5
fi

# --- load: every tenant a burst of 2 x rate, then rate + 25% for DURATION seconds
LOAD=$(python3 -c "print($RATE * 1.25)")
BURST=$(python3 -c "print(max(1, round(2 * $RATE)))")
FAULTY_LOAD=${FAULTY_LOAD:-$(python3 -c "print($FAULTY_RATE * 1.25)")}
RATES=$(for i in $(seq "$ENDPOINTS"); do
  if [ "$i" -le 2 ]; then printf 'hooks:%s:t%d:%d,' "$FAULTY_LOAD" "$i" "$BURST"
  else printf 'hooks:%s:t%d:%d,' "$LOAD" "$i" "$BURST"; fi
done)
produce events.fifo produced.json "${RATES%,}" "$DURATION"
START=$(date +%s)
stamp load "\"fault\":\"$FAULT\",\"faultyRate\":$FAULTY_RATE,\"faultyLoad\":$FAULTY_LOAD,\"registryTenants\":$REGISTRY,\"duration\":$DURATION,\"endpoints\":$ENDPOINTS,\"rate\":$RATE,\"sluiceRate\":$SLUICE_RATE,\"margin\":\"$MARGIN\",\"faults\":$FAULTS,\"warmup\":$WARMUP,\"whileDisabled\":\"$WHILE_DISABLED\""
log "producing for ${DURATION}s: $ENDPOINTS tenants at $LOAD/s each after a burst of $BURST"
sleep_until() { local now; now=$(date +%s); [ $((START + $1)) -le "$now" ] || sleep $((START + $1 - now)); }

flushall() {   # Redis wiped mid-run, as a failover to an empty replica would leave it
  sleep_until "$FLUSHALL_AT"
  redis-cli -p "$REDIS_PORT" FLUSHALL > /dev/null
  stamp flushall; log "FLUSHALL: Redis wiped"
  # What waits, and why, every 5 s for 90 s after the wipe (logs/status-after-wipe.log): a stall
  # after a wipe is read from it (issue 39).
  for _ in $(seq 18); do
    { echo "--- $(date -u +%H:%M:%S.%3N)"; sluice status 2>&1; } >> "$W/logs/status-after-wipe.log"
    sleep 5
  done
}
[ -z "$FLUSHALL_AT" ] || { flushall & PIDS+=($!); }
if $FAULTS; then
  sleep_until "${FAULT_START:-$((DURATION / 2))}"
  if [ "$FAULT" != slow-fail ]; then
    sluice pause provider hooks --endpoint t1 --reason "outside check" >> "$W/logs/pause.log" 2>&1
    [ "$FAULT" = pause ] || { echo '{"2": "fail"}' > "$W/modes.json"; kill -USR2 "$PID_peer"; }
    stamp faults; log "t1's calls to hooks paused$([ "$FAULT" = pause ] || echo ', endpoint 2 answers 500')"
  else
    echo '{"1": "slow", "2": "fail"}' > "$W/modes.json"; kill -USR2 "$PID_peer"
    stamp faults; log "endpoint 1 answers after 10 s, endpoint 2 answers 500"
  fi
fi
wait "$PID_produce"; wait "$PID_kcat"
stamp load-end
measure busy "$BUSY_HEAP"
if $FAULTS; then
  if [ "$FAULT" != slow-fail ]; then
    sluice resume provider hooks --endpoint t1 >> "$W/logs/pause.log" 2>&1
    [ "$FAULT" = pause ] || { echo '{}' > "$W/modes.json"; kill -USR2 "$PID_peer"; }
    stamp mended; log "t1's calls to hooks resumed$([ "$FAULT" = pause ] || echo ', endpoint 2 answers again')"
  else
    echo '{}' > "$W/modes.json"; kill -USR2 "$PID_peer"
    stamp mended; log "endpoints 1 and 2 answer again"
  fi
fi
PRODUCED=$((PRODUCED + $(produced produced.json)))
log "produced $PRODUCED events$([ "$WARMUP" -eq 0 ] || echo ", the warm-up's included")"
wait_for "$SETTLE" "every event settled (outcome or dead letter)" settled "$PRODUCED"
stamp settled; log "every event settled after $(( $(date +%s) - START ))s"
if $IDLE; then
  sleep 70
  measure idle
fi

kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f '%s\n' > "$W/outcomes.txt" 2>/dev/null || true
kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f '%h\t%s\n' > "$W/dlq.txt" 2>/dev/null || true
cleanup

judge "$W/logs/endpoints.log" node "$W/node/endpoints-judge.mjs" "$W"
HITS=$(grep -rFao -f <(sed 's/^whsec_//' "$W/secrets/whsec") "$W/logs" "$W/records" "$W"/*.txt | wc -l || true)
log "the signing key in any log, record or topic: $HITS"
[ "$HITS" -eq 0 ] || VERDICT=1
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
