#!/usr/bin/env bash
# The composite controller's evaluation (cc-manet; docs/results/manet.md, and the README's decision table):
# every sweep below, resumable (a re-run skips the runs its directory has), then each one's
# table with the paired ratios to NewReno and Cubic (`harness merge`). The ablation sweeps turn
# one mechanism off each; the scorecard and the ablation table close it (`harness scorecard`,
# by scripts/manet-report.sh); about 6 minutes on 2 cores, 2 more for four own flows on ns-3's
# chains, about 25 more for ns-3's chains under other 802.11 settings (802.11a's and 802.11g's
# higher rates carry many more datagrams), about 25 more for the papers' ns-3 presets and 28
# more for ABRA's and SACK-FeW's node sweeps among them (networks of up to 200 nodes).
# Usage: scripts/manet-evaluation.sh [OUT_DIR] (default results/manet);
# HARNESS=path/to/harness (default: a release build with the ns3 feature); DRY_RUN=1 checks
# every sweep with `--dry-run` (its grid, and that OUT_DIR's directory for it resumes) and
# runs nothing. ADOPT_FROM=DIR adopts each sweep's runs from DIR/NAME where that directory
# exists (the baselines of an earlier evaluation, after a change of the composite alone: a
# directory of runs this build would make the same, e.g. an earlier OUT_DIR's swept again
# without `manet` by the build that made it); the composite's runs are run again.
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
# shellcheck source=scripts/manet-ablations.sh
source "$(dirname "$0")/manet-ablations.sh"
check_args 0 1 "[OUT_DIR]" "$@"
# OUT_DIR and HARNESS are the caller's (relative to where the command runs); the defaults are
# this repository's.
out=${1:+$(realpath -m -- "$1")}
harness=${HARNESS:+$(realpath -m -- "$HARNESS")}
reidentify_from=${REIDENTIFY_FROM:+$(realpath -m -- "$REIDENTIFY_FROM")}
adopt_from=${ADOPT_FROM:+$(realpath -m -- "$ADOPT_FROM")}
cd "$(dirname "$0")/.."
out=${out:-results/manet}
harness=${harness:-target/release/harness}
if [ -z "${HARNESS:-}" ]; then
  cargo build --release -p harness --features ns3 --locked
fi
jobs=${JOBS:-2}
baselines_quinn=newreno,cubic,bbr,manet
baselines_noq=newreno,cubic,bbr3,manet
# REIDENTIFY_FROM=DIR: instead of sweeping, re-identify DIR/NAME into OUT_DIR/NAME with each
# sweep's own arguments (less --adopt), rerunning VERIFY (default 1) runs of each controller first
# (scripts/reidentify-results.sh; results/README.md, "Run identity").
sweep() { # name, then harness sweep arguments
  local name=$1
  shift
  if [ -n "$reidentify_from" ]; then
    local args=() skip=false arg
    for arg in "$@"; do
      if $skip; then
        skip=false
      elif [ "$arg" = --adopt ]; then
        skip=true
      else
        args+=("$arg")
      fi
    done
    if [ -e "$out/$name" ]; then
      echo "skipping $name: $out/$name exists"
      return
    fi
    echo "== $name"
    "$harness" sweep "${args[@]}" --jobs "$jobs" --reidentify "$reidentify_from/$name" \
      --verify "${VERIFY:-1}" --out "$out/$name" >/dev/null
    return
  fi
  if [ -n "${DRY_RUN:-}" ]; then
    local plan
    plan=$("$harness" sweep "$@" --jobs "$jobs" --out "$out/$name" --dry-run)
    grep -e '--out' <<<"$plan"
    return
  fi
  sweep_adopting "$harness" "$out" "$adopt_from" "$name" "$@" --jobs "$jobs"
}
# ns-3's chains under other 802.11 settings, beyond the targets' presets: DIR:KEY=VALUE,... under
# [ns3]; the `--ns3` arguments of one are `chain_settings DIR`'s output, one per line.
chain_variants=(802.11a:wifi.standard=802.11a,wifi.data_rate_mbps=12
  802.11g:wifi.standard=802.11g,wifi.data_rate_mbps=54 11mbps:wifi.data_rate_mbps=11
  rts-cts:wifi.rts_cts=true ber:wifi.bit_error_rate=2e-5)
