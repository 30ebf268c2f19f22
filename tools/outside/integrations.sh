#!/usr/bin/env bash
# Issue 22's check from outside: the jars a user builds, every part a process of its own, judged
# from the outside peers' own records and the topics' contents (docs/integrations.md).
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/integrations.sh [--duration 300] [--min-signed 1000]
#       [--rate 19] [--typo] [--work DIR]
#
# Processes, each on a free port: a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker),
# redis-server, the gate, the relay and the dispatcher (`java -jar app/target/sluice.jar ROLE`),
# and on Node.js: a provider refusing (401) any call without its bearer token, an OAuth2 token
# endpoint issuing 30 s tokens, a provider refusing expired or unknown tokens (both providers
# accept at most 20 calls in any sliding second; Sluice calls each at --rate, default 19/s, and
# the load arrives at that rate), and a webhook receiver verifying every call with the npm
# `standardwebhooks` library. kcat writes the events and reads every topic back.
# The signing secrets are `${file:}` secrets rotated twice during the run, in place, as a
# Kubernetes secret mount is: [K1, K0] -> [K2, K1] -> [K3, K2], the receiver moving to the new key
# a few seconds after each. With --typo, each rotation first writes the new key without its
# whsec_ for 4 s (an operator's slip): every call must still be accepted.
#
# Exit 0 when every verdict holds: 0 calls without a valid credential, 0 `unauthorized` dead
# letters, every signed call accepted (at least --min-signed of them), every event delivered,
# and 0 occurrences of any secret in any log, topic, /metrics or /health page. Everything
# started is stopped on any exit.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURATION=300
MIN_SIGNED=1000
RATE=19        # Sluice's rate toward the two strict providers, which accept 20 in any second
TYPO=false
WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION=$2; shift 2 ;;
    --min-signed) MIN_SIGNED=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --typo) TYPO=true; shift ;;
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
W=${WORK:-$ROOT/target/outside/run-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=$ROOT/app/target/sluice.jar
LAB_JAR=$ROOT/lab/target/sluice-lab.jar
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node npm kcat redis-server python3; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done

mkdir -p "$W"/{logs,records,topics,secrets,node,broker,redis}
chmod 700 "$W/secrets"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/integrations.log"; }

# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
secret() { head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='; }
whsec() { echo "whsec_$(head -c 32 /dev/urandom | base64 -w0)"; }
put() { printf '%s' "$2" > "$1.tmp"; mv "$1.tmp" "$1"; }   # atomic, as a secret mount swaps

# --- secrets: the only copies are here (and in the environment of the processes needing them)
BEARER_TOKEN=$(secret 32)
CLIENT_SECRET=$(secret 32)
ISSUER_KEY=$(secret 32)
K0=$(whsec); K1=$(whsec); K2=$(whsec); K3=$(whsec)
put "$W/secrets/client-secret" "$CLIENT_SECRET"
put "$W/secrets/whsec-new" "$K1"
put "$W/secrets/whsec-old" "$K0"
put "$W/secrets/receiver-secret" "$K1"
: > "$W/secrets/tokens"

# --- the reference library, from the pinned lock file
install_node

# --- servers
start_servers

# --- outside peers
peer bearer-api provider.mjs AUTH=bearer TOKEN="$BEARER_TOKEN" RATE=20
peer oauth-token oauth2-token.mjs CLIENT_ID=sluice-outside CLIENT_SECRET="$CLIENT_SECRET" \
  ISSUER_KEY="$ISSUER_KEY" TTL=30 SECRETS_FILE="$W/secrets/tokens"
peer oauth-api provider.mjs AUTH=oauth2 ISSUER_KEY="$ISSUER_KEY" RATE=20
peer webhooks webhook-receiver.mjs SECRET_FILE="$W/secrets/receiver-secret"
for name in bearer-api oauth-token oauth-api webhooks; do
  wait_for 10 "peer $name" test -s "$W/$name.port"
done
port() { cat "$W/$1.port"; }

# --- Sluice: the configuration names secrets, never holds them
cat > "$W/sluice.yaml" <<EOF
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 5s, 30s]
maxAttempts: 8
tiers: { free: { weight: 1 } }
defaultTier: free
providers:
  bearer-api:
    url: http://127.0.0.1:$(port bearer-api)/v1/calls
    rate: $RATE/s
    auth:
      bearer: "\${env:OUTSIDE_BEARER_TOKEN}"
    capture: { bodyBytes: 256 }
    quotas: { free: { capacity: 100, refill: 100/s } }
  oauth-api:
    url: http://127.0.0.1:$(port oauth-api)/v1/calls
    rate: $RATE/s
    auth:
      oauth2:
        tokenUrl: http://127.0.0.1:$(port oauth-token)/oauth/token
        clientId: sluice-outside
        clientSecret: "\${file:$W/secrets/client-secret}"
        scope: "calls:write"
    capture: { bodyBytes: 256 }
    quotas: { free: { capacity: 100, refill: 100/s } }
  webhooks:
    url: http://127.0.0.1:$(port webhooks)/hooks
    rate: 10/s
    signing:
      standardWebhooks:
        secrets: ["\${file:$W/secrets/whsec-new}", "\${file:$W/secrets/whsec-old}"]
    capture: { bodyBytes: 256 }
    quotas: { free: { capacity: 100, refill: 100/s } }
http: { port: 0 }
EOF
SLUICE=(java -Xmx384m -XX:+UseSerialGC -jar "$APP_JAR")
# (every command loading the configuration resolves its secrets, topics create included)
OUTSIDE_BEARER_TOKEN="$BEARER_TOKEN" "${SLUICE[@]}" topics create --config "$W/sluice.yaml" \
  --partitions 2 --replicas 1 > "$W/logs/topics.log" 2>&1
role() {   # role NAME: one Sluice role, its ops port in $W/NAME.http
  local name=$1 port; port=$(free_port); echo "$port" > "$W/$name.http"
  SLUICE_HTTP__PORT=$port OUTSIDE_BEARER_TOKEN="$BEARER_TOKEN" \
    "${SLUICE[@]}" "$name" --config "$W/sluice.yaml" > "$W/logs/$name.log" 2>&1 &
  PIDS+=($!)
  eval "PID_$name=$!"
}
role gate; role relay; role dispatch
for name in gate relay dispatch; do
  wait_for 120 "sluice $name ready" curl -sf "http://127.0.0.1:$(cat "$W/$name.http")/ready"
done
log "gate, relay, dispatch ready (pids $PID_gate $PID_relay $PID_dispatch)"

# --- load, and the signing keys rotated twice on the way
mkfifo "$W/events.fifo"
kcat -P -b "$BROKER" -t sluice.inbound -K$'\t' < "$W/events.fifo" > "$W/logs/kcat-produce.log" 2>&1 &
PIDS+=($!); PID_kcat=$!
(cd "$W/node" && exec env RATES="bearer-api:$RATE,oauth-api:$RATE,webhooks:10" DURATION="$DURATION" \
   BURST=40 COUNT_FILE="$W/produced.json" node produce.mjs) > "$W/events.fifo" 2> "$W/logs/produce.log" &
PIDS+=($!); PID_produce=$!
START=$(date +%s)
log "producing for ${DURATION}s: bearer-api and oauth-api $RATE/s each (Sluice $RATE/s, the providers 20 in any second), webhooks 10/s, after a burst of 40 each"

rotate() {   # rotate PREVIOUS NEXT: sign with [NEXT, PREVIOUS], then the receiver moves to NEXT
  put "$W/secrets/whsec-old" "$1"; sleep 4       # [current, current]: a 2 s re-read apart
  if $TYPO; then                                 # [no secret, current] for 4 s
    put "$W/secrets/whsec-new" "${2#whsec_}"; sleep 4
    log "typo: the new slot held a key without its whsec_ for 4 s"
  fi
  put "$W/secrets/whsec-new" "$2"; sleep 4       # [next, current]
  put "$W/secrets/receiver-secret" "$2"; kill -USR2 "$PID_webhooks"
  log "rotated: Sluice signs with [next, previous], the receiver verifies with next"
}
sleep_until() { local now; now=$(date +%s); [ $((START + $1)) -le "$now" ] || sleep $((START + $1 - now)); }
sleep_until $((DURATION / 3)); rotate "$K1" "$K2"
sleep_until $((2 * DURATION / 3)); rotate "$K2" "$K3"
wait "$PID_produce"
wait "$PID_kcat"
PRODUCED=$(node -p 'Object.values(require(process.argv[1])).reduce((a, b) => a + b)' "$W/produced.json")
log "produced $PRODUCED events ($(cat "$W/produced.json"))"

settled() {
  local n
  n=$( (kcat -C -b "$BROKER" -t sluice.outcomes -o beginning -e -q -f 'x\n'
        kcat -C -b "$BROKER" -t sluice.dlq -o beginning -e -q -f 'x\n') 2>/dev/null | wc -l)
  [ "$n" -ge "$PRODUCED" ]
}
wait_for 300 "every event settled (outcome or dead letter)" settled
log "every event settled after $(( $(date +%s) - START ))s"

# --- what each role shows an operator, then stop Sluice, read every topic, stop the rest
for name in gate relay dispatch; do
  for page in metrics health; do
    curl -s "http://127.0.0.1:$(cat "$W/$name.http")/$page" > "$W/logs/$name.$page.txt" || true
  done
done
stop "$PID_dispatch" "$PID_relay" "$PID_gate"
kcat -L -b "$BROKER" | sed -n 's/^ *topic "\([^"]*\)".*/\1/p' | sort > "$W/topics/list"
while read -r topic; do
  kcat -C -b "$BROKER" -t "$topic" -o beginning -e -q \
    -f 'partition %p offset %o key %k headers %h value %s\n' > "$W/topics/$topic.txt" 2>&1
done < "$W/topics/list"
log "read $(wc -l < "$W/topics/list") topics"
cleanup

# --- judge from the peers' records and the topics
judge "$W/logs/integrations.log" node "$W/node/judge.mjs" "$W" "$MIN_SIGNED"

# every secret, as is and as the forms that could leak (a whsec's key alone, the Basic header)
{
  printf '%s\n' "$BEARER_TOKEN" "$CLIENT_SECRET" "$ISSUER_KEY"
  printf '%s' "sluice-outside:$CLIENT_SECRET" | base64 -w0; echo
  for k in "$K0" "$K1" "$K2" "$K3"; do printf '%s\n%s\n' "$k" "${k#whsec_}"; done
  cat "$W/secrets/tokens"
} > "$W/secrets/all"
SECRETS=$(wc -l < "$W/secrets/all")
HITS=$(grep -rFao -f "$W/secrets/all" "$W/logs" "$W/topics" "$W/records" "$W/sluice.yaml" | wc -l || true)
FILES=$(find "$W/logs" "$W/topics" "$W/records" "$W/sluice.yaml" -type f | wc -l)
log "grep for $SECRETS secret values over $FILES files (every log, every topic, every record): $HITS hits"
# the control: the same grep finds them where they are (every secret file of the run)
CONTROL=$(grep -rFao -f "$W/secrets/all" "$W/secrets" --exclude=all | wc -l || true)
log "control: the same grep over the run's secret files: $CONTROL hits"
[ "$CONTROL" -gt 0 ] || VERDICT=1
[ "$HITS" -eq 0 ] || { grep -rFalo -f "$W/secrets/all" "$W/logs" "$W/topics" "$W/records" | sed 's/^/  hit in /'; VERDICT=1; }
log "work directory $W; verdict $([ "$VERDICT" -eq 0 ] && echo PASS || echo FAIL)"
exit "$VERDICT"
