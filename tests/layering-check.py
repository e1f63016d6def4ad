#!/usr/bin/python3
"""Fails when a library includes a header of a library above it, or of no library it may use.

Each folder below is one library (docs/architecture.md draws the graph); a file belongs to the
longest folder that contains it. Only quoted includes of the project's own headers are read.
Also fails when anything outside compression/ (and its white-box tests and benchmarks)
includes the compression library's private headers, or when an ns-3-free library includes an
ns-3 header.

    /usr/bin/python3 tests/layering-check.py [SOURCE_DIR]
    /usr/bin/python3 tests/layering-check.py --self-test
"""

import pathlib
import re
import sys

import source_check

# library -> the libraries it may include (besides itself)
ALLOWED = {
    "compression": set(),
    "models/link-config": set(),
    "models/learning": {"compression"},
    "models/fl": {"models/learning", "compression"},
    "models/link-config": set(),
    "models/flow": set(),
    "models/trace": {"models/fl", "models/learning", "compression"},
    "models/ns3": {"models/flow", "models/link-config", "models/trace", "models/fl",
                   "models/learning", "compression"},
    "simulator/scenario": {"models/link-config", "models/fl", "models/learning", "compression"},
    "simulator/core": {"simulator/scenario", "models/trace", "models/link-config", "models/fl",
                       "models/learning", "compression"},
    "simulator": {"simulator/core", "simulator/scenario", "models/ns3", "models/trace",
                  "models/flow", "models/link-config", "models/fl", "models/learning",
                  "compression"},
}
NS3_FREE = {"compression", "models/learning", "models/fl", "models/link-config", "models/flow",
            "models/trace", "simulator/scenario", "simulator/core"}
# White-box code that may include compression's private headers.
COMPRESSION_INTERNALS_OK = ("compression/", "tests/compression/", "tests/extension/", "bench/")
PRIVATE_COMPRESSION = re.compile(r"^compression/(internal|codecs|kernels)/")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def library_of(path: str):
    best = None
    for lib in ALLOWED:
        if path.startswith(lib + "/") and (best is None or len(lib) > len(best)):
            best = lib
    return best


def check(root: pathlib.Path):
    problems = []
    sources = [p for ext in ("*.h", "*.cc", "*.cc.in") for p in root.rglob(ext)]
    for path in sorted(sources):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("build", ".git")):
            continue
        lib = library_of(rel)
        if lib is None and rel.startswith(("compression/", "models/", "simulator/")):
            problems.append(f"{rel}: in no library this check knows; add its folder to ALLOWED")
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, target = m.groups()
            where = f"{rel}:{number}"
            if kind == "<":
                if lib in NS3_FREE and target.startswith("ns3/"):
                    problems.append(f"{where}: ns-3-free library {lib} includes <{target}>")
                continue
            if PRIVATE_COMPRESSION.match(target) and not rel.startswith(COMPRESSION_INTERNALS_OK):
                problems.append(f"{where}: includes compression's private header {target}")
            if lib is None:
                continue  # tests, benchmarks, examples may use any library
            target_lib = library_of(target)
            if target_lib is None or target_lib == lib:
                continue
            if target_lib not in ALLOWED[lib]:
                problems.append(f"{where}: {lib} includes {target} ({target_lib}), which it "
                                f"may not use")
    return problems, len(sources)


def self_test() -> int:
    """The check finds each kind of problem in a small tree made for it."""
    bad = {
        "models/learning/a.h": '#include "models/ns3/model/b.h"\n',
        "models/fl/c.cc": "#include <ns3/simulator.h>\n",
        "simulator/d.cc": '#include "compression/internal/e.h"\n',
        "models/elsewhere/f.h": "",
        "models/fl/ok.cc": '#include "models/learning/g.h"\n#include "compression/codec.h"\n',
    }
    expected = ["models/learning/a.h:1", "models/fl/c.cc:1", "simulator/d.cc:1",
                "models/elsewhere/f.h"]
    return source_check.self_test(check, bad, expected, lambda p, e: p.startswith(e))


def main() -> int:
    return source_check.main(check, self_test,
                             lambda count, files: f"layering: {count} problem(s) in {files} files")


if __name__ == "__main__":
    sys.exit(main())
