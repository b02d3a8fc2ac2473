#!/usr/bin/env python3
"""The composite controller's scorecard (issue 34's targets) from sweep result files.

usage: scripts/manet_scorecard.py DIR [DIR ...]
  Each DIR is a `harness sweep --out` directory (JSON lines: a header, then one run per line)
  holding `manet` and the stack's baselines (newreno, cubic, bbr or bbr3). Optional
  `fixed-N` directories (a sweep of `fixed` with `--set fixed.packets=N`) given with
  --fixed DIR add the best fixed window per point. With --pooled, a last line pools every
  point and seed of the DIRs: manet over the best baseline at each point (issue 34's pooled
  target over the papers' ns-3 presets), after a table of the same pooled per DIR (where the
  pool's figure comes from) and one of every controller pooled against each baseline and
  against the best of the other baselines at each point (what choosing the best of several noisy
  baselines costs any controller there).

Per point it prints, as the harness's tables do, paired ratios: the geometric mean over seeds
of manet's goodput over another controller's on the same seed, with a 95% interval (Student's t
on the log ratios), `*` when it excludes 1. In a mixed run (`[[flow]]`, `--mix`) a controller's
goodput is its own flow's. Columns: x default (the stack's Cubic), x best (the baseline with the
highest mean goodput at that point), p95 RTT against Cubic's, and in mixed runs manet's goodput
over its competitor's and its loss rate over NewReno's in the same mix. Each target is marked
met or missed. Standard library only.
"""
import json
import math
import os
import statistics
import sys
from collections import defaultdict

# Two-sided 95% Student's t quantiles by degrees of freedom (1-30), then the normal's.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
BASELINES = {"newreno", "cubic", "bbr", "bbr3"}


def print_cross_pool(points):
    """Every controller pooled over every point and seed against each baseline, and against
    the best of the other baselines at each point (by mean goodput, as x best chooses)."""
    names = sorted({c for ctrls in points for c in ctrls}, key=lambda c: (c in BASELINES, c))
    baselines = [c for c in names if c in BASELINES]
    print("\nEach controller pooled over the points and seeds where it ran (`manet` and the baselines: all"
          " of them; a port: its own paper's presets), over each baseline and over the best of the other"
          " baselines at each point:")
    print("\n| controller | " + " | ".join(f"over {b}" for b in baselines) + " | over the best of the other baselines |")
    print("|---|" + "---|" * (len(baselines) + 1))
    for name in names:
        cells = []
        for ref in baselines + [None]:
            pairs = []
            for ctrls in points:
                mine = ctrls.get(name)
                if ref is None:
                    others = [b for b in baselines if b != name and b in ctrls]
                    ref_here = max(others, key=lambda b: statistics.mean(x["goodput"] for x in ctrls[b].values()), default=None)
                else:
                    ref_here = ref if ref != name else None
                if not mine or ref_here not in ctrls:
                    continue
                other = ctrls[ref_here]
                pairs += [(mine[s]["goodput"], other[s]["goodput"]) for s in mine if s in other]
            cells.append(cell(paired(pairs)) if pairs else "-")
        print(f"| {name} | " + " | ".join(cells) + " |")


def t95(df):
    return T95[df - 1] if df <= len(T95) else 1.960


def paired(pairs):
    logs = [math.log(a / b) for a, b in pairs if a > 0 and b > 0]
    if len(logs) < 2:
        return None
    mean = statistics.mean(logs)
    half = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def cell(r):
    if r is None:
        return "-"
    star = "*" if r[1] > 1 or r[2] < 1 else ""
    return f"{r[0]:.2f} [{r[1]:.2f}, {r[2]:.2f}]{star}"


def own(run):
    """The run's controller's goodput, p95 RTT and loss rate: in a mixed run (its flows name
    their controllers: `run,cubic`) its own flow, the first, so that it compares with the same
    flow of Cubic's run (`cubic,cubic`), not with that run's two flows together; in a run whose
    flows all run its controller (the papers' multi-source presets) all of them."""
    flows = run["flows"]
    mixed = any("controller" in f for f in flows)
    mine = flows[:1] if mixed else flows
    goodput = mine[0]["goodput_bps"] if mixed else run["goodput_bps"]
    rtts = [f["rtt_p95_ms"] for f in mine if f.get("rtt_p95_ms") is not None]
    sent = sum(f["packets_sent"] for f in mine)
    lost = sum(f["packets_lost"] for f in mine)
    others = [f["goodput_bps"] for f in flows if f not in mine]
    return {
        "goodput": goodput,
        "p95": statistics.mean(rtts) if rtts else None,
        "loss": lost / sent if sent else 0.0,
        "others": statistics.mean(others) if others else None,
    }


