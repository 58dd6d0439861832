"""ParamSpec on huge grids and at the limits of a double (issue 11, defects 1 and 2).

The closed-form grids are checked against a copy of the array construction they replaced
(``_ReferenceGrid``), and round trips are checked by hypothesis over extreme ranges.
"""

from __future__ import annotations

import math
import pickle
import random
import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from optuna_treeucb.core import ParamSpec


class _ReferenceGrid:
    """The array-based grid of ``ParamSpec._build_grid`` before issue 11 (small grids only)."""

    def __init__(self, spec: ParamSpec) -> None:
        assert spec.n_values is not None and spec.step is not None
        low, high, step = spec.low, spec.high, spec.step
        grid = low + step * np.arange(spec.n_values, dtype=float)
        grid[-1] = high
        half = step / 2.0
        mids = np.concatenate(([grid[0] - half], (grid[:-1] + grid[1:]) / 2.0, [grid[-1] + half]))
        if spec.log:
            if mids[0] <= 0:
                mids[0] = grid[0]
            t = np.log(mids)
        else:
            t = mids
        edges = (t - t[0]) / (t[-1] - t[0])
        edges[0], edges[-1] = 0.0, 1.0
        self.kind, self.grid, self.edges = spec.kind, grid, edges

    def decode(self, u: float) -> Any:
        i = int(np.searchsorted(self.edges, u, side="right")) - 1
        value = self.grid[min(len(self.grid) - 1, max(0, i))]
        return int(round(value)) if self.kind == "int" else float(value)

    def encode(self, i: int) -> float:
        return float((self.edges[i] + self.edges[i + 1]) / 2.0)


def _small_grid_specs(n: int, seed: int) -> list[ParamSpec]:
    rng = random.Random(seed)
    specs = []
    while len(specs) < n:
        log = rng.random() < 0.5
        k = rng.randint(0, 300)
        if rng.random() < 0.5:
            step = rng.choice([1, 1, 2, 3, 7, 10, 1000])
            low = rng.randint(1, 5000) if log else rng.randint(-5000, 5000)
            specs.append(ParamSpec("i", "int", low=low, high=low + k * step, step=step, log=log))
        else:
            step = rng.choice([0.1, 0.25, 1e-3, 0.3, 2.5, 1e-6])
            low = rng.choice([step, 0.5, 1.0, 1e-3]) if log else rng.uniform(-10, 10)
            high = low + k * step
            specs.append(ParamSpec("f", "float", low=low, high=high, step=step, log=log))
    return specs


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_grid_matches_the_array_construction(seed: int) -> None:
    for spec in _small_grid_specs(50, seed):
        ref = _ReferenceGrid(spec)
        assert spec.n_values == len(ref.grid)
        edges = spec.bin_edges
        assert edges is not None
        np.testing.assert_allclose(edges, ref.edges, rtol=0, atol=1e-12)
        # linear grids are bit-identical; log grids differ by an ulp where math.log and
        # np.log do, so they are compared away from the edges
        linear = not spec.log
        if linear:
            np.testing.assert_array_equal(edges, ref.edges)
        rng = random.Random(seed)
        us = [rng.random() for _ in range(100)] + [ref.encode(i) for i in range(len(ref.grid))]
        if linear:
            us += [float(np.nextafter(e, d)) for e in ref.edges for d in (-1.0, e, 2.0)]
        for u in us:
            got, want = spec.decode(u), ref.decode(min(1.0, max(0.0, u)))
            if not linear and np.min(np.abs(ref.edges - u)) < 1e-14:
                continue
            assert type(got) is type(want) and got == want, (spec, u)
        for i, value in enumerate(ref.grid):
            value = int(round(value)) if spec.kind == "int" else float(value)
            assert spec.value_at(i) == value
            assert spec.index_of(value) == i
            assert abs(spec.encode(value) - ref.encode(i)) <= 1e-12
            if linear:
                assert spec.encode(value) == ref.encode(i)
        # exact at its own edges
        for k in range(1, len(ref.grid)):
            edge = spec.bin_edge(k)
            assert spec.bin_index(edge) == k
            assert spec.bin_index(float(np.nextafter(edge, 0.0))) == k - 1


# -- defect 1: huge grids cost O(1) ----------------------------------------------------------
def test_huge_grids_take_constant_memory() -> None:
    # regression: suggest_int(0, 10**12) raised MemoryError (7.28 TiB of grid and edges)
    tracemalloc.start()
    try:
        specs = [
            ParamSpec("a", "int", low=0, high=10**12),
            ParamSpec("b", "int", low=0, high=999_999_999, step=3),
            ParamSpec("c", "float", low=0.0, high=1.0, step=1e-9),
            ParamSpec("d", "int", low=1, high=10**12, log=True),
        ]
        for spec in specs:
            for u in np.linspace(0.0, 1.0, 101):
                spec.encode(spec.decode(u))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert [s.n_values for s in specs] == [10**12 + 1, 333_333_334, 10**9 + 1, 10**12]


