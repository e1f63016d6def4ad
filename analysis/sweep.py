#!/usr/bin/python3
"""Run a parameter sweep of fedran scenarios on this machine or on a Slurm cluster.

Usage:
  sweep.py SWEEP.json --out DIR [--backend local|slurm] [--jobs N] [--dry-run]
           [--targets 0.7,0.8] [--fedran PATH] [slurm options]
  sweep.py collect DIR [--targets 0.7,0.8]     (re)write DIR/summary.csv and DIR/final.csv

A sweep file (JSON):
  {"name": "codecs",
   "scenario": "../quickstart.json",          base scenario, relative to the sweep file
   "set":  {"rounds": 10},                     overrides applied to every run
   "grid": {"clients.groups.0.backhaul.rate": ["10Mbps", "50Mbps"],
            "compression.uplink": [{"type": "none"}, {"type": "qsgd", "bits": 4}]},
   "zip":  [{"server.clients_per_round": [5, 10], "server.deadline_s": [30, 60]}],
   "seeds": 3}                                 a count (seeds 1..N) or a list

Runs are the cartesian product of the grid axes and the zip groups (the paths of one zip
group vary together), times the seeds. Each run lives in DIR/runs/<id>/: params.json, the
traces of `fedran run` (rounds.csv, clients.csv, run.json, ...), stdout.txt and stderr.txt,
and failed.json when it failed. A run id is a readable slug of the swept values, a hash of
all its overrides, and the seed, so the same sweep file always gives the same ids.

A run whose run.json says "completed" is finished and is skipped when the sweep runs again;
failed runs, killed ones (run.json still "running") and interrupted ones ("interrupted") are
run again. Before any run starts (and with --dry-run), every run still to run is checked
with `fedran validate`; if any would fail, the sweep exits 2 listing them and starts none.
Exit status: 0 all runs finished, 1 some failed, 2 bad input, 130 interrupted.

The work is split over modules next to this file: sweep_plan.py (sweep files, run ids),
sweep_run.py (one run's process and result, progress), sweep_local.py and sweep_slurm.py (the
two backends).
"""
import argparse
import json
import os
import shutil
import signal
import sys

from sweep_local import run_local
from sweep_plan import BadInput, column_value, expand, load_sweep, short_names, value_text
from sweep_run import (PROG, Progress, fail, failure_line, is_finished, on_sigterm, read_json,
                       write_atomic, write_json)
from sweep_slurm import run_one, slurm_submit, slurm_wait
from sweep_validate import slurm_memory, validate_runs
import plotting_stack
import targets as targets_module
import trace_schema

DEFAULT_TARGETS = "0.7,0.8"
# rounds.csv columns collect() reads (the cumulative byte columns only when present).
ROUND_COLUMNS = trace_schema.require("rounds.csv", ["round", "sim_time_s"])
trace_schema.require("rounds.csv", ["cumulative_uplink_wire_bytes", "cumulative_wire_bytes"])

# Collecting results --------------------------------------------------------------------------

def parse_targets(text):
    """`0.7,0.8` (accuracies) or items `metric=value` (analysis/targets.py)."""
    try:
        return targets_module.parse_targets(text)
    except targets_module.TargetError as e:
        raise BadInput(f"--targets: {e}")


