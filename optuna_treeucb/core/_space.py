"""Map a mixed search space onto the unit cube [0, 1]^d and back, one column per parameter.

Continuous floats map linearly (or linearly in ``log``).  A discrete number (an int, a float
with a ``step``) with K grid values cuts its axis into K bins whose edges are the (log-)midpoints
between neighbouring values, so a uniform coordinate gives a uniform (or log-uniform) value; a
value encodes to its bin's centre.  A categorical uses K equal bins in the order of its choices
and decodes to the very object given.

Notations:
    d: number of parameters (columns of the cube).
    x: one point, shape (d,), values in [0, 1].
    X: points, shape (n, d), values in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal
from typing import NoReturn

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


# every bin must hold doubles strictly inside, so that a value's coordinate decodes back to it
_MAX_GRID_VALUES = 2**50
_MIN_BIN_WIDTH = 2.0**-51
_UNIT_ROUNDOFF = 2.0**-53
_MAX_LISTED_EDGES = 100_000  # bin_edges builds an array only up to this many bins


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (a Python or NumPy int or float), ``bool`` excluded."""
    return not isinstance(value, bool) and isinstance(value, (int, float, np.number))


def as_reals(
    value: Any,
    name: str,
    owner: str,
    allowed: str,
    ok: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    none: float | None = None,
    shown: Any = None,
) -> np.ndarray:
    """``value`` as a float array of its shape, by the core's one rule for numeric inputs.

    A number is a Python or NumPy int or float (:func:`is_number`): ``bool``, ``str`` and
    ``None`` are not (``None`` stands for ``none`` when that is given).  ``value`` is a number
    or nested sequences (or an array) of numbers.

    Args:
        value: The input, as the caller gave it.
        name: The parameter's name, e.g. ``"violation"``.
        owner: Who takes it, e.g. ``"TreeUCB.tell"``.
        allowed: What it must be, e.g. ``"a real number >= 0"``.
        ok: Elementwise check of the floats (NaN reaches it), e.g. ``lambda v: v >= 0``.
        none: The number ``None`` stands for; ``None``: ``None`` is not allowed.
        shown: What the message shows as received (``value`` if ``None``).

    Raises:
        TypeError: If an element is not a number.
        ValueError: If ``ok`` rejects an element.
    """
    message = (
        f"The {name!r} parameter of {owner} must be {allowed}. "
        f"Got {value if shown is None else shown!r} instead."
    )
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        arr = value.astype(float)
    else:
        try:
            items = np.asarray(value, dtype=object)
        except ValueError:  # e.g. arrays of unequal lengths
            raise TypeError(message) from None
        flat = [none if u is None and none is not None else u for u in items.flat]
        if not all(is_number(u) for u in flat):
            raise TypeError(message)
        arr = np.array(flat, dtype=float).reshape(items.shape)
    if ok is not None and not np.all(ok(arr)):
        raise ValueError(message)
    return arr


