"""`python3 -m analysis`: the command line. An interpreter without the analysis's libraries (PATH's
python3 may be a separate build without Debian's packages) gets one line naming what it lacks
and the commands that work, not a traceback."""
import importlib.util
import os
import sys

# What the analysis imports from outside the standard library.
NEEDED = ("numpy", "pandas", "scipy", "matplotlib", "jsonschema")

missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
if missing:
    debian = "/usr/bin/python3"
    other = "" if os.path.realpath(sys.executable) == os.path.realpath(debian) else \
        f", or with an interpreter that has them, such as Debian's: {debian} -m analysis ..."
    print(f"analysis: {sys.executable} cannot import {', '.join(missing)}: run the analysis as "
          f"`./memfbench analyze ...` (it uses the interpreter the build found){other}", file=sys.stderr)
    sys.exit(2)

from .cli import main  # noqa: E402  (after the check: its imports are what may be missing)

sys.exit(main())
