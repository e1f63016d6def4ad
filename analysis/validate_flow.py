#!/usr/bin/python3
"""Compare network.transport "flow" with "tcp" (packet-level ns-3) and write the page.

Usage: /usr/bin/python3 analysis/validate_flow.py [--fedran build/fedran] [--rounds 3]
           [--work results/flow-validation] [--write docs/flow-validation.md] [--only NAME]
           [--flow-ports fluid|packet] [--contended-seeds 6]

Runs every shipped scenario (scenarios/*.json, --rounds rounds each) and synthetic cases
(1, 10 and 100 simultaneous MLP uploads over one shared hop, a rain fade in the middle of the
transfers, 1% loss) and the contended drop-tail cases (mlp-contended, hub-30,
small-core-queue: the round duration and the slowest upload of each round, at seeds
1..--contended-seeds) in both modes, from the repository root, one thread each. Compares per
transfer (a download: round start to model_received_s, synchronous runs only; an upload:
upload_start_s to upload_end_s, for each (round, client) completed in both modes), per round
(round_duration_s),
the final accuracy and the wall time (run.json). Writes the tables to --write and the figure
of flow against packet transfer times next to it (flow-validation.png).
"""
import argparse
import json
import os
import subprocess
import sys

import plotting_stack  # names a missing matplotlib, pandas or numpy, exit 2

plotting_stack.require()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlp_case(name, clients, backhaul, core_rate="100Mbps", core_delay="5ms", rounds=2):
    """An MLP (0.8 MB each way) with every client selected and trained at the same speed,
    so that the uploads leave together."""
    return {
        "name": name, "seed": 1, "rounds": rounds,
        "data": {"dataset": "fashion-mnist", "path": "/usr/share/datasets/fashion-mnist",
                 "partition": {"type": "iid"}},
        "model": {"type": "mlp", "hidden": [200, 200]},
        "training": {"local_epochs": 1, "batch_size": 32, "lr": 0.05},
        "server": {"clients_per_round": clients, "deadline_s": 600, "aggregation": "fedavg"},
        "clients": {"groups": [{"name": "sites", "count": clients,
                                "compute": {"samples_per_second": 20000},
                                "backhaul": backhaul}]},
        "network": {"core": {"rate": core_rate, "delay": core_delay}},
        "compression": {"uplink": {"type": "none"}, "downlink": {"type": "none"}},
        "output": {"link_sample_s": 1},
    }


def contended():
    """Drop-tail ports that overflow (issue 33): synchronised MLP uploads (0.8 MB) whose
    slow starts meet in a shallow FIFO. Three rounds each."""
    cases = {}
    # The flow-transport check's case: 20 sites of 100 Mbit/s behind a 100 Mbit/s core with
    # its default 100-packet FIFO.
    cases["mlp-contended"] = mlp_case(
        "mlp-contended", 20, {"type": "p2p", "rate": "100Mbps", "delay": "2ms"}, rounds=3)
    # Many sites behind one hub link: 30 sites of 100 Mbit/s under a 100 Mbit/s hub link
    # (its port's 100-packet FIFO overflows), a 1 Gbit/s core above it.
    hub = mlp_case("hub-30", 30, {"type": "p2p", "rate": "100Mbps", "delay": "1ms"},
                   core_rate="1Gbps", core_delay="2ms", rounds=3)
    hub["network"]["hubs"] = [{"name": "hub", "count": 1,
                               "backhaul": {"type": "p2p", "rate": "100Mbps", "delay": "3ms"}}]
    hub["clients"]["groups"][0]["hub"] = "hub"
    cases["hub-30"] = hub
    # A small core queue: 10 sites, a 100 Mbit/s core with a 20-packet FIFO.
    small = mlp_case("small-core-queue", 10, {"type": "p2p", "rate": "100Mbps", "delay": "2ms"},
                     rounds=3)
    small["network"]["core"]["queue"] = {"discipline": "fifo", "packets": 20}
    cases["small-core-queue"] = small
    return cases


