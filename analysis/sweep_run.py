"""What every backend of analysis/sweep.py shares: a run folder's state, starting `fedran run`
for it and recording the result (params.json, run.json, failed.json), stopping processes, and
the progress line.
"""
import json
import math
import os
import subprocess
import sys
import time

PROG = "sweep"


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


# Running one run -----------------------------------------------------------------------------

def is_finished(run_dir):
    """A run is finished when its run.json says "completed". fedran writes run.json with
    "running" when a run starts and replaces it atomically at the end; "running" (killed)
    and "interrupted" (SIGINT, SIGTERM) folders are not done and run again. A run.json
    without a status (fedran before it had one) counts as finished if it has a result."""
    try:
        manifest = read_json(os.path.join(run_dir, "run.json"))
    except (OSError, ValueError):
        return False
    if "status" in manifest:
        return manifest["status"] == "completed"
    return "result" in manifest


def run_status(run_dir):
    """run.json's status, or None without a readable one."""
    try:
        return read_json(os.path.join(run_dir, "run.json")).get("status")
    except (OSError, ValueError, AttributeError):
        return None


def fedran_command(params, run_dir, threads):
    command = [params["fedran"], "run", params["scenario"], "--out", run_dir,
               "--seed", str(params["seed"]), "--threads", str(threads)]
    if run_status(run_dir) == "interrupted":
        # fedran keeps an interrupted run unless told; the sweep runs it again by design.
        # (A completed run is never started again, and a killed or failed one fedran
        # replaces by itself.)
        command.append("--overwrite")
    for path, value in params["overrides"].items():
        command += ["--set", f"{path}={json.dumps(value)}"]
    return command


def start_run(run_dir, threads):
    """Starts `fedran run` for one run folder; returns the process."""
    params = read_json(os.path.join(run_dir, "params.json"))
    # The sweep's own record of the last attempt; the previous run's files are fedran's to
    # replace (it removes those its outputs.txt lists).
    if os.path.exists(os.path.join(run_dir, "failed.json")):
        os.remove(os.path.join(run_dir, "failed.json"))
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


# Progress ------------------------------------------------------------------------------------

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
