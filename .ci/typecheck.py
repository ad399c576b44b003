"""mypy on the real ``memmaint.*`` namespace (issue #31 item 3).

The folders ``maintenance/``, ``clustering/``, ``optimize/`` and ``datasets/`` install as
``memmaint.maintenance`` ... through ``[tool.setuptools.package-dir]``, a mapping mypy cannot
read: checked as top-level folders, every ``from memmaint.x import y`` is an unresolved import
that ``ignore_missing_imports`` silences, so calls across packages go unchecked. This script
lays the folders out as the installed package (links in ``build/typecheck/memmaint/``) and runs
``mypy -p memmaint`` there with the project's settings; extra arguments go to mypy.

Usage: ``python .ci/typecheck.py`` (exit status: mypy's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("maintenance", "clustering", "optimize", "datasets")


def lay_out(target: Path) -> None:
    """``target/memmaint/<package>`` for every package: a link to the folder, or a copy where
    the file system refuses links."""
    shutil.rmtree(target, ignore_errors=True)
    (target / "memmaint").mkdir(parents=True)
    for name in PACKAGES:
        link = target / "memmaint" / name
        try:
            link.symlink_to(ROOT / name, target_is_directory=True)
        except OSError:
            shutil.copytree(ROOT / name, link)


def main(argv: list[str]) -> int:
    target = ROOT / "build" / "typecheck"
    lay_out(target)
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
           "-p", "memmaint", *argv]
    return subprocess.call(cmd, cwd=target, env={**os.environ, "MYPYPATH": str(target)})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
