#!/usr/bin/python3
"""Table and figures of the adaptive-compression study (docs/adaptive-study.md).

Usage:
  /usr/bin/python3 analysis/adaptive_study.py SWEEP_DIR [--targets 0.8,0.86] [--figures DIR]
      [--csv FILE]

SWEEP_DIR is the output of `analysis/sweep.py scenarios/sweeps/adaptive-study.json --targets T`
(final.csv, runs/<id>/{params.json,rounds.csv,clients.csv}). A run's regime is its scenario
`name` (the sweep zips one name with each network), its policy the uplink's: `fixed <rung>`
for a fixed rung of the ladder, else the policy's name. Per regime and policy, over the seeds:
  seeds       runs, and how many reached each target
  time_T      simulated seconds to target T: median [min-max] over the seeds that reached it
  up_MB_T     uplink wire bytes to T (median), down_MB_T downlink wire bytes to T (median)
  rounds_T    rounds to T (median)
  final       final quality (median)
  late        share of the selected clients' updates that missed the deadline (clients.csv
              deadline_met = 0 among completed, late, dropped and failed rows)
Per regime the best fixed rung in hindsight is the fixed rung with the lowest median time to
the last target (then to the earlier ones; a rung that reached it in fewer seeds ranks after
one that reached it in more). The verdict table gives, per regime and target, each adaptive
policy's median time over the best fixed rung's (< 1: sooner) and its uplink bytes over fixed
none's.
--figures writes adaptive-quality-vs-time.png and adaptive-quality-vs-bytes.png (one panel per
regime, the median-time seed of each policy) and adaptive-rungs.png (each client's rung per
round in one run of the `time` policy per regime). Exit status 2 for a folder without
final.csv, a missing column or a target the sweep was not collected with.
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
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_schema  # noqa: E402
from abr_study import config_name  # noqa: E402
from study_summary import (add_study_arguments, check_study_targets, fmt_time,  # noqa: E402
                           median_time_run, time_stats)

PROG = "adaptive_study"
CLIENT_COLUMNS = trace_schema.require("clients.csv",
                                      ["round", "client", "status", "deadline_met", "rung"])
ROUND_COLUMNS = trace_schema.require("rounds.csv", ["round", "sim_time_s",
                                                    "cumulative_uplink_wire_bytes"])
SENT = ("completed", "late", "dropped", "failed")  # rows of clients that sent (or tried to)


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def read_runs(folder, targets):
    path = os.path.join(folder, "final.csv")
    if not os.path.isfile(path):
        fail(f"{path}: no such file (run analysis/sweep.py ... --targets first)")
    final = pd.read_csv(path)
    listed = ",".join(str(t) for t in targets)
    needed = ["run_id", "status", "seed", "compression.uplink", "rounds",
              targets[0].final_column]
    for t in targets:
        needed += [f"time_to_{t.key}_s", f"rounds_to_{t.key}", f"uplink_bytes_to_{t.key}",
                   f"wire_bytes_to_{t.key}"]
    missing = [c for c in needed if c not in final.columns]
    if missing:
        fail(f"{path}: missing column(s) {', '.join(missing)} (collect with --targets {listed})")
    final = final[final["status"] == "done"].copy()
    if final.empty:
        fail(f"{path}: no finished run")
    regimes, late = [], []
    for run_id in final["run_id"]:
        run_dir = os.path.join(folder, "runs", run_id)
        with open(os.path.join(run_dir, "params.json")) as f:
            swept = json.load(f)["swept"]
        regimes.append(swept.get("name", "all"))
        clients = pd.read_csv(os.path.join(run_dir, "clients.csv"))
        absent = [c for c in CLIENT_COLUMNS if c not in clients.columns]
        if absent:
            fail(f"{run_dir}/clients.csv: missing column(s) {', '.join(absent)}")
        sent = clients[clients["status"].isin(SENT)]
        late.append(float((sent["deadline_met"] == 0).mean()) if len(sent) else float("nan"))
    final["regime"] = regimes
    final["policy"] = [config_name(u) for u in final["compression.uplink"]]
    final["late"] = late
    for t in targets:
        final[f"down_bytes_to_{t.key}"] = (final[f"wire_bytes_to_{t.key}"]
                                           - final[f"uplink_bytes_to_{t.key}"])
    final["run_dir"] = [os.path.join(folder, "runs", r) for r in final["run_id"]]
    return final


def summarise(final, targets):
    rows = []
    for (regime, policy), group in final.groupby(["regime", "policy"], sort=False):
        row = {"regime": regime, "policy": policy, "seeds": len(group),
               "final": group[targets[0].final_column].median(),
               "late": group["late"].mean()}
        for t in targets:
            row.update(time_stats(group, t))
            row[f"rounds_{t.key}"] = group[f"rounds_to_{t.key}"].dropna().median()
            row[f"up_MB_{t.key}"] = group[f"uplink_bytes_to_{t.key}"].dropna().median() / 1e6
            row[f"down_MB_{t.key}"] = group[f"down_bytes_to_{t.key}"].dropna().median() / 1e6
        rows.append(row)
    summary = pd.DataFrame(rows)
    order = {regime: i for i, regime in enumerate(dict.fromkeys(final["regime"]))}
    return summary.sort_values("regime", key=lambda c: c.map(order), kind="stable") \
        .reset_index(drop=True)


def best_fixed(summary, targets):
    """regime -> the fixed policy with the lowest median time to the last target."""
    best = {}
    for regime, group in summary.groupby("regime", sort=False):
        fixed = group[group["policy"].str.startswith("fixed ")]
        if fixed.empty:
            continue
        keys = []
        for t in reversed(targets):
            keys += [f"reached_{t.key}", f"time_{t.key}"]
        ranked = fixed.sort_values(keys, ascending=[False, True] * len(targets),
                                   na_position="last")
        best[regime] = ranked.iloc[0]["policy"]
    return best


def print_tables(summary, targets, best):
    quality = targets[0].quality_name()
    head = ["regime", "policy", "seeds"]
    for t in targets:
        head += [f"time to {t.label()} (s)", f"up / down MB to {t.label()}",
                 f"rounds to {t.label()}"]
    head += [f"final {quality}", "late updates"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for _, row in summary.iterrows():
        policy = row["policy"] + (" (best fixed)" if best.get(row["regime"]) == row["policy"]
                                  else "")
        reached = ", ".join(f"{int(row[f'reached_{t.key}'])}/{int(row['seeds'])}"
                            for t in targets)
        cells = [row["regime"], policy, f"{int(row['seeds'])} ({reached} reached)"]
        for t in targets:
            up, down = row[f"up_MB_{t.key}"], row[f"down_MB_{t.key}"]
            cells += [fmt_time(row, t.key),
                      "—" if pd.isna(up) else f"{up:.2f} / {down:.2f}",
                      "—" if pd.isna(row[f"rounds_{t.key}"]) else f"{row[f'rounds_{t.key}']:g}"]
        cells += [f"{row['final']:.4f}", f"{100 * row['late']:.1f}%"]
        print("| " + " | ".join(cells) + " |")
    print()
    head = ["regime", "policy"]
    for t in targets:
        head += [f"time to {t.label()} / best fixed", f"uplink to {t.label()} / fixed none"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for regime, group in summary.groupby("regime", sort=False):
        index = group.set_index("policy")
        for policy in [p for p in group["policy"] if not p.startswith("fixed ")]:
            cells = [regime, policy]
            for t in targets:
                ratio = lambda a, b: "—" if pd.isna(a) or pd.isna(b) or b == 0 \
                    else f"{a / b:.2f}"  # noqa: E731
                reference = index.loc[best[regime]] if regime in best else None
                none = index.loc["fixed none"] if "fixed none" in index.index else None
                cells += [ratio(index.loc[policy, f"time_{t.key}"],
                                reference[f"time_{t.key}"] if reference is not None else None),
                          ratio(index.loc[policy, f"up_MB_{t.key}"],
                                none[f"up_MB_{t.key}"] if none is not None else None)]
            print("| " + " | ".join(cells) + " |")


def figures(final, targets, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    regimes = list(dict.fromkeys(final["regime"]))
    column = targets[0].column
    for x, name, label, log in [("sim_time_s", "time", "simulated time (s)", False),
                                ("cumulative_uplink_wire_bytes", "bytes",
                                 "cumulative uplink wire bytes (MB)", True)]:
        fig, axes = plt.subplots(1, len(regimes), figsize=(5 * len(regimes), 4), squeeze=False)
        for ax, regime in zip(axes[0], regimes):
            mine = final[final["regime"] == regime]
            for index, (policy, group) in enumerate(mine.groupby("policy", sort=False)):
                run = median_time_run(group, targets[-1])
                rounds = pd.read_csv(os.path.join(run["run_dir"], "rounds.csv"))
                scale = 1e6 if x != "sim_time_s" else 1.0
                ax.plot(rounds[x] / scale, rounds[column], color=f"C{index % 10}",
                        ls="-" if policy.startswith("fixed ") else "--", lw=1.2, label=policy)
            for t in targets:
                ax.axhline(t.value, color="grey", lw=0.5, ls=":")
            if log:
                ax.set_xscale("log")
            ax.set_title(regime)
            ax.set_xlabel(label)
            ax.set_ylabel(column.replace("_", " "))
            ax.grid(alpha=0.3)
        # The legend goes where every policy ran (a regime may have run fewer rows).
        richest = max(axes[0], key=lambda a: len(a.get_lines()))
        richest.legend(fontsize=7, loc="lower right" if targets[0].higher_is_better
                       else "upper right")
        fig.tight_layout()
        path = os.path.join(out_dir, f"adaptive-quality-vs-{name}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(path, file=sys.stderr)
    fig, axes = plt.subplots(1, len(regimes), figsize=(5 * len(regimes), 3.6), squeeze=False)
    for ax, regime in zip(axes[0], regimes):
        timed = final[(final["regime"] == regime) & (final["policy"] == "time")]
        if timed.empty:
            ax.set_title(f"{regime}: no run of the time policy")
            continue
        run = timed.sort_values("seed").iloc[0]
        clients = pd.read_csv(os.path.join(run["run_dir"], "clients.csv"))
        sent = clients[clients["status"].isin(SENT)]
        for client, rows in sent.groupby("client"):
            ax.plot(rows["round"], rows["rung"] + 0.04 * (client % 5), lw=0.8,
                    marker=".", ms=3, label=f"client {client}")
        ax.set_title(f"{regime}, time policy, seed {run['seed']}")
        ax.set_xlabel("round")
        ax.set_ylabel("rung (0 = most faithful)")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out_dir, "adaptive-rungs.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path, file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    add_study_arguments(parser, "0.8,0.86")
    args = parser.parse_args()
    check_study_targets(parser, args.targets)
    final = read_runs(args.folder, args.targets)
    summary = summarise(final, args.targets)
    best = best_fixed(summary, args.targets)
    if args.csv:
        summary.assign(best_fixed=[best.get(r) == p for r, p in
                                   zip(summary["regime"], summary["policy"])]) \
            .to_csv(args.csv, index=False, float_format="%.6g")
    print_tables(summary, args.targets, best)
    if args.figures:
        figures(final, args.targets, args.figures)


if __name__ == "__main__":
    main()
