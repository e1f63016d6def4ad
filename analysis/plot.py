#!/usr/bin/python3
"""Plot a sweep (DIR with summary.csv, from analysis/sweep.py) or a single fedran run.

Usage: /usr/bin/python3 analysis/plot.py DIR|RUN_DIR [--out PLOT_DIR] [--formats png,pdf]

Writes into PLOT_DIR (default DIR/plots), each as PNG and PDF:
  accuracy-vs-uplink   test accuracy against cumulative uplink wire traffic (the headline)
  accuracy-vs-time     test accuracy against simulated time
  accuracy-vs-round    test accuracy against round
  accuracy-vs-energy   test accuracy against cumulative energy (runs whose scenario models
                       energy: rounds.csv cumulative_energy_j, docs/energy.md)
  client-traffic       distribution over clients of the uplink bytes each one sent
  links                link capacity and throughput over time (runs with links.csv)
  hub-links            throughput of each hub's link toward the core and back (runs whose
                       links.csv has hub-<name>-up / -down rows: scenarios with network.hubs)
  controller           rung chosen by the controller per round (clients.csv with `rung`)
One line per configuration: the mean over seeds with a 95% confidence band (Student t).
Columns are read by name and checked against the trace table (analysis/trace_schema.py,
docs/traces.md); extra columns are ignored. Exit status 2 for a folder that holds neither a
sweep nor a run, or a trace missing a needed column.
"""
import argparse
import json
import math
import os
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()  # the quickstart installs no plotting stack (.ci/deps)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import run_outputs  # noqa: E402  (a run folder's record of its files)
import svg_chart  # noqa: E402  (the byte unit shared with plot_run.py)
import trace_schema  # noqa: E402  (the traces' column table)

PROG = "plot"
ROUND_COLUMNS = trace_schema.require("rounds.csv", ["round", "sim_time_s", "test_accuracy",
                                                    "cumulative_uplink_wire_bytes"])
CLIENT_TRAFFIC_COLUMNS = trace_schema.require("clients.csv", ["client", "payload_bytes"])
CONTROLLER_COLUMNS = trace_schema.require("clients.csv", ["round", "rung"])
LINK_COLUMNS = trace_schema.require("links.csv", ["time_s", "link", "capacity_bps",
                                                  "throughput_bps"])
# Two-sided 97.5% Student t quantiles for 1..30 degrees of freedom (normal beyond).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
# Log axes read 0.1, 1, 10 in the axis unit rather than 10^-1, 10^0, 10^1.
PLAIN = FuncFormatter(lambda value, _: f"{value:g}")


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def missing_columns(path, frame, required):
    """Fails naming the file and every column of `required` the frame lacks."""
    message = trace_schema.missing_columns(path, frame.columns, required)
    if message:
        fail(message)


def read_csv(path, required=()):
    try:
        frame = pd.read_csv(path)
    except Exception as e:  # pandas raises several parser error types
        fail(f"{path}: cannot parse: {e}")
    missing_columns(path, frame, required)
    return frame


# Loading ------------------------------------------------------------------------------------

def load(folder):
    """Returns (title, rounds frame with run_id/label/seed columns, {run_id: run folder})."""
    if os.path.isfile(os.path.join(folder, "summary.csv")):
        summary = read_csv(os.path.join(folder, "summary.csv"),
                           ["run_id", "label", "seed"] + ROUND_COLUMNS)
        if summary.empty:
            fail(f"{folder}/summary.csv: no finished runs to plot")
        try:
            with open(os.path.join(folder, "plan.json")) as f:
                title = json.load(f)["name"]
        except (OSError, ValueError, KeyError):
            title = os.path.basename(os.path.abspath(folder))
        if "config" in summary.columns and \
                summary.groupby("label")["config"].nunique().max() > 1:
            summary["label"] = summary["config"]  # values that print alike (1 and "1")
        runs = {r: os.path.join(folder, "runs", r) for r in summary["run_id"].unique()}
        return title, summary, runs
    if os.path.isfile(os.path.join(folder, "rounds.csv")):
        rounds = read_csv(os.path.join(folder, "rounds.csv"), ROUND_COLUMNS)
        if rounds.empty:
            fail(f"{folder}/rounds.csv: no rounds recorded")
        name = os.path.basename(os.path.abspath(folder))
        seed = 0
        try:
            with open(os.path.join(folder, "run.json")) as f:
                manifest = json.load(f)
            name, seed = manifest.get("name", name), manifest.get("seed", 0)
        except (OSError, ValueError):
            pass
        rounds.insert(0, "run_id", name)
        rounds.insert(1, "label", name)
        rounds.insert(2, "seed", seed)
        return name, rounds, {name: folder}
    fail(f"{folder}: neither a sweep folder (summary.csv) nor a run folder (rounds.csv)")


