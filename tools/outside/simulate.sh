#!/usr/bin/env bash
# Issue 37's fidelity check of `sluice simulate`: a real run, then its simulation, compared per
# tenant (docs/operations.md, "Trying a quota on recorded traffic").
#
#   mvn -B -ntp -q -DskipTests package
#   flock /tmp/sluice-broker.lock tools/outside/simulate.sh [--work DIR]
#
# Processes, each on a free port: a Kafka broker (the lab jar's StandaloneKafkaBroker),
# redis-server, one `java -jar app/target/sluice.jar run` (every role; the simulation models one
# instance), and on Node.js one provider (ops-provider.mjs) that accepts up to 1,000 calls a
# second, so it never refuses one: the simulation models no provider faults. 20 tenants (t00..t09
# gold, weight 3; t10..t19 free, weight 1), each with a quota of capacity 5 at 2/s toward it, send
# 150 events each over 10 s (300/s in all, 15/s each): most are deferred by their quota, up to
# about 70 s. Sluice calls the provider at 40/s.
# Then: the inbound topic read back (each record's timestamp is its arrival), written as the
# events file; `sluice simulate` of it on the same configuration; and per tenant the real p99
# lateness (the provider's own record of each call's time, minus the record's timestamp) beside
# the simulated one. Exit 0 when every tenant's simulated p99 is within 10% of the real one.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
W=${WORK:-$ROOT/target/outside/simulate-$(date -u +%Y%m%dT%H%M%SZ)}
APP_JAR=${APP_JAR:-$ROOT/app/target/sluice.jar}
LAB_JAR=${LAB_JAR:-$ROOT/lab/target/sluice-lab.jar}
for jar in "$APP_JAR" "$LAB_JAR"; do
  [ -f "$jar" ] || { echo "$jar is missing: run mvn -B -ntp -q -DskipTests package first" >&2; exit 2; }
done
for tool in java node kcat redis-server redis-cli python3 curl; do
  command -v $tool >/dev/null || { echo "$tool is not on the PATH" >&2; exit 2; }
done

mkdir -p "$W"/{logs,records,node,broker,redis}
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$W/logs/simulate.log"; }

# shellcheck source=lib.sh
source "$ROOT/tools/outside/lib.sh"
cp "$ROOT"/tools/outside/{peer,ops-provider}.mjs "$W/node/"

start_servers

(cd "$W/node" && exec env RECORD_FILE="$W/records/api.jsonl" PORT_FILE="$W/api.port" RATE=1000 \
   MODE_FILE="$W/api.mode" node ops-provider.mjs) > "$W/logs/api.log" 2>&1 &
PIDS+=($!)
wait_for 10 "the provider" test -s "$W/api.port"

TENANTS=""
for i in $(seq -w 0 19); do
  [ "$i" -lt 10 ] && tier=gold || tier=free
  TENANTS+="  t$i: { tier: $tier }"$'\n'
done
cat > "$W/sluice.yaml" <<EOF
kafka: { bootstrap: "$BROKER", topicPrefix: "sluice." }
redis: { uri: "redis://127.0.0.1:$REDIS_PORT" }
ladder: [1s, 5s, 30s]
maxAttempts: 8
tiers: { gold: { weight: 3 }, free: { weight: 1 } }
defaultTier: free
providers:
  api:
    url: http://127.0.0.1:$(cat "$W/api.port")/v1/calls
    rate: 40/s
    quotas: { gold: { capacity: 5, refill: 2/s }, free: { capacity: 5, refill: 2/s } }
tenants:
$TENANTS
http: { port: 0 }
EOF
SLUICE=(java -Xmx384m -XX:+UseSerialGC -jar "$APP_JAR")
"${SLUICE[@]}" topics create --partitions 4 --replicas 1 --config "$W/sluice.yaml" > "$W/logs/topics.log" 2>&1
HTTP=$(free_port)
SLUICE_HTTP__PORT=$HTTP "${SLUICE[@]}" run --config "$W/sluice.yaml" > "$W/logs/run.log" 2>&1 &
PIDS+=($!)
wait_for 120 "sluice run ready" curl -sf "http://127.0.0.1:$HTTP/ready"
log "sluice run ready; producing 3000 events over 10 s"

