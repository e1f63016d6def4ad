#!/usr/bin/python3
"""Table and figures of the client-selection study (docs/selection.md, "The study").

Usage:
  /usr/bin/python3 analysis/selection_study.py SWEEP_DIR [SWEEP_DIR ...] [--targets 0.7,0.78]
      [--figures DIR] [--csv FILE]

Each SWEEP_DIR is the output of `analysis/sweep.py scenarios/sweeps/selection-*.json --targets T`
(plan.json, final.csv, runs/<id>/{params.json,rounds.csv,clients.csv}); its regime is the sweep's
name (plan.json), its policies the values of `server.selection`: the type, followed by the keys
given besides it (`power_of_choice variant=pow-d`). Per regime and policy, over the seeds:
  seeds        runs, and how many reached each target
  time_T       simulated seconds to target T: median [min-max] over the seeds that reached it
  MB_T         wire bytes up and down to T (median)
  kJ_T         energy to T (median, kJ; empty when the scenario models no energy)
  rounds_T     rounds to T (median)
  final        final quality (median)
  jain         Jain's index of how often each site was selected, (sum x)^2 / (n sum x^2) over
               all n sites of the run (1: every site equally often), median over the seeds
  never        share of the sites never selected (median)
A selection is a clients.csv row of a round that selected the client (every status but
`late_arrival`, which repeats an earlier selection). A second table gives each policy's median
time and energy to each target over random's. --figures writes selection-quality-vs-time.png
(one panel per regime, the median-time seed of each policy) and selection-counts.png (each
site's selections, sorted, in each policy's first seed). Exit status 2 for a folder without
final.csv or plan.json, a missing column or a target the sweep was not collected with.
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
from study_summary import (add_study_arguments, check_study_targets, fmt_time,  # noqa: E402
                           median_time_run, time_stats)

PROG = "selection_study"
CLIENT_COLUMNS = trace_schema.require("clients.csv", ["round", "client", "status"])
ROUND_COLUMNS = trace_schema.require("rounds.csv", ["round", "sim_time_s"])
NOT_A_SELECTION = ("late_arrival",)


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def policy_name(value):
    """`random`, or the type followed by the other keys: `power_of_choice variant=pow-d`."""
    spec = json.loads(value) if isinstance(value, str) else value
    if not isinstance(spec, dict) or "type" not in spec:
        return str(value)
    extra = " ".join(f"{k}={v}" for k, v in spec.items() if k != "type")
    return spec["type"] + (f" {extra}" if extra else "")


def fairness(clients_csv, sites):
    """(Jain's index, share never selected) of the selections in one clients.csv."""
    clients = pd.read_csv(clients_csv)
    absent = [c for c in CLIENT_COLUMNS if c not in clients.columns]
    if absent:
        fail(f"{clients_csv}: missing column(s) {', '.join(absent)}")
    selected = clients[~clients["status"].isin(NOT_A_SELECTION)]
    counts = selected.groupby("client").size().reindex(range(sites), fill_value=0)
    square = float((counts ** 2).sum())
    jain = float(counts.sum()) ** 2 / (sites * square) if square > 0 else float("nan")
    return jain, float((counts == 0).mean()), counts


def sites_of(run_dir):
    with open(os.path.join(run_dir, "run.json")) as f:
        scenario = json.load(f)["scenario"]
    return sum(int(g["count"]) for g in scenario["clients"]["groups"])


def read_folder(folder, targets):
    for name in ("final.csv", "plan.json"):
        if not os.path.isfile(os.path.join(folder, name)):
            fail(f"{os.path.join(folder, name)}: no such file (run analysis/sweep.py ... "
                 f"--targets first)")
    with open(os.path.join(folder, "plan.json")) as f:
        regime = json.load(f)["name"]
    final = pd.read_csv(os.path.join(folder, "final.csv"))
    listed = ",".join(str(t) for t in targets)
    needed = ["run_id", "status", "seed", "server.selection", targets[0].final_column]
    for t in targets:
        needed += [f"time_to_{t.key}_s", f"rounds_to_{t.key}", f"wire_bytes_to_{t.key}"]
    missing = [c for c in needed if c not in final.columns]
    if missing:
        fail(f"{folder}/final.csv: missing column(s) {', '.join(missing)} "
             f"(collect with --targets {listed})")
    final = final[final["status"] == "done"].copy()
    if final.empty:
        fail(f"{folder}/final.csv: no finished run")
    final["regime"] = regime
    final["policy"] = [policy_name(v) for v in final["server.selection"]]
    final["run_dir"] = [os.path.join(folder, "runs", r) for r in final["run_id"]]
    jains, nevers = [], []
    for run_dir in final["run_dir"]:
        jain, never, _ = fairness(os.path.join(run_dir, "clients.csv"), sites_of(run_dir))
        jains.append(jain)
        nevers.append(never)
    final["jain"] = jains
    final["never"] = nevers
    return final


def summarise(final, targets):
    rows = []
    for (regime, policy), group in final.groupby(["regime", "policy"], sort=False):
        row = {"regime": regime, "policy": policy, "seeds": len(group),
               "final": group[targets[0].final_column].median(),
               "jain": group["jain"].median(), "never": group["never"].median()}
        for t in targets:
            row.update(time_stats(group, t))
            row[f"rounds_{t.key}"] = group[f"rounds_to_{t.key}"].dropna().median()
            row[f"MB_{t.key}"] = group[f"wire_bytes_to_{t.key}"].dropna().median() / 1e6
            energy = f"energy_to_{t.key}_j"
            row[f"kJ_{t.key}"] = (group[energy].dropna().median() / 1e3
                                  if energy in group.columns else float("nan"))
        rows.append(row)
    return pd.DataFrame(rows)


def number(value, form):
    return "—" if pd.isna(value) else format(value, form)


def print_tables(summary, targets):
    quality = targets[0].quality_name()
    head = ["regime", "policy", "seeds"]
    for t in targets:
        head += [f"time to {t.label()} (s)", f"MB to {t.label()}", f"kJ to {t.label()}",
                 f"rounds to {t.label()}"]
    head += [f"final {quality}", "Jain", "never selected"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for _, row in summary.iterrows():
        reached = ", ".join(f"{int(row[f'reached_{t.key}'])}/{int(row['seeds'])}"
                            for t in targets)
        cells = [row["regime"], row["policy"], f"{int(row['seeds'])} ({reached} reached)"]
        for t in targets:
            cells += [fmt_time(row, t.key), number(row[f"MB_{t.key}"], ".1f"),
                      number(row[f"kJ_{t.key}"], ".2f"), number(row[f"rounds_{t.key}"], "g")]
        cells += [f"{row['final']:.4f}", f"{row['jain']:.2f}", f"{100 * row['never']:.0f}%"]
        print("| " + " | ".join(cells) + " |")
    print()
    head = ["regime", "policy"]
    for t in targets:
        head += [f"time to {t.label()} / random", f"energy to {t.label()} / random"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for regime, group in summary.groupby("regime", sort=False):
        index = group.set_index("policy")
        if "random" not in index.index:
            continue
        base = index.loc["random"]
        for policy in [p for p in group["policy"] if p != "random"]:
            cells = [regime, policy]
            for t in targets:
                for column in (f"time_{t.key}", f"kJ_{t.key}"):
                    a, b = index.loc[policy, column], base[column]
                    cells.append("—" if pd.isna(a) or pd.isna(b) or b == 0 else f"{a / b:.2f}")
            print("| " + " | ".join(cells) + " |")


def figures(final, targets, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    regimes = list(dict.fromkeys(final["regime"]))
    column = targets[0].column
    fig, axes = plt.subplots(1, len(regimes), figsize=(5.5 * len(regimes), 4), squeeze=False)
    for ax, regime in zip(axes[0], regimes):
        mine = final[final["regime"] == regime]
        for index, (policy, group) in enumerate(mine.groupby("policy", sort=False)):
            run = median_time_run(group, targets[-1])
            rounds = pd.read_csv(os.path.join(run["run_dir"], "rounds.csv"))
            ax.plot(rounds["sim_time_s"], rounds[column], color=f"C{index % 10}", lw=1.2,
                    label=f"{policy} (seed {run['seed']})")
        for t in targets:
            ax.axhline(t.value, color="grey", lw=0.5, ls=":")
        ax.set_title(regime)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel(column.replace("_", " "))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right" if targets[0].higher_is_better else "upper right")
    fig.tight_layout()
    path = os.path.join(out_dir, "selection-quality-vs-time.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path, file=sys.stderr)
    fig, axes = plt.subplots(1, len(regimes), figsize=(5.5 * len(regimes), 3.6), squeeze=False)
    for ax, regime in zip(axes[0], regimes):
        mine = final[final["regime"] == regime]
        for index, (policy, group) in enumerate(mine.groupby("policy", sort=False)):
            run = group.sort_values("seed").iloc[0]
            _, _, counts = fairness(os.path.join(run["run_dir"], "clients.csv"),
                                    sites_of(run["run_dir"]))
            ax.plot(range(len(counts)), sorted(counts, reverse=True), color=f"C{index % 10}",
                    lw=1.2, label=policy)
        ax.set_title(f"{regime}: selections per site (first seed)")
        ax.set_xlabel("site, most selected first")
        ax.set_ylabel("rounds selected")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, "selection-counts.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path, file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    add_study_arguments(parser, "0.7,0.78")
    args = parser.parse_args()
    check_study_targets(parser, args.targets)
    final = pd.concat([read_folder(f, args.targets) for f in args.folders], ignore_index=True)
    summary = summarise(final, args.targets)
    if args.csv:
        summary.to_csv(args.csv, index=False, float_format="%.6g")
    print_tables(summary, args.targets)
    if args.figures:
        figures(final, args.targets, args.figures)


if __name__ == "__main__":
    main()
