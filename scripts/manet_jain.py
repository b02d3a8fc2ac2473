#!/usr/bin/env python3
"""Jain's fairness index of each run's flows, mean over seeds, per point and controller.

usage: scripts/manet_jain.py DIR (a `harness sweep --out` directory of runs of several flows)
Jain = (sum x)^2 / (n sum x^2) over the flows' goodputs (1: equal shares). Standard library only.
"""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manet_scorecard import load, run_main  # noqa: E402


def jain(xs):
    square = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * square) if square > 0 else None


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    by = defaultdict(list)  # (point, controller) -> Jain per run
    points, controllers = [], []
    for run in load(argv[0]):
        name = run["controller"].split(" ")[0]
        j = jain([f["goodput_bps"] for f in run["flows"]])
        if j is not None:
            by[(run["point"], name)].append(j)
        if run["point"] not in points:
            points.append(run["point"])
        if name not in controllers:
            controllers.append(name)
    print("| point | " + " | ".join(f"{c}: Jain (min over seeds)" for c in controllers) + " | manet >= 0.95 |")
    print("|---|" + "---|" * (len(controllers) + 1))
    for p in points:
        cells = []
        for c in controllers:
            js = by.get((p, c), [])
            cells.append(f"{statistics.mean(js):.3f} ({min(js):.3f})" if js else "-")
        m = by.get((p, "manet"), [])
        verdict = ("met" if statistics.mean(m) >= 0.95 else "MISSED") if m else "-"
        print(f"| {p} | " + " | ".join(cells) + f" | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, sys.argv[1:]))
