"""The footer of the paper's figures: the commit they were drawn at and TreeUCB's options."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROOT = Path(__file__).resolve().parents[1]


def commit() -> str:
    """The short commit of this checkout, ``+ changes`` when the code differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "optuna_treeucb", "examples")
    return f"{head} + changes" if dirty else head


def options_text(options: Mapping[str, Any]) -> str:
    """``TreeUCB(rule='refit', ...)`` for the options a figure passes."""
    return "TreeUCB(" + ", ".join(f"{k}={v!r}" for k, v in options.items()) + ")"


def add_footer(fig: Figure, *lines: str) -> None:
    """Write ``commit <hash>`` and ``lines`` (e.g. the options) under the figure."""
    text = "  |  ".join([f"commit {commit()}", *lines])
    fig.supxlabel(text, fontsize=7, color="0.35")  # a constrained layout keeps room for it
