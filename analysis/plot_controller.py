#!/usr/bin/python3
"""Plot one fedran run's adaptive-bitrate decisions per client group, beside the link capacity.

Usage: /usr/bin/python3 analysis/plot_controller.py RUN_DIR [--out FILE.png] [--data FILE.csv]

Reads clients.csv (with the adaptive columns rung, predicted_bps, measured_bps, skipped),
population.csv, and links.csv when the run wrote one (output.link_sample_s > 0), and writes
RUN_DIR/controller.png unless --out says otherwise. One column per client group, on one
simulated-time axis; each decision is drawn when its upload started:
  bandwidth  the group's uplink capacity (median over its clients' client-N-up links, from
             links.csv), and each decision's predicted_bps (what the controller budgeted with)
             and measured_bps (the client's newest own upload measurement then);
  rung       each decision's ladder rung (0 = most faithful, names from run.json), skips on
             a row of their own, and the group's mean rung per round.
--data also writes the per group and round summary drawn: group, round, time_s (median upload
start), decisions, skips, mean_rung, predicted_bps and measured_bps (medians), capacity_bps
(the group's median uplink capacity at time_s; empty without links.csv).
Exit status 2 for a missing or malformed trace, or a run without an adaptive uplink.
"""
import argparse
import json
import os

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import plot  # noqa: E402  (analysis/plot.py: the shared trace reading)
import run_outputs  # noqa: E402  (analysis/run_outputs.py: the run folder's record)
import plot_timeline  # noqa: E402  (run names, reading a run's traces)

plot.PROG = "plot_controller"
ADAPTIVE_COLUMNS = plot.trace_schema.require(
    "clients.csv", ["round", "client", "group", "upload_start_s", "rung", "predicted_bps",
                    "measured_bps", "skipped"])
POPULATION_COLUMNS = plot.trace_schema.require("population.csv", ["client", "group"])
LINK_COLUMNS = plot.trace_schema.require("links.csv", ["time_s", "link", "capacity_bps"])


def rung_names(run_dir):
    """Short names of the ladder's rungs from run.json's scenario (indices if unknown)."""
    try:
        with open(os.path.join(run_dir, "run.json")) as f:
            ladder = json.load(f)["scenario"]["compression"]["uplink"]["ladder"]
    except (OSError, ValueError, KeyError, TypeError):
        return None

    def name(spec):
        params = ",".join(f"{k}={v}" for k, v in spec.items() if k not in ("type", "base"))
        text = spec.get("type", "?") + (f" {params}" if params else "")
        return f"{text}({name(spec['base'])})" if isinstance(spec.get("base"), dict) else text

    return [name(spec) for spec in ladder]


def group_capacity(links, members):
    """Median uplink capacity over the group's clients at each sample time (None without)."""
    if links is None:
        return None
    up = links[links["link"].isin([f"client-{c}-up" for c in members])]
    if up.empty:
        return None
    return up.groupby("time_s")["capacity_bps"].median()


