"""Map a mixed search space onto the unit cube [0, 1]^d and back.

Every parameter owns one column of the cube.

* Continuous floats map linearly (or linearly in ``log``) onto [0, 1].
* Discrete numbers (ints, floats with a ``step``) are a finite grid of values
  ``v_0 < ... < v_{K-1}``.  The coordinate axis is cut into K bins whose edges are
  the (log-)midpoints between neighbouring grid values, so that uniform sampling of
  the coordinate reproduces uniform (or log-uniform) sampling of the value, and every
  grid value of a linear grid gets exactly mass 1/K.  A value encodes to the centre of
  its bin; a coordinate decodes to the value whose bin contains it.
* Categoricals use K equal bins in the order the choices were given (this imposes an
  order on the choices, which the tree may exploit or split around).  Decoding returns
  the very object that was given.

Notations:
    d: number of parameters (columns of the cube).
    x: one point, shape (d,), values in [0, 1].
    X: points, shape (n, d), values in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal

import numpy as np

Kind = Literal["float", "int", "categorical"]
_KINDS = ("float", "int", "categorical")


def _same(a: Any, b: Any) -> bool:
    """Equality that tells ``True`` from ``1`` and ``1.0`` from ``1`` and matches NaN."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects with exotic __eq__ (arrays, ...)
        return False


