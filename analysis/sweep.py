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

A run with a complete run.json is finished and is skipped when the sweep runs again; failed
and interrupted runs are run again. Exit status: 0 all runs finished, 1 some failed,
2 bad input, 130 interrupted.
"""
import argparse
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

PROG = "sweep"
SWEEP_KEYS = ("name", "scenario", "set", "grid", "zip", "seeds")
DEFAULT_TARGETS = "0.7,0.8"


class BadInput(Exception):
    """A problem with the user's input: reported with its field, exit status 2."""


def fail(message, status=2):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(status)


def write_atomic(path, text):
    """Writes via a temporary file and a rename, so readers never see half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as out:
        out.write(text)
    os.replace(tmp, path)


def write_json(path, value):
    write_atomic(path, json.dumps(value, indent=2) + "\n")


def read_json(path):
    with open(path) as f:
        return json.load(f)


# Sweep files --------------------------------------------------------------------------------

def check_path(field, path):
    if not isinstance(path, str) or not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", path):
        raise BadInput(f"{field}: '{path}' is not a dotted scenario path like server.deadline_s")
    if path in ("seed", "output", "output.dir"):
        raise BadInput(f"{field}: '{path}' is set by the sweep itself (use \"seeds\" for seeds)")


def check_values(field, values):
    if not isinstance(values, list) or not values:
        raise BadInput(f"{field}: must be a non-empty list of values")
    canonical = [json.dumps(v, sort_keys=True) for v in values]
    if len(set(canonical)) != len(canonical):
        raise BadInput(f"{field}: lists the same value twice")


def load_sweep(sweep_file):
    """Reads and checks a sweep file; returns it with the scenario path made absolute."""
    try:
        with open(sweep_file) as f:
            sweep = json.load(f)
    except OSError as e:
        raise BadInput(f"{sweep_file}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BadInput(f"{sweep_file}: line {e.lineno} column {e.colno}: {e.msg}")
    if not isinstance(sweep, dict):
        raise BadInput("the sweep file must hold a JSON object")
    for key in sweep:
        if key not in SWEEP_KEYS:
            raise BadInput(f"{key}: unknown key (known: {', '.join(SWEEP_KEYS)})")

    name = sweep.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise BadInput("name: required, letters, digits, '_', '.' and '-' only")
    scenario = sweep.get("scenario")
    if not isinstance(scenario, str):
        raise BadInput("scenario: required, the base scenario file (relative to the sweep file)")
    scenario = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(sweep_file)),
                                             scenario))
    if not os.path.isfile(scenario):
        raise BadInput(f"scenario: {scenario}: no such file")

    fixed = sweep.get("set", {})
    if not isinstance(fixed, dict):
        raise BadInput("set: must be an object of path: value")
    for path in fixed:
        check_path(f"set.{path}", path)

    grid = sweep.get("grid", {})
    if not isinstance(grid, dict):
        raise BadInput("grid: must be an object of path: [values]")
    axes = []  # each axis: list of paths varied together, list of value tuples
    for path, values in grid.items():
        check_path(f"grid.{path}", path)
        check_values(f"grid.{path}", values)
        axes.append(([path], [(v,) for v in values]))

    zips = sweep.get("zip", [])
    if not isinstance(zips, list):
        raise BadInput("zip: must be a list of objects of path: [values]")
    for i, group in enumerate(zips):
        if not isinstance(group, dict) or not group:
            raise BadInput(f"zip.{i}: must be a non-empty object of path: [values]")
        lengths = set()
        for path, values in group.items():
            check_path(f"zip.{i}.{path}", path)
            check_values(f"zip.{i}.{path}", values)
            lengths.add(len(values))
        if len(lengths) != 1:
            raise BadInput(f"zip.{i}: its lists must have the same length (got "
                           f"{', '.join(str(len(v)) for v in group.values())})")
        paths = list(group)
        axes.append((paths, list(zip(*(group[p] for p in paths)))))

    swept = [p for paths, _ in axes for p in paths]
    for path in swept:
        if swept.count(path) > 1:
            raise BadInput(f"{path}: swept twice (in grid and/or zip groups)")
        if path in fixed:
            raise BadInput(f"set.{path}: also swept in grid or zip")
        for other in swept + list(fixed):
            if other != path and other.startswith(path + "."):
                raise BadInput(f"{other}: lies inside the swept path {path}")

    seeds = sweep.get("seeds", 1)
    if isinstance(seeds, bool) or not isinstance(seeds, (int, list)):
        raise BadInput("seeds: must be a count or a list of non-negative integers")
    if isinstance(seeds, int):
        if seeds < 1:
            raise BadInput("seeds: a count must be at least 1")
        seeds = list(range(1, seeds + 1))
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise BadInput("seeds: must be a count or a non-empty list of non-negative integers")
    if len(set(seeds)) != len(seeds):
        raise BadInput("seeds: lists the same seed twice")

    return {"name": name, "scenario": scenario, "set": fixed, "axes": axes, "swept": swept,
            "seeds": seeds}


def value_text(value):
    """A short human rendering of an override value: qsgd(bits=4), 10Mbps, 0.5."""
    if isinstance(value, dict):
        rest = ",".join(f"{k}={value_text(v)}" for k, v in value.items() if k != "type")
        kind = str(value.get("type", ""))
        return f"{kind}({rest})" if kind and rest else kind or rest
    if isinstance(value, list):
        return "+".join(value_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def column_value(value):
    """How a swept value appears in summary.csv: scalars as they are, others as JSON."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return value


