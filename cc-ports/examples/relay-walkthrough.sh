#!/usr/bin/env bash
# Watch a port on an emulated MANET path in real time: the bulk example's server, netsim-relay
# with cc-ports/examples/manet-path.toml between them, and the client sending through the relay
# and printing its progress every second (window, RTT, losses; stalls while the route is down).
#
#   bash cc-ports/examples/relay-walkthrough.sh [CONTROLLER] [SECONDS] [STACK]
#
# Defaults: karak, 30 s, quinn; SEED=N picks the relay's seed (the nodes' movement). Builds the two binaries (release) unless BIN_DIR names a
# directory that has them (CI passes target/debug). Loopback only; stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
controller=${1:-karak}
seconds=${2:-30}
stack=${3:-quinn}
if [ -z "${BIN_DIR:-}" ]; then
  cargo build --release -q -p cc-ports --features noq --example bulk -p manet-netsim --bin netsim-relay
  BIN_DIR=target/release
fi
bulk="$BIN_DIR/examples/bulk"
relay="$BIN_DIR/netsim-relay"
work=$(mktemp -d)
server_port=$((20000 + RANDOM % 20000))
relay_port=$((server_port + 1))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$bulk" server --listen "127.0.0.1:$server_port" --cert "$work/cert.der" >"$work/server.log" 2>&1 &
pids+=($!)
"$relay" --upstream "127.0.0.1:$server_port" --listen "127.0.0.1:$relay_port" \
  --config cc-ports/examples/manet-path.toml --seed "${SEED:-1}" >"$work/relay.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
  [ -s "$work/cert.der" ] && break
  sleep 0.1
done

echo "== $controller on $stack through a MANET path (20 m/s, 2 Mb/s hops; relay seed ${SEED:-1}), writing for $seconds s"
# The client writes for $seconds s, at most 128 KB ahead of the acknowledgements, then waits
# until the server has everything (a down route can hold that up; the timeout bounds it).
timeout "$((seconds + 60))" "$bulk" --stack "$stack" client --connect "127.0.0.1:$relay_port" \
  --cert "$work/cert.der" --controller "$controller" --bytes 1000000000 --duration "${seconds}s" \
  --send-window 131072 --every 1s
sleep 0.5
echo "== server"
cat "$work/server.log"
