"""Lazy import of matplotlib (an optional dependency, extra ``plot``)."""

from __future__ import annotations

from types import ModuleType


def import_pyplot() -> ModuleType:
    """Return ``matplotlib.pyplot``.

    Raises:
        ImportError: If matplotlib is not installed, with the command that installs it.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(
            "optuna_treeucb.visualization needs matplotlib, which is not installed. "
            "Install it with `pip install matplotlib` (or `pip install optuna-treeucb[plot]`)."
        ) from e
    return plt