def collect(out_dir, targets):
    """Writes DIR/summary.csv (run x round) and DIR/final.csv (one row per run)."""
    plotting_stack.require("pandas")
    import pandas as pd  # only the collecting step needs pandas

    try:
        plan = read_json(os.path.join(out_dir, "plan.json"))
    except (OSError, ValueError) as e:
        raise BadInput(f"{out_dir}/plan.json: cannot read ({e}); is {out_dir} a sweep folder?")
    swept = plan["swept"]
    rounds_frames, finals = [], []
    for run_id in plan["runs"]:
        run_dir = os.path.join(out_dir, "runs", run_id)
        params = read_json(os.path.join(run_dir, "params.json"))
        row = {"run_id": run_id, "config": params["config"], "label": params["label"],
               "seed": params["seed"]}
        row.update({p: column_value(params["swept"][p]) for p in swept})
        if not is_finished(run_dir):
            status = "failed" if os.path.exists(os.path.join(run_dir, "failed.json")) \
                else "missing"
            row.update({"status": status,
                        "error": failure_line(run_dir) if status == "failed" else ""})
            finals.append(row)
            continue
        manifest = read_json(os.path.join(run_dir, "run.json"))
        rounds_path = os.path.join(run_dir, "rounds.csv")
        rounds = pd.read_csv(rounds_path)
        missing = [c for c in ROUND_COLUMNS if c not in rounds.columns]
        if missing:
            raise BadInput(f"{rounds_path}: missing column(s) {', '.join(missing)}")
        identity = pd.DataFrame([row] * len(rounds))
        rounds_frames.append(pd.concat([identity, rounds.reset_index(drop=True)], axis=1))

        result = manifest.get("result", {})
        row.update({"status": "done", "error": "",
                    "rounds": result.get("rounds"),
                    "final_accuracy": result.get("final_test_accuracy"),
                    "best_accuracy": rounds["test_accuracy"].max(),
                    "final_nrmse": result.get("final_test_nrmse"),
                    "best_nrmse": rounds["test_nrmse"].min(),
                    "sim_time_s": result.get("sim_time_s"),
                    "uplink_payload_bytes": result.get("uplink_payload_bytes"),
                    "uplink_wire_bytes": result.get("uplink_wire_bytes"),
                    "total_wire_bytes": (result.get("uplink_wire_bytes", 0)
                                         + result.get("downlink_wire_bytes", 0)),
                    # Empty when the scenario models no energy (the column's cells are).
                    "energy_j": (rounds["cumulative_energy_j"].iloc[-1]
                                 if "cumulative_energy_j" in rounds.columns and len(rounds)
                                 else None),
                    "wall_time_s": manifest.get("wall_time_s"),
                    "kernels": manifest.get("kernels", "")})
        for target in targets:
            reached = target.reached(rounds)
            first = reached.iloc[0] if len(reached) else None
            key = target.key
            row[f"rounds_to_{key}"] = first["round"] if first is not None else None
            row[f"time_to_{key}_s"] = first["sim_time_s"] if first is not None else None
            for column, name in (("cumulative_uplink_wire_bytes", "uplink_bytes_to"),
                                 ("cumulative_wire_bytes", "wire_bytes_to")):
                if column in rounds.columns:
                    row[f"{name}_{key}"] = first[column] if first is not None else None
            if "cumulative_energy_j" in rounds.columns:
                row[f"energy_to_{key}_j"] = (first["cumulative_energy_j"]
                                             if first is not None else None)
        finals.append(row)

    summary = pd.concat(rounds_frames, ignore_index=True) if rounds_frames else pd.DataFrame()
    final = pd.DataFrame(finals)
    kernels = sorted({r["kernels"] for r in finals if r.get("status") == "done"})
    if len(kernels) > 1:
        # Fast kernels round differently on each instruction set, so such runs are not
        # bit-comparable (portable ones are): say so instead of mixing numerics silently.
        print(f"{PROG}: warning: the runs used different matrix kernels ({', '.join(kernels)}); "
              f"their numbers may differ in the last bits for that reason alone (column "
              f"`kernels` of final.csv)", file=sys.stderr)
    counts = ("rounds_to_", "uplink_bytes_to_", "wire_bytes_to_")
    for column in [c for c in final.columns if c.startswith(counts)]:
        final[column] = final[column].astype("Int64")  # integers, empty when never reached
    write_atomic(os.path.join(out_dir, "summary.csv"), summary.to_csv(index=False))
    write_atomic(os.path.join(out_dir, "final.csv"), final.to_csv(index=False))
    done = sum(1 for r in finals if r["status"] == "done")
    print(f"{PROG}: {done}/{len(finals)} runs collected into {out_dir}/summary.csv and "
          f"{out_dir}/final.csv", file=sys.stderr)
    return final


# Command line --------------------------------------------------------------------------------

def default_fedran():
    built = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "build", "fedran")
    return built if os.access(built, os.X_OK) else shutil.which("fedran")


def prepare(out_dir, sweep, runs, fedran, sweep_file):
    """Writes DIR/plan.json and each run's params.json (unless finished)."""
    os.makedirs(os.path.join(out_dir, "runs"), exist_ok=True)
    for run in runs:
        run_dir = os.path.join(out_dir, "runs", run["id"])
        os.makedirs(run_dir, exist_ok=True)
        if is_finished(run_dir):
            continue  # keep the params it ran with
        params = dict(run, sweep=sweep["name"], scenario=sweep["scenario"], fedran=fedran,
                      cwd=os.getcwd())
        write_json(os.path.join(run_dir, "params.json"), params)
    write_json(os.path.join(out_dir, "plan.json"),
               {"name": sweep["name"], "sweep_file": os.path.abspath(sweep_file),
                "scenario": sweep["scenario"], "swept": sweep["swept"],
                "runs": [r["id"] for r in runs]})


def print_dry_run(out_dir, sweep, runs, as_json):
    if as_json:  # for scripts (and the tests): the runs with their overrides
        print(json.dumps([{k: r[k] for k in ("id", "config", "seed", "swept", "overrides")}
                          for r in runs], indent=1))
        return
    names = short_names(sweep["swept"])
    todo = 0
    for run in runs:
        finished = out_dir and is_finished(os.path.join(out_dir, "runs", run["id"]))
        todo += not finished
        values = " ".join(f"{names[p]}={value_text(v)}" for p, v in run["swept"].items())
        print(f"{run['id']}  seed={run['seed']} {values}  {'done' if finished else 'to run'}")
    print(f"{len(runs)} runs ({len(runs) - todo} done, {todo} to run)")


