"""Shared helpers: result folder, parallel map, Markdown tables, summary statistics."""

from __future__ import annotations

import argparse
import hashlib
import importlib
import math
import os
import pickle
import platform
import re
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


def plain(doc: str) -> str:
    """A module docstring as plain text for ``--help``: reST roles and double backquotes
    become single backquotes, and a literal block's ``::`` a colon."""
    text = re.sub(r":(?:mod|func|class|data|meth):`~?([^`]+)`", r"`\1`", doc)
    return text.replace("``", "`").replace("::\n", ":\n").strip()


def make_parser(command: str, doc: str | None) -> argparse.ArgumentParser:
    """The parser of ``python -m benchmarks COMMAND``: the module docstring as its description
    (line breaks kept, so usage examples stay one per line) and ``--out``."""
    parser = argparse.ArgumentParser(
        prog=f"python -m benchmarks {command}",
        description=plain(doc or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_out_argument(parser)
    return parser


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


def require(module: str, needed_for: str, command: str, extra: str = "benchmarks") -> None:
    """Exit with a one-line message naming the extra if ``module`` cannot be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise SystemExit(
            f"python -m benchmarks {command}: {needed_for} needs the {module!r} package, which "
            f"could not be imported. Install the {extra} extra: pip install -e '.[{extra}]'."
        ) from None


def core_regret(fn: Any, seed: int, options: dict[str, Any], n_trials: int) -> np.ndarray:
    """Normalised simple regret after each trial of the core's ask/tell on one test function.

    ``fn`` is a :class:`benchmarks._testfunctions.TestFunction` or a
    :class:`benchmarks._bbob.BBOBFunction` (both on [-5, 5]^d, minimised).  The recommended
    point is the trial with the best *observed* value; its noiseless regret is divided by the
    median regret of a uniform random point.  Returns shape (n_trials,).
    """
    from optuna_treeucb.core import TreeUCB

    bandit = TreeUCB(fn.dim, seed=seed, direction="minimize", **options)
    best_obs, best_true = np.inf, np.inf
    out = np.empty(n_trials)
    for t in range(n_trials):
        x = bandit.ask_x()
        obs, true = fn.observe(-5.0 + 10.0 * x)
        bandit.tell_x(x, obs)
        if obs < best_obs:
            best_obs, best_true = obs, true
        out[t] = max(best_true, 0.0) / fn.median_random
    return out


def save_runs(path: str, results: list[dict[str, Any]]) -> None:
    """Pickle the raw runs of a command (``--save``)."""
    with open(path, "wb") as fh:
        pickle.dump(results, fh)


def load_runs(paths: str, keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The runs of earlier ``--save`` files (comma-separated ``paths``) that ``keep`` accepts."""
    out: list[dict[str, Any]] = []
    for path in paths.split(","):
        with open(path, "rb") as fh:
            out += [r for r in pickle.load(fh) if keep(r)]
    return out


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


Curve = tuple[Sequence[float] | np.ndarray, Sequence[float] | np.ndarray]


def plot_panels(
    panels: dict[str, dict[str, Curve]],
    path: Path | str,
    *,
    xlabel: str,
    ylabel: str,
    xlog: bool = False,
    marker: str = "",
    sharey: bool = False,
) -> None:
    """One panel per key of ``panels``, one curve ``(x, y)`` per label, log-scale y.

    A label keeps its colour in every panel, so one legend below the panels names them all;
    TreeUCB's curves are solid, the others dashed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(label for curves in panels.values() for label in curves))
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    # two panels a row at 900 px, so the README's width shows 10 pt text at about its size
    cols = min(2, len(panels))
    rows = -(-len(panels) // cols)
    columns = min(3, len(labels))
    legend_rows = -(-len(labels) // columns)
    fig, grid = plt.subplots(
        rows,
        cols,
        figsize=(9, 3.4 * rows + 0.3 * legend_rows + 0.4),
        squeeze=False,
        sharey=sharey,
        layout="constrained",
    )
    axes = list(grid.flat)
    for ax in axes[len(panels) :]:
        ax.remove()
    axes = axes[: len(panels)]
    for ax, (title, curves) in zip(axes, panels.items(), strict=True):
        for label, (x, y) in curves.items():
            style = marker + ("-" if label.lower().startswith("treeucb") else "--")
            color = cmap(labels.index(label) % cmap.N)
            ax.plot(x, y, style, color=color, label=label, lw=1.4)
        ax.set_yscale("log")
        if xlog:
            ax.set_xscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3, which="both")
    for ax in grid[:, 0]:
        ax.set_ylabel(ylabel)
    handles = {h.get_label(): h for ax in axes for h in ax.get_lines()}
    fig.legend(
        [handles[label] for label in labels],
        labels,
        loc="outside lower center",
        ncol=columns,
        fontsize=10,
    )
    fig.savefig(path, dpi=100)
    plt.close(fig)


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
