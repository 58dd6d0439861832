"""Shared helpers: result folder, parallel map, Markdown tables, summary statistics."""

from __future__ import annotations

import argparse
import hashlib
import importlib
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"  # the committed results
SCRATCH = Path(tempfile.gettempdir()) / "treeucb-benchmarks"
RESULTS_ENV = "TREEUCB_BENCHMARK_RESULTS"  # overrides SCRATCH as the default of --out


def add_out_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--out DIR``: where the result files go (a scratch folder unless given)."""
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"folder of the result files (default: ${RESULTS_ENV} or {SCRATCH}); "
        "pass benchmarks/results to update the committed results",
    )


def results_dir(out: Path | str | None = None) -> Path:
    """``out``, else ``$TREEUCB_BENCHMARK_RESULTS``, else the scratch folder (created)."""
    folder = Path(out or os.environ.get(RESULTS_ENV) or SCRATCH)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_result(out: Path | str | None, name: str, text: str) -> Path:
    """Write ``text`` to ``<results_dir(out)>/<name>.md``, print it and say where it went."""
    path = results_dir(out) / f"{name}.md"
    path.write_text(text)
    print(text)
    print(f"wrote {path}", flush=True)
    return path


def command_line(command: str, argv: Sequence[str] | None) -> str:
    """The exact command of a run, ``argv`` (``sys.argv[1:]`` if ``None``) shell-quoted."""
    args = sys.argv[1:] if argv is None else list(argv)
    return shlex.join(["python", "-m", "benchmarks", command, *args])


def require(module: str, needed_for: str, command: str) -> None:
    """Exit with a one-line message naming the extra if ``module`` cannot be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise SystemExit(
            f"python -m benchmarks {command}: {needed_for} needs the {module!r} package, which "
            "could not be imported. Install the benchmarks extra: "
            "pip install -e '.[benchmarks]'."
        ) from None


def pmap(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int) -> list[Any]:
    """``[fn(x) for x in items]``, in ``jobs`` processes when ``jobs > 1`` (order kept)."""
    out: list[Any] = []
    step = max(1, len(items) // 10)
    t0 = time.time()

    def tick() -> None:
        if len(out) % step == 0 or len(out) == len(items):
            print(f"  {len(out)}/{len(items)} runs, {time.time() - t0:.0f} s", flush=True)

    if jobs <= 1:
        for x in items:
            out.append(fn(x))
            tick()
        return out
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        for r in ex.map(fn, items, chunksize=1):
            out.append(r)
            tick()
    return out


def geomean(values: Iterable[float], floor: float = 1e-12) -> float:
    """Geometric mean of positive values (each floored at ``floor``)."""
    arr = np.maximum(np.asarray(list(values), dtype=float), floor)
    return float(np.exp(np.mean(np.log(arr))))


def fmt(v: float, digits: int = 3) -> str:
    """A compact number: fixed for moderate magnitudes, scientific otherwise."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a != 0 and (a < 10 ** -(digits - 1) or a >= 10**5):
        return f"{v:.{digits - 1}e}"
    return f"{v:.{digits}g}" if a >= 1 else f"{v:.{digits}f}"


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [c if isinstance(c, str) else fmt(float(c)) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def core_version() -> str:
    """The commit of the repository and a hash of the core's sources as they were imported.

    The core may change while a benchmark runs; this names the version measured.  Call it
    (and import the core) in the parent process before forking workers, so that every worker
    runs the same code.
    """
    import optuna_treeucb.core as core

    root = Path(core.__file__).resolve().parents[2]
    digest = hashlib.sha1()
    for path in sorted(Path(core.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "optuna_treeucb"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head, dirty = "unknown", ""
    note = " + uncommitted changes" if dirty else ""
    return f"commit {head}{note}, core sha1 {digest.hexdigest()[:10]}"


_CORE_VERSION = ""


def stamp_core() -> str:
    """Import the core now and remember its version (see :func:`core_version`)."""
    global _CORE_VERSION
    _CORE_VERSION = core_version()
    return _CORE_VERSION


def machine_note(mode: str, started: float) -> str:
    """One line naming the mode, the code measured, the machine and the wall time of a run."""
    return (
        f"_Mode: {mode}; {_CORE_VERSION or core_version()}; {os.cpu_count()} CPUs (shared), "
        f"Python {platform.python_version()}, numpy {np.__version__}; "
        f"wall time {time.time() - started:.0f} s._\n"
    )