def sweep_main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split("\n\n")[0],
        epilog="Other command: sweep.py collect DIR [--targets ...]")
    parser.add_argument("sweep_file")
    parser.add_argument("--out", help="sweep folder (required unless --dry-run)")
    parser.add_argument("--backend", choices=("local", "slurm"), default="local")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="local: runs at the same time (default: the core count); each "
                             "run trains on one thread (fedran --threads 1)")
    parser.add_argument("--dry-run", action="store_true", help="list the runs, run nothing")
    parser.add_argument("--json", action="store_true", help="--dry-run: list them as JSON")
    parser.add_argument("--targets", default=DEFAULT_TARGETS,
                        help="final.csv's to-target columns: accuracies, or metric=value for a "
                        f"lower-is-better metric, e.g. nrmse=0.2 ({DEFAULT_TARGETS})")
    parser.add_argument("--fedran", default=default_fedran(),
                        help="fedran executable (default: build/fedran, else PATH)")
    slurm = parser.add_argument_group("slurm backend")
    slurm.add_argument("--partition")
    slurm.add_argument("--time", help="time limit per run, e.g. 00:30:00")
    slurm.add_argument("--mem", help="memory per run, e.g. 2G")
    slurm.add_argument("--cpus-per-task", type=int, default=1,
                       help="cores per run, also fedran's --threads (default 1)")
    slurm.add_argument("--sbatch-arg", action="append", default=[],
                       help="extra sbatch option, e.g. --sbatch-arg=--account=abc (repeatable)")
    slurm.add_argument("--no-wait", action="store_true",
                       help="submit and return; collect later with `sweep.py collect DIR`")
    slurm.add_argument("--poll", type=float, default=5.0, help="seconds between squeue polls")
    args = parser.parse_args(argv)

    try:
        targets = parse_targets(args.targets)
        sweep = load_sweep(args.sweep_file)
        if args.jobs < 1:
            raise BadInput("--jobs: must be at least 1")
        if args.cpus_per_task < 1:
            raise BadInput("--cpus-per-task: must be at least 1")
        if not args.out and not args.dry_run:
            raise BadInput("--out: required (the sweep folder)")
        if not args.fedran or not os.access(args.fedran, os.X_OK):
            raise BadInput(f"--fedran: '{args.fedran}' is not an executable (build it first; "
                           f"every run is validated with it before any starts)")
    except BadInput as e:
        fail(f"{args.sweep_file}: {e}")
    runs = expand(sweep)
    out_dir = os.path.abspath(args.out) if args.out else None
    fedran = os.path.abspath(args.fedran)
    todo = [r for r in runs
            if not (out_dir and is_finished(os.path.join(out_dir, "runs", r["id"])))]
    # Every run still to run is validated before any starts (and before any folder is made):
    # a bad key or value in the grid is reported for all its runs at once.
    memory = slurm_memory(args.mem) if args.backend == "slurm" else None
    refused = validate_runs(fedran, sweep["scenario"], todo, args.jobs, memory)
    if refused:
        print(f"{PROG}: {len(refused)} of {len(todo)} runs to run would fail; none was "
              f"started:", file=sys.stderr)
        for run, problem in refused:
            print(f"  {run['id']}: {problem}", file=sys.stderr)
        return 2
    if args.dry_run:
        print_dry_run(out_dir, sweep, runs, args.json)
        return 0

    prepare(out_dir, sweep, runs, fedran, args.sweep_file)
    print(f"{PROG}: {sweep['name']}: {len(runs)} runs, {len(runs) - len(todo)} already "
          f"finished, {len(todo)} to run ({args.backend})", file=sys.stderr)
    progress = Progress(len(runs), len(runs) - len(todo))
    signal.signal(signal.SIGTERM, on_sigterm)
    failed = []
    if todo and args.backend == "local":
        failed = run_local(out_dir, todo, args.jobs, progress)
    elif todo:
        args.name = sweep["name"]
        job, _ = slurm_submit(out_dir, todo, args)
        if args.no_wait:
            print(f"{PROG}: not waiting; collect later with: {sys.executable} "
                  f"{os.path.abspath(__file__)} collect {out_dir}", file=sys.stderr)
            return 0
        failed = slurm_wait(out_dir, job, todo, progress, args.poll)
    for run_id in failed:
        print(f"{PROG}: {run_id} failed: {failure_line(os.path.join(out_dir, 'runs', run_id))} "
              f"(see {out_dir}/runs/{run_id}/stderr.txt)", file=sys.stderr)
    try:
        collect(out_dir, targets)
    except BadInput as e:
        fail(str(e))
    return 1 if failed else 0


def collect_main(argv):
    parser = argparse.ArgumentParser(prog=f"{PROG} collect",
                                     description="(Re)write DIR/summary.csv and DIR/final.csv")
    parser.add_argument("dir")
    parser.add_argument("--targets", default=DEFAULT_TARGETS)
    args = parser.parse_args(argv)
    try:
        final = collect(os.path.abspath(args.dir), parse_targets(args.targets))
    except BadInput as e:
        fail(str(e))
    return 0 if (final["status"] == "done").all() else 1


def main(argv):
    commands = {"collect": collect_main, "run-one": run_one}
    if argv and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    return sweep_main(argv)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        # Interrupted before any run started (while validating) or while collecting: nothing
        # is half-written there, so a line suffices, not a traceback.
        print(f"{PROG}: interrupted", file=sys.stderr)
        sys.exit(130)
