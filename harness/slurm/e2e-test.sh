#!/bin/bash
# End-to-end test of harness sweeps on a real, private, one-node Slurm cluster.
#
#   bash harness/slurm/e2e-test.sh [--install]
#
# It starts its own munged, slurmctld and slurmd (root needed) with every file under a temp
# directory (SLURM_CONF, state, spool, logs, munge key and socket; ports picked free; node
# address 127.0.0.1): nothing under /etc is written and a cluster already on the host is left
# alone. Then, on a grid of 2 points x 2 controllers x 3 seeds (12 runs of 300 s virtual time,
# about half a second each):
#   1. sweep.sbatch as a job array `--array=1-4` (4 shards; ids not starting at 0): the merged
#      shards equal a local `harness sweep` of the same grid, run by run (same run ids, same
#      JSON line per run);
#   2. submit.sh (4-task array + dependent merge job): one task is cancelled (scancel) after
#      it wrote its first run; the merge job is then cancelled by Slurm, `harness merge`
#      reports the missing runs; re-running submit.sh completes the sweep: each run exactly
#      once in the shard files, the finished runs skipped, the merge job's result equal to the
#      local sweep run by run;
#   3. sweep.sbatch refuses misconfigurations (exit 2, a clear message).
# The daemons it started are stopped by pid when it ends, whatever happens (trap).
#
# --install      install slurm-wlm and munge with apt-get when missing (Debian; root)
# Environment:
#   HARNESS            harness binary (default: built with `cargo build -p harness --profile test`)
#   E2E_REQUIRE_SLURM  1: fail instead of skipping when Slurm cannot be installed or started
#   E2E_KEEP           1: keep the temp directory (it is always kept when the test fails)
#   E2E_DURATION       virtual duration of each run (default 300s)
#
# Exit status: 0 passed, or skipped with a "SKIPPED" banner (Slurm unavailable); 1 failed.
set -euo pipefail

started_at=$SECONDS
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
slurm_dir="$repo/harness/slurm"
install=0
for arg in "$@"; do
  case "$arg" in
    --install) install=1 ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "e2e-test.sh: unknown argument \`$arg\` (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '[slurm-e2e %3ss] %s\n' "$((SECONDS - started_at))" "$*"; }

skip() {
  if [ "${E2E_REQUIRE_SLURM:-0}" = 1 ]; then
    fail "Slurm is unavailable and E2E_REQUIRE_SLURM=1: $*"
  fi
  printf '\n'
  printf '************************************************************************\n'
  printf '* SKIPPED: the Slurm end-to-end test did not run:\n'
  printf '*   %s\n' "$*"
  printf '************************************************************************\n'
  exit 0
}

failed=0
fail() {
  failed=1
  printf '\nFAILED: slurm end-to-end test: %s\n' "$*" >&2
  exit 1
}

# --- Slurm and munge ---------------------------------------------------------------------

tools=(munged munge slurmctld slurmd sbatch squeue scancel scontrol sinfo setpriv ss)
missing_tools() {
  local t out=()
  for t in "${tools[@]}"; do command -v "$t" >/dev/null 2>&1 || out+=("$t"); done
  echo "${out[*]}"
}

[ "$(id -u)" = 0 ] || skip "it needs root (to run slurmd and munged as the munge user)"
missing=$(missing_tools)
if [ -n "$missing" ]; then
  if [ "$install" = 1 ]; then
    command -v apt-get >/dev/null 2>&1 || skip "missing $missing and no apt-get to install slurm-wlm and munge"
    say "installing slurm-wlm and munge (missing: $missing)"
    if ! { timeout 300 apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq slurm-wlm munge; } >/tmp/slurm-e2e-apt.log 2>&1; then
      tail -5 /tmp/slurm-e2e-apt.log
      skip "apt-get could not install slurm-wlm and munge (log: /tmp/slurm-e2e-apt.log)"
    fi
    missing=$(missing_tools)
    [ -z "$missing" ] || skip "still missing after installing slurm-wlm and munge: $missing"
  else
    skip "missing $missing (install slurm-wlm and munge, or run with --install)"
  fi
fi
unset SHARDS SHARD_BASE HARNESS_JOBS SBATCH_ARGS MAX_RUNNING
say "$(slurmctld -V), $(munged -V 2>&1 | head -n 1)"

# --- harness -------------------------------------------------------------------------------

