"""What the source-tree checks (layering-check.py, unit-size-check.py) share: their command
line (a source folder, or --self-test) and a self-test that runs the check on a small tree
made for it and compares the problems it reports with those expected."""

import pathlib
import sys
import tempfile


def self_test(check, tree, expected, matches) -> int:
    """Writes `tree` (relative path -> text) to a temporary folder, runs `check` on it and
    fails unless every expected problem is reported (matches(problem, e)) and nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in tree.items():
            path = pathlib.Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        problems, _ = check(pathlib.Path(tmp))
    missing = [e for e in expected if not any(matches(p, e) for p in problems)]
    extra = [p for p in problems if not any(matches(p, e) for e in expected)]
    print("\n".join(problems))
    print(f"self-test: missing {missing}, unexpected {extra}")
    return 1 if missing or extra else 0


def main(check, self_test_fn, summary) -> int:
    """`check` SOURCE_DIR (default .): prints each problem and summary(count, files)."""
    if sys.argv[1:] == ["--self-test"]:
        return self_test_fn()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems, files = check(root)
    for problem in problems:
        print(problem)
    print(summary(len(problems), files))
    return 1 if problems else 0
