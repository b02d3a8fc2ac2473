#!/usr/bin/env bash
# What a user pays for a controller on a real transfer (issue 52's cost target): the `bulk`
# example's loopback transfer over real UDP, CONTROLLER against the stack's Cubic, in PAIRS
# alternating pairs (the order swapped every other pair), each process timed by GNU time. Prints
# each pair's CPU seconds per GB and goodput, and the median of the pairs' ratios (CONTROLLER
# over Cubic). Run it on a quiet machine: it prints the load average before and after.
# Usage: scripts/loopback-cost.sh [PAIRS] (default 9); CONTROLLER (default manet), STACK (quinn
# or noq, default quinn), BYTES (default 10^9: about 2 s of CPU, 0.5% of it GNU time's 10 ms
# resolution); BULK=path/to/bulk, or a release build made here.
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
check_args 0 1 "[PAIRS]" "$@"
pairs=${1:-9}
controller=${CONTROLLER:-manet}
stack=${STACK:-quinn}
bytes=${BYTES:-1000000000}
if ! [[ $pairs =~ ^[1-9][0-9]?$ ]]; then
  echo "$0: PAIRS must be a whole number from 1 to 99, got \`$pairs\`" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "$0: needs GNU time (/usr/bin/time; Debian's package \`time\`)" >&2
  exit 2
fi
bulk=${BULK:+$(realpath -m -- "$BULK")}
cd "$(dirname "$0")/.."
if [ -z "$bulk" ]; then
  features=()
  [ "$stack" = noq ] && features=(--features noq)
  cargo build --release -q -p cc-ports --example bulk "${features[@]}" --locked >&2
  bulk=target/release/examples/bulk
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One transfer: "CPU_SECONDS MBPS" (user + system time of the whole process).
transfer() {
  /usr/bin/time -f '%U %S' -o "$work/time" "$bulk" loopback --stack "$stack" \
    --controller "$1" --bytes "$bytes" >"$work/out"
  local mbps
  mbps=$(sed -n 's/.* s, \([0-9.]*\) Mb\/s;.*/\1/p' "$work/out")
  if [ -z "$mbps" ]; then
    echo "$0: $1 printed no rate: $(cat "$work/out")" >&2
    exit 1
  fi
  awk -v mbps="$mbps" '{ printf "%.3f %s\n", $1 + $2, mbps }' "$work/time"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| pair | $controller CPU s/GB | cubic CPU s/GB | CPU ratio | $controller Mb/s | cubic Mb/s | goodput ratio |"
echo "|---|---|---|---|---|---|---|"
ratios=$work/ratios
for pair in $(seq "$pairs"); do
  if [ $((pair % 2)) -eq 1 ]; then
    read -r mine_cpu mine_rate < <(transfer "$controller")
    read -r cubic_cpu cubic_rate < <(transfer cubic)
  else
    read -r cubic_cpu cubic_rate < <(transfer cubic)
    read -r mine_cpu mine_rate < <(transfer "$controller")
  fi
  awk -v p="$pair" -v mc="$mine_cpu" -v cc="$cubic_cpu" -v mr="$mine_rate" -v cr="$cubic_rate" \
    -v gb="$bytes" 'BEGIN {
      printf "| %d | %.2f | %.2f | %.3f | %.1f | %.1f | %.3f |\n", p, mc / gb * 1e9, cc / gb * 1e9,
        mc / cc, mr, cr, mr / cr
      printf "%.4f %.4f\n", mc / cc, mr / cr > "/dev/stderr"
    }' 2>>"$ratios"
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "Median over $pairs pairs ($stack, $bytes bytes each): CPU $controller / cubic" \
  "$(cut -d' ' -f1 "$ratios" | median), goodput $controller / cubic $(cut -d' ' -f2 "$ratios" | median)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