def synthetic():
    cases = {}
    for n in (1, 10, 100):
        # The core (100 Mbit/s) is the hop every transfer shares.
        cases[f"shared-hop-{n}"] = mlp_case(
            f"shared-hop-{n}", n, {"type": "p2p", "rate": "100Mbps", "delay": "2ms"})
    # A 56 MHz microwave hop (256-QAM clear sky, 336 Mbit/s) whose attenuation rises by 20 dB
    # (QPSK, 84 Mbit/s) and falls again while the rounds' transfers are under way.
    cases["rain-fade"] = mlp_case(
        "rain-fade", 5,
        {"type": "microwave", "preset": "none", "bandwidth_mhz": 56, "snr_db": 32,
         "delay": "1ms",
         "fade": {"type": "script",
                  "points": [[1.02, 20], [1.75, 0], [1.9, 20], [2.6, 0]]}},
        core_rate="1Gbps")
    cases["loss-1pct"] = mlp_case(
        "loss-1pct", 5, {"type": "p2p", "rate": "50Mbps", "delay": "5ms", "loss": 0.01},
        core_rate="1Gbps")
    return cases


def run(fedran, scenario_path, out, transport, rounds, extra):
    os.makedirs(out, exist_ok=True)
    # --overwrite: running the comparison again replaces its own runs (and only their files).
    cmd = [fedran, "run", scenario_path, "--out", out, "--quiet", "--overwrite", "--threads", "1",
           "--set", f"network.transport=\"{transport}\"", "--set", f"rounds={rounds}"] + extra
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"validate_flow: {' '.join(cmd)} failed:\n{done.stderr}")
    with open(os.path.join(out, "run.json")) as f:
        manifest = json.load(f)
    return manifest


def transfers(out):
    rounds = pd.read_csv(os.path.join(out, "rounds.csv"))
    clients = pd.read_csv(os.path.join(out, "clients.csv"))
    start = dict(zip(rounds["round"], rounds["sim_time_s"] - rounds["round_duration_s"]))
    done = clients[clients["status"] == "completed"].copy()
    done["down"] = done["model_received_s"] - done["round"].map(start)
    manifest = os.path.join(out, "run.json")
    with open(manifest) as f:
        mode = json.load(f)["scenario"]["server"].get("mode", "sync")
    if mode == "async":
        # Async mode: a row's round is the step its update counted in, and the model went out
        # whenever a slot freed, an instant clients.csv does not hold: compare uploads only.
        done["down"] = np.nan
    done["up"] = done["upload_end_s"] - done["upload_start_s"]
    return rounds, done.set_index(["round", "client"])


def compare(name, tcp_out, flow_out, wall):
    tcp_rounds, tcp = transfers(tcp_out)
    flow_rounds, flow = transfers(flow_out)
    both = tcp.join(flow, lsuffix="_tcp", rsuffix="_flow", how="inner")
    pairs = []
    for kind in ("down", "up"):
        t = both[f"{kind}_tcp"].to_numpy()
        f = both[f"{kind}_flow"].to_numpy()
        keep = np.isfinite(t) & np.isfinite(f) & (t > 0)
        pairs += [(kind, a, b) for a, b in zip(t[keep], f[keep])]
    err = np.array([abs(f - t) / t for _, t, f in pairs]) if pairs else np.array([np.nan])
    rd = tcp_rounds.merge(flow_rounds, on="round", suffixes=("_tcp", "_flow"))
    round_err = (abs(rd["round_duration_s_flow"] - rd["round_duration_s_tcp"]) /
                 rd["round_duration_s_tcp"])
    # What decides a round: its duration, and its slowest upload (clients.csv).
    slow_t = tcp.groupby(level="round")["up"].max()
    slow_f = flow.groupby(level="round")["up"].max()
    slow = pd.concat([slow_t, slow_f], axis=1, keys=["t", "f"]).dropna()
    slow_err = (abs(slow["f"] - slow["t"]) / slow["t"]).to_numpy()
    return {
        "case": name,
        "round_err_median": float(round_err.median()) if len(round_err) else float("nan"),
        "slow_err_median": float(np.median(slow_err)) if len(slow_err) else float("nan"),
        "slow_err_max": float(np.max(slow_err)) if len(slow_err) else float("nan"),
        "rounds": [(int(r), float(a), float(b), float(c), float(d)) for r, a, b, c, d in zip(
            rd["round"], rd["round_duration_s_tcp"], rd["round_duration_s_flow"],
            slow_t.reindex(rd["round"]).to_numpy(), slow_f.reindex(rd["round"]).to_numpy())],
        "transfers": len(pairs),
        "median": float(np.median(err)),
        "p95": float(np.percentile(err, 95)),
        "worst": float(np.max(err)),
        "round_err": float(round_err.mean()) if len(round_err) else float("nan"),
        "round_err_max": float(round_err.max()) if len(round_err) else float("nan"),
        "acc_diff": float(flow_rounds["test_accuracy"].iloc[-1] -
                          tcp_rounds["test_accuracy"].iloc[-1]),
        "wire_ratio": float(flow_rounds["uplink_wire_bytes"].sum() /
                            max(1, tcp_rounds["uplink_wire_bytes"].sum())),
        "wall_tcp": wall[0],
        "wall_flow": wall[1],
        "pairs": pairs,
    }


