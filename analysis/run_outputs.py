"""The record of a run folder's own files (outputs.txt), kept by fedran and the plot scripts.

fedran lists every file it writes into a run folder in RUN_DIR/outputs.txt, one path a line
relative to the folder, before creating it; `fedran run --overwrite` (and a run replacing a
killed one) removes exactly the listed files. A plot written into a run folder is added here,
so that replacing the run removes the figure too instead of leaving it beside data it no
longer describes. Files not listed (a user's notes) are never removed.
"""
import os

RECORD = "outputs.txt"


def is_run_folder(folder):
    """A folder fedran ran into: it has run.json or the record."""
    return (os.path.isfile(os.path.join(folder, "run.json"))
            or os.path.isfile(os.path.join(folder, RECORD)))


def record(folder, paths):
    """Adds each of `paths` that lies inside the run folder `folder` to its record (once).
    Does nothing for a folder that is not a run's (a sweep folder, a user's --out)."""
    if not is_run_folder(folder):
        return
    root = os.path.realpath(folder)
    record_path = os.path.join(folder, RECORD)
    try:
        with open(record_path) as f:
            listed = set(line.strip() for line in f if line.strip())
    except OSError:
        listed = set()
    new = []
    for path in paths:
        relative = os.path.relpath(os.path.realpath(path), root)
        if relative.startswith(os.pardir) or os.path.isabs(relative):
            continue  # written elsewhere (--out): not this folder's
        if relative not in listed and relative not in new:
            new.append(relative)
    if new:
        with open(record_path, "a") as f:
            f.write("".join(name + "\n" for name in new))
            f.flush()
            os.fsync(f.fileno())