@dataclass(frozen=True, eq=False)
class ParamSpec:
    """One parameter of a search space.

    Args:
        name:
            Parameter name, unique within a space.
        kind:
            ``"float"``, ``"int"`` or ``"categorical"``.
        low:
            Lower bound (inclusive) of a numeric parameter.
        high:
            Upper bound (inclusive) of a numeric parameter.
        log:
            Sample on a log scale (requires ``low > 0``).
        step:
            Grid spacing of a discrete numeric parameter: values are ``low + k * step``
            up to ``high``.  Ints default to 1; ``None`` makes a float continuous.
        choices:
            The values of a categorical parameter (any objects, in a fixed order).

    Raises:
        ValueError: If the description is not a legal parameter.
    """

    name: str
    kind: Kind
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[Any, ...] | None = None
    _grid: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    _edges: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = f"ParamSpec {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(
                f"The 'name' of a ParamSpec must be a non-empty str. Got {self.name!r}."
            )
        if self.kind not in _KINDS:
            raise ValueError(
                f"The 'kind' of {owner} must be one of {_KINDS}. Got {self.kind!r} instead."
            )
        if self.kind == "categorical":
            if self.choices is None:
                raise ValueError(f"{owner} is categorical and needs 'choices'.")
            choices = tuple(self.choices)
            if len(choices) == 0:
                raise ValueError(f"The 'choices' of {owner} must not be empty. Got ().")
            for name in ("low", "high", "step"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{owner} is categorical; '{name}' must be None.")
            if self.log:
                raise ValueError(f"{owner} is categorical; 'log' must be False.")
            object.__setattr__(self, "choices", choices)
            return
        if self.choices is not None:
            raise ValueError(f"{owner} is numeric ({self.kind}); 'choices' must be None.")
        for name in ("low", "high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise TypeError(f"The '{name}' of {owner} must be a number. Got {value!r}.")
            if not math.isfinite(float(value)):
                raise ValueError(f"The '{name}' of {owner} must be finite. Got {value!r}.")
        low, high = float(self.low), float(self.high)  # type: ignore[arg-type]
        if low > high:
            raise ValueError(
                f"{owner} needs low <= high. Got low={self.low!r}, high={self.high!r}."
            )
        if self.log and low <= 0:
            raise ValueError(f"{owner} has log=True and needs low > 0. Got low={self.low!r}.")
        step = self.step
        if self.kind == "int":
            if step is None:
                step = 1
            if float(low) != int(low) or float(high) != int(high):
                raise ValueError(
                    f"{owner} is an int parameter; low and high must be whole numbers. "
                    f"Got low={self.low!r}, high={self.high!r}."
                )
            if isinstance(step, bool) or float(step) != int(step):
                raise ValueError(
                    f"The 'step' of int {owner} must be a whole number. Got {self.step!r}."
                )
            object.__setattr__(self, "low", int(low))
            object.__setattr__(self, "high", int(high))
            step = int(step)
        else:
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)
        if step is not None:
            if isinstance(step, bool) or not math.isfinite(float(step)) or float(step) <= 0:
                raise ValueError(f"The 'step' of {owner} must be a number > 0. Got {step!r}.")
            object.__setattr__(self, "step", step)
            k = (high - low) / float(step)
            n = int(round(k))
            if abs(k - n) > 1e-8 * max(1.0, abs(k)):
                raise ValueError(
                    f"{owner} needs (high - low) to be a multiple of step. Got low={self.low!r}, "
                    f"high={self.high!r}, step={step!r}."
                )
            self._build_grid(n + 1)

    def _build_grid(self, k: int) -> None:
        assert self.step is not None and self.low is not None and self.high is not None
        grid = self.low + self.step * np.arange(k, dtype=float)
        grid[-1] = self.high
        half = self.step / 2.0
        mids = np.concatenate(([grid[0] - half], (grid[:-1] + grid[1:]) / 2.0, [grid[-1] + half]))
        if self.log:
            if mids[0] <= 0:  # first value keeps only its upper half on the log axis
                mids[0] = grid[0]
            t = np.log(mids)
        else:
            t = mids
        edges = (t - t[0]) / (t[-1] - t[0])
        edges[0], edges[-1] = 0.0, 1.0
        object.__setattr__(self, "_grid", grid)
        object.__setattr__(self, "_edges", edges)

    @property
    def _log_axis(self) -> bool:
        # bounds a few ulps apart can have equal logarithms: then the linear axis is used
        assert self.low is not None and self.high is not None
        return self.log and math.log(self.high) > math.log(self.low)

    @property
    def is_discrete(self) -> bool:
        """Whether the parameter takes finitely many values."""
        return self.kind == "categorical" or self._grid is not None

    @property
    def n_values(self) -> int | None:
        """Number of values of a discrete parameter, ``None`` for a continuous one."""
        if self.kind == "categorical":
            assert self.choices is not None
            return len(self.choices)
        return None if self._grid is None else len(self._grid)

    @property
    def bin_edges(self) -> np.ndarray | None:
        """Bin edges on [0, 1] of a discrete parameter, shape (K + 1,); ``None`` if continuous."""
        if self.kind == "categorical":
            assert self.choices is not None
            return np.linspace(0.0, 1.0, len(self.choices) + 1)
        return None if self._edges is None else self._edges.copy()

    # -- value <-> coordinate -------------------------------------------------------------
    def index_of(self, value: Any) -> int:
        """Index of a legal value among the grid values or choices.

        Raises:
            ValueError: If ``value`` is not a legal value of this parameter.
        """
        if self.kind == "categorical":
            assert self.choices is not None
            for i, c in enumerate(self.choices):
                if c is value:
                    return i
            for i, c in enumerate(self.choices):
                if _same(c, value):
                    return i
            raise ValueError(
                f"Parameter {self.name!r} got {value!r}, which is not one of its choices "
                f"{list(self.choices)!r}."
            )
        v = self._check_number(value)
        assert self._grid is not None and self.step is not None and self.low is not None
        i = int(round((v - self.low) / self.step))
        if (
            i < 0
            or i >= len(self._grid)
            or not math.isclose(self._grid[i], v, rel_tol=1e-9, abs_tol=1e-9 * self.step)
        ):
            raise ValueError(
                f"Parameter {self.name!r} got {value!r}, which is not on its grid "
                f"low={self.low!r} + k * step={self.step!r} up to high={self.high!r}."
            )
        return i

    def _check_number(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"Parameter {self.name!r} needs a number. Got {value!r}.")
        v = float(value)
        assert self.low is not None and self.high is not None
        if not (self.low <= v <= self.high):
            raise ValueError(
                f"Parameter {self.name!r} got {value!r}, outside its range "
                f"[{self.low!r}, {self.high!r}]."
            )
        return v

    def encode(self, value: Any) -> float:
        """Coordinate in [0, 1] of a legal value (the bin centre for a discrete one)."""
        if self.is_discrete:
            edges = self.bin_edges
            assert edges is not None
            i = self.index_of(value)
            return float((edges[i] + edges[i + 1]) / 2.0)
        v = self._check_number(value)
        assert self.low is not None and self.high is not None
        if self.low == self.high:
            return 0.5
        if self._log_axis:
            lo, hi, v = math.log(self.low), math.log(self.high), math.log(v)
        else:
            lo, hi = self.low, self.high
        return min(1.0, max(0.0, (v - lo) / (hi - lo)))

    def decode(self, u: float) -> Any:
        """The legal value whose coordinate region contains ``u`` (clipped to [0, 1])."""
        u = min(1.0, max(0.0, float(u)))
        if self.kind == "categorical":
            assert self.choices is not None
            k = len(self.choices)
            return self.choices[min(k - 1, int(math.floor(u * k)))]
        if self._grid is not None:
            assert self._edges is not None
            i = int(np.searchsorted(self._edges, u, side="right")) - 1
            i = min(len(self._grid) - 1, max(0, i))
            value = self._grid[i]
            return int(round(value)) if self.kind == "int" else float(value)
        assert self.low is not None and self.high is not None
        if u <= 0.0 or self.low == self.high:
            return float(self.low)
        if u >= 1.0:
            return float(self.high)
        if self._log_axis:
            lo, hi = math.log(self.low), math.log(self.high)
            v = math.exp(lo + u * (hi - lo))
        else:
            v = self.low + u * (self.high - self.low)
        return float(min(self.high, max(self.low, v)))

    def describe(self) -> str:
        """A one-line description used in error messages."""
        if self.kind == "categorical":
            return f"{self.name!r}: categorical {list(self.choices or ())!r}"
        extra = (", log" if self.log else "") + (f", step={self.step!r}" if self.step else "")
        return f"{self.name!r}: {self.kind} in [{self.low!r}, {self.high!r}]{extra}"


class UnitCube:
    """A search space of named parameters, mapped onto the unit cube [0, 1]^d.

    Args:
        params:
            The parameters, one column each, in this order.

    Raises:
        ValueError: If ``params`` is empty or two parameters share a name.

    Example:
        .. code-block:: python

            from optuna_treeucb.core import ParamSpec, UnitCube

            cube = UnitCube([
                ParamSpec("lr", "float", low=1e-5, high=1.0, log=True),
                ParamSpec("units", "int", low=10, high=784),
                ParamSpec("act", "categorical", choices=("relu", "tanh", None)),
            ])
            x = cube.encode({"lr": 1e-3, "units": 64, "act": None})
            assert cube.decode(x)["units"] == 64
    """

    def __init__(self, params: Iterable[ParamSpec]) -> None:
        self.params: tuple[ParamSpec, ...] = tuple(params)
        if len(self.params) == 0:
            raise ValueError("A UnitCube needs at least one ParamSpec. Got an empty space.")
        names: set[str] = set()
        for p in self.params:
            if not isinstance(p, ParamSpec):
                raise TypeError(f"UnitCube takes ParamSpec objects. Got {p!r}.")
            if p.name in names:
                raise ValueError(f"UnitCube got the parameter name {p.name!r} twice.")
            names.add(p.name)
        self.names: tuple[str, ...] = tuple(p.name for p in self.params)
        self._pos = {n: i for i, n in enumerate(self.names)}

    @property
    def dim(self) -> int:
        """Number of columns d."""
        return len(self.params)

    def position(self, name: str) -> int:
        """Column of parameter ``name``.

        Raises:
            KeyError: If the space has no such parameter.
        """
        try:
            return self._pos[name]
        except KeyError:
            raise KeyError(
                f"The search space has no parameter {name!r}. Its parameters are "
                f"{list(self.names)!r}."
            ) from None

    def encode(self, params: Mapping[str, Any]) -> np.ndarray:
        """Point of the cube for a full assignment of the parameters.

        Args:
            params: A value for every parameter of the space (extra keys are an error).

        Returns:
            Shape (d,), values in [0, 1].
        """
        self._check_keys(params, full=True)
        return np.array([p.encode(params[p.name]) for p in self.params], dtype=float)

    def encode_partial(self, params: Mapping[str, Any]) -> dict[int, float]:
        """Column -> coordinate for a partial assignment (a context)."""
        self._check_keys(params, full=False)
        return {self._pos[k]: self.params[self._pos[k]].encode(v) for k, v in params.items()}

    def decode(self, x: Sequence[float] | np.ndarray) -> dict[str, Any]:
        """Parameter values of a point of the cube.

        Args:
            x: Shape (d,), values in [0, 1] (values outside are clipped).

        Returns:
            ``{name: value}`` with plain Python values (``int`` for int parameters).
        """
        arr = np.asarray(x, dtype=float)
        if arr.shape != (self.dim,):
            raise ValueError(
                f"UnitCube.decode needs a point of shape ({self.dim},). Got shape {arr.shape}."
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"UnitCube.decode needs finite coordinates. Got {arr.tolist()!r}.")
        return {p.name: p.decode(u) for p, u in zip(self.params, arr)}

    def _check_keys(self, params: Mapping[str, Any], *, full: bool) -> None:
        if not isinstance(params, Mapping):
            raise TypeError(f"Parameters must be given as a mapping. Got {params!r}.")
        unknown = [k for k in params if k not in self._pos]
        if unknown:
            raise ValueError(
                f"Unknown parameter(s) {unknown!r}; the search space has {list(self.names)!r}."
            )
        if full:
            missing = [n for n in self.names if n not in params]
            if missing:
                raise ValueError(f"Missing value(s) for parameter(s) {missing!r}.")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnitCube):
            return NotImplemented
        return len(self.params) == len(other.params) and all(
            a.name == b.name
            and a.kind == b.kind
            and a.low == b.low
            and a.high == b.high
            and a.log == b.log
            and a.step == b.step
            and (
                a.choices is None
                if b.choices is None
                else a.choices is not None
                and len(a.choices) == len(b.choices)
                and all(_same(p, q) for p, q in zip(a.choices, b.choices))
            )
            for a, b in zip(self.params, other.params)
        )

    def __hash__(self) -> int:
        return hash(self.names)

    def __repr__(self) -> str:
        return "UnitCube([" + ", ".join(p.describe() for p in self.params) + "])"