# Statistics and axes ------------------------------------------------------------------------

def mean_band(values):
    """Mean and half-width of the 95% confidence interval of the mean (0 for one value)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    if n == 1:
        return values[0], 0.0
    t = T975[n - 2] if n - 1 <= len(T975) else 1.96
    return values.mean(), t * values.std(ddof=1) / math.sqrt(n)


def per_round(frame, x_column, y_column):
    """Per configuration and round: mean x, mean y and the y band over seeds."""
    rows = []
    for (label, rnd), group in frame.groupby(["label", "round"], sort=False):
        y, half = mean_band(group[y_column])
        rows.append({"label": label, "round": rnd, "x": group[x_column].mean(), "y": y,
                     "half": half, "n": group["seed"].nunique()})
    return pd.DataFrame(rows).sort_values(["label", "round"], kind="stable")


byte_unit = svg_chart.byte_unit


def spans_decades(values):
    positive = np.asarray(values, dtype=float)
    positive = positive[positive > 0]
    return len(positive) > 1 and positive.max() / positive.min() >= 100


def style_for(labels):
    """A colour and line style per configuration, stable in label order."""
    colours = plt.get_cmap("tab10").colors
    dashes = ["-", "--", "-.", ":"]
    return {label: (colours[i % 10], dashes[(i // 10) % 4]) for i, label in enumerate(labels)}


def add_legend(fig, ax, count):
    if count <= 1:
        return
    if count <= 6:
        ax.legend(fontsize="small", loc="lower right", framealpha=0.9)
    else:  # many configurations: outside the axes, so no line is hidden
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  borderaxespad=0)


# The folder plotted: a run's folder records the figures written into it (run_outputs.py).
PLOTTED_FOLDER = None


def save(fig, out_dir, stem, formats, written):
    fig.tight_layout()
    for fmt in formats:
        path = os.path.join(out_dir, f"{stem}.{fmt}")
        if PLOTTED_FOLDER:
            run_outputs.record(PLOTTED_FOLDER, [path])
        fig.savefig(path, dpi=120, bbox_inches="tight")
        written.append(path)
    plt.close(fig)


# Figures ------------------------------------------------------------------------------------

def quality_metric(rounds):
    """(column, axis label, name) of the run's quality metric: test accuracy, or for a
    forecasting task (whose test_accuracy is empty) the test NRMSE, lower is better."""
    if rounds["test_accuracy"].isna().all() and "test_nrmse" in rounds.columns \
            and rounds["test_nrmse"].notna().any():
        return "test_nrmse", "test NRMSE (lower is better)", "nrmse"
    return "test_accuracy", "test accuracy", "accuracy"


def accuracy_figure(title, frame, x_column, xlabel, traffic, out_dir, stem, formats, written):
    column, ylabel, name = quality_metric(frame)
    stem = stem.replace("accuracy", name)
    stats = per_round(frame, x_column, column)
    labels = list(dict.fromkeys(frame["label"]))
    styles = style_for(labels)
    scale, unit = 1.0, None
    if traffic:
        unit, scale = byte_unit(stats["x"].max())
    fig, ax = plt.subplots(figsize=(7.5 if len(labels) <= 6 else 9.5, 4.5))
    for label in labels:
        s = stats[stats["label"] == label]
        colour, dash = styles[label]
        x = s["x"] / scale
        ax.plot(x, s["y"], dash, color=colour, marker="o", markersize=3, label=label)
        if (s["n"] > 1).any():
            ax.fill_between(x, s["y"] - s["half"], s["y"] + s["half"], color=colour,
                            alpha=0.2, linewidth=0)
    if traffic:
        xlabel = f"{xlabel} ({unit})"
        if spans_decades(stats["x"]):
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(PLAIN)
    if x_column == "round":
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    seeds = int(frame.groupby("label")["seed"].nunique().max())
    ax.set_title(f"{title}: mean and 95% band over {seeds} seeds" if seeds > 1 else title)
    add_legend(fig, ax, len(labels))
    save(fig, out_dir, stem, formats, written)


def client_traffic_figure(title, frame, runs, out_dir, formats, written):
    """Box plot per configuration of each client's total uplink payload (over all seeds)."""
    totals = {}
    for label, group in frame.groupby("label", sort=False):
        values = []
        for run_id in group["run_id"].unique():
            path = os.path.join(runs[run_id], "clients.csv")
            if not os.path.isfile(path):
                continue
            clients = read_csv(path, CLIENT_TRAFFIC_COLUMNS)
            values += list(clients.groupby("client")["payload_bytes"].sum())
        if values:
            totals[label] = np.asarray(values, dtype=float)
    if not totals:
        return
    unit, scale = byte_unit(max(v.max() for v in totals.values()))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(totals) + 2), 4.5))
    ax.boxplot([v / scale for v in totals.values()], vert=True, showmeans=True)
    ax.set_xticks(range(1, len(totals) + 1))
    ax.set_xticklabels(list(totals), rotation=30 if len(totals) > 3 else 0, ha="right"
                       if len(totals) > 3 else "center", fontsize="small")
    if spans_decades(np.concatenate(list(totals.values()))):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(PLAIN)
    ax.set_ylabel(f"uplink payload per client, whole run ({unit})")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.set_title(f"{title}: traffic per client")
    save(fig, out_dir, "client-traffic", formats, written)


