#!/usr/bin/python3
"""Summarise the adaptive-bitrate study sweep: one row per uplink configuration, mean and
spread over seeds.

Usage: /usr/bin/python3 analysis/abr_study.py SWEEP_DIR [--target 0.8|nrmse=0.26] [--csv FILE]
                                             [--figures DIR]

SWEEP_DIR is the output of `analysis/sweep.py scenarios/sweeps/abr-study.json --targets T`
(final.csv, runs/<id>/clients.csv). Per configuration and seed:
  met        share of the sent updates that met the deadline (clients.csv deadline_met over
             the rows of selected clients: completed, late, dropped, failed)
  slots      share of all client-rounds (clients x rounds) with an update in time: a late
             client is not selected again until its update arrives, so it also loses rounds
             that `met` does not see
  time       simulated seconds until the quality first reached T (final.csv); T is a test
             accuracy (0.8) or `metric=value` for a lower-is-better metric (nrmse=0.26)
  bytes      uplink wire bytes until then (final.csv)
  final      final test accuracy (final NRMSE for an nrmse target)
--figures also draws accuracy against simulated time and against uplink wire traffic
(analysis/plot.py's figures, labelled by the short configuration names above).
Printed as a Markdown table of mean ± sample standard deviation [min-max] over seeds; a seed
that never reached T counts as missing (shown as "n/N reached"). Exit status 2 for a folder
without final.csv or a missing column.
"""
import argparse
import json
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import pandas as pd  # noqa: E402

import plot  # noqa: E402  (analysis/plot.py: the accuracy figures and trace reading)
from targets import argparse_target  # noqa: E402

PROG = "abr_study"
plot.PROG = PROG
CLIENT_COLUMNS = plot.trace_schema.require("clients.csv", ["client", "status", "deadline_met"])
fail = plot.fail


def config_name(uplink_json):
    """"fixed <rung spec>", "time", "deadline", ... from the run's compression.uplink: a plain
    codec and a fixed rung are "fixed <codec>", any other policy its name (the adaptive
    uplink's default policy is "time")."""
    spec = json.loads(uplink_json) if isinstance(uplink_json, str) else uplink_json
    if spec.get("type") != "adaptive":
        return f"fixed {codec_name(spec)}"
    policy = spec.get("policy", "time")
    if policy != "fixed":
        return policy
    return f"fixed {codec_name(spec['ladder'][spec.get('rung', 0)])}"


def codec_name(spec):
    """"quantization 8 bit", "error_feedback(top_k 1%)", ... of one codec spec."""
    text = spec.get("type", "none")
    if "bits" in spec:
        text += f" {spec['bits']} bit"
    if "ratio" in spec:
        text += f" {spec['ratio'] * 100:g}%"
    if "base" in spec:
        text = f"{text}({codec_name(spec['base'])})"
    return text


def per_run(folder, target):
    final_path = os.path.join(folder, "final.csv")
    if not os.path.isfile(final_path):
        fail(f"{final_path}: no such file (is {folder} a sweep folder?)")
    final = plot.read_csv(final_path)
    final_column = target.final_column or "final_accuracy"
    needed = ["run_id", "seed", "compression.uplink", "rounds", final_column,
              f"time_to_{target.key}_s", f"uplink_bytes_to_{target.key}"]
    missing = [c for c in needed if c not in final.columns]
    if missing:
        fail(f"{final_path}: missing column(s) {', '.join(missing)} "
             f"(run sweep.py with --targets {target})")
    if "status" in final.columns:
        final = final[final["status"] == "done"]  # failed runs have no traces to read
    rows = []
    for _, run in final.iterrows():
        run_dir = os.path.join(folder, "runs", run["run_id"])
        clients = plot.read_csv(os.path.join(run_dir, "clients.csv"), CLIENT_COLUMNS)
        population = clients["client"].nunique()  # the study selects every client each round
        rows.append({"config": config_name(run["compression.uplink"]), "seed": run["seed"],
                     "met": clients["deadline_met"].mean(),
                     "slots": (clients["status"] == "completed").sum() /
                     (population * run["rounds"]),
                     "time": run[f"time_to_{target.key}_s"],
                     "bytes": run[f"uplink_bytes_to_{target.key}"],
                     "final": run[final_column]})
    return pd.DataFrame(rows)


def spread(values, fmt):
    values = values.dropna()
    if values.empty:
        return "—"
    text = fmt(values.mean())
    if len(values) > 1:
        text += f" ± {fmt(values.std())} [{fmt(values.min())}–{fmt(values.max())}]"
    return text


def figures(folder, out_dir):
    title, frame, _ = plot.load(folder)
    if "compression.uplink" not in frame.columns:
        fail(f"{folder}/summary.csv: no compression.uplink column (not the abr-study sweep)")
    frame["label"] = frame["compression.uplink"].map(config_name)
    os.makedirs(out_dir, exist_ok=True)
    written = []
    plot.accuracy_figure(title, frame, "sim_time_s", "simulated time (s)", False, out_dir,
                         "accuracy-vs-time", ["png"], written)
    plot.accuracy_figure(title, frame, "cumulative_uplink_wire_bytes",
                         "cumulative uplink traffic on the backhaul wire", True, out_dir,
                         "accuracy-vs-uplink", ["png"], written)
    for path in written:
        print(path, file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--target", type=argparse_target, default="0.8")
    parser.add_argument("--csv", help="also write the per-run values")
    parser.add_argument("--figures", help="also write the accuracy figures (PNG) here")
    args = parser.parse_args()
    runs = per_run(args.folder, args.target)
    if args.figures:
        figures(args.folder, args.figures)
    if args.csv:
        runs.to_csv(args.csv, index=False, float_format="%.6g")
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    print(f"| uplink | seeds | updates meeting the deadline | client-rounds with an update "
          f"| sim time to {args.target.label()} (s) | uplink wire kB to {args.target.label()} "
          f"| final {args.target.quality_name()} |")
    print("|---|---|---|---|---|---|---|")
    for config, group in runs.groupby("config", sort=False):
        reached = group["time"].notna().sum()
        seeds = f"{len(group)}" if reached == len(group) else \
            f"{len(group)} ({reached}/{len(group)} reached)"
        print(f"| {config} | {seeds} | {spread(group['met'], pct)} | "
              f"{spread(group['slots'], pct)} | {spread(group['time'], lambda x: f'{x:.1f}')} | "
              f"{spread(group['bytes'] / 1e3, lambda x: f'{x:.0f}')} | "
              f"{spread(group['final'], lambda x: f'{x:.3f}')} |")


if __name__ == "__main__":
    main()
