# What every outside check shares (sourced after it sets W and defines log): the processes it
# started, stopped in reverse on any exit (SIGTERM, then SIGKILL after 30 s); free loopback
# ports; waiting for a condition with a deadline that names what did not come.
PIDS=()      # every process started, in order; stopped in reverse
stop() {     # stop PID...: SIGTERM, then SIGKILL after 30 s
  local pid
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
cleanup() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do stop "${PIDS[$i]}"; done
  PIDS=()
}
trap cleanup EXIT
trap 'log "FAILED at line $LINENO: $BASH_COMMAND"' ERR
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() {   # wait_for SECONDS WHAT COMMAND...
  local seconds=$1 what=$2 until=$((SECONDS + $1)); shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$until" ] || { log "FAILED: $what not within ${seconds}s"; exit 1; }
    sleep 0.2
  done
}

# start_redis: redis-server on $REDIS_PORT, its data in $W/redis (with its append-only file when
# REDIS_APPENDONLY=yes, so that a restart finds it again), its pid in PID_redis.
start_redis() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly "${REDIS_APPENDONLY:-no}" \
    --dir "$W/redis" >> "$W/logs/redis.log" 2>&1 &
  PID_redis=$!
  PIDS+=($PID_redis)
  wait_for 10 "redis-server" redis-cli -p "$REDIS_PORT" ping
}

# start_servers: redis-server and a Kafka broker (KRaft, the lab jar's StandaloneKafkaBroker) on
# free ports; sets REDIS_PORT, BROKER (host:port) and PID_broker.
start_servers() {
  local kafka_port controller_port
  kafka_port=$(free_port); controller_port=$(free_port); REDIS_PORT=$(free_port)
  BROKER=localhost:$kafka_port
  start_redis
  java -Xmx768m -XX:+UseSerialGC -cp "$LAB_JAR" io.sluice.embedded.StandaloneKafkaBroker \
    "$W/broker" "$kafka_port" "$controller_port" > "$W/logs/broker.log" 2>&1 &
  PID_broker=$!
  PIDS+=($PID_broker)
  wait_for 90 "the Kafka broker" kcat -b "$BROKER" -L -m 2
  log "broker $BROKER (pid $PID_broker), redis-server :$REDIS_PORT (pid $PID_redis)"
}

# judge LOG COMMAND...: runs a judge, its output also appended to LOG; its exit code in VERDICT
# (a failing verdict is reported by the caller, not by the ERR trap).
judge() {
  local log_file=$1; shift
  set +e; trap - ERR
  "$@" | tee -a "$log_file"
  VERDICT=${PIPESTATUS[0]}
  set -e; trap 'log "FAILED at line $LINENO: $BASH_COMMAND"' ERR
}

# install_node: the outside peers (tools/outside/*.mjs) and the reference `standardwebhooks`
# library, from the pinned lock file, into $W/node.
install_node() {
  cp "$ROOT"/dispatcher/src/test/node/standardwebhooks/package{,-lock}.json "$ROOT"/tools/outside/*.mjs "$W/node/"
  (cd "$W/node" && npm ci --no-audit --no-fund --ignore-scripts --silent) > "$W/logs/npm.log" 2>&1
  log "standardwebhooks $(node -p 'require(process.argv[1]).version' "$W/node/node_modules/standardwebhooks/package.json") installed from the pinned lock"
}

# peer NAME SCRIPT ENV...: a Node.js peer from $W/node, its record in $W/records/NAME.jsonl, its
# port in $W/NAME.port (once listening), its pid in PID_NAME ('-' as '_').
peer() {
  local name=$1 script=$2; shift 2
  (cd "$W/node" && exec env RECORD_FILE="$W/records/$name.jsonl" PORT_FILE="$W/$name.port" "$@" \
     node "$script") > "$W/logs/$name.log" 2>&1 &
  PIDS+=($!)
  eval "PID_${name//-/_}=$!"
}