if [ -z "${HARNESS:-}" ]; then
  say "building harness (cargo build -p harness --profile test)"
  (cd "$repo" && timeout 900 cargo build -q -p harness --locked --profile test) ||
    fail "cargo build -p harness failed"
  HARNESS="$repo/target/debug/harness"
fi
HARNESS=$(realpath -- "$HARNESS")
[ -x "$HARNESS" ] || fail "HARNESS=$HARNESS is not executable"
export HARNESS

# --- the private cluster -------------------------------------------------------------------

T=$(mktemp -d /tmp/harness-slurm-e2e.XXXXXX)
chmod 755 "$T"
pids=()
names=()

cleanup() {
  local status=$? i
  trap - EXIT INT TERM
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && [ "${#pids[@]}" -gt 1 ]; then
    # Our own cluster: every job in it is ours. Let Slurm end them before the daemons go.
    timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
  done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    for _ in $(seq 50); do
      kill -0 "${pids[i]}" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "${pids[i]}" 2>/dev/null; then
      echo "slurm-e2e: ${names[i]} (pid ${pids[i]}) ignored SIGTERM; killing it" >&2
      kill -KILL "${pids[i]}" 2>/dev/null || true
    fi
    wait "${pids[i]}" 2>/dev/null || true
  done
  [ "${#pids[@]}" -gt 0 ] && say "stopped ${names[*]} (pids ${pids[*]})"
  if [ "$failed" = 1 ] || [ "$status" != 0 ]; then
    for f in "$T"/log/slurmctld.log "$T"/log/slurmd.log "$T"/munge/munged.log; do
      [ -f "$f" ] && { echo "--- tail of $f"; tail -n 15 "$f"; }
    done
    for f in "$T"/logs/* "$T"/s2/logs/*; do
      [ -f "$f" ] && { echo "--- $f"; tail -n 8 "$f"; }
    done
    echo "slurm-e2e: kept $T for inspection" >&2
  elif [ "${E2E_KEEP:-0}" = 1 ]; then
    say "kept $T"
  else
    rm -rf "$T"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() { # name, command...: starts a foreground daemon in the background, records its pid
  local name=$1
  shift
  "$@" >"$T/log/$name.out" 2>&1 &
  pids+=("$!")
  names+=("$name")
}

alive() { kill -0 "${pids[$1]}" 2>/dev/null; }

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    [ -z "$(ss -Htan "( sport = :$p )" 2>/dev/null)" ] && { echo "$p"; return; }
  done
  fail "no free TCP port found"
}

mkdir -p "$T/etc" "$T/state" "$T/spool" "$T/log" "$T/logs" "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 755 "$T/munge"
chmod 400 "$T/munge/munge.key"
chown -R munge:munge "$T/munge"
start munged setpriv --reuid=munge --regid=munge --clear-groups \
  munged --foreground --socket="$T/munge/munge.socket" --key-file="$T/munge/munge.key" \
  --log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed"
for _ in $(seq 50); do
  [ -S "$T/munge/munge.socket" ] && break
  alive 0 || break
  sleep 0.2
done
timeout 5 munge -n -S "$T/munge/munge.socket" >/dev/null 2>&1 ||
  skip "munged could not be started: $(tail -n 2 "$T/log/munged.out" | tr '\n' ' ')"

node=$(hostname -s)
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
export SLURM_CONF="$T/etc/slurm.conf"
cat >"$SLURM_CONF" <<CONF
# Private one-node cluster of harness/slurm/e2e-test.sh (../shared/docs/SLURM.md's recipe)
ClusterName=harness-e2e
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/state/slurmctld.pid
SlurmdPidFile=$T/spool/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
echo 'CgroupPlugin=cgroup/v1' >"$T/etc/cgroup.conf"

say "starting slurmctld and slurmd (ports $ctld_port, $slurmd_port; $T)"
start slurmctld slurmctld -D -i -f "$SLURM_CONF"
for _ in $(seq 100); do
  timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break
  alive 1 || break
  sleep 0.2
done
timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' ||
  skip "slurmctld could not be started: $(tail -n 3 "$T/log/slurmctld.log" "$T/log/slurmctld.out" 2>/dev/null | tr '\n' ' ')"
start slurmd slurmd -D -f "$SLURM_CONF" -N "$node"
state=
for i in $(seq 100); do
  alive 2 || break
  state=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null || true)
  case "$state" in
    idle) break ;;
    unknown* | down* | drain*)
      [ $((i % 10)) = 0 ] && timeout 5 scontrol update nodename="$node" state=resume >/dev/null 2>&1 ;;
  esac
  sleep 0.2
done
[ "$state" = idle ] ||
  skip "slurmd could not be started (node state \`$state\`): $(tail -n 3 "$T/log/slurmd.log" "$T/log/slurmd.out" 2>/dev/null | tr '\n' ' ')"
say "cluster up: $(sinfo -h -o '%P %a %D %T %N' | tr -s ' ')"

# --- helpers -------------------------------------------------------------------------------

# wait_done JOB... : waits (bounded) until none of the jobs is pending or running
wait_done() {
  local limit=$1 jobs
  shift
  jobs=$(IFS=,; echo "$*")
  local deadline=$((SECONDS + limit))
  while [ -n "$(timeout 10 squeue -h -j "$jobs" -o %i 2>/dev/null)" ]; do
    [ "$SECONDS" -lt "$deadline" ] || {
      squeue -t all -j "$jobs" || true
      fail "jobs $jobs still pending or running after ${limit}s"
    }
    sleep 0.5
  done
}

# states JOB : "<task id> <state>" per array task (or the job), sorted; finished jobs stay
# visible to squeue for MinJobAge (300 s)
states() { timeout 10 squeue -h -t all -j "$1" -o '%i %T' | sort; }

# run_lines FILE... : "run_id<TAB>line" for every run line of result files, sorted by id
run_lines() {
  { grep -h '^{"kind":"run"' "$@" || true; } | sed 's/^{"kind":"run","result":{"run_id":"\([0-9a-f]*\)".*/\1\t&/' | sort
}

