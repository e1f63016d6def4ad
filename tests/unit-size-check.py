#!/usr/bin/python3
"""Fails when a unit of the source tree is longer than 600 lines.

A unit is a .cc file with the header of the same name in the same top-level folder (the
compression library keeps private headers in internal/ beside their kernels/ or codecs/), or
a header that has no .cc. One responsibility per unit keeps it readable; a unit that has
grown past the limit is split along its responsibilities (docs/architecture.md, "Style").

    /usr/bin/python3 tests/unit-size-check.py [SOURCE_DIR]
    /usr/bin/python3 tests/unit-size-check.py --self-test
"""

import pathlib
import sys

import source_check

LIMIT = 600
SKIP = ("build", ".git")


def line_count(path: pathlib.Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def check(root: pathlib.Path):
    sources, headers = [], {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or rel.parts[0].startswith(SKIP):
            continue
        key = (rel.parts[0], path.name.rsplit(".", 1)[0])
        if path.suffix == ".cc":
            sources.append((key, rel))
        elif path.suffix == ".h":
            headers.setdefault(key, []).append(rel)
    problems = []
    paired = set()
    for key, rel in sources:
        unit = [rel] + headers.get(key, [])
        paired.update(headers.get(key, []))
        lines = sum(line_count(root / p) for p in unit)
        if lines > LIMIT:
            parts = " + ".join(f"{p.as_posix()} {line_count(root / p)}" for p in unit)
            problems.append(f"{lines} lines > {LIMIT}: {parts}")
    for rels in headers.values():
        for rel in rels:
            if rel not in paired and line_count(root / rel) > LIMIT:
                problems.append(f"{line_count(root / rel)} lines > {LIMIT}: {rel.as_posix()}")
    return problems, len(sources) + sum(len(h) for h in headers.values())


def self_test() -> int:
    """The check counts a .cc with its header, a lone header, and nothing it should not."""
    tree = {
        "models/fl/big.cc": 400, "models/fl/big.h": 201,         # 601: too long
        "compression/kernels/k.cc": 500, "compression/internal/k.h": 101,  # 601 across folders
        "simulator/lone.h": 601,                                   # a header alone
        "models/fl/fine.cc": 300, "models/fl/fine.h": 300,         # 600: at the limit
        "tests/a/t.cc": 400, "tests/b/t.cc": 400,                  # two sources, not a unit
        "build/huge.cc": 5000,                                     # build trees are skipped
    }
    expected = ["models/fl/big.cc 400 + models/fl/big.h 201",
                "compression/kernels/k.cc 500 + compression/internal/k.h 101",
                "simulator/lone.h"]
    return source_check.self_test(check, {name: "x\n" * lines for name, lines in tree.items()},
                                  expected, lambda p, e: p.endswith(e))


def main() -> int:
    return source_check.main(
        check, self_test,
        lambda count, files: f"unit size: {count} unit(s) over {LIMIT} lines in {files} files")


if __name__ == "__main__":
    sys.exit(main())
