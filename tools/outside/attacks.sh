#!/usr/bin/env bash
# Issue 33's check from outside: four attacks by hostile tenants and an outsider against one
# running `sluice run` (the jar a user builds), each judged from what the attacker's own
# processes got (docs/security.md#the-attacks-from-outside).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/attacks.sh [--sockets 200] [--loris 30]
#       [--beyond 400] [--work DIR]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, one `java -jar app/target/sluice.jar run` (every role) and, on Node.js, the
# attackers and their targets. Sluice has three per-tenant providers: `hooks` (signing, each
# registry endpoint with its own sealed secret), `slow` (timeout 2 s) and `rebind` (the address
# guard on: allowPrivateNetworks false). kcat writes the events and reads the topics back.
#
#  a. DNS rebinding. The sluice JVM's resolver is a hosts file the tenant controls
#     (-Djdk.net.hosts.file, no lookup cache): tenant `rebinder`'s endpoint
#     http://hooks.rebinder.example:P/in answers a public IPv6 address and 127.0.0.1 in turn,
#     switching every 20 ms (attacks-hosts.mjs); port P on loopback is an "internal service"
#     recording every connection (attacks-internal.mjs). Verdict: the internal service saw no
#     connection from the jar; the endpoint was disabled. The control: the guard as it was before
#     issue 33 (check, then connect by name: NaiveCheckThenConnect.java, at once and 20 ms after
#     the check) on the same hosts file must reach the internal service, or the attack was not
#     live.
#  b. A trickling endpoint. Tenant `trickler`'s endpoint answers its headers at once, then a byte
#     of body a second (attacks-trickle.mjs). Verdict: Sluice closed every call within the
#     provider's timeout (2 s) + 0.5 s of its request; the endpoint was disabled, its last
#     failure a timeout.
#  c. Slow-loris on the ops port: --sockets connections (half idle, half trickling a request head
#     a byte a second, each opened again when cut) for --loris seconds (attacks-slowloris.mjs),
#     while curl asks /live, /ready and /metrics each second. Verdict: every answer 200 within
#     1 s. With --beyond N, a second round with N sockets all trickling (past the ops port's cap
#     of 256 exchanges being read at once) is measured and reported, not judged.
#  d. Forgery. Tenants `ta` and `tb` get registry endpoints (`sluice tenants set --endpoint`), each
#     with its own secret, which `sluice tenants secret` gives their receivers (the reference
#     `standardwebhooks` library). Tenant A, holding its own secret and the deliveries it got,
#     sends B's receiver a message it signed and a replay of one of its own (attacks-forge.mjs).
#     Verdict: B's receiver refused both and accepted every one of B's deliveries from the jar.
# Then: no endpoint secret, sealing key or admin token in any log or topic.
# Exit 0 when every verdict holds (attacks-judge.mjs). Everything started is stopped on any exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SOCKETS=200
LORIS=30
BEYOND=0
WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sockets) SOCKETS=$2; shift 2 ;;
    --loris) LORIS=$2; shift 2 ;;
    --beyond) BEYOND=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
W=${WORK:-$ROOT/target/outside/attacks-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node npm kcat redis-server redis-cli python3 curl; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done

mkdir -p "$W"/{logs,records,probes,secrets,node,broker,redis}
chmod 700 "$W/secrets"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/attacks.log"; }
# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
secret() { head -c 24 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }

REBIND_NAME=hooks.rebinder.example
PUBLIC=2606:2800:220:1:248:1893:25c8:1946   # public to the guard; no route from a test machine
TIMEOUT_MS=2000

install_node

# --- servers
start_servers

# --- the attackers' processes and their targets
echo "whsec_$(head -c 32 /dev/urandom | base64 -w0)" > "$W/secrets/placeholder"
cp "$W/secrets/placeholder" "$W/secrets/a"; cp "$W/secrets/placeholder" "$W/secrets/b"
peer internal attacks-internal.mjs
peer trickle attacks-trickle.mjs
peer receiver-a webhook-receiver.mjs SECRET_FILE="$W/secrets/a" CAPTURE_FILE="$W/records/a-captured.jsonl"
peer receiver-b webhook-receiver.mjs SECRET_FILE="$W/secrets/b"
for name in internal trickle receiver-a receiver-b; do wait_for 10 "peer $name" test -s "$W/$name.port"; done
port() { cat "$W/$1.port"; }
INTERNAL_JAR=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1])).jar' "$W/internal.port")
INTERNAL_CONTROL=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1])).control' "$W/internal.port")
(cd "$W/node" && exec env HOSTS_FILE="$W/hosts" NAME="$REBIND_NAME" PUBLIC="$PUBLIC" PERIOD_MS=20 \
   FIXED="127.0.0.1 localhost $(hostname)" node attacks-hosts.mjs) > "$W/logs/hosts.log" 2>&1 &
PIDS+=($!); PID_hosts=$!
wait_for 10 "the tenant's hosts file" test -s "$W/hosts"