def short_names(paths):
    """The shortest unique dotted suffix of each path: backhaul.rate, uplink."""
    names = {}
    for path in paths:
        parts = path.split(".")
        for n in range(1, len(parts) + 1):
            suffix = ".".join(parts[-n:])
            if not any(o != path and (o == suffix or o.endswith("." + suffix)) for o in paths):
                break
        names[path] = suffix
    return names


def short_hash(value):
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def expand(sweep):
    """All runs of a sweep, in order: grid and zip axes (file order), then seeds."""
    names = short_names(sweep["swept"])
    runs = []
    for combination in itertools.product(*(values for _, values in sweep["axes"])):
        swept = {}
        for (paths, _), values in zip(sweep["axes"], combination):
            swept.update(zip(paths, values))
        overrides = dict(sweep["set"])
        overrides.update(swept)
        label = ", ".join(f"{names[p]}={value_text(v)}" for p, v in swept.items()) or "base"
        slug = re.sub(r"[^A-Za-z0-9.=+-]+", "_", label.replace(", ", "_"))[:60].strip("_")
        config = f"{slug}-{short_hash(overrides)}"
        for seed in sweep["seeds"]:
            runs.append({"id": f"{config}-s{seed}", "config": config, "label": label,
                         "seed": seed, "swept": swept, "overrides": overrides})
    return runs


# Running one run -------------------------------------------------------------------------

def is_finished(run_dir):
    """A run is finished when fedran wrote its run.json (atomically, as its last step)."""
    try:
        return "result" in read_json(os.path.join(run_dir, "run.json"))
    except (OSError, ValueError):
        return False


def fedran_command(params, run_dir, threads):
    command = [params["fedran"], "run", params["scenario"], "--out", run_dir,
               "--seed", str(params["seed"]), "--threads", str(threads)]
    for path, value in params["overrides"].items():
        command += ["--set", f"{path}={json.dumps(value)}"]
    return command


def start_run(run_dir, threads):
    """Starts `fedran run` for one run folder; returns the process."""
    params = read_json(os.path.join(run_dir, "params.json"))
    for stale in ("failed.json", "run.json"):
        if os.path.exists(os.path.join(run_dir, stale)):
            os.remove(os.path.join(run_dir, stale))
    command = fedran_command(params, run_dir, threads)
    with open(os.path.join(run_dir, "stdout.txt"), "w") as out, \
            open(os.path.join(run_dir, "stderr.txt"), "w") as err:
        return subprocess.Popen(command, cwd=params["cwd"], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)


