"""Checking every run of a sweep before any starts: `fedran validate` with the run's seed and
overrides, so that a grid naming a key that does not exist (or any run fedran would refuse)
costs seconds instead of a queue of failing runs. Used by sweep.py, --dry-run included.
"""
import concurrent.futures
import json
import os
import subprocess


def validate_command(fedran, scenario, run, memory_limit=None):
    command = [fedran, "validate", scenario, "--set", f"seed={run['seed']}"]
    for path, value in run["overrides"].items():
        command += ["--set", f"{path}={json.dumps(value)}"]
    if memory_limit:
        command += ["--memory-limit", memory_limit]
    return command


def slurm_memory(mem):
    """sbatch --mem as fedran's --memory-limit: a bare number is megabytes to Slurm."""
    if not mem:
        return None
    return mem + "M" if mem.isdigit() else mem


def problem_of(stderr, exit_code):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    text = "; ".join(lines)
    if len(text) > 600:
        text = text[:600] + " ..."
    return text or f"fedran validate exited with {exit_code}"


def validate_runs(fedran, scenario, runs, jobs, memory_limit=None):
    """Validates `runs` (at most `jobs` at a time, from this folder, as the runs will start);
    returns [(run, problem)] for those fedran refuses, in run order."""

    def check(run):
        result = subprocess.run(validate_command(fedran, scenario, run, memory_limit),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
        if result.returncode == 0:
            return None
        return run, problem_of(result.stderr, result.returncode)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        return [r for r in pool.map(check, runs) if r is not None]
