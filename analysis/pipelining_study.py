#!/usr/bin/python3
"""The table of the pipelining study (docs/pipelining.md).

Usage:
  /usr/bin/python3 analysis/pipelining_study.py SWEEP_DIR [--target 0.7] [--csv FILE]

SWEEP_DIR from `analysis/sweep.py scenarios/sweeps/pipelining.json --out SWEEP_DIR`. One line
per run (model, local steps, codec, client cores, pipelining): the mean round duration over
rounds 2.. (round 1 includes nothing special, but the first round's start waits for joins),
the simulated time to the target test accuracy (from the first round's start), the final
accuracy, and per completed client row the means of compute_s, of the last backward pass
(2/3 of the last step: batch / samples_per_second, the most pipelining can hide), of
encode_s and decode_s, of how long after training the upload started (negative: before
training ended, pipelining), and the server's evaluate_s. Prints a Markdown table.
Exit status 2 for a folder without runs.
"""
import argparse
import json
import os
import sys

import pandas as pd

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
    run = json.load(open(os.path.join(run_dir, "run.json")))
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
    reached = rounds[rounds["test_accuracy"] >= target]
    return {
        "model": scenario["model"]["type"],
        "local_steps": training.get("local_steps", "epoch"),
        "codec": codec_name(scenario["compression"]["uplink"]),
        "cores": group["compute"]["cores"],
        "pipelining": training["pipelining"]["mode"],
        "round_s": rounds["round_duration_s"].iloc[1:].mean(),
        f"time_to_{target}_s": (reached["sim_time_s"].iloc[0] - start) if len(reached) else float("nan"),
        "final_acc": rounds["test_accuracy"].iloc[-1],
        "compute_s": done["compute_s"].mean(),
        "last_backward_s": training["batch_size"] / sps * 2.0 / 3.0,
        "encode_s": done["encode_s"].mean(),
        "upload_after_training_s": (done["upload_start_s"] - done["model_received_s"]
                                    - done["compute_s"]).mean(),
        "upload_s": (done["upload_end_s"] - done["upload_start_s"]).mean(),
        "decode_s": done["decode_s"].mean(),
        "evaluate_s": rounds["evaluate_s"].mean(),
    }


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG)
    parser.add_argument("sweep_dir")
    parser.add_argument("--target", type=float, default=0.7)
    parser.add_argument("--csv")
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
