#!/usr/bin/python3
"""Plot forecasting runs side by side: test NRMSE against wire traffic and simulated time.

usage: plot_forecast.py --out FILE.png RUN_DIR[=LABEL] ...

Reads each RUN_DIR/rounds.csv (test_nrmse, cumulative_wire_bytes, sim_time_s; docs/traces.md)
and the first run's run.json baselines (seasonal-naive and persistence NRMSE, drawn as
horizontal lines: they need no training and no traffic).
"""
import argparse
import json
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import plot  # noqa: E402  (analysis/plot.py: the shared trace reading and units)

plot.PROG = "plot_forecast"
REQUIRED = plot.trace_schema.require("rounds.csv", ["round", "sim_time_s", "test_nrmse",
                                                    "cumulative_wire_bytes"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="RUN_DIR or RUN_DIR=LABEL")
    parser.add_argument("--out", required=True, help="PNG file")
    args = parser.parse_args()

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    biggest = 1
    runs = []
    for item in args.runs:
        run_dir, _, label = item.partition("=")
        rounds = plot.read_csv(os.path.join(run_dir, "rounds.csv"), REQUIRED)
        if rounds["test_nrmse"].isna().all():
            plot.fail(f"{run_dir}/rounds.csv: no test_nrmse (not a forecasting run, or it "
                      f"diverged)")
        runs.append((label or os.path.basename(os.path.normpath(run_dir)), rounds))
        biggest = max(biggest, rounds["cumulative_wire_bytes"].max())
    unit, scale = plot.byte_unit(biggest)
    for label, rounds in runs:
        left.plot(rounds["cumulative_wire_bytes"] / scale, rounds["test_nrmse"], marker="o",
                  markersize=2, label=label)
        right.plot(rounds["sim_time_s"], rounds["test_nrmse"], marker="o", markersize=2,
                   label=label)
    first = args.runs[0].partition("=")[0]
    try:
        with open(os.path.join(first, "run.json")) as f:
            baselines = json.load(f)["baselines"]
    except (OSError, ValueError, KeyError) as e:
        plot.fail(f"{first}/run.json: no baselines ({e})")
    top = max(rounds["test_nrmse"].max() for _, rounds in runs)
    off_scale = []
    for name, style in (("seasonal_naive", ":"), ("persistence", "--")):
        value = baselines[name]["nrmse"]
        if value > 1.5 * top:  # would squash the runs' curves: named in the title instead
            off_scale.append(f"{name.replace('_', '-')} {value:.3f}")
            continue
        for ax in (left, right):
            ax.axhline(value, color="grey", linestyle=style,
                       label=f"{name.replace('_', '-')} {value:.3f}" if ax is left else None)
    if off_scale:
        fig.suptitle("off the scale: " + ", ".join(off_scale), fontsize=9)
    left.set_xlabel(f"cumulative traffic on the backhaul wire, up + down ({unit})")
    right.set_xlabel("simulated time (s)")
    left.set_ylabel("test NRMSE (lower is better)")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    left.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
