#!/usr/bin/python3
"""Plot one fedran run: test accuracy against cumulative wire traffic and simulated time.

Usage: /usr/bin/python3 analysis/plot_run.py RUN_DIR [--out FILE.png]

Reads RUN_DIR/rounds.csv (columns in docs/traces.md) and writes RUN_DIR/accuracy.png unless
--out says otherwise. Exit status 2 for a missing or malformed trace.
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import plot  # noqa: E402  (analysis/plot.py: the shared trace reading and units)
import run_outputs  # noqa: E402  (analysis/run_outputs.py: the run folder's record)

plot.PROG = "plot_run"
REQUIRED = plot.trace_schema.require("rounds.csv", ["round", "sim_time_s", "test_accuracy",
                                                    "cumulative_wire_bytes"])


def load_rounds(run_dir):
    path = os.path.join(run_dir, "rounds.csv")
    if not os.path.isfile(path):
        plot.fail(f"{path}: no such file (is {run_dir} a fedran output folder?)")
    rounds = plot.read_csv(path, REQUIRED)
    if rounds.empty:
        plot.fail(f"{path}: no rounds recorded")
    return rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", help="PNG file (default RUN_DIR/accuracy.png)")
    args = parser.parse_args()

    rounds = load_rounds(args.run_dir)
    out = args.out or os.path.join(args.run_dir, "accuracy.png")
    name = os.path.basename(os.path.normpath(args.run_dir))

    unit, scale = plot.byte_unit(max(rounds["cumulative_wire_bytes"].max(), 1))
    traffic = rounds["cumulative_wire_bytes"] / scale
    column, ylabel, metric = plot.quality_metric(rounds)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    left.plot(traffic, rounds[column], marker="o", markersize=3)
    left.set_xlabel(f"cumulative traffic on the backhaul wire, up + down ({unit})")
    left.set_ylabel(ylabel)
    right.plot(rounds["sim_time_s"], rounds[column], marker="o", markersize=3)
    right.set_xlabel("simulated time (s)")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{name}: {len(rounds)} rounds, final {metric} "
                 f"{rounds[column].iloc[-1]:.3f}")
    fig.tight_layout()
    run_outputs.record(args.run_dir, [out])  # before writing: see run_outputs.py
    fig.savefig(out, dpi=120)
    print(f"plot written to {out}")


if __name__ == "__main__":
    main()
