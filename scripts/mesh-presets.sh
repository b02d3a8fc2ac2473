# Sourced by scripts/mesh-evaluation.sh and scripts/mesh-report.sh: the realistic-mesh presets
# (issue 49), declared once.
# shellcheck disable=SC2034
mesh_presets=(mesh-chain mesh-grid mesh-mobile)
