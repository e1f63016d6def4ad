"""The Slurm backend of analysis/sweep.py: one `sbatch --array` job per sweep, each task running
`sweep.py run-one`; waiting for the job with squeue."""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import time

from sweep_run import (PROG, duration_text, eta, fail, failure_line, is_finished, on_sigterm,
                       read_json, record_result, start_run, stop_processes, write_atomic)

# The job script and the hints printed to the user name the command-line entry point.
SWEEP_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep.py")


def sbatch_quote(value):
    """`value` as one argument of an #SBATCH line. sbatch reads those lines itself, not the
    shell: double quotes group, a backslash escapes the next character, and an unescaped #
    starts a comment even inside quotes."""
    escaped = "".join("\\" + c if c in '"\\#' else c for c in value)
    return f'"{escaped}"'


def slurm_pattern(path):
    """`path` as a literal part of an sbatch filename pattern (% starts a replacement)."""
    return path.replace("%", "%%")


def slurm_submit(out_dir, runs, args):
    """Writes one array job script for `runs` and submits it; returns the job id. Every path
    in the script is quoted: an output folder may hold spaces, quotes or #."""
    slurm_dir = os.path.join(os.path.abspath(out_dir), "slurm")
    os.makedirs(slurm_dir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    tasks = os.path.join(slurm_dir, f"tasks-{stamp}.txt")
    write_atomic(tasks, "".join(r["id"] + "\n" for r in runs))
    output = slurm_pattern(os.path.join(slurm_dir, "")) + "%A_%a.out"
    lines = ["#!/bin/sh",
             f"#SBATCH --job-name={sbatch_quote('fedran-' + args.name)}",
             f"#SBATCH --array=0-{len(runs) - 1}",
             f"#SBATCH --output={sbatch_quote(output)}",
             f"#SBATCH --cpus-per-task={args.cpus_per_task}"]
    for option in ("partition", "time", "mem"):
        if getattr(args, option):
            lines.append(f"#SBATCH --{option}={getattr(args, option)}")
    lines += [f"#SBATCH {extra}" for extra in args.sbatch_arg]
    lines += ["# One array task per run; each runs fedran with --threads = cpus-per-task.",
              f"exec {shlex.quote(sys.executable)} {shlex.quote(SWEEP_SCRIPT)} run-one "
              f"--tasks {shlex.quote(tasks)} --index \"$SLURM_ARRAY_TASK_ID\" "
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
             f"{sys.executable} {SWEEP_SCRIPT} collect {out_dir}", 130)
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
