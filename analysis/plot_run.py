#!/usr/bin/python3
"""Plot one fedran run: its quality against cumulative wire traffic and simulated time.

Usage: /usr/bin/python3 analysis/plot_run.py RUN_DIR [--out FILE.svg]

Reads RUN_DIR/rounds.csv (columns in docs/traces.md) and writes RUN_DIR/accuracy.svg unless
--out says otherwise: test accuracy, or test NRMSE for a forecasting run. Standard library
only, so that the quickstart needs no plotting stack; analysis/plot.py RUN_DIR draws a run's
figures as PNG and PDF. Exit status 2 for a missing or malformed trace.
"""
import argparse
import csv
import math
import os
import sys

import run_outputs  # (analysis/run_outputs.py: the run folder's record)
import svg_chart  # (analysis/svg_chart.py: the chart itself)
import trace_schema  # (analysis/trace_schema.py: the traces' column table)

REQUIRED = trace_schema.require("rounds.csv", ["round", "sim_time_s", "test_accuracy",
                                               "cumulative_wire_bytes"])


def fail(message):
    print(f"plot_run: {message}", file=sys.stderr)
    sys.exit(2)


def number(path, line, column, text):
    try:
        return float(text) if text != "" else math.nan
    except ValueError:
        fail(f"{path}: line {line}: {column} is not a number: {text!r}")


def load_rounds(run_dir):
    """rounds.csv as {column: [float per round]}, the needed columns only."""
    path = os.path.join(run_dir, "rounds.csv")
    if not os.path.isfile(path):
        fail(f"{path}: no such file (is {run_dir} a fedran output folder?)")
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        wanted = REQUIRED + (["test_nrmse"] if "test_nrmse" in header else [])
        message = trace_schema.missing_columns(path, header, REQUIRED)
        if message:
            fail(message)
        index = {c: header.index(c) for c in wanted}
        columns = {c: [] for c in wanted}
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                fail(f"{path}: line {line}: {len(row)} fields, the header has {len(header)}")
            for c in wanted:
                columns[c].append(number(path, line, c, row[index[c]]))
    if not columns["round"]:
        fail(f"{path}: no rounds recorded")
    return columns


def quality_metric(rounds):
    """(column, axis label, name): test accuracy, or for a forecasting task (whose
    test_accuracy is empty) the test NRMSE, lower is better."""
    if all(math.isnan(v) for v in rounds["test_accuracy"]) and \
            any(not math.isnan(v) for v in rounds.get("test_nrmse", [])):
        return "test_nrmse", "test NRMSE (lower is better)", "nrmse"
    return "test_accuracy", "test accuracy", "accuracy"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", help="SVG file (default RUN_DIR/accuracy.svg)")
    args = parser.parse_args()
    out = args.out or os.path.join(args.run_dir, "accuracy.svg")
    if not out.endswith(".svg"):
        fail(f"--out {out}: plot_run writes SVG; analysis/plot.py {args.run_dir} writes PNG "
             "and PDF")

    rounds = load_rounds(args.run_dir)
    column, ylabel, metric = quality_metric(rounds)
    kept = [i for i, v in enumerate(rounds[column]) if not math.isnan(v)]
    if not kept:
        fail(f"{os.path.join(args.run_dir, 'rounds.csv')}: no round has a {column}")
    quality = [rounds[column][i] for i in kept]
    unit, scale = svg_chart.byte_unit(max(max(rounds["cumulative_wire_bytes"]), 1))
    traffic = svg_chart.Panel([rounds["cumulative_wire_bytes"][i] / scale for i in kept],
                              f"cumulative traffic on the backhaul wire, up + down ({unit})")
    time = svg_chart.Panel([rounds["sim_time_s"][i] for i in kept], "simulated time (s)")
    name = os.path.basename(os.path.normpath(args.run_dir))
    title = f"{name}: {len(rounds['round'])} rounds, final {metric} {quality[-1]:.3f}"
    run_outputs.record(args.run_dir, [out])  # before writing: see run_outputs.py
    svg_chart.write(out, title, ylabel, quality, [traffic, time])
    print(f"plot written to {out}")


if __name__ == "__main__":
    main()
