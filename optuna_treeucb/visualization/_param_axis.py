"""A plot axis in a parameter's own units, driven by unit-cube coordinates.

The core maps every parameter onto one [0, 1] column (``optuna_treeucb.core._space``).  This
module maps that column back onto a matplotlib axis so that box edges, points and background
grids drawn in unit coordinates land at the parameter's own values:

* continuous float: linear axis, or a log axis for ``log=True`` (the map is linear in
  ``log(value)``, so it is exact on a log axis);
* int / float with a step: the core cuts [0, 1] into one bin per grid value, with bin edges at
  the midpoints between neighbouring values and linear in the value (or in ``log(value)``), so
  the core's ``ParamSpec.axis_value`` maps a unit coordinate linearly onto the value axis
  between the outer bin edges: a box edge on a bin edge is drawn halfway between two grid
  values, and a grid value sits in its bin (at its centre on a linear grid);
* categorical: the K equal bins become positions ``0 .. K-1`` with the choices as tick labels
  (the order is the order of the choices, as in the core).

Notations:
    u: unit coordinates, any shape, values in [0, 1].
"""

from __future__ import annotations

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
        if spec.kind == "categorical":
            self.scale = "categorical"
            assert spec.choices is not None
            self.n_choices = len(spec.choices)
            return
        self.scale = "log" if spec.log else "linear"

    def to_plot(self, u: np.ndarray | float) -> np.ndarray:
        """Plotted coordinates of unit coordinates ``u`` (same shape)."""
        v: np.ndarray = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        if self.scale == "categorical":
            return v * self.n_choices - 0.5
        if not self.spec.is_discrete and self.spec.low == self.spec.high:
            # a fixed value: draw a unit-wide band around it
            return float(self.spec.low) - 0.5 + v  # type: ignore[arg-type]
        return self.spec.axis_value(v)

    def value_position(self, u: np.ndarray) -> np.ndarray:
        """Plotted coordinates of the values unit coordinates ``u`` decode to.

        A point asked by the model lies anywhere in its bin; the parameter value it stands for
        is the bin's value, which is where the point is drawn: on a discrete axis the decoded
        value itself (the row of a category, the grid value of an int), not its bin centre
        mapped back through the axis, which rounding can move off the value.
        """
        v = np.asarray(u, dtype=float)
        if not self.spec.is_discrete:
            return self.to_plot(v)
        if self.scale == "categorical":
            assert self.spec.choices is not None
            index = self.spec.choices.index
            return np.array([float(index(self.spec.decode(float(x)))) for x in v.ravel()])
        return np.array([float(self.spec.decode(float(x))) for x in v.ravel()]).reshape(v.shape)

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
