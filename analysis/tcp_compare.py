#!/usr/bin/python3
"""Transfer times of runs that differ in their TCP (network.tcp), as CDFs.

Usage:
  /usr/bin/python3 analysis/tcp_compare.py --case TITLE LABEL=RUN_DIR [LABEL=RUN_DIR ...]
      [--case TITLE ...] --out FIGURE.png

Each --case is one column of the figure: the distribution of the update uploads
(upload_start_s to upload_end_s) and of the model downloads (round start to
model_received_s) of every completed client row, one line per run, as a share of all the
run's selections (so a curve that stays below 1 has transfers that missed their round). Prints each run's median
and 95th percentile. Exit status 2 for a folder without rounds.csv or clients.csv.
"""
import argparse
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

PROG = "tcp_compare"


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def transfer_times(run_dir):
    for name in ("rounds.csv", "clients.csv"):
        if not os.path.isfile(os.path.join(run_dir, name)):
            fail(f"{run_dir}: no {name}")
    rounds = pd.read_csv(os.path.join(run_dir, "rounds.csv"))
    clients = pd.read_csv(os.path.join(run_dir, "clients.csv"))
    start = dict(zip(rounds["round"], rounds["sim_time_s"] - rounds["round_duration_s"]))
    done = clients[clients["status"] == "completed"]
    up = (done["upload_end_s"] - done["upload_start_s"]).dropna().to_numpy()
    down = (done["model_received_s"] - done["round"].map(start)).dropna().to_numpy()
    selections = int((clients["status"] != "late_arrival").sum())
    return up, down, selections


def parse_cases(argv):
    cases, current = [], None
    args = iter(argv)
    out = None
    for arg in args:
        if arg == "--case":
            current = (next(args, None), [])
            if current[0] is None:
                fail("--case needs a title")
            cases.append(current)
        elif arg == "--out":
            out = next(args, None)
        elif "=" in arg and current is not None:
            label, run_dir = arg.split("=", 1)
            current[1].append((label, run_dir))
        else:
            fail(f"unexpected argument '{arg}' (see --help)")
    if not cases or any(not runs for _, runs in cases) or not out:
        fail("give at least one --case TITLE LABEL=RUN_DIR ... and --out FIGURE.png")
    return cases, out


def main():
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return
    cases, out = parse_cases(sys.argv[1:])
    fig, axes = plt.subplots(2, len(cases), figsize=(5 * len(cases), 6.5), squeeze=False)
    for col, (title, runs) in enumerate(cases):
        for index, (label, run_dir) in enumerate(runs):
            up, down, selections = transfer_times(run_dir)
            for row, (name, values) in enumerate((("uploads", up), ("downloads", down))):
                ax = axes[row][col]
                if len(values) == 0:
                    continue
                values = np.sort(values)
                # Shares of every selection, so transfers that never finished in time (late,
                # dropped) keep the curve below 1 instead of vanishing from it.
                ax.step(values, np.arange(1, len(values) + 1) / selections, where="post",
                        color=f"C{index}", label=f"{label} ({len(values)} of {selections})")
                print(f"{title} {label} {name}: {len(values)} transfers, median "
                      f"{np.median(values):.3f} s, p95 {np.percentile(values, 95):.3f} s")
        for row, name in enumerate(("update uploads", "model downloads")):
            ax = axes[row][col]
            ax.set_title(f"{title}: {name}", fontsize=10)
            ax.set_xlabel("transfer time (s)")
            ax.set_ylabel("share of selections")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
