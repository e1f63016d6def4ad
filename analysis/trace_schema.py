#!/usr/bin/python3
"""The column table of the CSV traces a fedran run writes (rounds.csv, clients.csv, ...).

Usage: /usr/bin/python3 analysis/trace_schema.py              (prints the table as JSON)
       /usr/bin/python3 analysis/trace_schema.py --check FILE...

The table is models/trace/trace-columns.cc: JSON between the markers R"trace-columns( and
)trace-columns", compiled into fedran, whose writers take their headers from it. This module
reads the same text, so the analysis scripts name the columns they need and check them here
(a column the table does not have is an error naming the file and the column) instead of
restating the lists. --check reads trace files and checks that each header is the table's,
in order, and that every cell fits its column (type, empty or not); exit status 1 otherwise.
Standard library only.
"""
import csv
import functools
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE_PATH = ROOT / "models" / "trace" / "trace-columns.cc"
TABLE_NAME = "models/trace/trace-columns.cc"
BEGIN = 'R"trace-columns('
END = ')trace-columns"'
TYPES = ("int", "float", "string", "bool")


class TraceSchemaError(Exception):
    """A name the table does not have, or a trace that does not match it."""


@functools.lru_cache(maxsize=None)
def table():
    """The parsed table: {"files": [{"file", "description", "writer", "columns": [...]}]}."""
    text = TABLE_PATH.read_text(encoding="utf-8")
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise TraceSchemaError(f"{TABLE_NAME}: markers {BEGIN} ... {END} not found")
    data = json.loads(text[begin + len(BEGIN):end])
    for entry in data["files"]:
        for column in entry["columns"]:
            if column["type"] not in TYPES:
                raise TraceSchemaError(f"{TABLE_NAME}: {entry['file']} {column['name']}: "
                                       f"unknown type {column['type']!r}")
    return data


def files():
    """The trace files' names, in the table's order."""
    return [entry["file"] for entry in table()["files"]]


def is_trace(name):
    return name in files()


def entry(name):
    for item in table()["files"]:
        if item["file"] == name:
            return item
    raise TraceSchemaError(f"{name}: not a trace file of the table ({TABLE_NAME}); "
                           f"it lists {', '.join(files())}")


def _pattern(column):
    """A regular expression matching the column's name(s): label_{i} matches label_0, ..."""
    if "repeat" not in column:
        return re.escape(column["name"])
    return re.escape(column["name"]).replace(re.escape("{i}"), r"(0|[1-9][0-9]*)")


def column(name, column_name):
    """The table's entry for column `column_name` of file `name` (a repeated column matches
    each of its expanded names)."""
    for item in entry(name)["columns"]:
        if re.fullmatch(_pattern(item), column_name):
            return item
    raise TraceSchemaError(f"{name}: no column {column_name!r} in the trace table "
                           f"({TABLE_NAME})")


def require(name, needed):
    """`needed` as a list, after checking that each is a column of `name` in the table."""
    needed = list(needed)
    for column_name in needed:
        column(name, column_name)
    return needed


def missing_columns(path, columns, required):
    """The message for a file at `path` whose header `columns` lacks any of `required`, or
    None. For a run's trace (named as fedran names it: rounds.csv, clients.csv, ...) each
    required column must also be one of the table's."""
    name = os.path.basename(path)
    if is_trace(name):
        try:
            require(name, required)
        except TraceSchemaError as e:
            return f"{path}: {e}"
    missing = [c for c in required if c not in columns]
    return f"{path}: missing column(s) {', '.join(missing)}" if missing else None


def header(name, counts=None):
    """The file's header as the writer makes it; counts gives each repeated column's count
    ({"classes": 10} for partition.csv's label_{i})."""
    names = []
    for item in entry(name)["columns"]:
        if "repeat" not in item:
            names.append(item["name"])
            continue
        key = item["repeat"]["count"]
        if not counts or key not in counts:
            raise TraceSchemaError(f"{name}: column {item['name']} needs the count {key!r}")
        names += [item["name"].replace("{i}", str(i)) for i in range(counts[key])]
    return names


def header_problems(name, found):
    """What is wrong with header `found` of trace file `name` (empty if it is the table's)."""
    fixed = [c for c in entry(name)["columns"] if "repeat" not in c]
    repeated = [c for c in entry(name)["columns"] if "repeat" in c]
    counts = {}
    for item in repeated:  # as many as the file has (partition.csv: the dataset's classes)
        counts[item["repeat"]["count"]] = sum(
            1 for f in found if re.fullmatch(_pattern(item), f))
    expected = header(name, counts) if repeated else [c["name"] for c in fixed]
    optional = {c["name"] for c in fixed if c.get("optional")}
    if list(found) in (expected, [c for c in expected if c not in optional]):
        return []  # a column marked optional is there only under its setting
    missing = [c for c in expected if c not in found]
    extra = [c for c in found if c not in expected]
    problems = [f"missing column(s) {', '.join(missing)}"] if missing else []
    if extra:
        problems.append(f"column(s) not in the trace table: {', '.join(extra)}")
    if not problems:
        problems.append(f"columns out of order: {','.join(found)} (the table's: "
                        f"{','.join(expected)})")
    return problems


def cell_fits(item, text):
    """Whether a cell's text is a valid value of the column."""
    if text == "":
        return bool(item.get("empty"))
    if "values" in item and text not in item["values"]:
        return False
    kind = item["type"]
    if kind == "int":
        return text.isascii() and text.isdigit()
    if kind == "bool":
        return text in ("0", "1")
    if kind == "float":
        try:
            float(text)
        except ValueError:
            return False
        return True
    return True


def check_file(path):
    """Problems of one trace file (named as the run names it), each a line of text."""
    name = os.path.basename(path)
    try:
        entry(name)
    except TraceSchemaError as e:
        return [str(e)]
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return [f"{path}: empty (no header)"]
    problems = [f"{path}: {p}" for p in header_problems(name, rows[0])]
    if problems:
        return problems
    columns = [column(name, c) for c in rows[0]]
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(columns):
            problems.append(f"{path}:{line}: {len(row)} cells, the header has {len(columns)}")
            continue
        for item, title, text in zip(columns, rows[0], row):
            if not cell_fits(item, text):
                problems.append(f"{path}:{line}: {title} {text!r} is not a valid "
                                f"{item['type']}{' or empty' if item.get('empty') else ''}")
    return problems


def main(argv):
    args = argv[1:]
    if not args:
        json.dump(table(), sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    if args[0] != "--check" or len(args) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    problems = [p for path in args[1:] for p in check_file(path)]
    for problem in problems:
        print(f"trace_schema: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
