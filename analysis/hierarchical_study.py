#!/usr/bin/python3
"""Figures and table of the hierarchical FL study (docs/hierarchical.md).

Usage:
  /usr/bin/python3 analysis/hierarchical_study.py SWEEP_DIR --figures DIR [--csv FILE]
      [--target 0.78|nrmse=0.26]

SWEEP_DIR from `analysis/sweep.py scenarios/sweeps/hierarchical.json`. For each finished run
(runs/*/run.json with status "completed") it labels the run from its resolved scenario (no edge
aggregation, or aggregation with edge_rounds k; the sites' and the hubs' uplink codecs) and, for
each cloud round of rounds.csv, takes the test accuracy, the simulated time and the core link's
traffic so far: links.csv's core-up and core-down throughput x interval / 8, summed and
interpolated linearly at the round's end (links.csv has no row for the run's last, unfinished
sampling interval, so the last round's traffic is a little short in every run alike). The
first-level hub links (hubs whose parent is "core") are summed the same way.

Writes DIR/hierarchical-accuracy-vs-core.png (accuracy against core-link traffic) and
DIR/hierarchical-accuracy-vs-time.png (against simulated time), and prints a Markdown table:
final accuracy, core-link and first-level hub-link traffic, simulated time, and the core traffic
and time at which the accuracy first reached --target (a test accuracy, or `metric=value` for a
lower-is-better metric such as nrmse, whose column then replaces the accuracy in the table and
figures). Runs with the same label (seeds) are averaged. Exit status 2 for a folder without finished runs or a trace without its columns.
"""
import argparse
import glob
import json
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_schema  # noqa: E402
from targets import argparse_target  # noqa: E402

PROG = "hierarchical_study"


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def codec_name(spec):
    text = spec.get("type", "none")
    if "base" in spec:
        base = spec["base"]
        inner = base["type"] + (f" {base['ratio']:g}" if "ratio" in base else "")
        return f"{text}({inner})"
    if text == "quantization":
        return f"q{spec.get('bits', 8)}"
    return text


def label_of(scenario):
    hubs = [h for h in scenario["network"]["hubs"] if "aggregator" in h]
    sites = codec_name(scenario["compression"]["uplink"])
    if not hubs:
        return ("flat", 0, f"no edge aggregation, sites {sites}")
    aggregator = hubs[0]["aggregator"]
    k = aggregator["edge_rounds"]
    hub = codec_name(aggregator["compression"]["uplink"])
    down = codec_name(aggregator["compression"]["downlink"])
    text = f"edge_rounds {k}, sites {sites}, hubs {hub}"
    if down != "none":
        text += f" (down {down})"
    return ("hier", k, text)


def read_csv(path, columns):
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    try:
        trace_schema.require(os.path.basename(path), columns)  # columns the table defines
    except trace_schema.TraceSchemaError as e:
        fail(str(e))
    frame = pd.read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)}")
    return frame


def cumulative_bytes(links, names, sample_s, at):
    """Bytes the links `names` carried from time 0 to each time in `at`."""
    rows = links[links["link"].isin(names)]
    per_time = rows.groupby("time_s")["throughput_bps"].sum().sort_index()
    times = np.concatenate([[0.0], per_time.index.to_numpy()])
    totals = np.concatenate([[0.0], np.cumsum(per_time.to_numpy() * sample_s / 8.0)])
    return np.interp(at, times, totals)


def read_run(folder):
    manifest = os.path.join(folder, "run.json")
    if not os.path.isfile(manifest):
        return None
    run = json.load(open(manifest))
    if run.get("status") != "completed":
        return None
    scenario = run["scenario"]
    rounds = read_csv(os.path.join(folder, "rounds.csv"),
                      ["round", "sim_time_s", "test_accuracy", "test_nrmse"])
    links = read_csv(os.path.join(folder, "links.csv"), ["time_s", "link", "throughput_bps"])
    sample_s = scenario["output"]["link_sample_s"]
    first_level = []
    for hub in scenario["network"]["hubs"]:
        if hub.get("parent", "core") != "core":
            continue
        count = hub.get("count", 1)
        names = [hub["name"]] if count == 1 else [f"{hub['name']}-{k}" for k in range(count)]
        for name in names:
            first_level += [f"hub-{name}-up", f"hub-{name}-down"]
    at = rounds["sim_time_s"].to_numpy()
    rounds = rounds.assign(
        core_mb=cumulative_bytes(links, ["core-up", "core-down"], sample_s, at) / 1e6,
        hub_mb=cumulative_bytes(links, first_level, sample_s, at) / 1e6)
    kind, k, text = label_of(scenario)
    return {"kind": kind, "k": k, "label": text, "seed": run["seed"], "rounds": rounds}


def first_reach(rounds, target, column):
    reached = target.reached(rounds)
    return float(reached[column].iloc[0]) if not reached.empty else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep")
    parser.add_argument("--figures", required=True)
    parser.add_argument("--csv")
    parser.add_argument("--target", type=argparse_target, default="0.78")
    args = parser.parse_args()

    runs = [r for r in (read_run(f) for f in sorted(glob.glob(os.path.join(args.sweep, "runs", "*"))))
            if r is not None]
    if not runs:
        fail(f"{args.sweep}: no finished run (run analysis/sweep.py first)")
    os.makedirs(args.figures, exist_ok=True)

    labels = sorted({r["label"] for r in runs},
                    key=lambda text: next((r["kind"] != "flat", r["k"], text)
                                          for r in runs if r["label"] == text))
    quality = args.target.column
    final_name = args.target.final_column or "final_" + args.target.metric
    table = []
    curves = {}
    for label in labels:
        mine = [r for r in runs if r["label"] == label]
        frames = [r["rounds"].set_index("round") for r in mine]
        mean = sum(f[[quality, "sim_time_s", "core_mb", "hub_mb"]] for f in frames) / len(frames)
        mean = mean.reset_index()
        curves[label] = mean
        last = mean.iloc[-1]
        table.append({
            "run": label,
            "seeds": len(mine),
            final_name: last[quality],
            "core_mb": last["core_mb"],
            "first_level_hub_mb": last["hub_mb"],
            "sim_time_s": last["sim_time_s"],
            f"core_mb_to_{args.target.key}": first_reach(mean, args.target, "core_mb"),
            f"time_s_to_{args.target.key}": first_reach(mean, args.target, "sim_time_s"),
        })
    summary = pd.DataFrame(table)
    if args.csv:
        summary.to_csv(args.csv, index=False)

    styles = ["-", "--", "-.", ":"]
    for x, name, xlabel in [("core_mb", "core", "core-link traffic, both directions (MB)"),
                            ("sim_time_s", "time", "simulated time (s)")]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for i, label in enumerate(labels):
            curve = curves[label]
            ax.plot(curve[x], curve[quality], styles[i % len(styles)], marker="o",
                    markersize=3, label=label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(quality.replace("_", " "))
        if x == "core_mb":
            ax.set_xscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title("hierarchical.json: 100 sites, aggregation at the first hub level")
        fig.tight_layout()
        path = os.path.join(args.figures, f"hierarchical-accuracy-vs-{name}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(f"{PROG}: wrote {path}", file=sys.stderr)

    header = list(summary.columns)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for _, row in summary.iterrows():
        cells = []
        for column in header:
            value = row[column]
            if isinstance(value, float):
                cells.append("—" if np.isnan(value) else
                             (f"{value:.4f}" if column == final_name else f"{value:.1f}"))
            else:
                cells.append(str(value))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