def first_run_per_label(frame):
    """The lowest seed's run of each configuration (for per-run views)."""
    first = frame.sort_values("seed", kind="stable").drop_duplicates("label")
    return list(zip(first["label"], first["run_id"]))


def panels(count):
    cols = min(count, 2)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.5 * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, axes.flat


def links_figure(title, frame, runs, out_dir, formats, written, max_panels=6, max_links=8):
    """Capacity (dashed) and throughput (solid) of each link over time, a panel per
    configuration (its first seed)."""
    found = []
    for label, run_id in first_run_per_label(frame):
        path = os.path.join(runs[run_id], "links.csv")
        if os.path.isfile(path):
            found.append((label, read_csv(path, LINK_COLUMNS)))
    if not found:
        return
    found = found[:max_panels]
    fig, axes = panels(len(found))
    for ax, (label, links) in zip(axes, found):
        names = list(dict.fromkeys(links["link"]))
        busiest = (links.groupby("link")["throughput_bps"].mean()
                   .sort_values(ascending=False).index[:max_links])
        colours = plt.get_cmap("tab10").colors
        for i, name in enumerate(n for n in names if n in set(busiest)):
            link = links[links["link"] == name].sort_values("time_s")
            c = colours[i % 10]
            ax.plot(link["time_s"], link["capacity_bps"] / 1e6, "--", color=c, linewidth=1)
            ax.plot(link["time_s"], link["throughput_bps"] / 1e6, "-", color=c, linewidth=1,
                    label=str(name))
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("Mbit/s (dashed: capacity)")
        shown = f" ({len(busiest)} busiest of {len(names)} links)" \
            if len(names) > max_links else ""
        ax.set_title(f"{label}{shown}", fontsize="small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=2, loc="best")
    fig.suptitle(f"{title}: link capacity and throughput")
    save(fig, out_dir, "links", formats, written)


def hub_links_figure(title, frame, runs, out_dir, formats, written, max_panels=6,
                     max_hubs=8):
    """Throughput of the hub links (uplink solid, downlink dotted), a panel per configuration
    (its first seed): what the shared hops carry. Capacities are in the links figure; drawn
    here they would flatten the traffic of a 10 Gbit/s hub to the axis."""
    found = []
    for label, run_id in first_run_per_label(frame):
        path = os.path.join(runs[run_id], "links.csv")
        if not os.path.isfile(path):
            continue
        links = read_csv(path, LINK_COLUMNS)
        hubs = links[links["link"].astype(str).str.startswith("hub-")]
        if not hubs.empty:
            found.append((label, hubs))
    if not found:
        return
    found = found[:max_panels]
    fig, axes = panels(len(found))
    colours = plt.get_cmap("tab10").colors
    for ax, (label, hubs) in zip(axes, found):
        hub = hubs["link"].astype(str).str.replace(r"-(up|down)$", "", regex=True)
        hubs = hubs.assign(hub=hub.str[len("hub-"):])
        names = list(dict.fromkeys(hubs["hub"]))
        busiest = (hubs.groupby("hub")["throughput_bps"].mean()
                   .sort_values(ascending=False).index[:max_hubs])
        for i, name in enumerate(n for n in names if n in set(busiest)):
            c = colours[i % 10]
            up = hubs[hubs["link"] == f"hub-{name}-up"].sort_values("time_s")
            down = hubs[hubs["link"] == f"hub-{name}-down"].sort_values("time_s")
            ax.plot(up["time_s"], up["throughput_bps"] / 1e6, "-", color=c, linewidth=1,
                    label=str(name))
            ax.plot(down["time_s"], down["throughput_bps"] / 1e6, ":", color=c, linewidth=1)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel("Mbit/s (solid: toward the core, dotted: back)", fontsize="small")
        shown = f" ({len(busiest)} busiest of {len(names)} hubs)" \
            if len(names) > max_hubs else ""
        ax.set_title(f"{label}{shown}", fontsize="small")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=2, loc="best")
    fig.suptitle(f"{title}: hub links")
    save(fig, out_dir, "hub-links", formats, written)


