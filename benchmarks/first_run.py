"""A newcomer's first runs, measured from fresh processes (issue #16).

Prints, for the venv that runs ``memmaint`` (``--venv``, default: this interpreter's):
its size on disk and whether ``torch`` is importable in it; then, for a pool of 100
memories and one of ``--large`` memories (default 10,000), the wall time of the first
``memmaint run`` on a machine (an empty numba cache folder, so UMAP's kernels compile) and
of the second (a new process; kernels loaded from the cache), each a separate process with
the default configuration (MiniLM int8, UMAP 2-D, HDBSCAN, rule agents; ``--dry-run
--force``, so both runs do the same work).

    python -m venv /tmp/default && /tmp/default/bin/pip install -c constraints.txt -e .
    python benchmarks/first_run.py --venv /tmp/default

Wall times only mean something on a quiet machine (run it alone).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, check=False, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr[-2000:]}")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=Path(sys.prefix))
    ap.add_argument("--large", type=int, default=10_000)
    args = ap.parse_args()
    venv = args.venv.resolve()
    memmaint = venv / "bin" / "memmaint"
    python = venv / "bin" / "python"
    probe = ("import importlib.util, sys; "
             "sys.exit(0 if importlib.util.find_spec('torch') else 1)")
    has_torch = subprocess.run([str(python), "-c", probe], check=False).returncode == 0
    print(f"venv {venv}: {folder_size(venv) / 2**20:.0f} MiB, torch "
          f"{'PRESENT' if has_torch else 'absent'}")
    print(f"{'pool':>8} {'first run (s)':>14} {'second run (s)':>15}")
    with tempfile.TemporaryDirectory(prefix="memmaint-first-run-") as tmp:
        work = Path(tmp)
        for size in (100, args.large):
            env = dict(os.environ, MEMMAINT_CACHE_DIR=str(work / f"cache-{size}"))
            env.pop("NUMBA_CACHE_DIR", None)
            pool, db = work / f"pool{size}.jsonl", work / f"pool{size}.db"
            classes = min(400, max(2, size // 5))  # the mtg vocabulary holds ~446 subjects
            run([str(memmaint), "datasets", "make", "--kind", "mtg", "--classes",
                 str(classes), "--per-class", str(max(1, size // classes)), "--seed", "1",
                 "-o", str(pool)], env, work)
            run([str(memmaint), "-q", "init", "--db", str(db)], env, work)
            run([str(memmaint), "-q", "import", str(pool), "--db", str(db)], env, work)
            run([str(memmaint), "-q", "embed", "--db", str(db)], env, work)  # not timed
            cmd = [str(memmaint), "-q", "run", "--db", str(db), "--dry-run", "--force"]
            first = run(cmd, env, work)
            second = run(cmd, env, work)
            print(f"{size:>8} {first:>14.1f} {second:>15.1f}")
            shutil.rmtree(work / f"cache-{size}", ignore_errors=True)


if __name__ == "__main__":
    main()
