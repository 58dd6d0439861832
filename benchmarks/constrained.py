"""Constraints: Optuna's samplers on constrained problems with known optima (see `moo`)."""

from __future__ import annotations

from benchmarks.moo import main_constrained as main

__all__ = ["main"]
