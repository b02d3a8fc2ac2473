# Sourced by the scripts. `check_args MIN MAX USAGE "$@"` exits 2 with the
# usage unless MIN to MAX arguments are given, and refuses an empty first argument, which the
# scripts' defaults would otherwise read as "this repository's directory".
check_args() {
  local min=$1 max=$2 usage=$3
  shift 3
  if [ $# -ge 1 ] && [ -z "$1" ]; then
    echo "$0: an empty directory argument would mean this repository's; give a path" >&2
    exit 2
  fi
  if [ $# -lt "$min" ] || [ $# -gt "$max" ]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
}

# `harness=$(harness_binary)`: HARNESS (a path from the caller's directory) or, unset, a release
# build of this repository made now. Call it before the script changes directory.
harness_binary() {
  if [ -n "${HARNESS:-}" ]; then
    realpath -m -- "$HARNESS"
  else
    local root
    root=$(cd "$(dirname "$0")/.." && pwd)
    (cd "$root" && cargo build --release -q -p harness --locked >&2)
    echo "$root/target/release/harness"
  fi
}

# `sweep_adopting HARNESS OUT ADOPT_FROM NAME ARGS...` runs `HARNESS sweep ARGS --out OUT/NAME`,
# adopting the runs of ADOPT_FROM/NAME when that directory exists (ADOPT_FROM may be empty): after
# a change of the composite alone, the baselines come from an earlier sweep and only the
# composite's runs are made again.
sweep_adopting() {
  local harness=$1 out=$2 adopt_from=$3 name=$4
  shift 4
  local adopt=()
  if [ -n "$adopt_from" ] && [ -d "$adopt_from/$name" ]; then
    adopt=(--adopt "$adopt_from/$name")
  fi
  "$harness" sweep "$@" "${adopt[@]}" --out "$out/$name"
}
