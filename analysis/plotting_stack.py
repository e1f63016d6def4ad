"""The analysis scripts' third-party Python stack: Debian's python3-matplotlib, python3-pandas
and python3-numpy. `sh .ci/deps` installs it; the quickstart does not (its plot needs the
standard library alone). A script calls require() before importing any of it, so that without
it the script exits 2 naming the missing package and the command, not with Python's
ImportError."""

import importlib
import os
import sys

STACK = ("matplotlib", "pandas", "numpy")


def require(*names):
    """Imports `names` (default: the whole stack); exits 2 naming the first one missing."""
    for name in names or STACK:
        try:
            importlib.import_module(name)
        except ImportError as e:
            print(f"{os.path.basename(sys.argv[0])}: {e.name or name} is not installed: "
                  "`sh .ci/deps` installs Python's plotting stack (Debian's python3-matplotlib, "
                  "python3-pandas, python3-numpy)", file=sys.stderr)
            sys.exit(2)