def controller_figure(title, frame, runs, out_dir, formats, written):
    """Mean rung over the round's clients, per configuration, with the band over seeds."""
    rows = []
    for run_id, group in frame.groupby("run_id", sort=False):
        path = os.path.join(runs[run_id], "clients.csv")
        if not os.path.isfile(path):
            continue
        clients = read_csv(path)
        if any(c not in clients.columns for c in CONTROLLER_COLUMNS) or \
                clients["rung"].isna().all():
            continue
        rung = clients.groupby("round")["rung"].mean()
        for rnd, value in rung.items():
            rows.append({"label": group["label"].iloc[0], "seed": group["seed"].iloc[0],
                         "round": rnd, "rung": value})
    if not rows:
        return
    decisions = pd.DataFrame(rows)
    stats = per_round(decisions, "round", "rung")
    labels = list(dict.fromkeys(decisions["label"]))
    styles = style_for(labels)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for label in labels:
        s = stats[stats["label"] == label]
        colour, dash = styles[label]
        ax.step(s["x"], s["y"], dash, where="mid", color=colour, label=label)
        ax.fill_between(s["x"], s["y"] - s["half"], s["y"] + s["half"], step="mid",
                        color=colour, alpha=0.2, linewidth=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("round")
    ax.set_ylabel("controller rung (mean over clients)")
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{title}: controller decisions")
    add_legend(fig, ax, len(labels))
    save(fig, out_dir, "controller", formats, written)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a sweep folder (DIR) or one run's folder (RUN_DIR)")
    parser.add_argument("--out", help="folder for the figures (default FOLDER/plots)")
    parser.add_argument("--formats", default="png,pdf", help="comma-separated (png,pdf)")
    args = parser.parse_args()

    formats = [f for f in args.formats.split(",") if f]
    bad = [f for f in formats if f not in ("png", "pdf", "svg")]
    if bad or not formats:
        fail(f"--formats: unknown format(s) {', '.join(bad) or '(none)'}; use png, pdf, svg")
    title, frame, runs = load(args.folder)
    global PLOTTED_FOLDER
    PLOTTED_FOLDER = args.folder
    out_dir = args.out or os.path.join(args.folder, "plots")
    os.makedirs(out_dir, exist_ok=True)

    written = []
    accuracy_figure(title, frame, "cumulative_uplink_wire_bytes",
                    "cumulative uplink traffic on the backhaul wire", True, out_dir,
                    "accuracy-vs-uplink", formats, written)
    accuracy_figure(title, frame, "sim_time_s", "simulated time (s)", False, out_dir,
                    "accuracy-vs-time", formats, written)
    accuracy_figure(title, frame, "round", "round", False, out_dir, "accuracy-vs-round",
                    formats, written)
    if "cumulative_energy_j" in frame.columns and frame["cumulative_energy_j"].notna().any():
        # Only runs whose scenario models energy (the column is empty otherwise).
        energy = frame[frame["cumulative_energy_j"].notna()]
        accuracy_figure(title, energy, "cumulative_energy_j", "cumulative energy (J)", False,
                        out_dir, "accuracy-vs-energy", formats, written)
    client_traffic_figure(title, frame, runs, out_dir, formats, written)
    links_figure(title, frame, runs, out_dir, formats, written)
    hub_links_figure(title, frame, runs, out_dir, formats, written)
    controller_figure(title, frame, runs, out_dir, formats, written)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
