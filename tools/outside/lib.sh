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
