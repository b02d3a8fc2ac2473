#!/usr/bin/env bash
# The realistic meshes on ns-3 (issue 49; docs/results/mesh.md): every controller on the mesh
# presets, quinn and noq, 5 seeds, and ns-3's own TCP (NewReno, Cubic, Vegas: the models ns-3
# keeps; its Westwood was removed in 3.38, ns-3 GitLab issue 579) once, with quinn's runs, since
# it does not depend on the QUIC stack. Resumable (a re-run skips the runs its directory has);
# about two hours on 2 cores (`mesh-mobile` half of it). The report is scripts/mesh-report.sh.
# Usage: scripts/mesh-evaluation.sh [OUT_DIR] (default results/mesh); HARNESS=path/to/harness
# (default: a release build with the ns3 feature); ADOPT_FROM=DIR adopts each sweep's runs from
# DIR/NAME where that directory exists, as scripts/manet-evaluation.sh does.
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
# shellcheck source=scripts/mesh-presets.sh
source "$(dirname "$0")/mesh-presets.sh"
check_args 0 1 "[OUT_DIR]" "$@"
out=${1:+$(realpath -m -- "$1")}
adopt_from=${ADOPT_FROM:+$(realpath -m -- "$ADOPT_FROM")}
harness=$(HARNESS_FEATURES=ns3 harness_binary)
cd "$(dirname "$0")/.."
out=${out:-results/mesh}
for stack in quinn noq; do
  controllers=newreno,cubic,bbr,manet,karak,petra,ub,sackfew,abra,tcp-newreno,tcp-cubic,tcp-vegas
  [ "$stack" = noq ] && controllers=newreno,cubic,bbr3,manet,karak,petra,ub,sackfew,abra
  for preset in "${mesh_presets[@]}"; do
    sweep_adopting "$harness" "$out" "$adopt_from" "$stack/$preset" --preset "$preset" \
      --stack "$stack" --controllers "$controllers" --seeds 5 --jobs "${JOBS:-2}"
  done
done
