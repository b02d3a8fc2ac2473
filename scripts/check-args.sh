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
# build of this repository made now, with HARNESS_FEATURES' cargo features (e.g. ns3). Call it
# before the script changes directory.
harness_binary() {
  if [ -n "${HARNESS:-}" ]; then
    realpath -m -- "$HARNESS"
  else
    local root
    root=$(cd "$(dirname "$0")/.." && pwd)
    (cd "$root" && cargo build --release -q -p harness --features "${HARNESS_FEATURES:-}" --locked >&2)
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

# `require_dirs WHAT DIR...` exits 2 at the first DIR that is not a directory, saying it is not
# WHAT (e.g. "the regime grid's results").
require_dirs() {
  local what=$1 dir
  shift
  for dir in "$@"; do
    if [ ! -d "$dir" ]; then
      echo "$dir is not a directory: not $what" >&2
      exit 2
    fi
  done
}

# A report script's document is printed only once it is whole: between `begin_report` and
# `end_report` standard output goes to a temporary file, so a failure half-way leaves a
# redirect target empty, not truncated.
begin_report() {
  report_file=$(mktemp)
  trap 'rm -f "$report_file"' EXIT
  exec 3>&1 >"$report_file"
}
end_report() {
  exec >&3
  cat "$report_file"
}

# `throughput_delay_section GROUP PRESET...` prints a report's "Throughput and delay" section:
# per stack, links to scripts/results-docs.sh's pictures of results/GROUP/STACK/PRESET.
throughput_delay_section() {
  local group=$1 stack preset links
  shift
  printf '\n## Throughput and delay\n\n'
  printf 'Goodput against p95 RTT per cell, one marker per controller with one standard deviation each way\n'
  printf '(`harness scorecard throughput-delay`, scripts/results-docs.sh):\n\n'
  for stack in quinn noq; do
    links=()
    for preset in "$@"; do
      links+=("[$preset](tables/throughput-delay/$group-$stack-$preset.svg)")
    done
    printf -- '- %s: %s\n' "$stack" "$(printf '%s, ' "${links[@]}" | sed 's/, $//')"
  done
}