chain_settings() { # DIR
  local variant pair pairs
  for variant in "${chain_variants[@]}"; do
    [ "${variant%%:*}" = "$1" ] || continue
    IFS=, read -ra pairs <<<"${variant#*:}"
    for pair in "${pairs[@]}"; do
      printf '%s\n' --ns3 "$pair"
    done
  done
}
# The presets of issue 34's targets, on quinn and on noq.
for stack in quinn noq; do
  b=$baselines_quinn
  [ "$stack" = noq ] && b=$baselines_noq
  sweep "$stack/demo" --preset demo --stack "$stack" --controllers "$b"
  sweep "$stack/petra-table-4.2" --preset petra-table-4.2 --stack "$stack" --controllers "$b"
  sweep "$stack/coexist-wireless" --preset coexist-wireless --stack "$stack" --controllers "$b"
  sweep "$stack/coexist-manet" --preset coexist-manet --stack "$stack" --controllers "$b"
  sweep "$stack/chain" --preset chain --stack "$stack" --controllers "$b"
  sweep "$stack/ns3-chain" --preset ns3-chain --stack "$stack" --controllers "$b" --seeds 5
  sweep "$stack/ns3-manet" --preset ns3-manet --stack "$stack" --controllers "$b" --seeds 5
  # Beyond the targets' presets: per-packet delay jitter, which no preset has.
  sweep "$stack/jitter" --preset jitter --stack "$stack" --controllers "$b"
  # Beyond the targets' presets: other rates, delays and a burst-loss model on one link, and
  # ns-3's chains under proactive routing (40 s of warm-up first: without it DSDV's periodic
  # updates left the 8-hop chain without a route for the first 30 s).
  sweep "$stack/paths" --preset paths --stack "$stack" --controllers "$b"
  for routing in olsr dsdv; do
    sweep "$stack/ns3-chain-$routing" --preset ns3-chain --ns3 "routing=$routing" \
      --ns3 start=40s --stack "$stack" --controllers "$b" --seeds 5
  done
  # Beyond the targets' presets: ns-3's chains under other 802.11 settings, and at hop counts
  # the preset does not have.
  for variant in "${chain_variants[@]}"; do
    mapfile -t settings < <(chain_settings "${variant%%:*}")
    sweep "$stack/ns3-chain-${variant%%:*}" --preset ns3-chain "${settings[@]}" --stack "$stack" \
      --controllers "$b" --seeds 5
  done
  sweep "$stack/ns3-chain-hops" --preset ns3-chain-hops --stack "$stack" \
    --controllers "$b"
  sweep "$stack/one-hop" --preset ns3-one-hop --stack "$stack" --controllers "$b"
done
# An ns-3 grid under AODV and OLSR, and the best fixed window on DSDV's chains (quinn).
sweep "quinn/grid" --preset ns3-grid --controllers "$baselines_quinn"
for packets in 2 3 4 5; do
  sweep "quinn/ns3-chain-dsdv-fixed-$packets" --preset ns3-chain --ns3 routing=dsdv \
    --ns3 start=40s --controllers fixed --set "fixed.packets=$packets" --seeds 5
done
# Four of its own flows beside Cubic's four (issue 52: Jain >= 0.9 and at least Cubic's four
# together): on a clean shared bottleneck, and on ns-3's chains (802.11b at 2 Mb/s, AODV; the
# preset's hop counts and ns3-chain-hops' 3, 5, 6 and 12), where the flows share the chain's
# airtime and each one's hops contend with the others'.
for stack in quinn noq; do
  sweep "$stack/coexist-own4" --preset coexist --mix run,run,run,run --stack "$stack" \
    --controllers manet,cubic
  sweep "$stack/ns3-chain-own4" --preset ns3-chain --mix run,run,run,run --stack "$stack" \
    --controllers manet,cubic --seeds 5
  sweep "$stack/ns3-chain-hops-own4" --preset ns3-chain-hops --mix run,run,run,run \
    --stack "$stack" --controllers manet,cubic
done
# The best fixed window on ns-3's chains (2-5 datagrams on quinn, 1-4 in flight: chain_windows'
# optimum is 1-3).
for packets in 2 3 4 5; do
  sweep "quinn/ns3-chain-fixed-$packets" --preset ns3-chain --controllers fixed \
    --set "fixed.packets=$packets" --seeds 5
