#!/usr/bin/python3
"""Plot one fedran run's network timeline: link capacity and SNR against round boundaries,
and each client's status in every round it was selected for.

Usage: /usr/bin/python3 analysis/plot_timeline.py RUN_DIR [--out FILE.png] [--clients 3,17]

Reads rounds.csv, clients.csv, links.csv and population.csv (docs/traces.md) and writes
RUN_DIR/timeline.png unless --out says otherwise. Panels, on one simulated-time axis:
  capacity   the uplink capacity of one client per group (by default the one whose link
             fared worst), rounds' ends as grey lines;
  SNR        the same links' SNR, when links.csv has one (microwave);
  clients    one row per client, grouped: a bar per selected round from the round's start to
             the round's end, coloured by status (completed, late, dropped, failed).
Exit status 2 for a missing or malformed trace.
"""
import argparse
import json
import os

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

import plot  # noqa: E402  (analysis/plot.py: the shared trace reading)
import run_outputs  # noqa: E402  (analysis/run_outputs.py: the run folder's record)

plot.PROG = "plot_timeline"
SNR_FLOOR_DB = -10
STATUS_COLOURS = {"completed": "tab:green", "late": "tab:orange", "dropped": "tab:red",
                  "failed": "black"}
require = plot.trace_schema.require
ROUND_COLUMNS = require("rounds.csv", ["round", "sim_time_s", "round_duration_s"])
CLIENT_COLUMNS = require("clients.csv", ["round", "client", "group", "status"])
LINK_COLUMNS = require("links.csv", ["time_s", "link", "capacity_bps"])
require("links.csv", ["snr_db"])  # read when the links have an SNR
POPULATION_COLUMNS = require("population.csv", ["client", "group"])


def read(run_dir, name, required):
    path = os.path.join(run_dir, name)
    if not os.path.isfile(path):
        plot.fail(f"{path}: no such file (is {run_dir} a fedran output folder with "
                  f"output.link_sample_s > 0?)")
    frame = plot.read_csv(path, required)
    if frame.empty:
        plot.fail(f"{path}: no rows")
    return frame


def run_name(run_dir):
    """The scenario's name from run.json (sweep run folders have long ids), else the folder's."""
    try:
        with open(os.path.join(run_dir, "run.json")) as f:
            return json.load(f)["name"]
    except (OSError, ValueError, KeyError):
        return os.path.basename(os.path.abspath(run_dir))


