"""A plot axis in a parameter's own units, driven by unit-cube coordinates.

The core maps every parameter onto one [0, 1] column (``optuna_treeucb.core._space``).  This
module maps that column back onto a matplotlib axis so that box edges, points and background
grids drawn in unit coordinates land at the parameter's own values:

* continuous float: linear axis, or a log axis for ``log=True`` (the map is linear in
  ``log(value)``, so it is exact on a log axis);
* int / float with a step: the core cuts [0, 1] into one bin per grid value, with bin edges at
  the midpoints between neighbouring values and linear in the value (or in ``log(value)``), so
  a unit coordinate maps to a value by interpolating between those bin edges: a box edge on a
  bin edge is drawn halfway between two grid values, and a grid value sits at its bin centre;
* categorical: the K equal bins become positions ``0 .. K-1`` with the choices as tick labels
  (the order is the order of the choices, as in the core).

Notations:
    u: unit coordinates, any shape, values in [0, 1].
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING
from typing import Literal

import numpy as np

from optuna_treeucb.core import ParamSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Scale = Literal["linear", "log", "categorical"]


class ParamAxis:
    """Unit coordinate -> plotted coordinate for one parameter.

    Args:
        spec: The parameter.
    """

    def __init__(self, spec: ParamSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.scale: Scale
        self._edges_u: np.ndarray | None = None  # discrete numeric: bin edges in [0, 1]
        self._edges_t: np.ndarray | None = None  # ... and their value (or log value)
        if spec.kind == "categorical":
            self.scale = "categorical"
            assert spec.choices is not None
            self.n_choices = len(spec.choices)
            return
        self.scale = "log" if spec.log else "linear"
        edges = spec.bin_edges
        if edges is not None:
            # grid values at the bin centres, value edges at the midpoints (as in the core)
            k = edges.size - 1
            grid = np.array([float(spec.decode((edges[i] + edges[i + 1]) / 2)) for i in range(k)])
            assert spec.step is not None
            half = float(spec.step) / 2.0
            inner = (grid[:-1] + grid[1:]) / 2
            mids = np.concatenate(([grid[0] - half], inner, [grid[-1] + half]))
            if spec.log and mids[0] <= 0:
                mids[0] = grid[0]
            self._edges_u = edges
            self._edges_t = np.log(mids) if spec.log else mids

    def to_plot(self, u: np.ndarray | float) -> np.ndarray:
        """Plotted coordinates of unit coordinates ``u`` (same shape)."""
        v: np.ndarray = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        if self.scale == "categorical":
            return v * self.n_choices - 0.5
        if self._edges_u is not None and self._edges_t is not None:
            t = np.asarray(np.interp(v, self._edges_u, self._edges_t))
            return np.exp(t) if self.scale == "log" else t
        low, high = float(self.spec.low), float(self.spec.high)  # type: ignore[arg-type]
        if low == high:  # a fixed value: draw a unit-wide band around it
            return low - 0.5 + v
        if self.scale == "log":
            return np.exp(math.log(low) + v * (math.log(high) - math.log(low)))
        return low + v * (high - low)

    def snap(self, u: np.ndarray) -> np.ndarray:
        """Unit coordinates of the values ``u`` decodes to (bin centres on discrete axes).

        A point asked by the model lies anywhere in its bin; the parameter value it stands for
        is the bin's value, which is where the point is drawn (on a categorical axis, on the
        row or column of its choice).
        """
        v = np.asarray(u, dtype=float)
        if self.scale != "categorical" and self._edges_u is None:
            return v
        return np.array([self.spec.encode(self.spec.decode(float(x))) for x in v.ravel()]).reshape(
            v.shape
        )

    @property
    def limits(self) -> tuple[float, float]:
        """Plotted coordinates of the two ends of the axis."""
        lo, hi = self.to_plot(np.array([0.0, 1.0]))
        return float(lo), float(hi)

    def configure(self, ax: Axes, which: Literal["x", "y"]) -> None:
        """Set the scale, limits, ticks and label of ``ax``'s x or y axis."""
        lo, hi = self.limits
        set_scale = ax.set_xscale if which == "x" else ax.set_yscale
        set_lim = ax.set_xlim if which == "x" else ax.set_ylim
        set_label = ax.set_xlabel if which == "x" else ax.set_ylabel
        axis = ax.xaxis if which == "x" else ax.yaxis
        set_scale("log" if self.scale == "log" else "linear")
        set_lim(lo, hi)
        set_label(self.name)
        if self.scale == "categorical":
            assert self.spec.choices is not None
            axis.set_ticks(range(self.n_choices))
            axis.set_ticklabels([str(c) for c in self.spec.choices])
        elif self.spec.kind == "int" and self.scale == "linear":
            from matplotlib.ticker import MaxNLocator

            axis.set_major_locator(MaxNLocator(integer=True))