def pct(x):
    return "—" if not np.isfinite(x) else f"{100 * x:.1f}%"


def pooled(runs):
    """Round-duration and slowest-upload errors over the rounds of several runs of a case."""
    rounds = [r for run in runs for r in run["rounds"]]
    round_err = np.array([abs(f - t) / t for _, t, f, _, _ in rounds])
    slow_err = np.array([abs(f - t) / t for _, _, _, t, f in rounds])
    return len(rounds), round_err, slow_err


def contended_table(results):
    """The contended cases against issue 33's targets: median round-duration error <= 10%,
    the slowest upload of each round within 15%. Seed 1 round by round, then every seed run:
    where a full FIFO decides which flow waits out a timeout, one seed's three rounds are a
    small sample (ns-3 against itself with 1 us more delay differs by as much,
    docs/flow-validation.md)."""
    lines = [
        "| case | round | round duration tcp / flow (s) | slowest upload tcp / flow (s) |",
        "|---|---|---|---|",
    ]
    for r in results:
        for rnd, dt, df, st, sf in r["rounds"]:
            lines.append(f"| {r['case']} | {rnd} | {dt:.3f} / {df:.3f} | {st:.3f} / {sf:.3f} |")
    lines += [
        "",
        "| case | round duration error (median / max) | slowest upload error (median / max) | "
        "wall tcp (s) | wall flow (s) |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['case']} | {pct(r['round_err_median'])} / {pct(r['round_err_max'])} | "
            f"{pct(r['slow_err_median'])} / {pct(r['slow_err_max'])} | {r['wall_tcp']:.1f} | "
            f"{r['wall_flow']:.1f} |")
    if any(len(r.get("seeds", [])) > 1 for r in results):
        lines += [
            "",
            "| case | seeds | rounds | round duration error (median / max) | "
            "slowest upload error (median / max) | targets (≤ 10%, ≤ 15%) |",
            "|---|---|---|---|---|---|",
        ]
        for r in results:
            n, round_err, slow_err = pooled(r["seeds"])
            met = np.median(round_err) <= 0.10 and np.median(slow_err) <= 0.15
            lines.append(
                f"| {r['case']} | 1–{len(r['seeds'])} | {n} | {pct(np.median(round_err))} / "
                f"{pct(np.max(round_err))} | {pct(np.median(slow_err))} / "
                f"{pct(np.max(slow_err))} | {'met' if met else 'not met'} |")
    return lines