def pick_clients(links, population, asked):
    """The clients whose links are drawn: those asked for, else per group the one whose uplink
    fared worst (lowest mean capacity, then lowest mean SNR, then lowest index)."""
    if asked:
        try:
            picked = [int(c) for c in asked.split(",") if c.strip()]
        except ValueError:
            plot.fail(f"--clients: '{asked}' is not a comma-separated list of client indices")
        unknown = [c for c in picked if c not in set(population["client"])]
        if unknown:
            plot.fail(f"--clients: no client {unknown[0]} in population.csv")
        return picked
    up = links[links["link"].str.match(r"client-\d+-up$")].copy()
    up["client"] = up["link"].str.split("-").str[1].astype(int)
    if "snr_db" not in up.columns:
        up["snr_db"] = 0.0
    means = up.groupby("client")[["capacity_bps", "snr_db"]].mean().fillna(0)
    picked = []
    for _, members in population.groupby("group", sort=False):
        ranked = means.reindex(members["client"]).dropna().reset_index()
        if not ranked.empty:
            ranked = ranked.sort_values(["capacity_bps", "snr_db", "client"], kind="stable")
            picked.append(int(ranked["client"].iloc[0]))
    return picked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--out", help="PNG file (default RUN_DIR/timeline.png)")
    parser.add_argument("--clients", help="comma-separated client indices whose links to draw")
    args = parser.parse_args()

    rounds = read(args.run_dir, "rounds.csv", ROUND_COLUMNS)
    clients = read(args.run_dir, "clients.csv", CLIENT_COLUMNS)
    links = read(args.run_dir, "links.csv", LINK_COLUMNS)
    population = read(args.run_dir, "population.csv", POPULATION_COLUMNS)
    picked = pick_clients(links, population, args.clients)
    group_of = dict(zip(population["client"], population["group"]))
    has_snr = "snr_db" in links.columns and links["snr_db"].notna().any()

    heights = [2, 2, 3] if has_snr else [2, 3]
    fig, axes = plt.subplots(len(heights), 1, figsize=(11, 2.2 * len(heights) + 1.5),
                             sharex=True, gridspec_kw={"height_ratios": heights})
    colours = plt.get_cmap("tab10").colors
    for i, client in enumerate(picked):
        link = links[links["link"] == f"client-{client}-up"].sort_values("time_s")
        label = f"client {client} ({group_of[client]})"
        axes[0].step(link["time_s"], link["capacity_bps"] / 1e6, where="post",
                     color=colours[i % 10], linewidth=1, label=label)
        if has_snr:
            axes[1].step(link["time_s"], link["snr_db"], where="post", color=colours[i % 10],
                         linewidth=1, label=label)
    axes[0].set_ylabel("uplink capacity\n(Mbit/s)")
    drawn = links.loc[links["link"].isin([f"client-{c}-up" for c in picked]), "capacity_bps"]
    if plot.spans_decades(drawn[drawn > 0]):
        # Fibre next to a cellular link: log above 1 Mbit/s, linear below it, so 0 (an
        # outage) stays on the axis.
        axes[0].set_yscale("symlog", linthresh=1)
        axes[0].yaxis.set_major_formatter(plot.PLAIN)
    axes[0].legend(fontsize="x-small", ncol=min(len(picked), 4), loc="lower left")
    if has_snr:
        # A deep fade's SNR (-100 dB and below) says no more than "out": keep the axis on the
        # modulation thresholds.
        low = links.loc[links["link"].isin([f"client-{c}-up" for c in picked]), "snr_db"].min()
        if low < SNR_FLOOR_DB:
            axes[1].set_ylim(bottom=SNR_FLOOR_DB)
            axes[1].set_ylabel(f"SNR (dB,\nclipped at {SNR_FLOOR_DB:g})")
        else:
            axes[1].set_ylabel("SNR (dB)")

    # Client rows, grouped in population order, a gap between groups.
    rows, y, previous = {}, 0, None
    for client, group in zip(population["client"], population["group"]):
        y += 1 if previous in (None, group) else 2
        rows[client], previous = y, group
    start = dict(zip(rounds["round"], rounds["sim_time_s"] - rounds["round_duration_s"]))
    end = dict(zip(rounds["round"], rounds["sim_time_s"]))
    bars = axes[-1]
    for status, rows_of_status in clients.groupby("status"):
        segments = {}
        for rnd, client in zip(rows_of_status["round"], rows_of_status["client"]):
            if rnd in start:
                segments.setdefault(rows[client], []).append((start[rnd], end[rnd] - start[rnd]))
        for row, spans in segments.items():
            bars.broken_barh(spans, (row - 0.4, 0.8),
                             facecolors=STATUS_COLOURS.get(status, "grey"))
    ticks = {}
    for client, row in rows.items():
        ticks.setdefault(group_of[client], []).append(row)
    bars.set_yticks([sum(r) / len(r) for r in ticks.values()])
    bars.set_yticklabels(list(ticks), fontsize="small")
    bars.set_ylim(max(rows.values()) + 1, 0)
    bars.set_ylabel("clients")
    bars.set_xlabel("simulated time (s)")
    bars.legend(handles=[Patch(color=c, label=s) for s, c in STATUS_COLOURS.items()
                         if s in set(clients["status"])],
                fontsize="x-small", ncol=4, loc="upper right", bbox_to_anchor=(1, 1.15))
    for ax in axes:
        for t in rounds["sim_time_s"]:
            ax.axvline(t, color="grey", linewidth=0.4, alpha=0.5)
        ax.grid(True, axis="y", alpha=0.3)

    fig.suptitle(f"{run_name(args.run_dir)}: links and client status per round ({len(rounds)} rounds, "
                 f"grey lines: rounds' ends)")
    fig.tight_layout()
    out = args.out or os.path.join(args.run_dir, "timeline.png")
    run_outputs.record(args.run_dir, [out])  # before writing: see run_outputs.py
    fig.savefig(out, dpi=110)
    print(f"plot written to {out}")


if __name__ == "__main__":
    main()