def record_result(run_dir, exit_code, reason=None):
    """After the process ended: failed.json (exit status, stderr tail) unless finished."""
    if exit_code == 0 and is_finished(run_dir):
        return True
    try:
        with open(os.path.join(run_dir, "stderr.txt")) as f:
            stderr = f.read()[-4000:]
    except OSError:
        stderr = ""
    write_json(os.path.join(run_dir, "failed.json"),
               {"exit_code": exit_code, "reason": reason or f"fedran exited with {exit_code}",
                "stderr": stderr})
    return False


def failure_line(run_dir):
    try:
        info = read_json(os.path.join(run_dir, "failed.json"))
    except (OSError, ValueError):
        return "no result"
    lines = [l for l in info.get("stderr", "").splitlines() if l.strip()]
    return lines[-1] if lines else info.get("reason", "failed")


# Progress -----------------------------------------------------------------------------------

def duration_text(seconds):
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


class Progress:
    """Runs done/failed/running and an ETA: one updating line on a terminal, otherwise a
    line whenever the counts change."""

    def __init__(self, total, skipped):
        self.total = total
        self.skipped = skipped
        self.tty = sys.stderr.isatty()
        self.last = None

    def show(self, done, failed, running, eta_s):
        queued = self.total - self.skipped - done - failed - running
        text = (f"{PROG}: {self.skipped + done}/{self.total} done, {failed} failed, "
                f"{running} running, {queued} queued")
        if eta_s is not None and (running or queued):
            text += f", ETA {duration_text(eta_s)}"
        if self.tty and text != self.last:
            sys.stderr.write("\r" + text + "\x1b[K")
            sys.stderr.flush()
        elif text.split(", ETA")[0] != (self.last or "").split(", ETA")[0]:
            print(text, file=sys.stderr, flush=True)
        self.last = text

    def close(self):
        if self.tty and self.last:
            sys.stderr.write("\n")


def eta(durations, remaining, parallel):
    if not durations or remaining <= 0:
        return None
    return sum(durations) / len(durations) * math.ceil(remaining / max(parallel, 1))


# Local backend --------------------------------------------------------------------------------

def run_local(out_dir, runs, jobs, progress):
    """A pool of at most `jobs` fedran processes; returns the ids that failed."""
    pending = list(runs)
    running = {}  # run id -> (process, start time)
    durations, failed, done = [], [], 0
    try:
        while pending or running:
            for run_id, (process, started) in list(running.items()):
                if process.poll() is None:
                    continue
                del running[run_id]
                durations.append(time.monotonic() - started)
                if record_result(os.path.join(out_dir, "runs", run_id), process.returncode):
                    done += 1
                else:
                    failed.append(run_id)
            while pending and len(running) < jobs:
                run = pending.pop(0)
                run_dir = os.path.join(out_dir, "runs", run["id"])
                running[run["id"]] = (start_run(run_dir, threads=1), time.monotonic())
            elapsed = [time.monotonic() - s for _, s in running.values()]
            left = len(pending) + len(running)
            estimate = eta(durations, left, jobs)
            if estimate is not None and elapsed:
                estimate = max(estimate - sum(elapsed) / len(elapsed), 0)
            progress.show(done, len(failed), len(running), estimate)
            time.sleep(0.2)
    except KeyboardInterrupt:
        stop_processes([p for p, _ in running.values()])
        progress.close()
        fail(f"interrupted: stopped {len(running)} running run(s); finished runs are kept "
             f"and the sweep resumes where it stopped", 130)
    progress.close()
    return failed


def stop_processes(processes):
    for p in processes:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + 5
    for p in processes:
        try:
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def on_sigterm(signum, frame):
    raise KeyboardInterrupt


