#!/usr/bin/env bash
# The regime grid that judges the composite (issue 52; docs/results/regimes.md): every
# controller on the netsim part of the grid on quinn and noq, 5 seeds, then each of the
# composite's mechanisms off on quinn (the ablation, against the whole composite), resumable (a
# re-run skips the runs its directory has); about 10 minutes on 2 cores for the controllers and
# 10 more for the ablation. The report is scripts/regimes-report.sh.
# Usage: scripts/regimes-evaluation.sh [OUT_DIR] (default results/regimes);
# HARNESS=path/to/harness (default: a release build made here); ADOPT_FROM=DIR adopts each
# sweep's runs from DIR/NAME where that directory exists, as scripts/manet-evaluation.sh does.
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
# shellcheck source=scripts/manet-ablations.sh
source "$(dirname "$0")/manet-ablations.sh"
check_args 0 1 "[OUT_DIR]" "$@"
out=${1:+$(realpath -m -- "$1")}
adopt_from=${ADOPT_FROM:+$(realpath -m -- "$ADOPT_FROM")}
harness=$(harness_binary)
cd "$(dirname "$0")/.."
out=${out:-results/regimes}
presets=(regimes-netsim regimes-jitter regimes-wifi-lan)
sweep() { # name, then harness sweep arguments
  sweep_adopting "$harness" "$out" "$adopt_from" "$@" --seeds 5 --jobs "${JOBS:-2}"
}
for stack in quinn noq; do
  bbr=bbr
  [ "$stack" = noq ] && bbr=bbr3
  for preset in "${presets[@]}"; do
    sweep "$stack/$preset" --preset "$preset" --stack "$stack" \
      --controllers "newreno,cubic,$bbr,manet,karak,petra,ub,sackfew,abra"
  done
done
for ablation in "${manet_ablations[@]}"; do
  for preset in "${presets[@]}"; do
    sweep "ablation/${ablation%%:*}/$preset" --preset "$preset" --controllers manet \
      --set "manet.${ablation#*:}"
  done
done