# grid_ids FILE : the run ids of the whole grid, from a result file's header, sorted
grid_ids() {
  head -n 1 "$1" | sed 's/.*"run_ids":\[\([^]]*\)\].*/\1/' | tr ',' '\n' | tr -d '"' | sort
}

# same_runs EXPECTED ACTUAL : run by run, the same run ids and the same JSON line per run;
# prints what differs
same_runs() {
  local expected=$1 actual=$2 status=0
  run_lines "$expected" >"$T/cmp.expected"
  run_lines "$actual" >"$T/cmp.actual"
  if ! diff -q <(cut -f1 "$T/cmp.expected") <(cut -f1 "$T/cmp.actual") >/dev/null; then
    echo "run ids differ (< $expected, > $actual):"
    diff <(cut -f1 "$T/cmp.expected") <(cut -f1 "$T/cmp.actual") | head -n 10
    return 1
  fi
  while IFS=$'\t' read -r id line; do
    if [ "$line" != "$(grep -m1 "^$id"$'\t' "$T/cmp.actual" | cut -f2-)" ]; then
      echo "run $id: the JSON differs between $expected and $actual"
      status=1
    fi
  done <"$T/cmp.expected"
  return "$status"
}

# --- the grid and the local reference ------------------------------------------------------

duration=${E2E_DURATION:-300s}
cat >"$T/grid.toml" <<EOF
name = "slurm-e2e"
seeds = 3
[transfer]
duration = "$duration"
[link.both]
rate = "2Mbps"
delay = "10ms"
[controllers]
select = ["newreno", "karak"]
[[axis]]
key = "link.both.errors"
name = "PER"
values = [[{ model = "per", p = 0.0 }], [{ model = "per", p = 0.01 }]]
labels = ["0", "0.01"]
EOF
runs=12
say "local reference: harness sweep of the grid (2 points x 2 controllers x 3 seeds, $duration each)"
timeout 120 "$HARNESS" sweep --scenario "$T/grid.toml" --out "$T/local" --jobs 2 >/dev/null 2>"$T/log/local.err" ||
  fail "the local sweep failed: $(tail -n 3 "$T/log/local.err")"
timeout 60 "$HARNESS" merge "$T/local" --jsonl "$T/local.jsonl" >/dev/null 2>&1 || fail "merging the local sweep failed"
[ "$(run_lines "$T/local.jsonl" | wc -l)" = "$runs" ] || fail "the local sweep does not hold $runs runs"

