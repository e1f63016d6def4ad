"""Sweep files for analysis/sweep.py: reading and checking them, and expanding them into
runs. A run id is a readable slug of the swept values, a hash of all the run's overrides, and
the seed, so the same sweep file always gives the same ids.
"""
import hashlib
import itertools
import json
import os
import re
import stat

SWEEP_KEYS = ("name", "scenario", "set", "grid", "zip", "seeds")
# A sweep file is read whole; a real one is a few kB (the same limit as fedran's scenarios).
SWEEP_FILE_LIMIT = 16 << 20


class BadInput(Exception):
    """A problem with the user's input: reported with its field, exit status 2."""


def check_path(field, path):
    if not isinstance(path, str) or not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", path):
        raise BadInput(f"{field}: '{path}' is not a dotted scenario path like server.deadline_s")
    if path in ("seed", "output", "output.dir"):
        raise BadInput(f"{field}: '{path}' is set by the sweep itself (use \"seeds\" for seeds)")


def check_values(field, values, distinct=True):
    if not isinstance(values, list) or not values:
        raise BadInput(f"{field}: must be a non-empty list of values")
    if not distinct:
        return
    canonical = [json.dumps(v, sort_keys=True) for v in values]
    if len(set(canonical)) != len(canonical):
        raise BadInput(f"{field}: lists the same value twice")


def read_input_file(path, limit, what):
    """The text of `path`, a regular file of at most `limit` bytes. A FIFO, a device (such as
    /dev/zero) or a folder is refused at once (opened without blocking, then checked), never
    read forever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            kind = ("a directory" if stat.S_ISDIR(info.st_mode) else
                    "a FIFO" if stat.S_ISFIFO(info.st_mode) else
                    "a character device" if stat.S_ISCHR(info.st_mode) else
                    "a block device" if stat.S_ISBLK(info.st_mode) else "a special file")
            raise BadInput(f"{path}: is {kind}, not a {what}")
        data = f.read(limit + 1)
        if info.st_size > limit or len(data) > limit:
            raise BadInput(f"{path}: is larger than {limit >> 20} MiB; a {what} is read up to "
                           f"{limit >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not UTF-8 text (byte {e.start})")


def load_sweep(sweep_file):
    """Reads and checks a sweep file; returns it with the scenario path made absolute."""
    try:
        sweep = json.loads(read_input_file(sweep_file, SWEEP_FILE_LIMIT, "sweep file"))
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
            # One path of a zip group may repeat a value (start_round 1 for several shares);
            # the group's tuples must differ.
            check_path(f"zip.{i}.{path}", path)
            check_values(f"zip.{i}.{path}", values, distinct=False)
            lengths.add(len(values))
        if len(lengths) != 1:
            raise BadInput(f"zip.{i}: its lists must have the same length (got "
                           f"{', '.join(str(len(v)) for v in group.values())})")
        paths = list(group)
        tuples = list(zip(*(group[p] for p in paths)))
        check_values(f"zip.{i}", [list(t) for t in tuples])
        axes.append((paths, tuples))

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
