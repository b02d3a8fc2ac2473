#!/usr/bin/env python3
"""Paired goodput ratios of controllers over one baseline, per point, from sweep result files.

usage: scripts/paired_ratio.py DIR BASELINE CONTROLLER [CONTROLLER ...]
Prints a Markdown table: per point the baseline's mean goodput (Mb/s) and, per controller, the
geometric mean over seeds of its goodput over the baseline's on the same seed with a 95%
interval (`*` when it excludes 1), as the harness's tables do against NewReno. Any controller
of the directory can be the baseline (e.g. ns-3's `tcp-newreno`). Standard library only.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manet_scorecard import cell, load, own, paired, require, run_main  # noqa: E402


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    directory, baseline, controllers = argv[0], argv[1], argv[2:]
    by = {}
    runs = load(directory)
    require({r["controller"].split(" ")[0] for r in runs}, [baseline, *controllers], f"`{directory}`")
    for run in runs:
        by.setdefault(run["point"], {}).setdefault(run["controller"].split(" ")[0], {})[run["seed"]] = own(run)["goodput"]
    print(f"| point | {baseline} Mb/s | " + " | ".join(f"{c} x {baseline}" for c in controllers) + " |")
    print("|---|---|" + "---|" * len(controllers))
    for point, ctrls in by.items():
        base = ctrls.get(baseline, {})
        if not base:
            continue
        cells = []
        for c in controllers:
            mine = ctrls.get(c, {})
            cells.append(cell(paired([(mine[s], base[s]) for s in mine if s in base])))
        mean = statistics.mean(base.values()) / 1e6
        print(f"| {point} | {mean:.3f} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, sys.argv[1:]))