# Slurm backend --------------------------------------------------------------------------------

def slurm_submit(out_dir, runs, args):
    """Writes one array job script for `runs` and submits it; returns the job id."""
    slurm_dir = os.path.join(out_dir, "slurm")
    os.makedirs(slurm_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    tasks = os.path.join(slurm_dir, f"tasks-{stamp}.txt")
    write_atomic(tasks, "".join(r["id"] + "\n" for r in runs))
    lines = ["#!/bin/sh",
             f"#SBATCH --job-name=fedran-{args.name}",
             f"#SBATCH --array=0-{len(runs) - 1}",
             f"#SBATCH --output={slurm_dir}/%A_%a.out",
             f"#SBATCH --cpus-per-task={args.cpus_per_task}"]
    for option in ("partition", "time", "mem"):
        if getattr(args, option):
            lines.append(f"#SBATCH --{option}={getattr(args, option)}")
    lines += [f"#SBATCH {extra}" for extra in args.sbatch_arg]
    lines += ["# One array task per run; each runs fedran with --threads = cpus-per-task.",
              f"exec {sys.executable} {os.path.abspath(__file__)} run-one "
              f"--tasks {tasks} --index \"$SLURM_ARRAY_TASK_ID\" "
              f"--threads {args.cpus_per_task}", ""]
    script = os.path.join(slurm_dir, f"job-{stamp}.sh")
    write_atomic(script, "\n".join(lines))
    try:
        result = subprocess.run(["sbatch", "--parsable", script], capture_output=True, text=True)
    except FileNotFoundError:
        fail("sbatch: not found (is Slurm installed on this machine?)", 1)
    if result.returncode != 0:
        fail(f"sbatch failed: {result.stderr.strip()}", 1)
    job = result.stdout.strip().split(";")[0]
    with open(os.path.join(slurm_dir, "jobs.txt"), "a") as f:
        f.write(f"{job} {tasks}\n")
    print(f"{PROG}: submitted array job {job} ({len(runs)} runs; script {script})",
          file=sys.stderr)
    return job, tasks


def slurm_states(job):
    """Task states of a job as squeue reports them; None once it has left the queue."""
    result = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%t"],
                            capture_output=True, text=True)
    states = result.stdout.split()
    if result.returncode != 0 or not states:
        return None
    return states


def slurm_wait(out_dir, job, runs, progress, poll_s):
    """Polls squeue until the array job has left the queue; returns the ids that failed."""
    start = time.monotonic()
    try:
        while True:
            states = slurm_states(job)
            run_dirs = [os.path.join(out_dir, "runs", r["id"]) for r in runs]
            finished = [d for d in run_dirs if is_finished(d)]
            failed = [d for d in run_dirs if os.path.exists(os.path.join(d, "failed.json"))]
            running = sum(s in ("R", "CG") for s in states or [])
            walls = [read_json(os.path.join(d, "run.json")).get("wall_time_s", 0)
                     for d in finished]
            progress.show(len(finished), len(failed), running,
                          eta(walls, len(runs) - len(finished) - len(failed), running))
            if states is None:
                break
            time.sleep(poll_s)
    except KeyboardInterrupt:
        progress.close()
        fail(f"stopped waiting after {duration_text(time.monotonic() - start)}; job {job} "
             f"keeps running (scancel {job} stops it); collect with: "
             f"{sys.executable} {os.path.abspath(__file__)} collect {out_dir}", 130)
    progress.close()
    failed = []
    for run in runs:
        run_dir = os.path.join(out_dir, "runs", run["id"])
        if is_finished(run_dir):
            continue
        if not os.path.exists(os.path.join(run_dir, "failed.json")):
            record_result(run_dir, -1, f"Slurm task of job {job} ended without a result "
                                       f"(see {out_dir}/slurm/{job}_*.out)")
        failed.append(run["id"])
    return failed