def _whole(value: Any) -> int | None:
    """``value`` as an exact Python int if it is a whole number, else ``None``."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    f = float(value)
    return int(f) if math.isfinite(f) and f.is_integer() else None


def _lerp(a: float, b: float, u: float) -> float:
    """``a + u * (b - a)`` for ``0 <= u <= 1``, also when ``b - a`` overflows a double."""
    d = b - a
    if math.isfinite(d):
        return a + u * d
    return 2.0 * (0.5 * a + u * (0.5 * b - 0.5 * a))


def _ratio(v: float, a: float, b: float) -> float:
    """``(v - a) / (b - a)`` for ``a <= v <= b``, also when ``b - a`` overflows a double."""
    d = b - a
    if math.isfinite(d):
        return (v - a) / d
    return (0.5 * v - 0.5 * a) / (0.5 * b - 0.5 * a)


@dataclass(frozen=True, eq=False)
class ParamSpec:
    """One parameter of a search space.

    A discrete grid costs O(1) whatever its number of values (closed forms, exact int
    arithmetic); one with more values than a double coordinate can tell apart (about 2**50,
    fewer on a log grid) is rejected.

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
            Grid spacing: values are ``low + k * step`` up to ``high``.  ``None`` makes a float
            continuous and an int's step 1.
        choices:
            The values of a categorical parameter (any objects, in a fixed order).

    Raises:
        ValueError: If the fields do not describe a legal parameter or grid.
    """

    name: str
    kind: Kind
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[Any, ...] | None = None
    # grids: number of values, scale of the value axis (1/4 near the limits of a double), and
    # the ends of the axis of the bin edges (scaled, in log for log=True)
    _n: int | None = field(default=None, init=False, repr=False, compare=False)
    _scale: float = field(default=1.0, init=False, repr=False, compare=False)
    _t0: float = field(default=0.0, init=False, repr=False, compare=False)
    _tK: float = field(default=1.0, init=False, repr=False, compare=False)

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
            self._init_choices(owner)
            return
        self._init_bounds(owner)
        step = self._init_step(owner)
        if step is not None:
            object.__setattr__(self, "step", step)
            self._set_grid(owner, self._n_steps(owner) + 1)

    def _init_choices(self, owner: str) -> None:
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

    def _init_bounds(self, owner: str) -> None:
        if self.choices is not None:
            raise ValueError(f"{owner} is numeric ({self.kind}); 'choices' must be None.")
        for name in ("low", "high"):
            value = getattr(self, name)
            if not is_number(value):
                raise TypeError(f"The '{name}' of {owner} must be a number. Got {value!r}.")
            try:
                finite = math.isfinite(float(value))
            except OverflowError:  # an int beyond the range of a double
                finite = False
            if not finite:
                raise ValueError(f"The '{name}' of {owner} must be finite. Got {value!r}.")
        low: int | float
        high: int | float
        low, high = float(self.low), float(self.high)  # type: ignore[arg-type]
        if self.kind == "int":
            low_i, high_i = _whole(self.low), _whole(self.high)
            if low_i is None or high_i is None:
                raise ValueError(
                    f"{owner} is an int parameter; low and high must be whole numbers. "
                    f"Got low={self.low!r}, high={self.high!r}."
                )
            low, high = low_i, high_i
        if low > high:
            raise ValueError(
                f"{owner} needs low <= high. Got low={self.low!r}, high={self.high!r}."
            )
        if self.log and low <= 0:
            raise ValueError(f"{owner} has log=True and needs low > 0. Got low={self.low!r}.")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def _init_step(self, owner: str) -> int | float | None:
        """The checked step: a whole number for ints (1 if not given), ``None`` if continuous."""
        step = self.step
        if step is not None and not is_number(step):
            raise TypeError(f"The 'step' of {owner} must be a number or None. Got {step!r}.")
        if self.kind == "int":
            step = _whole(1 if step is None else step)
            if step is None:
                raise ValueError(
                    f"The 'step' of int {owner} must be a whole number. Got {self.step!r}."
                )
        if step is None:
            return None
        if not math.isfinite(float(step)) or float(step) <= 0:
            raise ValueError(f"The 'step' of {owner} must be a number > 0. Got {step!r}.")
        return step

    def _n_steps(self, owner: str) -> int:
        assert self.low is not None and self.high is not None and self.step is not None
        low, high, step = self.low, self.high, self.step
        if self.kind == "int":
            n, rest = divmod(int(high) - int(low), int(step))
            off_grid = rest != 0
        else:
            step = float(step)
            k = (high - low) / step
            if not math.isfinite(k):
                k = ((0.5 * high - 0.5 * low) / step) * 2.0
            if not math.isfinite(k) or k > _MAX_GRID_VALUES:
                self._too_many(owner, k + 1)
            n = int(round(k))
            # a multiple up to rounding: 1e-8 relative, at most 1 % of a step, never below the
            # rounding error of the bounds and the ratio
            rounding = 4 * _UNIT_ROUNDOFF * ((abs(low) + abs(high)) / step + 2 * k)
            tol = max(min(1e-8 * max(1.0, k), 1e-2), rounding)
            off_grid = abs(k - n) > tol
        if off_grid:
            raise ValueError(
                f"{owner} needs (high - low) to be a multiple of step. Got low={self.low!r}, "
                f"high={self.high!r}, step={step!r}."
            )
        return n

    def _set_grid(self, owner: str, n_values: int) -> None:
        if n_values > _MAX_GRID_VALUES:
            self._too_many(owner, n_values)
        assert self.low is not None and self.high is not None and self.step is not None
        object.__setattr__(self, "_n", n_values)
        big = abs(float(self.low)) + abs(float(self.high)) + 2.0 * float(self.step)
        object.__setattr__(self, "_scale", 1.0 if big < 2.0**1020 else 0.25)
        object.__setattr__(self, "_t0", self._edge_t(0))
        object.__setattr__(self, "_tK", self._edge_t(n_values))
        if n_values == 1:
            return
        t0, tk = self._t0, self._tK
        span = tk - t0
        if not (math.isfinite(span) and span > 0):
            self._too_many(owner, n_values)
        if self.kind == "int" and not self.log:
            delta = _UNIT_ROUNDOFF  # edges j / K, correctly rounded
        else:  # rounding of the grid values, midpoints and logarithms, relative to the span
            magnitude = max(abs(t0), abs(tk))
            delta = (4.0 * magnitude + 4.0) * _UNIT_ROUNDOFF / span + 2.0 * _UNIT_ROUNDOFF
        # the first two and last two bins are the narrowest
        ends = {1, min(2, n_values), max(1, n_values - 1), n_values}
        width = min(self.bin_edge(j) - self.bin_edge(j - 1) for j in ends)
        if not width >= 4.0 * delta + _MIN_BIN_WIDTH:
            self._too_many(owner, n_values, width)

    def _too_many(self, owner: str, n_values: float, width: float | None = None) -> NoReturn:
        size = f"{n_values:,}" if isinstance(n_values, int) else f"{n_values:.3g}"
        detail = "" if width is None else f" (its narrowest bin on [0, 1] is {width:.3g} wide)"
        raise ValueError(
            f"{owner} has {size} grid values{detail}: too many for a [0, 1] coordinate in double "
            f"precision to tell apart (at most 2**50 on a linear grid, fewer on a log grid). "
            f"Got low={self.low!r}, high={self.high!r}, step={self.step!r}, log={self.log!r}. "
            "Use a larger step, a narrower range, or a float parameter without step."
        )

    def _grid_float(self, k: int) -> float:
        """Grid value ``k`` of a float grid, times ``self._scale``."""
        assert self._n is not None and self.low is not None and self.high is not None
        s = self._scale
        if k == self._n - 1:
            return float(self.high) * s
        assert self.step is not None
        return float(self.low) * s + (float(self.step) * s) * float(k)

    def _edge_t(self, j: int) -> float:
        """Value-space edge ``j`` (0..K) of the bins, times the scale, in log for log=True:
        ``low - step / 2`` (or ``low`` if that is <= 0 on a log grid), the midpoints between
        neighbouring values, then ``high + step / 2``."""
        n = self._n
        assert n is not None and self.low is not None and self.high is not None
        assert self.step is not None
        if self.kind == "int":  # exact, then rounded once: num / 2 with num an int
            low, step = int(self.low), int(self.step)
            if j == 0:
                num = 2 * low - step
                if self.log and num <= 0:
                    num = 2 * low
            elif j == n:
                num = 2 * int(self.high) + step
            else:
                num = 2 * low + (2 * j - 1) * step
            mid = num / (2 if self._scale == 1.0 else 8)
        else:
            half = float(self.step) * self._scale / 2.0
            if j == 0:
                g0 = self._grid_float(0)
                mid = g0 - half
                if self.log and mid <= 0:
                    mid = g0
            elif j == n:
                mid = self._grid_float(n - 1) + half
            else:
                mid = (self._grid_float(j - 1) + self._grid_float(j)) / 2.0
        return math.log(mid) if self.log else mid

    def _bins(self) -> int:
        n = self.n_values
        if n is None:
            raise ValueError(f"Parameter {self.name!r} is continuous; it has no bins.")
        return n

    def _check_index(self, k: int, n: int, what: str) -> int:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
            raise ValueError(
                f"The {what} of parameter {self.name!r} must be an int in [0, {n}]. Got {k!r}."
            )
        return int(k)

    def value_at(self, k: int) -> Any:
        """Value ``k`` of a discrete parameter: an exact int, a float, or the very choice given.

        Raises:
            ValueError: If the parameter is continuous or ``k`` is out of range.
        """
        n = self._bins()
        k = self._check_index(k, n - 1, "index")
        if self.choices is not None:  # categorical
            return self.choices[k]
        assert self.low is not None and self.high is not None and self.step is not None
        if self.kind == "int":
            return int(self.high) if k == n - 1 else int(self.low) + k * int(self.step)
        return self._grid_float(k) / self._scale  # exact when the scale is 1

    def bin_edge(self, j: int) -> float:
        """Edge ``j`` in [0, 1] of the bins of a discrete parameter (edge 0 is 0, edge K is 1).

        Bin ``k`` is ``[bin_edge(k), bin_edge(k + 1))`` and holds value ``k``.

        Raises:
            ValueError: If the parameter is continuous or ``j`` is out of range.
        """
        n = self._bins()
        j = self._check_index(j, n, "bin edge index")
        if j == 0:
            return 0.0
        if j == n:
            return 1.0
        if self.kind == "categorical":
            return j * (1.0 / n)  # as np.linspace(0, 1, n + 1)
        if self.kind == "int" and not self.log:
            return j / n  # the midpoints of an int grid are equally spaced: exactly j / K
        return (self._edge_t(j) - self._t0) / (self._tK - self._t0)

    def bin_index(self, u: float) -> int:
        """Index of the bin (and value) of a discrete parameter containing ``u`` (clipped).

        Raises:
            ValueError: If the parameter is continuous.
        """
        n = self._bins()
        u = min(1.0, max(0.0, float(u)))
        if self.kind == "categorical":
            return min(n - 1, int(math.floor(u * n)))
        assert self.low is not None and self.step is not None
        if self.log:  # invert t = t0 + u * (tK - t0), mid_j = low + (j - 1/2) * step
            mid = math.exp(self._t0 + u * (self._tK - self._t0)) / self._scale
            guess = (mid - float(self.low)) / float(self.step) + 0.5
        else:
            guess = u * n
        # bracket edge(lo) <= u < edge(hi) (edge(K) above any u) by doubling strides, then bisect
        lo = min(n - 1, max(0, int(guess)))
        hi, reach = lo + 1, 1
        while lo > 0 and self.bin_edge(lo) > u:
            lo, hi, reach = max(0, lo - reach), lo, 2 * reach
        while hi < n and self.bin_edge(hi) <= u:
            lo, hi, reach = hi, min(n, hi + reach), 2 * reach
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.bin_edge(mid) <= u:
                lo = mid
            else:
                hi = mid
        return lo

    def bin_indices(self, u: np.ndarray) -> np.ndarray:
        """:meth:`bin_index` of every coordinate of ``u`` (any shape): int64, the same shape.

        Raises:
            ValueError: If the parameter is continuous.
        """
        n = self._bins()
        v = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        if self.kind == "categorical":
            return np.minimum(n - 1, np.floor(v * n)).astype(np.int64)
        if self.kind == "int" and not self.log:  # edges j / n, exact (n <= 2**50)
            k = np.clip(np.floor(v * n), 0, n - 1).astype(np.int64)
            k -= k / n > v
            k += (k + 1 < n) & ((k + 1) / n <= v)
            return k
        flat = [self.bin_index(x) for x in v.ravel().tolist()]
        return np.array(flat, dtype=np.int64).reshape(v.shape)

    def bin_centre(self, k: int) -> float:
        """Coordinate of value ``k`` of a discrete parameter: the centre of its bin.

        Raises:
            ValueError: If the parameter is continuous or ``k`` is out of range.
        """
        n = self._bins()
        k = self._check_index(k, n - 1, "index")
        return (self.bin_edge(k) + self.bin_edge(k + 1)) / 2.0

    def axis_value(self, u: np.ndarray | float) -> np.ndarray:
        """Position of coordinates ``u`` on the numeric axis, not rounded to the grid.

        Linear in the value (or its log), from ``low`` to ``high`` when continuous, between the
        outer bin edges for a grid, so grid value ``k`` sits in bin ``k``.  ``u`` has any shape
        (clipped to [0, 1]); the result has the same.

        Raises:
            ValueError: If the parameter is categorical.
        """
        if self.kind == "categorical":
            raise ValueError(f"Parameter {self.name!r} is categorical; it has no numeric axis.")
        v = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        log = self.log
        if self._n is not None:
            t0, tk, s = self._t0, self._tK, self._scale
        else:
            assert self.low is not None and self.high is not None
            s, log = 1.0, self._log_axis
            if log:
                t0, tk = math.log(self.low), math.log(self.high)
            else:
                t0, tk = float(self.low), float(self.high)
                if not math.isfinite(tk - t0):
                    t0, tk, s = 0.5 * t0, 0.5 * tk, 0.5
        t = t0 + v * (tk - t0)
        return (np.exp(t) if log else t) / s

    @property
    def _log_axis(self) -> bool:
        # bounds a few ulps apart can have equal logarithms: then the linear axis is used
        assert self.low is not None and self.high is not None
        return self.log and math.log(self.high) > math.log(self.low)

    @property
    def is_discrete(self) -> bool:
        """Whether the parameter takes finitely many values."""
        return self.kind == "categorical" or self._n is not None

    @property
    def n_values(self) -> int | None:
        """Number of values of a discrete parameter, ``None`` for a continuous one."""
        return self._n if self.choices is None else len(self.choices)

    @property
    def bin_edges(self) -> np.ndarray | None:
        """Bin edges on [0, 1] of a discrete parameter, shape (K + 1,); ``None`` if continuous.

        Raises:
            ValueError: If the grid has more than 100,000 values.
        """
        n = self.n_values
        if n is None:
            return None
        if self.kind == "categorical":
            return np.linspace(0.0, 1.0, n + 1)
        if n > _MAX_LISTED_EDGES:
            raise ValueError(
                f"Parameter {self.name!r} has {n:,} grid values; bin_edges lists at most "
                f"{_MAX_LISTED_EDGES:,}. Use bin_edge(j) and bin_index(u), which cost O(1)."
            )
        return np.array([self.bin_edge(j) for j in range(n + 1)])

    def index_of(self, value: Any) -> int:
        """Index of a legal value among the grid values or choices.

        Raises:
            ValueError: If ``value`` is not a legal value of this parameter.
        """
        if self.choices is not None:  # categorical
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
        n = self._n
        assert n is not None and self.step is not None and self.low is not None
        if isinstance(v, int):  # an int on an int grid: exact
            i, rest = divmod(v - int(self.low), int(self.step))
            if rest == 0:
                return i
        else:
            step = float(self.step)
            r = (v - self.low) / step
            if not math.isfinite(r):
                r = ((0.5 * v - 0.5 * self.low) / step) * 2.0
            i = min(n - 1, max(0, int(round(r))))
            i = min(range(max(0, i - 1), min(n, i + 2)), key=lambda j: abs(self.value_at(j) - v))
            if math.isclose(self.value_at(i), v, rel_tol=1e-9, abs_tol=1e-9 * step):
                return i
        raise ValueError(
            f"Parameter {self.name!r} got {value!r}, which is not on its grid "
            f"low={self.low!r} + k * step={self.step!r} up to high={self.high!r}."
        )

    def _check_number(self, value: Any) -> int | float:
        """``value`` as an exact int (int parameter, integral value) or a float, in range."""
        if not is_number(value):
            raise TypeError(f"Parameter {self.name!r} needs a number. Got {value!r}.")
        exact = self.kind == "int" and isinstance(value, (int, np.integer))
        v = int(value) if exact else float(value)
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
            return self.bin_centre(self.index_of(value))
        v = float(self._check_number(value))
        assert self.low is not None and self.high is not None
        if self.low == self.high:
            return 0.5
        if self._log_axis:
            u = _ratio(math.log(v), math.log(self.low), math.log(self.high))
        else:
            u = _ratio(v, self.low, self.high)
        return min(1.0, max(0.0, u))

    def decode(self, u: float) -> Any:
        """The legal value whose coordinate region contains ``u`` (clipped to [0, 1])."""
        u = min(1.0, max(0.0, float(u)))
        if self.is_discrete:
            return self.value_at(self.bin_index(u))
        assert self.low is not None and self.high is not None
        if u <= 0.0 or self.low == self.high:
            return float(self.low)
        if u >= 1.0:
            return float(self.high)
        if self._log_axis:
            v = math.exp(_lerp(math.log(self.low), math.log(self.high), u))
        else:
            v = _lerp(self.low, self.high, u)
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
        self._pos: dict[str, int] = {}
        for i, p in enumerate(self.params):
            if not isinstance(p, ParamSpec):
                raise TypeError(f"UnitCube takes ParamSpec objects. Got {p!r}.")
            if p.name in self._pos:
                raise ValueError(f"UnitCube got the parameter name {p.name!r} twice.")
            self._pos[p.name] = i
        self.names: tuple[str, ...] = tuple(self._pos)

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

    def value_cells(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The coordinates that decode to the same values as the points ``X``, column by column.

        ``u`` decodes as ``X[i, j]`` if ``lo[i, j] <= u < hi[i, j]`` or ``u == lo[i, j]``: a bin
        (infinite at the cube's ends), a point, or the whole line when ``low == high``.

        Args:
            X: Shape (n, d), values in [0, 1].

        Returns:
            ``lo`` and ``hi``, each shape (n, d).
        """
        X = np.asarray(X, dtype=float).reshape(-1, self.dim)
        lo, hi = X.copy(), X.copy()
        for j, p in enumerate(self.params):
            n = p.n_values
            if n is not None:
                for i, u in enumerate(X[:, j].tolist()):
                    k = p.bin_index(u)
                    lo[i, j] = p.bin_edge(k) if k > 0 else -np.inf
                    hi[i, j] = p.bin_edge(k + 1) if k + 1 < n else np.inf
            elif p.low == p.high:
                lo[:, j], hi[:, j] = -np.inf, np.inf
        return lo, hi

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
        fields = ("name", "kind", "low", "high", "log", "step")
        return len(self.params) == len(other.params) and all(
            all(getattr(a, f) == getattr(b, f) for f in fields)
            and len(a.choices or ()) == len(b.choices or ())  # None for numeric kinds
            and all(_same(p, q) for p, q in zip(a.choices or (), b.choices or ()))
            for a, b in zip(self.params, other.params)
        )

    def __hash__(self) -> int:
        return hash(self.names)

    def __repr__(self) -> str:
        return "UnitCube([" + ", ".join(p.describe() for p in self.params) + "])"


def as_cube(space: Any) -> UnitCube:
    """The ``space`` argument of TreeUCB (a UnitCube, ParamSpecs or a dimension) as a UnitCube."""
    if isinstance(space, UnitCube):
        return space
    if isinstance(space, (int, np.integer)) and not isinstance(space, bool):
        if space < 1:
            raise ValueError(
                "The 'space' parameter of TreeUCB must be an int >= 1, a UnitCube or a "
                f"sequence of ParamSpec. Got {space!r} instead."
            )
        return UnitCube(ParamSpec(f"x{i}", "float", low=0.0, high=1.0) for i in range(int(space)))
    if isinstance(space, Sequence) and not isinstance(space, str):
        return UnitCube(space)
    raise TypeError(
        "The 'space' parameter of TreeUCB must be an int, a UnitCube or a sequence of "
        f"ParamSpec. Got {space!r} instead."
    )
