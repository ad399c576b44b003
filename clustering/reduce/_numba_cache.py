"""Compile UMAP's numba kernels once per machine, not once per process.

umap-learn and pynndescent decorate most of their numba functions without ``cache=True``,
so every new process compiles them again: about 8 s of a 10 s ``memmaint run`` on a
100-memory pool on 2 cores. :func:`ensure_umap_cache` turns numba's on-disk cache on for
every such function (``Dispatcher.enable_caching()``, numba's own mechanism; the compiled
code and results are the same) in the user's cache folder, so the second process loads them.

The folder is ``$MEMMAINT_CACHE_DIR/numba``, else ``$XDG_CACHE_HOME/memmaint/numba``, else
``~/.cache/memmaint/numba``. Numba keys each entry by the function's source file and its
modification time and by the CPU, so upgrading umap-learn or moving to another machine
recompiles by itself. The first run on a machine logs that it is compiling and, once done,
how long it took (a marker file per umap-learn version remembers that it happened).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)

_PACKAGES = ("umap", "pynndescent")
_enabled: bool | None = None  # None: not tried yet in this process


def cache_dir() -> Path:
    """Where the compiled kernels are kept (see the module docstring)."""
    base = os.environ.get("MEMMAINT_CACHE_DIR")
    if base:
        return Path(base) / "numba"
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "memmaint" / "numba"


def _marker(folder: Path) -> Path:
    try:
        from importlib.metadata import version

        tag = f"umap-{version('umap-learn')}-pynndescent-{version('pynndescent')}"
    except Exception:  # noqa: BLE001 - a missing version only costs a log line
        tag = "umap"
    return folder / f"{tag}.compiled"


class CompileNotice:
    """Logs the first compilation on a machine and records that it happened (a marker file):
    ``what`` names the kernels, ``expected`` how long the first compile takes."""

    def __init__(self, marker: Path | None, what: str = "UMAP's numba kernels",
                 expected: str = "about 10-30 s on 2 cores") -> None:
        self.marker = marker
        self.what = what
        self.start = time.perf_counter()
        self.first = marker is not None and not marker.exists()
        if marker is not None and self.first:
            log.warning("compiling %s for this machine (once; %s); later runs load them "
                        "from %s", what, expected, marker.parent)

    def done(self) -> None:
        if not self.first or self.marker is None:
            return
        log.warning("compiled %s in %.1f s (cached in %s)", self.what,
                    time.perf_counter() - self.start, self.marker.parent)
        try:
            self.marker.touch()
        except OSError:
            pass
        self.first = False


def ensure_umap_cache() -> CompileNotice:
    """Import umap-learn with numba's on-disk cache enabled for its kernels (idempotent).

    Returns a :class:`CompileNotice`; call ``done()`` after the first fit so the first
    compilation on the machine is timed and remembered. If the cache folder cannot be
    written, umap runs as before (compiling in each process) and the reason is logged once.
    """
    global _enabled
    folder = cache_dir()
    if _enabled is None:
        _enabled = _enable(folder)
    return CompileNotice(_marker(folder) if _enabled else None)


def _enable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        import numba

        if not os.environ.get("NUMBA_CACHE_DIR"):
            numba.config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
        import umap  # noqa: F401 - imports its numba modules
        from numba.core.registry import CPUDispatcher

        enabled = 0
        for name, module in list(sys.modules.items()):
            if module is None or name.split(".")[0] not in _PACKAGES:
                continue
            for value in list(vars(module).values()):
                if isinstance(value, CPUDispatcher) and \
                        type(getattr(value, "_cache", None)).__name__ == "NullCache":
                    value.enable_caching()
                    enabled += 1
        log.debug("numba cache on for %d umap/pynndescent kernels in %s", enabled, folder)
        return True
    except Exception as exc:  # noqa: BLE001 - the cache is an optimisation only
        log.info("numba cache for umap not available (%s); compiling in this process", exc)
        return False