class BadInput(Exception):
    """An input these readers cannot read as it was meant: exit 2 with the message."""


def load(directory):
    """Every run of the result files in `directory` (a `harness sweep --out` directory). A
    missing directory, one without result files, a torn or malformed line are refused: a
    report from half a file, or from none, would look like a finding."""
    import glob

    if not directory:
        raise BadInput("an empty directory argument would mean the working directory; give a path")
    if not os.path.isdir(directory):
        raise BadInput(f"`{directory}` is not a directory (give a `harness sweep --out` directory)")
    paths = sorted(glob.glob(os.path.join(directory, "shard-*.jsonl")))
    if not paths:
        raise BadInput(f"`{directory}` holds no result file (shard-*-of-*.jsonl)")
    runs = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(f"`{path}`: not a readable result file ({e})")
        if text and not text.endswith("\n"):
            raise BadInput(
                f"`{path}` ends with a torn line (a sweep stopped mid-write): resume the sweep "
                "(rerun its command) before reading it"
            )
        lines = text.splitlines()
        check_digests(path, lines)
        for number, line in enumerate(lines[1:], start=2):
            try:
                runs.append(json.loads(line)["result"])
            except (ValueError, KeyError, TypeError) as e:
                raise BadInput(f"`{path}` line {number}: not a harness result line ({e})")
    if not runs:
        raise BadInput(f"`{directory}` holds no runs yet")
    return runs


DIGEST_FIELD = ',"digest":"'


def check_digests(path, lines):
    """From format 3 on every line ends with the first 16 hex digits of the SHA-256 of the line
    without them (harness/src/batch/integrity.rs): an edited line is refused, as the harness
    refuses it."""
    try:
        sealed = json.loads(lines[0]).get("format", 0) >= 3 if lines else False
    except ValueError as e:
        raise BadInput(f"`{path}` line 1: not a harness header line ({e})")
    if not sealed:
        return
    import hashlib

    for number, line in enumerate(lines, start=1):
        at = len(line) - len(DIGEST_FIELD) - 16 - 2
        if at < 0 or not line.endswith('"}') or line[at:at + len(DIGEST_FIELD)] != DIGEST_FIELD:
            raise BadInput(f"`{path}` line {number}: the line carries no digest: it was edited")
        content = line[:at] + "}"
        stored = line[at + len(DIGEST_FIELD):-2]
        if hashlib.sha256(content.encode()).hexdigest()[:16] != stored:
            raise BadInput(f"`{path}` line {number}: its digest is not its content's: the line was edited")


def require(names, wanted, where):
    """Refuses controller names that `where` does not hold (a typo, or a sweep without it)."""
    missing = [w for w in wanted if w not in names]
    if missing:
        raise BadInput(
            f"{', '.join(missing)}: no runs of that controller in {where} "
            f"(it holds {', '.join(sorted(names))})"
        )


def run_main(main, argv):
    """Runs `main`, turning a BadInput into its message and exit 2. What it prints reaches
    stdout only when it succeeds: a refused input leaves no half table behind."""
    import contextlib
    import io

    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            code = main(argv)
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(buffer.getvalue())
    return code


