#!/usr/bin/python3
"""Figures and table of the asynchronous FL study (docs/async.md).

Usage:
  /usr/bin/python3 analysis/async_study.py SWEEP_DIR [SWEEP_DIR ...] --figures DIR [--csv FILE]
      [--targets 0.8,0.85 | --targets nrmse=0.3,nrmse=0.26]

Each SWEEP_DIR comes from `analysis/sweep.py` over a sweep whose swept key is `server` (and
`rounds`): scenarios/sweeps/async.json (stragglers) and scenarios/sweeps/async-rural.json
(rural microwave), collected with `--targets 0.8,0.85` (the default --targets here; a
forecasting sweep gives lower-is-better targets such as `nrmse=0.26`, all of one metric, whose
column then replaces the accuracy in the table and figures). A run's setting is named from its
server: "sync", "FedBuff K=<buffer>" or "FedAsync" (buffer 1), with its server_lr when it is
not 1.

Writes DIR/async-accuracy.png (test accuracy against simulated time and against cumulative
uplink wire bytes, one column per sweep, the median seed of each setting drawn bold, the
others thin) and DIR/async-staleness.png (staleness of the accepted updates, all seeds). Prints
the table of medians over seeds (markdown) and, with --csv, writes it. Exit status 2 for a
folder that is not a collected sweep.
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
from targets import argparse_targets  # noqa: E402

PROG = "async_study"


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def setting_name(server):
    lr = server.get("server_lr", 1)
    suffix = f", lr {lr:g}" if lr != 1 else ""
    if server.get("mode", "sync") != "async":
        return "sync" + suffix
    buffer = server["async"]["buffer"]
    return ("FedAsync" if buffer == 1 else f"FedBuff K={buffer}") + suffix


def read_sweep(folder, targets):
    """One row per finished run: its setting, seed, run folder and final.csv values."""
    path = os.path.join(folder, "final.csv")
    listed = ",".join(str(t) for t in targets)
    if not os.path.isfile(path):
        fail(f"{path}: no such file (run analysis/sweep.py with --targets {listed} first)")
    final = pd.read_csv(path)
    for column in ["run_id", "status", targets[0].final_column] + \
            [f"time_to_{t.key}_s" for t in targets]:
        if column not in final.columns:
            fail(f"{path}: missing column {column} (collect with --targets {listed})")
    final = final[final["status"] == "done"].copy()
    if final.empty:
        fail(f"{path}: no finished run")
    names = []
    for run_id in final["run_id"]:
        params_path = os.path.join(folder, "runs", run_id, "params.json")
        with open(params_path) as f:
            server = json.load(f)["swept"].get("server")
        if not isinstance(server, dict):
            fail(f"{params_path}: the sweep does not vary `server`")
        names.append(setting_name(server))
    final["setting"] = names
    final["run_dir"] = [os.path.join(folder, "runs", r) for r in final["run_id"]]
    return final


def median_run(group, final_column):
    """The run whose final quality (accuracy, NRMSE) is the median of its setting's seeds."""
    ordered = group.sort_values(final_column).reset_index(drop=True)
    return ordered.iloc[(len(ordered) - 1) // 2]


def table(final, sweep_name, targets):
    quality = targets[0].final_column
    rows = []
    for setting, group in final.groupby("setting", sort=False):
        row = {"sweep": sweep_name, "setting": setting, "seeds": len(group),
               quality: group[quality].median(),
               ("final_accuracies" if quality == "final_accuracy" else quality + "_per_seed"):
                   " ".join(f"{a:.3f}" for a in group[quality]),
               "sim_time_s": group["sim_time_s"].median(),
               "uplink_wire_MB": group["uplink_wire_bytes"].median() / 1e6}
        for target in targets:
            t = target.key
            reached = group[f"time_to_{t}_s"].dropna()
            row[f"reached_{t}"] = f"{len(reached)}/{len(group)}"
            row[f"time_to_{t}_s"] = reached.median() if len(reached) else float("nan")
            column = f"uplink_bytes_to_{t}"
            up = group[column].dropna() if column in group else pd.Series(dtype=float)
            row[f"uplink_MB_to_{t}"] = up.median() / 1e6 if len(up) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def plot_accuracy(sweeps, out, targets):
    column, final_column = targets[0].column, targets[0].final_column
    fig, axes = plt.subplots(2, len(sweeps), figsize=(5.5 * len(sweeps), 7.5), squeeze=False)
    for col, (name, final) in enumerate(sweeps):
        for index, (setting, group) in enumerate(final.groupby("setting", sort=False)):
            colour = f"C{index}"
            bold = median_run(group, final_column)["run_id"]
            for _, run in group.iterrows():
                rounds = pd.read_csv(os.path.join(run["run_dir"], "rounds.csv"))
                main = run["run_id"] == bold
                style = {"color": colour, "lw": 1.8 if main else 0.6,
                         "alpha": 1.0 if main else 0.4, "label": setting if main else None}
                axes[0][col].plot(rounds["sim_time_s"], rounds[column], **style)
                axes[1][col].plot(rounds["cumulative_uplink_wire_bytes"] / 1e6,
                                  rounds[column], **style)
        axes[0][col].set_title(name)
        axes[0][col].set_xlabel("simulated time (s)")
        axes[1][col].set_xlabel("cumulative uplink wire bytes (MB)")
        for ax in axes[:, col]:
            ax.set_ylabel(column.replace("_", " "))
            if targets[0].metric == "accuracy":
                ax.set_ylim(0.5, 0.9)
            for target in targets:
                ax.axhline(target.value, color="grey", lw=0.5, ls=":")
            ax.grid(alpha=0.3)
        axes[0][col].legend(fontsize=8, loc="lower right" if targets[0].higher_is_better
                            else "upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_staleness(sweeps, out):
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5.5 * len(sweeps), 3.6), squeeze=False)
    for col, (name, final) in enumerate(sweeps):
        ax = axes[0][col]
        asynchronous = final[final["setting"] != "sync"]
        for index, (setting, group) in enumerate(final.groupby("setting", sort=False)):
            if setting.startswith("sync"):
                continue
            values = []
            for run_dir in group["run_dir"]:
                clients = pd.read_csv(os.path.join(run_dir, "clients.csv"))
                if "staleness" not in clients.columns:
                    fail(f"{run_dir}/clients.csv: no staleness column")
                accepted = clients[clients["status"] == "completed"]
                values.extend(accepted["staleness"].dropna().astype(int).tolist())
            if values:
                top = max(values)
                # Settings that differ only in the server's step share their arrivals (the
                # network does not see the model), so their histograms coincide: dash them.
                ax.hist(values, bins=range(0, top + 2), histtype="step", lw=1.4,
                        color=f"C{index}", ls=("-", "--", ":")[index % 3],
                        label=f"{setting} ({len(values)} updates)", density=True)
        ax.set_title(name)
        ax.set_xlabel("staleness τ of accepted updates (versions)")
        ax.set_ylabel("share of updates")
        if not asynchronous.empty:
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="+", help="collected sweep folders")
    parser.add_argument("--figures", required=True, help="folder for the figures")
    parser.add_argument("--csv", help="write the table of medians here")
    parser.add_argument("--targets", type=argparse_targets, default="0.8,0.85",
                        help="targets of one metric, as collected by sweep.py (default 0.8,0.85)")
    args = parser.parse_args()
    if len({t.metric for t in args.targets}) > 1 or args.targets[0].final_column is None:
        parser.error(f"--targets: give targets of one metric with a final value "
                     f"(accuracy or nrmse), got {','.join(str(t) for t in args.targets)}")
    sweeps = [(os.path.basename(os.path.normpath(d)), read_sweep(d, args.targets))
              for d in args.sweeps]
    os.makedirs(args.figures, exist_ok=True)
    plot_accuracy(sweeps, os.path.join(args.figures, "async-accuracy.png"), args.targets)
    plot_staleness(sweeps, os.path.join(args.figures, "async-staleness.png"))
    summary = pd.concat([table(final, name, args.targets) for name, final in sweeps],
                        ignore_index=True)
    if args.csv:
        summary.to_csv(args.csv, index=False)
    print(markdown(summary))


def markdown(frame):
    def cell(value):
        return f"{value:.3g}" if isinstance(value, float) else str(value)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