# The comparison must be able to fail: a changed number in one run is caught.
sed '3s/"goodput_bps":[0-9.]*/"goodput_bps":1.5/' "$T/local.jsonl" >"$T/tampered.jsonl"
cmp -s "$T/local.jsonl" "$T/tampered.jsonl" && fail "could not tamper with a run line for the self-check"
same_runs "$T/local.jsonl" "$T/tampered.jsonl" >/dev/null && fail "the run-by-run comparison missed a changed run"

# --- 1. misconfiguration -------------------------------------------------------------------

say "1. sweep.sbatch refuses misconfigurations"
# expect_refusal MESSAGE ENV... -- ARGS... : runs sweep.sbatch outside Slurm, expects exit 2
expect_refusal() {
  local message=$1 envs=() out status
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  status=0
  out=$(env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN \
    "${envs[@]}" bash "$slurm_dir/sweep.sbatch" "$@" 2>&1 >/dev/null) || status=$?
  { [ "$status" = 2 ] && [[ "$out" == *"$message"* ]]; } ||
    fail "sweep.sbatch $* with ${envs[*]}: expected exit 2 and \`$message\`, got exit $status: $out"
}
task_env=(SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=0)
expect_refusal "missing RESULTS_DIR" "${task_env[@]}" --
expect_refusal "this is not a job array task" -- "$T/bad"
expect_refusal "is not an executable file" "${task_env[@]}" HARNESS="$T/no-such-harness" -- "$T/bad"
expect_refusal "gives shard 4 of 4" SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 -- "$T/bad"
expect_refusal "is set by this script" "${task_env[@]}" -- "$T/bad" --shard 0/2
mkdir -p "$T/bad"
cp "$T/local/shard-0-of-1.jsonl" "$T/bad/"
expect_refusal "holds shard-0-of-1.jsonl (a sweep in 1 shards)" "${task_env[@]}" -- "$T/bad" --scenario "$T/grid.toml"
# A re-submission of one task of a 4-shard sweep without SHARDS: Slurm says 1 task.
rm "$T/bad/shard-0-of-1.jsonl"
cp "$T/local/shard-0-of-1.jsonl" "$T/bad/shard-3-of-4.jsonl"
expect_refusal "re-submit with the same number of shards, e.g. SHARDS=4" \
  SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=1 SLURM_ARRAY_TASK_MIN=3 -- "$T/bad"

# --- 2. a job array equals the local sweep -------------------------------------------------

say "2. sweep.sbatch as a job array --array=1-4"
job=$(sbatch --parsable --array=1-4 --output="$T/logs/array-%A_%a.out" \
  "$slurm_dir/sweep.sbatch" "$T/s1" --scenario "$T/grid.toml") || fail "sbatch failed"
job=${job%%;*}
wait_done 120 "$job"
expected_states=$(printf '%s_%s COMPLETED\n' "$job" 1 "$job" 2 "$job" 3 "$job" 4 | sort)
[ "$(states "$job")" = "$expected_states" ] || fail "array $job did not complete: $(states "$job" | tr '\n' ' ')"
for i in 0 1 2 3; do
  [ -f "$T/s1/shard-$i-of-4.jsonl" ] || fail "no shard-$i-of-4.jsonl: array ids 1-4 must give shards 0/4-3/4"
done
timeout 60 "$HARNESS" merge "$T/s1/shard-3-of-4.jsonl" "$T/s1/shard-1-of-4.jsonl" \
  "$T/s1/shard-0-of-4.jsonl" "$T/s1/shard-2-of-4.jsonl" --jsonl "$T/s1.jsonl" >/dev/null 2>"$T/log/merge1.err" ||
  fail "merging the array's shards failed: $(cat "$T/log/merge1.err")"
same_runs "$T/local.jsonl" "$T/s1.jsonl" || fail "the Slurm sweep differs from the local sweep"
cmp -s "$T/local.jsonl" "$T/s1.jsonl" || fail "the merged Slurm sweep is not byte-identical to the local one"
say "   $runs runs from 4 array tasks = the local sweep, run by run"

# --- 3. kill one task, re-submit -----------------------------------------------------------