def test_huge_grids_reach_their_first_and_last_values_exactly() -> None:
    a = ParamSpec("a", "int", low=-7 * 10**11, high=7 * 10**11, step=7)
    assert a.decode(0.0) == -7 * 10**11 and a.decode(1.0) == 7 * 10**11
    assert a.decode(1 - 1e-16) == 7 * 10**11 and a.decode(0.5) == 0
    c = ParamSpec("c", "float", low=0.0, high=1.0, step=1e-9)
    assert c.decode(0.0) == 0.0 and c.decode(1.0) == 1.0
    assert c.value_at(123_456_789) == 123_456_789 * 1e-9
    # a value within rounding of the grid encodes to its grid value low + k * step
    assert c.decode(c.encode(0.123456789)) == c.value_at(123_456_789)


def test_int_arithmetic_is_exact_beyond_two_to_the_53() -> None:
    low = 10**17 + 1  # not a double
    spec = ParamSpec("x", "int", low=low, high=low + 3 * 10**6, step=3)
    assert spec.low == low and spec.n_values == 10**6 + 1
    for k in (0, 1, 12_345, 10**6 - 1, 10**6):
        v = low + 3 * k
        assert spec.value_at(k) == v and spec.index_of(v) == k
        assert spec.decode(spec.encode(v)) == v
    with pytest.raises(ValueError, match="not on its grid"):
        spec.index_of(low + 1)
    with pytest.raises(ValueError, match="multiple of step"):
        ParamSpec("x", "int", low=0, high=10**12 + 1, step=3)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kind="int", low=0, high=10**18),
        dict(kind="int", low=1, high=10**15, log=True),
        dict(kind="float", low=0.0, high=1.0, step=1e-300),
        dict(kind="float", low=1.0, high=2.0, step=1e-16),
    ],
)
def test_grids_a_double_cannot_resolve_are_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"ParamSpec 'x' has .* grid values.*larger step"):
        ParamSpec("x", **kwargs)


@pytest.mark.parametrize("kind", ["int", "float"])
def test_a_step_that_is_not_a_number_is_a_type_error(kind: str) -> None:
    with pytest.raises(TypeError, match=r"'step' of ParamSpec 'x' must be a number.*'3'"):
        ParamSpec("x", kind, low=0, high=9, step="3")  # type: ignore[arg-type]


def test_bin_edges_lists_only_small_grids() -> None:
    spec = ParamSpec("x", "int", low=0, high=10**12)
    with pytest.raises(ValueError, match=r"'x' has 1,000,000,000,001 grid values.*bin_edge"):
        _ = spec.bin_edges
    assert spec.bin_edge(0) == 0.0 and spec.bin_edge(10**12 + 1) == 1.0
    assert spec.bin_edge(5 * 10**11) == 5 * 10**11 / (10**12 + 1)
    with pytest.raises(ValueError, match=r"bin edge index.*\[0, 1000000000001\]. Got -1"):
        spec.bin_edge(-1)
    with pytest.raises(ValueError, match="continuous"):
        ParamSpec("f", "float", low=0.0, high=1.0).bin_index(0.5)


def test_bin_index_is_exact_at_the_edges_of_a_huge_log_grid() -> None:
    spec = ParamSpec("x", "int", low=1, high=10**12, log=True)
    for k in (0, 1, 2, 10**6, 10**9, 10**12 - 2, 10**12 - 1):
        edge = spec.bin_edge(k)
        assert spec.bin_index(edge) == k
        if k > 0:
            assert spec.bin_index(float(np.nextafter(edge, 0.0))) == k - 1


# -- defect 2: ranges near the limits of a double --------------------------------------------
def test_widest_float_range_is_sampled_not_collapsed() -> None:
    # regression: every decode returned 1e308 because high - low overflowed
    spec = ParamSpec("x", "float", low=-1e308, high=1e308)
    values = [spec.decode(u) for u in np.linspace(0.0, 1.0, 11)]
    assert values[0] == -1e308 and values[-1] == 1e308 and values[5] == 0.0
    assert all(a < b for a, b in zip(values, values[1:]))
    expected = 2.0 * np.linspace(-5e307, 5e307, 11)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e296)
    assert spec.encode(0.0) == 0.5 and spec.encode(5e307) == 0.75


def test_step_grid_across_the_whole_double_range() -> None:
    spec = ParamSpec("x", "float", low=-1.5e308, high=1.5e308, step=1e307)
    assert spec.n_values == 31
    values = [spec.value_at(k) for k in range(31)]
    assert values[0] == -1.5e308 and values[-1] == 1.5e308 and all(map(math.isfinite, values))
    for v in values:
        assert spec.decode(spec.encode(v)) == v
    positions = spec.axis_value(np.array([0.0, 1.0]))
    np.testing.assert_allclose(positions, [-1.55e308, 1.55e308])


