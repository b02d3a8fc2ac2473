#!/bin/bash
# Submits a harness sweep as a Slurm job array plus a merge job that runs when every array
# task has succeeded (see harness/slurm/README.md).
#
#   SHARDS=16 harness/slurm/submit.sh RESULTS_DIR [HARNESS SWEEP OPTIONS...]
#   SHARDS=16 HARNESS=$PWD/target/release/harness SBATCH_ARGS="--cpus-per-task=4 --time=4:00:00" \
#       harness/slurm/submit.sh /shared/results/karak-speed --preset karak-speed --seeds 20
#
# Re-running the same command after a task failed or was cancelled re-submits the array
# (finished runs are skipped, so only the lost work is redone) and a new merge job.
#
# Environment:
#   SHARDS       number of shards = array tasks 0..SHARDS-1 (default 4); keep it the same
#                on every re-submission
#   HARNESS      the harness binary (default: `harness` on PATH); it must be reachable at the
#                same path on the compute nodes
#   SBATCH_ARGS  extra sbatch options for the array (word-split), e.g. "--partition=long
#                --cpus-per-task=4 --time=2:00:00"; HARNESS_JOBS defaults to --cpus-per-task
#   MAX_RUNNING  at most this many array tasks at once (sbatch --array=...%MAX_RUNNING)
#
# Output: the job ids (`array job: ID`, `merge job: ID`); task logs in RESULTS_DIR/logs/;
# the merged report in RESULTS_DIR/merged/ (table.txt, report.json, runs.csv, runs.jsonl).
# Exit status: 0 submitted, 2 misconfigured, sbatch's status if a submission fails.
set -euo pipefail

fail() {
  printf 'submit.sh: error: %s\n' "$*" >&2
  exit 2
}

is_positive() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || fail "usage: SHARDS=N harness/slurm/submit.sh RESULTS_DIR [HARNESS SWEEP OPTIONS...]"
case "$1" in
  -*) fail "the first argument must be RESULTS_DIR, not the option \`$1\`" ;;
esac
results=$(realpath -m -- "$1")
shift

shards=${SHARDS:-4}
is_positive "$shards" || fail "SHARDS=\`$shards\` must be a positive integer"
array="0-$((shards - 1))"
if [ -n "${MAX_RUNNING:-}" ]; then
  is_positive "$MAX_RUNNING" || fail "MAX_RUNNING=\`$MAX_RUNNING\` must be a positive integer"
  array="$array%$MAX_RUNNING"
fi

harness=${HARNESS:-harness}
if [[ "$harness" == */* ]]; then
  harness=$(realpath -m -- "$harness")
  [ -x "$harness" ] || fail "HARNESS=\`$harness\` is not an executable file; build it with \`cargo build --release -p harness\`"
else
  harness=$(command -v "$harness") || fail "\`${HARNESS:-harness}\` is not on PATH; set HARNESS to the harness binary's path"
fi
command -v sbatch >/dev/null 2>&1 || fail "sbatch is not on PATH: run this on a Slurm login node"

extra=()
if [ -n "${SBATCH_ARGS:-}" ]; then
  read -r -a extra <<<"$SBATCH_ARGS"
fi

# Check the options and the results directory here, not in 16 failed array tasks.
"$harness" sweep --help >/dev/null || fail "\`$harness\` does not run here"
mkdir -p "$results/logs" "$results/merged" || fail "cannot create \`$results/logs\`"

array_job=$(HARNESS=$harness SHARDS=$shards SHARD_BASE=0 sbatch --parsable \
  --array="$array" --output="$results/logs/%x-%A_%a.out" "${extra[@]}" \
  "$here/sweep.sbatch" "$results" "$@")
array_job=${array_job%%;*}

printf -v merge_cmd '%q merge %q --json %q --csv %q --jsonl %q > %q' \
  "$harness" "$results" "$results/merged/report.json" "$results/merged/runs.csv" \
  "$results/merged/runs.jsonl" "$results/merged/table.txt"
merge_job=$(sbatch --parsable --job-name=harness-merge \
  --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
  --output="$results/logs/%x-%j.out" --wrap="$merge_cmd")
merge_job=${merge_job%%;*}

cat <<EOF
array job: $array_job
merge job: $merge_job
watch:     squeue -j $array_job,$merge_job        (or: squeue --me)
logs:      $results/logs/
report:    $results/merged/table.txt (written when every task succeeded)
If a task fails or is cancelled, the merge job is cancelled too: re-run this same command.
EOF