done
# Ablations on quinn: each mechanism off (DIR:SETTING; a switch's directory is its knob).
for ablation in "${manet_ablations[@]}"; do
  dir=${ablation%%:*}
  setting=manet.${ablation#*:}
  for preset in demo petra-table-4.2 coexist-wireless chain; do
    sweep "ablation/$dir/$preset" --preset "$preset" --controllers manet --set "$setting"
  done
  sweep "ablation/$dir/ns3-chain" --preset ns3-chain --controllers manet --set "$setting" --seeds 5
  sweep "ablation/$dir/jitter" --preset jitter --controllers manet \
    --set "$setting"
  sweep "ablation/$dir/coexist-own4" --preset coexist --mix run,run,run,run --controllers manet \
    --set "$setting"
  sweep "ablation/$dir/ns3-chain-own4" --preset ns3-chain --mix run,run,run,run \
    --controllers manet --set "$setting" --seeds 5
done
# quinn's send check uncompensated (manet's quinn_full_window, on by default, off).
for preset in demo petra-table-4.2 coexist-wireless chain; do
  sweep "ablation/quinn_full_window/$preset" --preset "$preset" --controllers manet \
    --quinn-full-window=false
done
sweep "ablation/quinn_full_window/ns3-chain" --preset ns3-chain --controllers manet \
  --quinn-full-window=false --seeds 5
sweep "ablation/quinn_full_window/jitter" --preset jitter \
  --controllers manet --quinn-full-window=false
# The in-flight cap (`bdp_cap`) off on ns-3's chains under 802.11a and 802.11g and on one
# 802.11a hop: where the composite trails Cubic on one hop, and what the cap does on the chains.
sweep "ablation/bdp_cap/one-hop" --preset ns3-one-hop --controllers manet \
  --set manet.bdp_cap=false
for dir in 802.11a 802.11g; do
  mapfile -t settings < <(chain_settings "$dir")
  sweep "ablation/bdp_cap/ns3-chain-$dir" --preset ns3-chain "${settings[@]}" --controllers manet \
    --set manet.bdp_cap=false --seeds 5
done
# The rate trials' cadence (`rate_check_loss_backoff`) off on 802.11g's chains, whose windows
# are large enough for trials to run (on 802.11b's they are not).
mapfile -t settings < <(chain_settings 802.11g)
sweep "ablation/rate_check_loss_backoff/ns3-chain-802.11g" --preset ns3-chain "${settings[@]}" \
  --controllers manet --set manet.rate_check_loss_backoff=false --seeds 5
# The papers' ns-3 presets (quinn), `manet` beside the committed baselines of each: adopted
# from their sweeps, so on the same networks and seeds, with ns-3's stock AODV as they were run
# (its gratuitous replies, the black hole of netsim-ns3's README). About 2 core-hours; TCP-UB's
# mobility preset (about 2 core-hours for one controller) and Karak's speed preset are not
# among them.
papers_ns3() { # preset, the directory its baselines are in, their controllers, more arguments
  local preset=$1 adopt=$2 controllers=$3
  shift 3
  sweep "papers-ns3/$preset" --preset "$preset" --controllers "$controllers,manet" \
    --ns3 aodv.gratuitous_reply=true --adopt "results/$adopt" "$@"
}
papers_ns3 karak-ber-ns3 karak-ber-ns3-with-tcp newreno,cubic,bbr,karak,tcp-newreno --seeds 5
papers_ns3 abra-pause-ns3 abra-pause-ns3-with-tcp newreno,cubic,bbr,abra,tcp-newreno
papers_ns3 abra-speed-ns3 abra-speed-ns3-with-tcp newreno,cubic,bbr,abra,tcp-newreno
papers_ns3 sackfew-nodes-ns3 sackfew-nodes-ns3 newreno,cubic,bbr,sackfew
papers_ns3 abra-nodes-ns3 abra-nodes-ns3 newreno,cubic,bbr,abra
# The report (docs/results/manet.md when OUT_DIR is results/manet).
if [ -z "$reidentify_from" ] && [ -z "${DRY_RUN:-}" ]; then
  scripts/manet-report.sh "$out"
fi