# -- property tests over extreme ranges ------------------------------------------------------
def _check_decode(spec: ParamSpec, u1: float, u2: float) -> None:
    """decode(u) is legal and monotone in u; its encoding decodes back to it."""
    lo, hi = sorted((u1, u2))
    a, b = spec.decode(lo), spec.decode(hi)
    assert type(a) is (int if spec.kind == "int" else float)
    assert spec.low <= a <= b <= spec.high
    for v in (a, b):
        if spec.is_discrete:
            spec.index_of(v)  # on the grid
        assert spec.decode(spec.encode(v)) == v


@st.composite
def huge_int_specs(draw: Any) -> ParamSpec:
    step = draw(st.sampled_from([1, 2, 3, 7, 1000, 10**6]))
    n = draw(st.integers(0, 10**12 // step))
    if draw(st.booleans()):
        low = draw(st.integers(1, 10**6))
        return ParamSpec("i", "int", low=low, high=low + n * step, step=step, log=True)
    low = draw(st.integers(-(10**13), 10**13))
    return ParamSpec("i", "int", low=low, high=low + n * step, step=step)


@given(huge_int_specs(), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@settings(max_examples=300, deadline=None)
def test_huge_int_grids_round_trip(spec: ParamSpec, r: float, u1: float, u2: float) -> None:
    assert spec.n_values is not None
    k = min(spec.n_values - 1, int(r * spec.n_values))
    v = spec.value_at(k)
    assert v == spec.low + k * spec.step and spec.index_of(v) == k
    assert spec.decode(spec.encode(v)) == v
    _check_decode(spec, u1, u2)


@st.composite
def fine_float_step_specs(draw: Any) -> ParamSpec:
    step = 10.0 ** -draw(st.integers(3, 12))
    n = draw(st.integers(0, 10**9))
    log = draw(st.booleans())
    low = draw(st.floats(step, 1.0)) if log else draw(st.floats(-1.0, 1.0))
    return ParamSpec("f", "float", low=low, high=low + n * step, step=step, log=log)


@given(fine_float_step_specs(), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@settings(max_examples=300, deadline=None)
def test_fine_float_steps_round_trip(spec: ParamSpec, r: float, u1: float, u2: float) -> None:
    assert spec.n_values is not None
    k = min(spec.n_values - 1, int(r * spec.n_values))
    v = spec.value_at(k)
    assert spec.index_of(v) == k and spec.decode(spec.encode(v)) == v
    _check_decode(spec, u1, u2)


@given(
    st.floats(-300, 300),
    st.floats(0, 600),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
@settings(max_examples=300, deadline=None)
def test_log_ranges_up_to_1e300_round_trip(
    e_low: float, e_span: float, r: float, u1: float, u2: float
) -> None:
    low = 10.0**e_low
    high = 10.0 ** min(300.0, e_low + e_span)
    spec = ParamSpec("f", "float", low=low, high=high, log=True)
    v = min(high, low * (high / low) ** r)
    back = spec.decode(spec.encode(v))
    assert math.isclose(back, v, rel_tol=1e-9)
    lo, hi = sorted((u1, u2))
    a, b = spec.decode(lo), spec.decode(hi)
    assert low <= a <= b <= high


near_max = st.floats(-1.7976931348623157e308, 1.7976931348623157e308, allow_infinity=False)


@given(near_max, near_max, st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@settings(max_examples=300, deadline=None)
def test_floats_near_the_largest_double_round_trip(
    x: float, y: float, r: float, u1: float, u2: float
) -> None:
    low, high = sorted((x, y))
    spec = ParamSpec("f", "float", low=low, high=high)
    v = min(high, max(low, 2.0 * (0.5 * low + r * (0.5 * high - 0.5 * low))))
    back = spec.decode(spec.encode(v))
    assert low <= back <= high
    slack = 1e-12 * (abs(low) + abs(high)) + 5e-324  # subnormal bounds round to 5e-324
    assert abs(back - v) <= slack
    lo, hi = sorted((u1, u2))
    a, b = spec.decode(lo), spec.decode(hi)
    assert low <= a <= b <= high
    # never a constant: the ends are reached and the middle is the midpoint
    assert spec.decode(0.0) == low and spec.decode(1.0) == high
    assert abs(spec.decode(0.5) - (0.5 * low + 0.5 * high)) <= slack


def test_a_grid_spec_survives_pickling() -> None:
    spec = ParamSpec("x", "int", low=1, high=9, step=2, log=True)
    again = pickle.loads(pickle.dumps(spec))
    assert again.n_values == 5 and again.encode(7) == spec.encode(7)
    assert [again.decode(u) for u in (0.0, 0.5, 1.0)] == [spec.decode(u) for u in (0.0, 0.5, 1.0)]
