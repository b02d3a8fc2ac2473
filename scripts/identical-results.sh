#!/usr/bin/env bash
# Runs the same experiments with two harness builds and fails unless their JSON reports are
# byte-identical: the check that a change meant to be invisible in results (issue 35's lean
# ledger) is. The JSON report is deterministic (the same command and seeds give the same bytes).
#
# Usage: scripts/identical-results.sh OLD_HARNESS NEW_HARNESS OUT_DIR [--quick]
#   OUT_DIR must not exist (nothing is overwritten); it appears only when the comparison
#   finished (the work is done in OUT_DIR.partial.XXXXXX, removed if interrupted or failed).
#   --quick runs one seed of each.
# Experiments: the demo (quinn), PETRA's Table 4.2 grid (quinn and noq), and, when both
# binaries have the ns3 feature, ns3-chain on quinn and noq. On noq every controller but bbr3
# runs: noq's BBRv3 draws from an RNG noq 1.4 does not let us seed, so its runs (marked
# "reproducible": false) differ between any two runs of one binary. Then the batch path: the
# demo as a two-shard sweep per build, each merged; the merged reports must be identical and
# the shard files must hold the same lines (in the order the runs finished).
set -euo pipefail

if [ $# -lt 3 ] || [ $# -gt 4 ] || { [ $# -eq 4 ] && [ "$4" != --quick ]; }; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
old=$1 new=$2 final=$3
seeds=3
[ "${4:-}" = --quick ] && seeds=1
for bin in "$old" "$new"; do
  if [ ! -x "$bin" ] || [ -d "$bin" ]; then
    echo "$bin is not an executable (give two harness binaries)" >&2
    exit 2
  fi
done
if [ -e "$final" ]; then
  echo "$final exists: give a new directory (nothing is overwritten)" >&2
  exit 2
fi
out=$(mktemp -d "${final%/}.partial.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/old" "$out/new"

noq_controllers=$("$new" controllers | awk '/^[a-z]/ && $1 !~ /^(bbr|bbr3|tcp-.*)$/ {print $1}' | paste -sd, -)
experiments=(
  "demo-quinn|--preset demo --seeds $seeds"
  "petra-quinn|--preset petra-table-4.2 --seeds $seeds"
  "petra-noq|--preset petra-table-4.2 --seeds $seeds --stack noq --controllers $noq_controllers"
)
if "$old" presets 2>/dev/null | grep -q '^ns3-chain' && "$new" run --preset ns3-chain --seeds 1 \
  --controllers newreno --json /dev/null >/dev/null 2>&1; then
  experiments+=(
    "ns3-chain-quinn|--preset ns3-chain --seeds $seeds"
    "ns3-chain-noq|--preset ns3-chain --seeds $seeds --stack noq --controllers $noq_controllers"
  )
else
  echo "note: ns3-chain skipped (a harness without the ns3 feature)" >&2
fi

status=0
for e in "${experiments[@]}"; do
  name=${e%%|*} args=${e#*|}
  for side in old new; do
    bin=$old
    [ $side = new ] && bin=$new
    # shellcheck disable=SC2086 # args are words
    "$bin" run $args --json "$out/$side/$name.json" >/dev/null
  done
  if cmp -s "$out/old/$name.json" "$out/new/$name.json"; then
    echo "identical: $name ($(wc -c <"$out/new/$name.json") bytes)"
  else
    echo "DIFFERENT: $name (diff $final/old/$name.json $final/new/$name.json)"
    status=1
  fi
done
for side in old new; do
  bin=$old
  [ $side = new ] && bin=$new
  for shard in 0/2 1/2; do
    "$bin" sweep --preset demo --seeds "$seeds" --shard "$shard" --out "$out/$side/sweep" >/dev/null 2>&1
  done
  "$bin" merge "$out/$side/sweep" --json "$out/$side/sweep-merged.json" >/dev/null
done
same=true
cmp -s "$out/old/sweep-merged.json" "$out/new/sweep-merged.json" || same=false
for f in "$out"/old/sweep/*.jsonl; do
  cmp -s <(sort "$f") <(sort "$out/new/sweep/$(basename "$f")") || same=false
done
if $same; then
  echo "identical: demo sweep in two shards, merged"
else
  echo "DIFFERENT: demo sweep (diff -r $final/old/sweep $final/new/sweep)"
  status=1
fi
mv "$out" "$final"
trap - EXIT
exit $status