# --- Sluice
export OPS_READ_TOKEN=$(secret) OPS_WRITE_TOKEN=$(secret)
openssl rand -base64 32 > "$W/secrets/seal-k1"
echo "whsec_$(head -c 32 /dev/urandom | base64 -w0)" > "$W/secrets/provider-whsec"
# An endpoint failing 10 s (and 3 calls) is disabled; its events are then dead-lettered.
FAILING="endpoints: perTenant, allowPlainHttp: true, rate: 20/s, timeout: ${TIMEOUT_MS}ms, disableAfter: 10s,
    probeAfter: 1h, whileDisabled: dead_letter, quotas: { free: { capacity: 100, refill: 100/s } }"
cat > "$W/sluice.yaml" <<EOF
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 2s, 4s]
maxAttempts: 30
tiers: { free: { weight: 1 } }
defaultTier: free
admin: { readToken: "\${env:OPS_READ_TOKEN}", writeToken: "\${env:OPS_WRITE_TOKEN}" }
secrets: { sealingKeys: { k1: "\${file:$W/secrets/seal-k1}" } }
providers:
  hooks:                           # d: each registry endpoint signs with its own secret
    endpoints: perTenant
    allowPrivateNetworks: true     # the receivers run on this machine
    allowPlainHttp: true
    rate: 20/s
    timeout: 2s
    signing: { standardWebhooks: { secrets: ["\${file:$W/secrets/provider-whsec}"] } }
    quotas: { free: { capacity: 100, refill: 100/s } }
  slow: { allowPrivateNetworks: true, $FAILING }   # b: a trickling endpoint
  rebind: { $FAILING }                             # a: the address guard on, as in production
http: { port: 0 }
tenants:
  trickler: { endpoints: { slow: "http://127.0.0.1:$(port trickle)/in" } }
  rebinder: { endpoints: { rebind: "http://$REBIND_NAME:$INTERNAL_JAR/in" } }
EOF
SLUICE=(java -Xmx512m -XX:+UseSerialGC -jar "$APP_JAR")
sluice() { "${SLUICE[@]}" "$@" --config "$W/sluice.yaml"; }
sluice topics create --partitions 2 --replicas 1 > "$W/logs/topics.log" 2>&1
HTTP=$(free_port)
OPS=http://127.0.0.1:$HTTP
# The tenant's DNS is the JVM's resolver: the hosts file, read at every lookup (no cache).
(cd "$W" && SLUICE_HTTP__PORT=$HTTP exec java -Xmx512m -XX:+UseSerialGC \
   -Djdk.net.hosts.file="$W/hosts" -Dsun.net.inetaddr.ttl=0 -Dsun.net.inetaddr.negative.ttl=0 \
   -jar "$APP_JAR" run --config "$W/sluice.yaml") > "$W/logs/sluice.log" 2>&1 &
PIDS+=($!); PID_sluice=$!
wait_for 180 "sluice run ready" curl -sf "$OPS/ready"
log "sluice run ready (pid $PID_sluice), ops port $OPS"

# --- d. two tenants' registry endpoints, each secret given to its own receiver only
for t in a b; do
  sluice tenants set "t$t" --endpoint "hooks=http://127.0.0.1:$(port "receiver-$t")/in" \
    > "$W/secrets/set-t$t.out" 2> "$W/logs/set-t$t.log"
  sluice tenants secret "t$t" --endpoint hooks > "$W/secrets/t$t.out" 2> "$W/logs/secret-t$t.log"
  grep -o 'whsec_[A-Za-z0-9+/=]*' "$W/secrets/t$t.out" | head -1 > "$W/secrets/$t.tmp"
  [ -s "$W/secrets/$t.tmp" ] || { log "FAILED: no secret for t$t (see $W/logs/secret-t$t.log)"; exit 1; }
  mv "$W/secrets/$t.tmp" "$W/secrets/$t"
  kill -USR2 "$(eval echo "\$PID_receiver_$t")"
done
cmp -s "$W/secrets/a" "$W/secrets/b" && { log "FAILED: ta and tb were given the same secret"; exit 1; }
log "registry endpoints for ta and tb, each with its own secret, handed to its receiver"

# --- the events: 5 for each of ta, tb; 6 for trickler; 10 for rebinder
events() {   # events PROVIDER TENANT COUNT
  local i
  for i in $(seq "$3"); do
    printf '%s\t{"id":"%s-%s-%03d","tenant":"%s","provider":"%s","payload":{"order":%d,"note":"attacks"}}\n' \
      "$2" "$1" "$2" "$i" "$2" "$1" "$i"
  done
}
{ events hooks ta 5; events hooks tb 5; events slow trickler 6; events rebind rebinder 10; } > "$W/events.tsv"
kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/events.tsv" 2> "$W/logs/kcat-produce.log"
EVENTS=$(wc -l < "$W/events.tsv")
log "produced $EVENTS events"

