#!/usr/bin/python3
"""Figures of the Byzantine study (docs/byzantine.md).

Usage:
  /usr/bin/python3 analysis/byzantine_study.py heatmap SWEEP_DIR --figures DIR [--csv FILE]
  /usr/bin/python3 analysis/byzantine_study.py traffic SWEEP_DIR --figures DIR [--csv FILE]
      [--metric accuracy|nrmse]

heatmap: SWEEP_DIR from `analysis/sweep.py scenarios/sweeps/byzantine.json`. One heatmap per
  data partition of the final test accuracy, rule x Byzantine share, each cell the worst case
  over the attacks of the mean over seeds (as ByzFL's benchmark reports). The share is
  clients.groups.1.count / total clients; a run whose attack starts at round 1000000 has 0%.
  The rule is server.robust.type, or "sign vote" for a sign uplink with majority_vote.
traffic: SWEEP_DIR from `analysis/sweep.py scenarios/sweeps/byzantine-codecs.json`. Final test
  accuracy against the run's uplink wire bytes, one marker per rule, one colour per codec.
--metric nrmse reads final.csv's final_nrmse instead (a forecasting sweep): the worst attack is
  then the one with the highest NRMSE, and the figures and tables name NRMSE.
--csv writes the table behind the figure (heatmap: also seed_min, seed_max and seeds, the worst
  attack's spread over seeds). Exit status 2 for a folder without final.csv or a
missing column.
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
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

PROG = "byzantine_study"
NEVER = 1000000  # start_round of the 0% entry: the group never attacks


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def read_final(folder, required):
    path = os.path.join(folder, "final.csv")
    if not os.path.isfile(path):
        fail(f"{path}: no such file (run analysis/sweep.py, or sweep.py collect, first)")
    final = pd.read_csv(path)
    missing = [c for c in required if c not in final.columns]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)}")
    done = final[final["status"] == "done"].copy()
    if done.empty:
        fail(f"{path}: no finished run")
    return done


def rule_name(robust_json, uplink_json):
    uplink = json.loads(uplink_json) if isinstance(uplink_json, str) else {"type": "none"}
    while "base" in uplink:
        uplink = uplink["base"]
    if uplink.get("type") == "sign" and uplink.get("aggregation") == "majority_vote":
        return "sign vote"
    robust = json.loads(robust_json) if isinstance(robust_json, str) else {"type": "mean"}
    return robust["type"]


def codec_name(uplink_json):
    spec = json.loads(uplink_json)
    text = spec["type"]
    if "base" in spec:
        base = spec["base"]
        inner = base["type"] + (f" {base['ratio'] * 100:g}%" if "ratio" in base else "")
        return f"{text}({inner})"
    if text == "sign":
        return "sign vote" if spec.get("aggregation") == "majority_vote" else "sign (scaled mean)"
    return text


def partition_name(value):
    spec = json.loads(value) if isinstance(value, str) else {"type": "iid"}
    return spec["type"] + (f" {spec['alpha']:g}" if spec["type"] == "dirichlet" else "")


RULE_ORDER = ["mean", "median", "trimmed_mean", "multi_krum", "krum", "geometric_median",
              "centered_clipping", "norm_bound", "sign vote"]


def quality_of(args):
    """(final.csv column, worst-case column, heading, True when higher is better)."""
    if args.metric == "nrmse":
        return "final_nrmse", "worst_nrmse", "NRMSE", False
    return "final_accuracy", "worst_accuracy", "test accuracy", True


def heatmap(args):
    final_q, worst_q, heading, higher = quality_of(args)
    required = ["clients.groups.0.count", "clients.groups.1.count",
                "clients.groups.1.attack.start_round", "clients.groups.1.attack.type",
                "server.robust", final_q, "seed"]
    final = read_final(args.folder, required)
    if "compression.uplink" not in final.columns:
        final["compression.uplink"] = json.dumps({"type": "none"})
    if "data.partition" not in final.columns:
        final["data.partition"] = json.dumps({"type": "iid"})
    total = final["clients.groups.0.count"] + final["clients.groups.1.count"]
    attacking = final["clients.groups.1.attack.start_round"] < NEVER
    final["share"] = np.where(attacking, 100.0 * final["clients.groups.1.count"] / total, 0.0)
    final["rule"] = [rule_name(r, u) for r, u in zip(final["server.robust"],
                                                    final["compression.uplink"])]
    final["partition"] = [partition_name(p) for p in final["data.partition"]]
    final["attack"] = final["clients.groups.1.attack.type"]
    per_attack = (final.groupby(["partition", "rule", "share", "attack"])[final_q]
                  .agg(**{final_q: "mean"}, seed_min="min", seed_max="max", seeds="count")
                  .reset_index())
    # seed_min / seed_max: the spread over seeds of the worst attack's final quality.
    worst = (per_attack.sort_values([final_q, "attack"], ascending=[higher, True])
             .groupby(["partition", "rule", "share"]).first().reset_index()
             .rename(columns={final_q: worst_q, "attack": "worst_attack"}))
    if args.csv:
        worst.to_csv(args.csv, index=False)
    os.makedirs(args.figures, exist_ok=True)
    for partition, table in worst.groupby("partition"):
        rules = [r for r in RULE_ORDER if r in set(table["rule"])]
        shares = sorted(set(table["share"]))
        grid = np.full((len(rules), len(shares)), np.nan)
        labels = [["" for _ in shares] for _ in rules]
        for _, row in table.iterrows():
            i, j = rules.index(row["rule"]), shares.index(row["share"])
            grid[i, j] = row[worst_q]
            labels[i][j] = f"{row[worst_q]:.2f}\n{row['worst_attack']}" \
                if row["share"] > 0 else f"{row[worst_q]:.2f}"
        fig, ax = plt.subplots(figsize=(1.5 + 1.45 * len(shares), 0.9 + 0.62 * len(rules)))
        # Accuracy on a fixed scale so that partitions compare; an error reversed, so that
        # bright is good in both.
        scale = {"vmin": 0.0, "vmax": 0.9, "cmap": "viridis"} if higher else \
            {"vmin": np.nanmin(grid), "vmax": np.nanmax(grid), "cmap": "viridis_r"}
        image = ax.imshow(grid, aspect="auto", **scale)
        middle = 0.55 if higher else (scale["vmin"] + scale["vmax"]) / 2
        for i in range(len(rules)):
            for j in range(len(shares)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=7,
                            color="white" if (grid[i, j] < middle) == higher else "black")
        ax.set_xticks(range(len(shares)), [f"{s:g}%" for s in shares])
        ax.set_yticks(range(len(rules)), rules)
        ax.set_xlabel("Byzantine share of the sites")
        seeds = final["seed"].nunique()
        ax.set_title(f"Final {heading}, worst attack ({partition}, {seeds} seed"
                     f"{'s' if seeds > 1 else ''})", fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.04)
        fig.tight_layout()
        stem = "byzantine-heatmap-" + partition.replace(" ", "-").replace(".", "")
        for fmt in args.formats.split(","):
            path = os.path.join(args.figures, f"{stem}.{fmt}")
            fig.savefig(path, dpi=130)
            print(path)
        plt.close(fig)
    return 0


def traffic(args):
    final_q, _, heading, _ = quality_of(args)
    required = ["server.robust", "compression.uplink", final_q, "uplink_wire_bytes"]
    final = read_final(args.folder, required)
    final["rule"] = [rule_name(r, u) for r, u in zip(final["server.robust"],
                                                    final["compression.uplink"])]
    final["codec"] = [codec_name(u) for u in final["compression.uplink"]]
    table = (final.groupby(["codec", "rule"])
             .agg(**{final_q: (final_q, "mean")},
                  uplink_wire_bytes=("uplink_wire_bytes", "mean"),
                  runs=(final_q, "size")).reset_index())
    if args.csv:
        table.to_csv(args.csv, index=False)
    os.makedirs(args.figures, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    markers = dict(zip(RULE_ORDER, "osD^vPXh*"))
    colours = dict(zip(sorted(set(table["codec"])), plt.cm.tab10.colors))
    for _, row in table.iterrows():
        ax.scatter(row["uplink_wire_bytes"] / 1e6, row[final_q],
                   marker=markers.get(row["rule"], "o"), color=colours[row["codec"]], s=45)
    ax.set_xscale("log")
    ax.set_xlabel("uplink traffic on the wire over the run (MB, log)")
    ax.set_ylabel(f"final {heading}")
    ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=c, marker="s", ls="", label=k) for k, c in colours.items()]
    handles += [plt.Line2D([], [], color="grey", marker=markers.get(r, "o"), ls="", label=r)
                for r in RULE_ORDER if r in set(table["rule"])]
    ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("Robust rules over compressed updates", fontsize=9)
    fig.tight_layout()
    for fmt in args.formats.split(","):
        path = os.path.join(args.figures, f"byzantine-traffic.{fmt}")
        fig.savefig(path, dpi=130)
        print(path)
    plt.close(fig)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=["heatmap", "traffic"])
    parser.add_argument("folder")
    parser.add_argument("--figures", required=True)
    parser.add_argument("--csv")
    parser.add_argument("--formats", default="png")
    parser.add_argument("--metric", choices=["accuracy", "nrmse"], default="accuracy",
                        help="final.csv quality column: final_accuracy or final_nrmse")
    args = parser.parse_args(argv)
    return heatmap(args) if args.figure == "heatmap" else traffic(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