# 300 events a second for 10 s, round the tenants; the tenant also in the payload (the provider
# records it from there).
python3 - > "$W/logs/load.log" 2>&1 <<EOF
import subprocess, time
kcat = subprocess.Popen(["kcat", "-P", "-b", "$BROKER", "-t", "sluice.inbound", "-K", "\t"],
                        stdin=subprocess.PIPE, text=True)
start = time.time()
for n in range(3000):
    tenant = "t%02d" % (n % 20)
    kcat.stdin.write('%s\t{"id": "e%d", "tenant": "%s", "provider": "api", "payload": {"tenant": "%s"}}\n'
                     % (tenant, n, tenant, tenant))
    if n % 30 == 29:
        kcat.stdin.flush()
        time.sleep(max(0, start + (n + 1) / 300 - time.time()))
kcat.stdin.close()
kcat.wait()
EOF
all_called() { [ "$(grep -c '"verdict":"ok"' "$W/records/api.jsonl" 2>/dev/null || true)" -ge 3000 ]; }
wait_for 240 "3000 calls accepted" all_called
log "all 3000 called"

# The events file: each inbound record's value with its timestamp as ts.
kcat -C -b "$BROKER" -t sluice.inbound -o beginning -e -q -f '%T\t%s\n' > "$W/inbound.tsv"
python3 - "$W/inbound.tsv" "$W/events.ndjson" <<'EOF'
import json, sys
rows = []
for line in open(sys.argv[1]):
    ts, value = line.rstrip("\n").split("\t", 1)
    event = json.loads(value)
    rows.append((int(ts), event))
rows.sort(key=lambda r: r[0])
with open(sys.argv[2], "w") as out:
    for ts, event in rows:
        out.write(json.dumps(dict(ts=ts, **event)) + "\n")
EOF
"${SLUICE[@]}" simulate --config "$W/sluice.yaml" --events "$W/events.ndjson" --json "$W/simulated.json" \
  --html "$W/simulated.html" > "$W/simulated.txt" 2> "$W/logs/simulate-cli.log"

log "simulated in: $(head -1 "$W/simulated.txt")"
python3 - "$W/events.ndjson" "$W/records/api.jsonl" "$W/simulated.json" <<'EOF' | tee "$W/fidelity.txt"
import json, math, sys
arrived = {}
tenant_of = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    arrived[e["id"]] = e["ts"]
    tenant_of[e["id"]] = e["tenant"]
called = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("verdict") == "ok" and r.get("id") in arrived:
        called.setdefault(r["id"], r["t"])   # the first accepted call
late = {}
for i, t in called.items():
    late.setdefault(tenant_of[i], []).append(t - arrived[i])
def q(values, p):
    v = sorted(values)
    return v[max(1, math.ceil(p * len(v))) - 1]
sim = json.load(open(sys.argv[3]))["runs"][0]["tenants"]
worst = 0
print("tenant  real p50   sim p50   real p99   sim p99   diff p99")
for tenant in sorted(late):
    real99, real50 = q(late[tenant], 0.99), q(late[tenant], 0.5)
    s = sim[tenant]["latenessMillis"]
    diff = (s["p99"] - real99) / real99 if real99 > 0 else 0
    worst = max(worst, abs(diff))
    print("%-6s %9.0f %9d %10.0f %9d %+9.1f%%" % (tenant, real50, s["p50"], real99, s["p99"], 100 * diff))
print("worst per-tenant p99 difference: %.1f%% (%d tenants, %d calls)" % (100 * worst, len(late), len(called)))
sys.exit(0 if worst <= 0.10 else 1)
EOF