def run_one(argv):
    """One Slurm array task: runs the run named on line --index of --tasks."""
    parser = argparse.ArgumentParser(prog=f"{PROG} run-one")
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    with open(args.tasks) as f:
        run_id = f.read().split()[args.index]
    run_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.tasks))),
                           "runs", run_id)
    if is_finished(run_dir):
        print(f"{run_id}: already finished")
        return 0
    signal.signal(signal.SIGTERM, on_sigterm)  # scancel or the time limit
    process = start_run(run_dir, args.threads)
    try:
        code = process.wait()
    except KeyboardInterrupt:
        stop_processes([process])
        record_result(run_dir, -15, "stopped by Slurm (scancel or time limit)")
        return 143
    ok = record_result(run_dir, code)
    print(f"{run_id}: {'finished' if ok else 'failed: ' + failure_line(run_dir)}")
    return 0 if ok else 1


# Collecting results -------------------------------------------------------------------------

def parse_targets(text):
    try:
        targets = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise BadInput(f"--targets: '{text}' is not a comma-separated list of accuracies")
    if any(not 0 < t <= 1 for t in targets):
        raise BadInput(f"--targets: accuracies must lie in (0, 1], got '{text}'")
    return targets


def collect(out_dir, targets):
    """Writes DIR/summary.csv (run x round) and DIR/final.csv (one row per run)."""
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
        rounds = pd.read_csv(os.path.join(run_dir, "rounds.csv"))
        identity = pd.DataFrame([row] * len(rounds))
        rounds_frames.append(pd.concat([identity, rounds.reset_index(drop=True)], axis=1))

        result = manifest.get("result", {})
        row.update({"status": "done", "error": "",
                    "rounds": result.get("rounds"),
                    "final_accuracy": result.get("final_test_accuracy"),
                    "best_accuracy": rounds["test_accuracy"].max(),
                    "sim_time_s": result.get("sim_time_s"),
                    "uplink_payload_bytes": result.get("uplink_payload_bytes"),
                    "uplink_wire_bytes": result.get("uplink_wire_bytes"),
                    "total_wire_bytes": (result.get("uplink_wire_bytes", 0)
                                         + result.get("downlink_wire_bytes", 0)),
                    "wall_time_s": manifest.get("wall_time_s")})
        for target in targets:
            reached = rounds[rounds["test_accuracy"] >= target]
            first = reached.iloc[0] if len(reached) else None
            key = f"{target:g}"
            row[f"rounds_to_{key}"] = first["round"] if first is not None else None
            row[f"time_to_{key}_s"] = first["sim_time_s"] if first is not None else None
            for column, name in (("cumulative_uplink_wire_bytes", "uplink_bytes_to"),
                                 ("cumulative_wire_bytes", "wire_bytes_to")):
                if column in rounds.columns:
                    row[f"{name}_{key}"] = first[column] if first is not None else None
        finals.append(row)

    summary = pd.concat(rounds_frames, ignore_index=True) if rounds_frames else pd.DataFrame()
    final = pd.DataFrame(finals)
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
                        help=f"accuracies for final.csv's to-target columns ({DEFAULT_TARGETS})")
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
        if not args.dry_run and (not args.fedran or not os.access(args.fedran, os.X_OK)):
            raise BadInput(f"--fedran: '{args.fedran}' is not an executable (build it first)")
    except BadInput as e:
        fail(f"{args.sweep_file}: {e}")
    runs = expand(sweep)
    out_dir = os.path.abspath(args.out) if args.out else None
    if args.dry_run:
        print_dry_run(out_dir, sweep, runs, args.json)
        return 0

    fedran = os.path.abspath(args.fedran)
    prepare(out_dir, sweep, runs, fedran, args.sweep_file)
    todo = [r for r in runs if not is_finished(os.path.join(out_dir, "runs", r["id"]))]
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
    collect(out_dir, targets)
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
    sys.exit(main(sys.argv[1:]))