say "3. submit.sh, one array task cancelled mid-shard, then re-submitted"
submit() {
  SHARDS=4 bash "$slurm_dir/submit.sh" "$T/s2" --scenario "$T/grid.toml" >"$T/log/submit$1.out" 2>&1 ||
    fail "submit.sh failed: $(cat "$T/log/submit$1.out")"
  array=$(sed -n 's/^array job: //p' "$T/log/submit$1.out")
  merge=$(sed -n 's/^merge job: //p' "$T/log/submit$1.out")
  { [ -n "$array" ] && [ -n "$merge" ]; } || fail "submit.sh printed no job ids: $(cat "$T/log/submit$1.out")"
}
# count_runs FILE : complete run lines (newline-terminated, after the header)
count_runs() {
  local n=0
  [ -f "$1" ] && n=$(tr -cd '\n' <"$1" | wc -c)
  echo $((n > 0 ? n - 1 : 0))
}
submit 1
victim=
deadline=$((SECONDS + 90))
while [ -z "$victim" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "no array task of $array could be caught mid-shard in 90 s"
  for i in 0 1 2 3; do
    n=$(count_runs "$T/s2/shard-$i-of-4.jsonl")
    if [ "$n" -ge 1 ] && [ "$n" -lt 3 ] &&
      [ "$(squeue -h -j "${array}_$i" -o %T 2>/dev/null)" = RUNNING ]; then
      scancel "${array}_$i"
      victim=$i
      break
    fi
  done
  sleep 0.05
done
wait_done 120 "$array" "$merge"
before=$(count_runs "$T/s2/shard-$victim-of-4.jsonl")
say "   cancelled task ${array}_$victim after $before of its 3 runs"
[ "$(states "${array}_$victim")" = "${array}_$victim CANCELLED" ] ||
  fail "task ${array}_$victim was not cancelled (it finished first?): $(states "$array" | tr '\n' ' ')"
[ "$before" -lt 3 ] || fail "the cancelled task had finished its shard"
for i in 0 1 2 3; do
  [ "$i" = "$victim" ] && continue
  [ "$(states "${array}_$i")" = "${array}_$i COMPLETED" ] || fail "task ${array}_$i: $(states "${array}_$i")"
done
merge_state=$(states "$merge")
[ "$merge_state" = "$merge CANCELLED" ] || fail "the merge job should be cancelled (afterok never satisfied): $merge_state"
[ ! -s "$T/s2/merged/runs.jsonl" ] || fail "the merge job ran although a task was cancelled"
status=0
timeout 60 "$HARNESS" merge "$T/s2" >/dev/null 2>"$T/log/merge2.err" || status=$?
{ [ "$status" = 1 ] && grep -q "runs are missing" "$T/log/merge2.err" &&
  grep -q "shard(s) $victim/4" "$T/log/merge2.err"; } ||
  fail "harness merge after the cancel: expected exit 1 naming shard $victim/4, got $status: $(cat "$T/log/merge2.err")"

first_array=$array
submit 2
wait_done 120 "$array" "$merge"
expected_states=$(printf '%s_%s COMPLETED\n' "$array" 0 "$array" 1 "$array" 2 "$array" 3 | sort)
[ "$(states "$array")" = "$expected_states" ] || fail "re-submitted array $array: $(states "$array" | tr '\n' ' ')"
[ "$(states "$merge")" = "$merge COMPLETED" ] || fail "merge job $merge: $(states "$merge"); $(cat "$T"/s2/logs/harness-merge-"$merge".out)"
for i in 0 1 2 3; do
  log="$T/s2/logs/harness-sweep-${array}_$i.out"
  if [ "$i" = "$victim" ]; then want="3 runs, $before already done, $((3 - before)) to run"; else want="3 runs, 3 already done, 0 to run"; fi
  grep -q "shard $i/4: $want" "$log" || fail "$log does not say \`shard $i/4: $want\`: $(cat "$log")"
done
all=$(run_lines "$T"/s2/shard-*-of-4.jsonl | cut -f1)
dups=$(uniq -d <<<"$all")
[ -z "$dups" ] || fail "runs duplicated in the shard files: $dups"
[ "$all" = "$(grid_ids "$T/local.jsonl")" ] || fail "the shard files do not hold every run of the grid exactly once"
same_runs "$T/local.jsonl" "$T/s2/merged/runs.jsonl" || fail "the merge job's result differs from the local sweep"
cmp -s "$T/local.jsonl" "$T/s2/merged/runs.jsonl" || fail "the merge job's runs.jsonl is not byte-identical to the local sweep"
say "   re-submitted as $array (after $first_array): every run once, merge job $merge = the local sweep"

say "PASSED: Slurm job-array sweeps (array 1-4 = local sweep; cancel + re-submit loses and duplicates nothing)"