def summarise(sent, links, population):
    """Per group and round: the decisions' median time, count, skips, mean rung, median
    predicted and measured bandwidth, and the group's capacity then."""
    rows = []
    for (group, rnd), decisions in sent.groupby(["group", "round"], sort=True):
        members = population.loc[population["group"] == group, "client"].tolist()
        t = decisions["upload_start_s"].median()
        capacity = group_capacity(links, members)
        at = capacity[capacity.index <= t] if capacity is not None else None
        rows.append({"group": group, "round": int(rnd), "time_s": t,
                     "decisions": len(decisions),
                     "skips": int(decisions["skipped"].fillna(0).astype(bool).sum()),
                     "mean_rung": decisions["rung"].mean(),
                     "predicted_bps": decisions["predicted_bps"].median(),
                     "measured_bps": decisions["measured_bps"].median(),
                     "capacity_bps": at.iloc[-1] if at is not None and not at.empty else None})
    return pd.DataFrame(rows, columns=["group", "round", "time_s", "decisions", "skips",
                                            "mean_rung", "predicted_bps", "measured_bps",
                                            "capacity_bps"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", help="PNG file (default RUN_DIR/controller.png)")
    parser.add_argument("--data", help="also write the per group and round summary (CSV)")
    args = parser.parse_args()

    clients = plot_timeline.read(args.run_dir, "clients.csv", ["round", "client", "group"])
    plot.missing_columns(os.path.join(args.run_dir, "clients.csv"), clients, ADAPTIVE_COLUMNS)
    if clients["rung"].isna().all() and not clients["skipped"].fillna(0).astype(bool).any():
        plot.fail(f"{os.path.join(args.run_dir, 'clients.csv')}: no controller decisions "
                  f"(the run's uplink is not adaptive)")
    population = plot_timeline.read(args.run_dir, "population.csv", POPULATION_COLUMNS)
    links_path = os.path.join(args.run_dir, "links.csv")
    links = plot.read_csv(links_path, LINK_COLUMNS) \
        if os.path.isfile(links_path) else None
    names = rung_names(args.run_dir)
    sent = clients[clients["upload_start_s"].notna()]
    top = int(max(sent["rung"].max() if sent["rung"].notna().any() else 0,
                  len(names) - 1 if names else 0))

    summary = summarise(sent, links, population)
    groups = list(dict.fromkeys(population["group"]))
    fig, axes = plt.subplots(2, len(groups), figsize=(5.5 * len(groups) + 1, 6.5),
                             sharex=True, squeeze=False)
    for col, group in enumerate(groups):
        members = population.loc[population["group"] == group, "client"].tolist()
        rows = sent[sent["group"] == group]
        rate, rungs = axes[0][col], axes[1][col]
        capacity = group_capacity(links, members)
        if capacity is not None:
            rate.step(capacity.index, capacity / 1e3, where="post", color="black",
                      linewidth=1.2, label="link capacity (median)")
        rate.scatter(rows["upload_start_s"], rows["predicted_bps"] / 1e3, s=10, marker="o",
                     color="tab:blue", alpha=0.6, label="predicted_bps")
        rate.scatter(rows["upload_start_s"], rows["measured_bps"] / 1e3, s=14, marker="x",
                     color="tab:orange", alpha=0.8, label="measured_bps")
        rate.set_title(f"{group} ({len(members)} clients)", fontsize="medium")
        rate.set_ylim(bottom=0)
        rate.grid(True, alpha=0.3)

        chosen = rows[rows["rung"].notna()]
        rungs.scatter(chosen["upload_start_s"], chosen["rung"], s=12, color="tab:green",
                      alpha=0.5, label="decision")
        skipped = rows[rows["skipped"].fillna(0).astype(bool)]
        if not skipped.empty:
            rungs.scatter(skipped["upload_start_s"], [top + 1] * len(skipped), s=14,
                          marker="x", color="tab:red", label="skip")
        mean = summary[(summary["group"] == group) & summary["mean_rung"].notna()]
        if not mean.empty:
            rungs.step(mean["time_s"], mean["mean_rung"], where="mid", color="tab:green",
                       linewidth=1.2, label="group mean per round")
        rungs.set_ylim(top + 1.5, -0.5)  # most faithful on top
        rungs.set_xlabel("simulated time (s), at upload start")
        rungs.grid(True, alpha=0.3)
        if col == 0:
            rate.set_ylabel("uplink (kbit/s)")
            labels = names if names else [str(r) for r in range(top + 1)]
            rungs.set_yticks(list(range(top + 1)) + [top + 1])
            rungs.set_yticklabels(labels + ["skip"], fontsize="x-small")
            rungs.set_ylabel("rung")
        else:
            rungs.tick_params(labelleft=False)
            rungs.set_yticks(list(range(top + 2)))
    axes[0][0].legend(fontsize="x-small", loc="upper right")
    axes[1][0].legend(fontsize="x-small", loc="lower right")
    fig.suptitle(f"{plot_timeline.run_name(args.run_dir)}: controller decisions per client group")
    fig.tight_layout()
    out = args.out or os.path.join(args.run_dir, "controller.png")
    run_outputs.record(args.run_dir, [out])  # before writing: see run_outputs.py
    fig.savefig(out, dpi=110)
    print(f"plot written to {out}")
    if args.data:
        summary.to_csv(args.data, index=False, float_format="%.6g")
        print(f"summary written to {args.data}")


if __name__ == "__main__":
    main()
