#!/usr/bin/env python3
"""The composite's ablation table from the evaluation's result files.

usage: scripts/manet_ablation.py RESULTS_DIR (default results/manet)
For every mechanism switched off (RESULTS_DIR/ablation/KNOB/PRESET) and every point, the
paired ratio (geometric mean over seeds, 95% interval, `*` when it excludes 1) of the composite
without it over the composite as it is (RESULTS_DIR/quinn/PRESET): below 1, the mechanism helps
there. Standard library only; the statistics are manet_scorecard.py's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manet_scorecard import BadInput, cell, load, own, paired, require, run_main  # noqa: E402


def main(argv):
    if len(argv) > 1:
        raise BadInput("usage: scripts/manet_ablation.py [RESULTS_DIR]")
    if argv and not argv[0]:
        raise BadInput("an empty RESULTS_DIR would mean the working directory; give a path")
    root = argv[0] if argv else "results/manet"
    ablation = os.path.join(root, "ablation")
    if not os.path.isdir(ablation):
        raise BadInput(f"`{ablation}` is not a directory: give the evaluation's results (results/manet)")
    knobs = sorted(os.listdir(ablation))
    if not knobs:
        raise BadInput(f"`{ablation}` holds no ablation")
    presets = sorted({p for k in knobs for p in os.listdir(os.path.join(root, "ablation", k))})
    print("| preset | point | " + " | ".join(f"without {k}" for k in knobs) + " |")
    print("|---|---|" + "---|" * len(knobs))
    for preset in presets:
        full = {}
        runs = load(os.path.join(root, "quinn", preset))
        require({r["controller"].split(" ")[0] for r in runs}, ["manet"], f"`{root}/quinn/{preset}`")
        for run in runs:
            if run["controller"].split(" ")[0] == "manet":
                full[(run["point"], run["seed"])] = own(run)["goodput"]
        points = sorted({p for p, _ in full}, key=lambda p: (len(p), p))
        cols = {}
        for k in knobs:
            ablated = os.path.join(root, "ablation", k, preset)
            if not os.path.isdir(ablated):
                # This mechanism was not ablated on this preset: no cell, not an empty one.
                cols[k] = {p: None for p in points}
                continue
            runs = load(ablated)
            off = {(r["point"], r["seed"]): own(r)["goodput"] for r in runs}
            cols[k] = {
                p: paired([(off[(p, s)], full[(p, s)]) for (q, s) in off if q == p and (p, s) in full])
                for p in points
            }
        for p in points:
            print(f"| {preset} | {p} | " + " | ".join(cell(cols[k][p]) for k in knobs) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, sys.argv[1:]))