def main(argv):
    fixed_dirs, dirs, pooled = [], [], None
    args = iter(argv)
    for a in args:
        if a == "--fixed":
            fixed_dirs.append(next(args, None) or "")
            if not fixed_dirs[-1]:
                raise BadInput("--fixed needs a directory")
        elif a == "--pooled":
            pooled = []
        else:
            dirs.append(a)
    if not dirs:
        print(__doc__, file=sys.stderr)
        return 2
    fixed = defaultdict(dict)  # point -> seed -> best fixed goodput
    for d in fixed_dirs:
        for run in load(d):
            key = (run["point"], run["seed"])
            fixed[key[0]][key[1]] = max(fixed[key[0]].get(key[1], 0.0), own(run)["goodput"])
    met = missed = 0
    pooled_by_dir = defaultdict(list)
    pooled_points = []  # every point's controller -> seed -> metrics, with --pooled
    print("| experiment | point | x default (Cubic) | x best (which) | p95 RTT ms manet / Cubic | beside its competitor | targets |")
    print("|---|---|---|---|---|---|---|")
    for d in dirs:
        by = defaultdict(lambda: defaultdict(dict))  # point -> controller -> seed -> metrics
        runs = load(d)
        require({r["controller"].split(" ")[0] for r in runs}, ["manet", "cubic"], f"`{d}`")
        for run in runs:
            name = run["controller"].split(" ")[0]
            by[run["point"]][name][run["seed"]] = own(run)
        for point, ctrls in by.items():
            m = ctrls.get("manet")
            if not m or "cubic" not in ctrls:
                continue
            ratio = lambda other: paired([(m[s]["goodput"], other[s]["goodput"]) for s in m if s in other])
            mean_goodput = lambda c: statistics.mean(x["goodput"] for x in ctrls[c].values())
            best = max((c for c in ctrls if c in BASELINES), key=mean_goodput)
            x_default, x_best = ratio(ctrls["cubic"]), ratio(ctrls[best])
            if pooled is not None:
                pairs = [(m[s]["goodput"], ctrls[best][s]["goodput"]) for s in m if s in ctrls[best]]
                pooled += pairs
                pooled_by_dir[d] += pairs
                pooled_points.append(ctrls)
            p95 = lambda c: [x["p95"] for x in ctrls[c].values() if x["p95"] is not None]
            rtt_m, rtt_c = p95("manet"), p95("cubic")
            rtt_m = statistics.mean(rtt_m) if rtt_m else None
            rtt_c = statistics.mean(rtt_c) if rtt_c else None
            verdicts = []

            def target(name, ok):
                nonlocal met, missed
                if ok is None:
                    return
                verdicts.append(f"{name} {'met' if ok else 'MISSED'}")
                met, missed = met + bool(ok), missed + (not ok)

            if x_default:
                target("T1", x_default[0] >= 1.0 and x_default[2] >= 0.95)
            if x_best:
                target("T2", x_best[0] >= 0.9)
            if rtt_m is not None and rtt_c is not None:
                target("T4 RTT", rtt_m <= rtt_c)
            if "ns3-chain" in d and point in ("hops=4", "hops=8") and x_best:
                target("T3 x1.3", x_best[0] >= 1.3)
                if fixed.get(point):
                    best_fixed = paired([(m[s]["goodput"], fixed[point][s]) for s in m if s in fixed[point]])
                    target("T3 fixed", best_fixed is not None and best_fixed[0] >= 0.9)
                    verdicts[-1] += f" ({cell(best_fixed)} of the best fixed window)"
            beside = "-"
            others = [x["others"] for x in m.values() if x["others"]]
            if others:
                share = statistics.mean(x["goodput"] for x in m.values()) / statistics.mean(others)
                loss_m = statistics.mean(x["loss"] for x in m.values())
                loss_n = statistics.mean(x["loss"] for x in ctrls["newreno"].values()) if "newreno" in ctrls else None
                beside = f"x others {share:.2f}"
                target("T4 share", 0.5 <= share <= 2.0)
                if loss_n:
                    beside += f", loss {loss_m / loss_n:.2f}x NewReno's"
                    target("T4 loss", loss_m <= 2 * loss_n)
            rtt = f"{rtt_m:.0f} / {rtt_c:.0f}" if rtt_m is not None and rtt_c is not None else "-"
            name = "/".join(d.rstrip("/").split("/")[-2:])
            print(f"| {name} | {point} | {cell(x_default)} | {cell(x_best)} ({best}) | {rtt} | {beside} | {', '.join(verdicts)} |")
    print(f"\n{met} targets met, {missed} missed")
    if pooled is not None:
        print("\n| experiment | pairs | pooled over its points: manet over the best baseline |")
        print("|---|---|---|")
        for d, pairs in pooled_by_dir.items():
            name = "/".join(d.rstrip("/").split("/")[-2:])
            print(f"| {name} | {len(pairs)} | {cell(paired(pairs))} |")
        print_cross_pool(pooled_points)
        print(f"\nPooled over every point and seed above ({len(pooled)} pairs): manet over the best "
              f"baseline at its point {cell(paired(pooled))}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, sys.argv[1:]))
