#!/usr/bin/python3
"""The table of the pipelining study (docs/pipelining.md).

Usage:
  /usr/bin/python3 analysis/pipelining_study.py SWEEP_DIR [--target 0.7|nrmse=0.26] [--csv FILE]

SWEEP_DIR from `analysis/sweep.py scenarios/sweeps/pipelining.json --out SWEEP_DIR`. One line
per run (model, local steps, codec, client cores, pipelining): the mean round duration over
rounds 2.. (round 1 includes nothing special, but the first round's start waits for joins),
the simulated time to the target test accuracy (from the first round's start; or to a
lower-is-better metric's target, `--target nrmse=0.26`), the final accuracy (or that metric), and per completed client row the means of compute_s, of the last backward pass
(2/3 of the last step: batch / samples_per_second, the most pipelining can hide), of
encode_s and decode_s, of how long after training the upload started (negative: before
training ended, pipelining), and the server's evaluate_s. Prints a Markdown table.
--pairs prints one line per setting instead, without and with pipelining side by side (the
table of docs/pipelining.md). Exit status 2 for a folder without runs.
"""
import argparse
import json
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import pandas as pd  # noqa: E402

from targets import argparse_target  # noqa: E402

PROG = "pipelining_study"


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def codec_name(spec):
    if spec.get("type") == "error_feedback":
        return "ef+" + codec_name(spec["base"])
    if spec.get("type") == "top_k":
        return f"top_k {spec.get('ratio')}"
    return spec.get("type", "?")


def study_row(run_dir, target):
    path = os.path.join(run_dir, "run.json")
    if not os.path.isfile(path):
        return None
    run = json.load(open(path))
    if run.get("status") != "completed":
        return None
    scenario = run["scenario"]
    rounds = pd.read_csv(os.path.join(run_dir, "rounds.csv"))
    clients = pd.read_csv(os.path.join(run_dir, "clients.csv"))
    done = clients[clients["status"] == "completed"]
    group = scenario["clients"]["groups"][0]
    training = scenario["training"]
    sps = float(group["compute"]["samples_per_second"])
    start = rounds["sim_time_s"].iloc[0] - rounds["round_duration_s"].iloc[0]
    reached = target.reached(rounds)
    return {
        "model": scenario["model"]["type"],
        "local_steps": training.get("local_steps", "epoch"),
        "codec": codec_name(scenario["compression"]["uplink"]),
        "cores": group["compute"]["cores"],
        "pipelining": training["pipelining"]["mode"],
        "round_s": rounds["round_duration_s"].iloc[1:].mean(),
        f"time_to_{target.key}_s": (reached["sim_time_s"].iloc[0] - start) if len(reached) else float("nan"),
        "final_acc": rounds[target.column].iloc[-1],
        "compute_s": done["compute_s"].mean(),
        "last_backward_s": training["batch_size"] / sps * 2.0 / 3.0,
        "encode_s": done["encode_s"].mean(),
        "upload_after_training_s": (done["upload_start_s"] - done["model_received_s"]
                                    - done["compute_s"]).mean(),
        "upload_s": (done["upload_end_s"] - done["upload_start_s"]).mean(),
        "decode_s": done["decode_s"].mean(),
        "evaluate_s": rounds["evaluate_s"].mean(),
    }


def print_pairs(t, target):
    tta_col = f"time_to_{target.key}_s"
    t = t.copy()
    t["local_steps"] = t["local_steps"].astype(str)
    print("| model | local steps | uplink | client cores | round, none (s) | round, layerwise (s) "
          "| saved (ms) | last backward (ms) | first bucket before training ends (ms) "
          f"| encode_s (ms) | time to {target.label()}, none / layerwise (s) "
          f"| {target.quality_name()} after the run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    tta = lambda v: "not reached" if pd.isna(v) else f"{v:.3f}"
    for (m, st, c, co), g in t.groupby(["model", "local_steps", "codec", "cores"]):
        n = g[g.pipelining == "none"]
        lay = g[g.pipelining == "layerwise"]
        if n.empty:
            continue
        n = n.iloc[0]
        if lay.empty:
            cells = ["refused", "–", "–", "–"]
        else:
            lay = lay.iloc[0]
            cells = [f"{lay.round_s:.4f}", f"{(n.round_s - lay.round_s) * 1e3:.1f}",
                     f"{-lay.upload_after_training_s * 1e3:.1f}", tta(lay[tta_col])]
        steps = "1 (FedSGD-like)" if st == "1" else f"{st}"
        print(f"| {m} | {steps} | {c} | {co} | {n.round_s:.4f} | {cells[0]} | {cells[1]} "
              f"| {n.last_backward_s * 1e3:.1f} | {cells[2]} | {n.encode_s * 1e3:.3f} "
              f"| {tta(n[tta_col])} / {cells[3]} | {n.final_acc:.4f} |")


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG)
    parser.add_argument("sweep_dir")
    parser.add_argument("--target", type=argparse_target, default="0.7")
    parser.add_argument("--csv")
    parser.add_argument("--pairs", action="store_true",
                        help="one line per setting: without and with pipelining side by side")
    args = parser.parse_args(argv)
    runs = os.path.join(args.sweep_dir, "runs")
    if not os.path.isdir(runs):
        fail(f"{runs}: no such folder (run analysis/sweep.py first)")
    rows = [r for r in (study_row(os.path.join(runs, d), args.target) for d in sorted(os.listdir(runs)))
            if r is not None]
    if not rows:
        fail(f"{runs}: no completed run")
    table = pd.DataFrame(rows).sort_values(["model", "local_steps", "codec", "cores", "pipelining"],
                                           key=lambda c: c.astype(str))
    if args.csv:
        table.to_csv(args.csv, index=False)
    if args.pairs:
        print_pairs(table, args.target)
        return
    columns = list(table.columns)
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for _, row in table.iterrows():
        cells = []
        for c in columns:
            v = row[c]
            cells.append(f"{v:.4g}" if isinstance(v, float) else str(v))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
