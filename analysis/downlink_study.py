#!/usr/bin/python3
"""The adaptive downlink's measurement (docs/adaptive-bitrate.md, "Downlink"): one row per
configuration, mean ± standard deviation over its seeds, of the time to a test accuracy, the
final accuracy, and the model bytes (global-model frames sent to clients) over the run.

    /usr/bin/python3 analysis/downlink_study.py results/downlink --target 0.8

reads RESULTS/<config>/seed<N>/rounds.csv, as the loop in the docs writes them.
"""
import argparse
import math
import sys
from pathlib import Path

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import pandas as pd  # noqa: E402

import trace_schema  # noqa: E402

trace_schema.require("rounds.csv", ["sim_time_s", "test_accuracy", "downlink_payload_bytes"])


def mean_sd(values):
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return "never"
    mean = sum(values) / len(values)
    if len(values) < 2:
        return f"{mean:.3g}"
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.3g} ± {sd:.2g}"


def summarise(run, target):
    rounds = pd.read_csv(run / "rounds.csv")
    reached = rounds[rounds["test_accuracy"] >= target]
    return {"time": float(reached["sim_time_s"].iloc[0]) if len(reached) else math.nan,
            "final": float(rounds["test_accuracy"].iloc[-1]),
            "model_mb": rounds["downlink_payload_bytes"].sum() / 1e6,
            "end": float(rounds["sim_time_s"].iloc[-1])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--target", type=float, default=0.8)
    args = parser.parse_args()
    configs = sorted(p for p in args.results.iterdir() if p.is_dir())
    if not configs:
        sys.exit(f"{args.results}: no configuration folders")
    print(f"| downlink | seeds | time to {args.target} (s) | final accuracy | model bytes (MB) "
          "| simulated time (s) |")
    print("|---|---|---|---|---|---|")
    for config in configs:
        runs = [summarise(run, args.target) for run in sorted(config.glob("seed*"))]
        cells = [mean_sd([r[key] for r in runs]) for key in ("time", "final", "model_mb", "end")]
        missed = sum(math.isnan(r["time"]) for r in runs)
        if missed:
            cells[0] += f" ({missed} never)"
        print(f"| {config.name} | {len(runs)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