accepted() { [ "$(grep -c '"verdict":"accepted"' "$W/records/receiver-$1.jsonl" 2>/dev/null)" -ge "$2" ]; }
wait_for 60 "tb's 5 deliveries accepted by its receiver" accepted b 5
wait_for 60 "ta's 5 deliveries accepted by its receiver" accepted a 5
(cd "$W/node" && exec env A_SECRET_FILE="$W/secrets/a" A_CAPTURE_FILE="$W/records/a-captured.jsonl" \
   B_URL="http://127.0.0.1:$(port receiver-b)/in" node attacks-forge.mjs) > "$W/forge.jsonl" 2> "$W/logs/forge.log"
log "d. forgery: $(tr '\n' ' ' < "$W/forge.jsonl")"

disabled() { grep -q "$1.*endpoint disabled" "$W/logs/sluice.log"; }
wait_for 90 "slow/trickler disabled" disabled "slow/trickler"
wait_for 90 "rebind/rebinder disabled" disabled "rebind/rebinder"
log "b. $(grep -m1 'slow/trickler.*endpoint disabled' "$W/logs/sluice.log" | cut -c1-300)"
log "a. $(grep -m1 'rebind/rebinder.*endpoint disabled' "$W/logs/sluice.log" | cut -c1-300)"
settled() {   # settled N: at least N events in sluice.outcomes and sluice.dlq together
  local n
  n=$( (kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f 'x\n'
        kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n') 2>/dev/null | wc -l)
  [ "$n" -ge "$1" ]
}
wait_for 120 "every event settled (outcome or dead letter)" settled "$EVENTS"

# --- a. the control: the same hosts file, the check-then-connect guard of before
# At once (the flip rarely falls between), then 20 ms after the check (one flip later).
for gap in 0 20; do
  java -Djdk.net.hosts.file="$W/hosts" -Dsun.net.inetaddr.ttl=0 -Dsun.net.inetaddr.negative.ttl=0 \
    "$ROOT/tools/outside/NaiveCheckThenConnect.java" "$REBIND_NAME" "$INTERNAL_CONTROL" 200 "$gap" \
    >> "$W/control.json" 2>> "$W/logs/control.log"
done
log "a. control (check, then connect by name): $(tr '\n' ' ' < "$W/control.json")"

# --- c. slow-loris on the ops port, probed each second
probe() {   # probe FILE SECONDS: /live, /ready and /metrics each second; "path code seconds" lines
  local i p
  for i in $(seq "$2"); do
    for p in live ready metrics; do
      echo "$p $(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' "$OPS/$p" || true)" >> "$1"
    done
    sleep 1
  done
}
probe "$W/probes/before.txt" 5
loris() {   # loris NAME SOCKETS half|all: the attack for LORIS seconds, probed from its 3rd second
  (cd "$W/node" && exec env PORT="$HTTP" SOCKETS="$2" TRICKLING="$3" DURATION="$LORIS" RECORD_FILE="$W/records/loris-$1.jsonl" \
     node attacks-slowloris.mjs) > "$W/logs/loris-$1.log" 2>&1 &
  local pid=$!; PIDS+=($pid)
  sleep 3
  probe "$W/probes/$1.txt" $((LORIS - 5))
  wait "$pid" || true
}
loris during "$SOCKETS" half
log "c. $SOCKETS sockets: $(cat "$W/records/loris-during.jsonl")"
if [ "$BEYOND" -gt 0 ]; then
  probe "$W/probes/between.txt" 5
  loris beyond "$BEYOND" all
  log "c. beyond, $BEYOND sockets: $(cat "$W/records/loris-beyond.jsonl")"
fi
probe "$W/probes/after.txt" 3
curl -s "$OPS/metrics" > "$W/logs/metrics.txt" || true

mkdir -p "$W/topics"
for topic in $(kcat -L -b "$BROKER" 2>/dev/null | sed -n 's/^ *topic "\(sluice\.[^"]*\)".*/\1/p'); do
  timeout 60 kcat -C -b "$BROKER" -t "$topic" -o beginning -e -q -f '%k\t%h\t%s\n' > "$W/topics/$topic.txt" 2>/dev/null || true
done
cleanup

judge "$W/logs/attacks.log" node "$W/node/attacks-judge.mjs" "$W" "$TIMEOUT_MS" "$BEYOND"
# The secrets: each endpoint's (its key, without whsec_), the sealing key and the admin tokens.
HITS=0
for s in "$(sed 's/^whsec_//' "$W/secrets/a")" "$(sed 's/^whsec_//' "$W/secrets/b")" \
         "$(cat "$W/secrets/seal-k1")" "$OPS_READ_TOKEN" "$OPS_WRITE_TOKEN"; do
  HITS=$((HITS + $(grep -rFao -- "$s" "$W/logs" "$W/records" "$W/topics" | wc -l || true)))
done
log "an endpoint secret, the sealing key or an admin token in any log, record or topic ($(ls "$W/topics" | wc -l) topics read whole): $HITS"
[ "$HITS" -eq 0 ] || VERDICT=1
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
