#!/usr/bin/env bash
# Re-identifies every committed result directory (results/README.md) under this build's run
# identity, by proof: `harness sweep CMD --reidentify results/DIR --verify N --out NEW/DIR`
# reruns N of each directory's reproducible runs and writes NEW/DIR only if each is identical
# to the file (results/README.md, "Run identity"). The directories' commands are the ones
# results/README.md lists, with the controllers the harness then ran by default written out
# (eight, before `manet` joined them) and stock AODV named where those runs used it.
# results/manet is scripts/manet-evaluation.sh's: REIDENTIFY_FROM=results/manet re-identifies it.
# Usage: scripts/reidentify-results.sh NEW_DIR [VERIFY] (VERIFY default 1); HARNESS=path (default
# target/release/harness, built with the ns3 feature); JOBS (default 2).
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
check_args 1 2 "NEW_DIR [VERIFY]" "$@"
# NEW_DIR and HARNESS are the caller's (relative to where the command runs).
new=$(realpath -m -- "$1")
verify=${2:-1}
harness=${HARNESS:+$(realpath -m -- "$HARNESS")}
cd "$(dirname "$0")/.."
harness=${harness:-target/release/harness}
if [ -e "$new" ] && [ "$(realpath -- "$new")" = "$(realpath -- results)" ]; then
  echo "NEW_DIR is results/ itself: give a new directory (nothing is overwritten)" >&2
  exit 2
fi
jobs=${JOBS:-2}
eight=newreno,cubic,bbr,karak,petra,ub,sackfew,abra
stock=(--ns3 aodv.gratuitous_reply=true)
tcp=newreno,cubic,bbr,karak,petra,ub,sackfew,abra,tcp-newreno,tcp-cubic,tcp-vegas,tcp-westwood,tcp-westwoodplus
failed=()
reid() { # directory under results/, then the sweep's arguments
  local dir=$1
  shift
  if [ -e "$new/$dir" ]; then
    echo "skipping $dir: $new/$dir exists"
    return
  fi
  echo "== $dir"
  if ! "$harness" sweep "$@" --jobs "$jobs" --reidentify "results/$dir" --verify "$verify" \
    --out "$new/$dir" >/dev/null; then
    failed+=("$dir")
  fi
}
reid karak-speed-ns3 --preset karak-speed-ns3 --controllers newreno,cubic,bbr,karak --seeds 5 "${stock[@]}"
reid karak-speed-ns3-single --preset karak-speed-ns3 --ns3 sources=1 --controllers newreno,cubic,bbr,karak --seeds 10 "${stock[@]}"
reid karak-speed-ns3-single-arp1s --preset karak-speed-ns3 --ns3 sources=1 --ns3 arp.dead_timeout=1s --controllers newreno,cubic,bbr,karak --seeds 10 "${stock[@]}"
reid karak-ber-ns3 --preset karak-ber-ns3 --controllers newreno,cubic,bbr,karak --seeds 5 "${stock[@]}"
reid abra-speed-ns3 --preset abra-speed-ns3 --controllers newreno,cubic,bbr,abra "${stock[@]}"
reid abra-pause-ns3 --preset abra-pause-ns3 --controllers newreno,cubic,bbr,abra "${stock[@]}"
reid abra-nodes-ns3 --preset abra-nodes-ns3 --controllers newreno,cubic,bbr,abra "${stock[@]}"
reid sackfew-nodes-ns3 --preset sackfew-nodes-ns3 --controllers newreno,cubic,bbr,sackfew "${stock[@]}"
reid ub-mobility-netsim --preset ub-mobility --controllers newreno,cubic,bbr,ub --seeds 5
reid sackfew-nodes-netsim --preset sackfew-nodes --controllers newreno,cubic,bbr,sackfew --seeds 5
reid abra-speed-netsim --preset abra-speed --controllers newreno,cubic,bbr,abra --seeds 5
reid abra-pause-netsim --preset abra-pause --controllers newreno,cubic,bbr,abra --seeds 5
reid abra-nodes-netsim --preset abra-nodes --controllers newreno,cubic,bbr,abra --seeds 5
reid ub-mobility-ns3 --preset ub-mobility-ns3 --controllers newreno,cubic,bbr,ub "${stock[@]}"
reid ub-mobility-ns3-reading-b --preset ub-mobility-ns3 --controllers ub --timeout-reading probe_timeout --seed 1,2,3 "${stock[@]}"
reid karak-speed-ns3-single-netsim-movement --preset karak-speed-ns3 --ns3 sources=1 --ns3 topology.movement=netsim --controllers newreno,karak --seeds 10 "${stock[@]}"
reid karak-speed-netsim --preset karak-speed --link path.sink=49 --duration 120s --controllers newreno,cubic,bbr,karak --seeds 10
reid ns3-chain --preset ns3-chain --controllers "$eight" "${stock[@]}"
reid ns3-chain-tcp --preset ns3-chain --controllers "$tcp" --seeds 10
reid ns3-manet-tcp --preset ns3-manet --controllers "$tcp" --seeds 5
reid ns3-chain-stock-aodv --preset ns3-chain --controllers newreno,tcp-newreno --seeds 10 "${stock[@]}"
reid ns3-manet-stock-aodv --preset ns3-manet --controllers newreno,tcp-newreno --seeds 5 "${stock[@]}"
reid ns3-chain-gap/newreno-ack200ms --preset ns3-chain --controllers newreno --ack-delay 200ms --seeds 10
reid ns3-chain-gap/sackfew-alpha1 --preset ns3-chain --controllers sackfew --set sackfew.alpha=1 --seeds 10
reid ns3-chain-gap/sackfew-alpha0.5 --preset ns3-chain --controllers sackfew --set sackfew.alpha=0.5 --seeds 10
reid ns3-chain-gap/sackfew-alpha0.5-ack200ms --preset ns3-chain --controllers sackfew --set sackfew.alpha=0.5 --ack-delay 200ms --seeds 10
for p in abra-pause-ns3 abra-speed-ns3; do
  reid "$p-with-tcp" --preset "$p" --controllers newreno,cubic,bbr,abra,tcp-newreno "${stock[@]}"
done
reid karak-ber-ns3-with-tcp --preset karak-ber-ns3 --controllers newreno,cubic,bbr,karak,tcp-newreno --seeds 5 "${stock[@]}"
reid chain-netsim --preset chain --controllers "$eight"
reid karak-speed-netsim-mac --preset karak-speed --link path.sink=49 --link 'mac={}' --duration 120s --controllers newreno,cubic,bbr,karak --seeds 10
for d in 500ms 1s 2s 4s; do
  reid "karak-speed-netsim-mac-discovery-$d" --preset karak-speed --link path.sink=49 --link 'mac={}' --link "path.route_discovery_delay=$d" --duration 120s --controllers newreno,karak --seeds 10
done
reid karak-ber-netsim --preset karak-ber --controllers newreno,karak --seeds 5
reid karak-ber-netsim-mac --preset karak-ber --controllers newreno,karak --seeds 5 --link 'mac={}'
# Every directory of results/ (but manet, scripts/manet-evaluation.sh's) must be listed above.
for dir in $(cd results && find . -name '*.jsonl' -not -path './manet/*' -printf '%h\n' | sort -u); do
  dir=${dir#./}
  [ -e "$new/$dir" ] || failed+=("$dir (not listed in this script)")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "not re-identified (rerun them): ${failed[*]}" >&2
  exit 1
fi
