"""A decision part's first run at two commits, scored by this tree's scorer (issue #32).

A held-out part (``datasets/decision_*.py``, committed before any run) gives one honest
figure: its first run. To tell what a session's rules carried over to text nobody read, run
it at the session's start and at the session's commit side by side, before reading it::

    python benchmarks/decisions_side_by_side.py --old 5b1b5ce --part orchard

The old commit is checked out with ``git worktree`` into a temporary folder and imported
through a ``memmaint`` namespace of symlinks on ``PYTHONPATH`` (its ``maintenance``,
``clustering`` and ``optimize``; this tree's ``datasets``, so a part written later exists);
each side runs the default config in its own process (``evaluation.common.maintain``, the
embedding cache shared), and both stores are scored by this tree's
``evaluation.decisions.score_state``, so a scorer row added later counts on both. Prints one
line per side: correct groups, per type, and the error budget's non-zero rows.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_CHILD = """
import pickle, sys
from memmaint.datasets.decisions import make_decision_set
from memmaint.maintenance.core.config import Config
from memmaint.maintenance.evaluation.common import EvalCache, maintain
part, cache, out = sys.argv[1:4]
ds = make_decision_set(part)
with EvalCache(cache) as c:
    done = maintain(ds.memories, Config(), c, now=ds.now)
flagged = int(((done.report.get("primary") or {}).get("flagged") or {}).get("CONFLICT", 0))
pickle.dump((done.memories, flagged), open(out, "wb"))
"""


def _run(part: str, cache: str, out: Path, pythonpath: str | None, cwd: Path) -> None:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    subprocess.run([sys.executable, "-c", _CHILD, part, cache, str(out)], check=True, env=env,
                   cwd=cwd, stderr=subprocess.DEVNULL)


def _line(label: str, part: str, path: Path) -> str:
    from memmaint.datasets.decisions import make_decision_set
    from memmaint.maintenance.evaluation.decisions import score_state

    memories, flagged = pickle.loads(path.read_bytes())
    score = score_state(make_decision_set(part), memories, flagged=flagged).to_dict()
    per = score["per_type"]
    good, total = sum(v["ok"] for v in per.values()), sum(v["groups"] for v in per.values())
    types = " ".join(f"{k[:3]} {v['ok']}/{v['groups']}" for k, v in per.items())
    budget = ", ".join(f"{k} {v['count']}" for k, v in score["budget"].items() if v["count"])
    return f"{label:>12} {part}: {good}/{total} | {types} | {budget}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the commit to compare with (e.g. 5b1b5ce)")
    ap.add_argument("--part", action="append", required=True, help="a decision part (repeat)")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir())
                                          / "memmaint-eval-cache.sqlite"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memmaint-side-") as tmp:
        work, pkg = Path(tmp) / "old", Path(tmp) / "pkg" / "memmaint"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(work),
                        args.old], check=True)
        try:
            pkg.mkdir(parents=True)
            for name in ("maintenance", "clustering", "optimize"):
                (pkg / name).symlink_to(work / name)
            (pkg / "datasets").symlink_to(REPO / "datasets")
            for part in args.part:
                _run(part, args.cache, Path(tmp) / f"old-{part}.pkl", str(pkg.parent), Path(tmp))
                _run(part, args.cache, Path(tmp) / f"new-{part}.pkl", None, REPO)
                print(_line(args.old, part, Path(tmp) / f"old-{part}.pkl"), flush=True)
                print(_line("this tree", part, Path(tmp) / f"new-{part}.pkl"), flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(work)],
                           check=False)


if __name__ == "__main__":
    main()
