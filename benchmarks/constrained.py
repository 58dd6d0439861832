"""``python -m benchmarks constrained``: see :mod:`benchmarks.moo`."""

from __future__ import annotations

from benchmarks.moo import main_constrained as main

__all__ = ["main"]
