"""The local backend of analysis/sweep.py: a pool of fedran processes on this machine."""
import os
import time

from sweep_run import eta, fail, record_result, start_run, stop_processes


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