def write_page(results, path, rounds, command, flow_ports):
    lines = [
        "# Flow-level transport against packet-level ns-3",
        "",
        "`network.transport: \"flow\"` (models/flow/, models/ns3/model/flow-*.cc) against",
        "`\"tcp\"` on the same scenarios and seeds. A transfer is a download (round start to",
        "the client's `model_received_s`) or an upload (`upload_start_s` to `upload_end_s`) of",
        "a (round, client) that completed in both modes; errors are |flow − tcp| / tcp.",
        f"The flow runs set `network.flow_ports` to `\"{flow_ports}\"`.",
        f"Shipped scenarios ran {rounds} rounds, the synthetic cases 2; both modes with",
        "`--threads 1`. Reproduce:",
        "",
        "```sh",
        command,
        "```",
        "",
        "| case | transfers | median | p95 | worst | round duration (mean / max) | "
        "final accuracy flow − tcp | uplink wire flow / tcp | wall tcp (s) | wall flow (s) | "
        "ratio |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    main = [r for r in results if r["case"] not in contended()]
    hard = [r for r in results if r["case"] in contended()]
    for r in main:
        ratio = r["wall_tcp"] / r["wall_flow"] if r["wall_flow"] > 0 else float("nan")
        lines.append(
            f"| {r['case']} | {r['transfers']} | {pct(r['median'])} | {pct(r['p95'])} | "
            f"{pct(r['worst'])} | {pct(r['round_err'])} / {pct(r['round_err_max'])} | "
            f"{r['acc_diff']:+.4f} | {r['wire_ratio']:.3f} | {r['wall_tcp']:.1f} | "
            f"{r['wall_flow']:.1f} | {ratio:.1f}× |")
    lines += ["", "![flow against packet transfer times](flow-validation.png)", ""]
    if hard:
        lines += ["## Contended drop-tail ports", "",
                  "Synchronised MLP uploads through a FIFO that overflows (issue 33), "
                  "3 rounds each; targets: median round-duration error ≤ 10%, the slowest "
                  "upload of each round within 15%. Round by round at seed 1, then over "
                  "every round of the seeds run (the same scenario with `--set seed=S`).", ""]
        lines += contended_table(hard) + [""]
    table = "\n".join(lines)
    # The measured part goes between the markers; the text around it is kept.
    begin, end = "<!-- validate_flow.py: begin -->\n", "<!-- validate_flow.py: end -->\n"
    text = begin + table + end
    if os.path.isfile(path):
        with open(path) as f:
            old = f.read()
        if begin in old and end in old:
            text = old[:old.index(begin)] + text + old[old.index(end) + len(end):]
    with open(path, "w") as f:
        f.write(text)


def plot(results, path):
    fig, ax = plt.subplots(figsize=(6, 6))
    for r in results:
        if not r["pairs"]:
            continue
        t = [p[1] for p in r["pairs"]]
        f = [p[2] for p in r["pairs"]]
        ax.scatter(t, f, s=8, label=r["case"], alpha=0.7)
    lo = min(min(p[1] for p in r["pairs"]) for r in results if r["pairs"])
    hi = max(max(p[1] for p in r["pairs"]) for r in results if r["pairs"])
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("packet-level (tcp) transfer time, s")
    ax.set_ylabel("flow-level transfer time, s")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fedran", default=os.path.join(ROOT, "build", "fedran"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", default=os.path.join(ROOT, "results", "flow-validation"))
    parser.add_argument("--write", help="write the page here (and its figure beside it)")
    parser.add_argument("--only", action="append", help="run only these cases")
    parser.add_argument("--flow-ports", choices=("fluid", "packet"), default="fluid",
                        help="network.flow_ports of the flow runs (default fluid, the scenario default)")
    parser.add_argument("--contended-seeds", type=int, default=6,
                        help="run the contended cases at seeds 1..N (default 6) and report "
                             "their errors over all those rounds too")
    args = parser.parse_args()

    cases = []
    for name in sorted(os.listdir(os.path.join(ROOT, "scenarios"))):
        if name.endswith(".json") and name != "scenario.schema.json":
            cases.append((name[:-5], os.path.join("scenarios", name), args.rounds))
    os.makedirs(args.work, exist_ok=True)
    for name, scenario in list(synthetic().items()) + list(contended().items()):
        path = os.path.join(args.work, name + ".json")
        with open(path, "w") as f:
            json.dump(scenario, f, indent=1)
        cases.append((name, path, scenario["rounds"]))
    results = []
    for name, path, rounds in cases:
        if args.only and name not in args.only:
            continue
        walls = []
        for transport in ("tcp", "flow"):
            out = os.path.join(args.work, name, transport)
            extra = ["--set", f"network.flow_ports=\"{args.flow_ports}\""] if transport == "flow" else []
            manifest = run(args.fedran, path, out, transport, rounds, extra)
            walls.append(manifest["wall_time_s"])
        r = compare(name, os.path.join(args.work, name, "tcp"),
                    os.path.join(args.work, name, "flow"), walls)
        if name in contended():
            r["seeds"] = [r]
            for seed in range(2, args.contended_seeds + 1):
                outs = []
                for transport in ("tcp", "flow"):
                    out = os.path.join(args.work, name, f"seed-{seed}", transport)
                    extra = ["--set", f"seed={seed}"]
                    if transport == "flow":
                        extra += ["--set", f"network.flow_ports=\"{args.flow_ports}\""]
                    run(args.fedran, path, out, transport, rounds, extra)
                    outs.append(out)
                r["seeds"].append(compare(name, outs[0], outs[1], (0.0, 0.0)))
        print(f"{name}: median {pct(r['median'])} p95 {pct(r['p95'])} worst {pct(r['worst'])} "
              f"round {pct(r['round_err'])} acc {r['acc_diff']:+.4f} "
              f"wall {walls[0]:.1f}/{walls[1]:.1f} s", flush=True)
        results.append(r)
    if args.write and results:
        command = ("/usr/bin/python3 analysis/validate_flow.py --rounds "
                   f"{args.rounds} --flow-ports {args.flow_ports} "
                   f"--contended-seeds {args.contended_seeds} "
                   f"--write {os.path.relpath(args.write, ROOT)}")
        write_page(results, args.write, args.rounds, command, args.flow_ports)
        plot(results, os.path.join(os.path.dirname(args.write), "flow-validation.png"))


if __name__ == "__main__":
    main()
