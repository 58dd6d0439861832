from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import UnitCube


@pytest.mark.parametrize(
    "spec, values",
    [
        (ParamSpec("f", "float", low=-2.0, high=3.0), [-2.0, 0.0, 1.2345, 3.0]),
        (ParamSpec("lf", "float", low=1e-5, high=4.0, log=True), [1e-5, 1e-3, 0.5, 4.0]),
        (ParamSpec("sf", "float", low=0.0, high=1.0, step=0.25), [0.0, 0.25, 0.5, 1.0]),
        (ParamSpec("i", "int", low=-3, high=7), [-3, 0, 7]),
        (ParamSpec("li", "int", low=1, high=1000, log=True), [1, 2, 999, 1000]),
        (ParamSpec("si", "int", low=10, high=500, step=10), [10, 250, 500]),
        (ParamSpec("lsf", "float", low=0.1, high=1.0, step=0.1, log=True), [0.1, 0.5, 1.0]),
    ],
)
def test_numeric_round_trip_is_identity_on_legal_values(spec: ParamSpec, values: list) -> None:
    for v in values:
        u = spec.encode(v)
        assert 0.0 <= u <= 1.0
        back = spec.decode(u)
        assert type(back) is (int if spec.kind == "int" else float)
        if spec.is_discrete:
            assert back == v
        else:
            assert math.isclose(back, v, rel_tol=1e-12, abs_tol=1e-300)


def test_bounds_are_reached_exactly_and_clipped() -> None:
    spec = ParamSpec("lf", "float", low=1e-5, high=4.0, log=True)
    assert spec.decode(0.0) == 1e-5
    assert spec.decode(1.0) == 4.0
    assert spec.decode(-1e-12) == 1e-5
    assert spec.decode(1.0 + 1e-12) == 4.0
    assert spec.encode(4.0) == 1.0
    i = ParamSpec("i", "int", low=1, high=5)
    assert i.decode(0.0) == 1 and i.decode(1.0) == 5 and i.decode(1 - 1e-12) == 5


def test_linear_grid_values_get_equal_mass() -> None:
    # 5 values -> 5 bins of width 1/5: uniform coordinates give each value mass 1/5
    spec = ParamSpec("si", "int", low=0, high=8, step=2)
    np.testing.assert_allclose(spec.bin_edges, np.linspace(0, 1, 6))
    u = (np.arange(100_000) + 0.5) / 100_000
    counts = np.bincount([spec.decode(x) // 2 for x in u], minlength=5)
    np.testing.assert_allclose(counts / u.size, 0.2, atol=1e-4)


def test_log_int_grid_reproduces_log_uniform_masses() -> None:
    # log int in [1, 3]: value k owns [log(k - 1/2), log(k + 1/2)] of [log 0.5, log 3.5]
    spec = ParamSpec("li", "int", low=1, high=3, log=True)
    total = math.log(3.5) - math.log(0.5)
    expected = [math.log((k + 0.5) / (k - 0.5)) / total for k in (1, 2, 3)]
    np.testing.assert_allclose(np.diff(spec.bin_edges), expected)


def test_categorical_returns_the_very_objects() -> None:
    marker = object()
    choices = (None, True, 1, 1.0, "1", marker, (1, 2))
    spec = ParamSpec("c", "categorical", choices=choices)
    for c in choices:
        assert spec.decode(spec.encode(c)) is c
    # True and 1 and 1.0 are told apart
    assert spec.index_of(True) == 1 and spec.index_of(1) == 2 and spec.index_of(1.0) == 3
    np.testing.assert_allclose(spec.bin_edges, np.linspace(0, 1, 8))


def test_nan_choice_round_trips() -> None:
    nan = float("nan")
    spec = ParamSpec("c", "categorical", choices=("a", nan))
    assert spec.decode(spec.encode(nan)) is nan


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kind="float", low=1.0, high=0.0), "low <= high"),
        (dict(kind="float", low=0.0, high=1.0, log=True), "low > 0"),
        (dict(kind="int", low=0.5, high=3), "whole numbers"),
        (dict(kind="int", low=0, high=10, step=3), "multiple of step"),
        (dict(kind="float", low=0.0, high=1.0, step=-0.1), "step"),
        (dict(kind="categorical", choices=()), "must not be empty"),
        (dict(kind="categorical"), "needs 'choices'"),
        (dict(kind="bogus", low=0, high=1), "'kind'"),
        (dict(kind="float", low=0.0, high=float("inf")), "finite"),
    ],
)
def test_bad_specs_raise_clear_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ParamSpec("p", **kwargs)


def test_illegal_values_are_rejected_with_the_name() -> None:
    cube = UnitCube(
        [ParamSpec("lr", "float", low=0.1, high=1.0), ParamSpec("k", "int", low=1, high=3)]
    )
    with pytest.raises(ValueError, match="'lr'.*outside"):
        cube.encode({"lr": 2.0, "k": 1})
    with pytest.raises(ValueError, match="Missing.*'k'"):
        cube.encode({"lr": 0.5})
    with pytest.raises(ValueError, match="Unknown.*'zzz'"):
        cube.encode({"lr": 0.5, "k": 1, "zzz": 1})
    with pytest.raises(ValueError, match="not on its grid"):
        cube.params[1].encode(1.5)
    with pytest.raises(ValueError, match="shape"):
        cube.decode([0.5])
    with pytest.raises(ValueError, match="at least one"):
        UnitCube([])
    with pytest.raises(ValueError, match="twice"):
        UnitCube([ParamSpec("a", "int", low=0, high=1)] * 2)


# -- property tests of the round trips --------------------------------------------------------
finite = st.floats(-1e6, 1e6, allow_nan=False)


@st.composite
def float_spec_and_value(draw: Any) -> tuple[ParamSpec, float]:
    log = draw(st.booleans())
    if log:
        low = draw(st.floats(1e-8, 1e3))
        high = low * draw(st.floats(1.0, 1e6))
    else:
        low = draw(finite)
        high = low + draw(st.floats(0.0, 1e6))
    spec = ParamSpec("f", "float", low=low, high=high, log=log)
    value = draw(st.floats(low, high))
    return spec, value


@given(float_spec_and_value(), st.floats(0.0, 1.0))
@settings(max_examples=300, deadline=None)
def test_float_round_trips(sv: tuple[ParamSpec, float], u: float) -> None:
    spec, value = sv
    back = spec.decode(spec.encode(value))
    assert spec.low <= back <= spec.high
    assert math.isclose(back, value, rel_tol=1e-9, abs_tol=1e-9 * (spec.high - spec.low))
    decoded = spec.decode(u)
    assert isinstance(decoded, float) and spec.low <= decoded <= spec.high


@given(
    st.integers(-1000, 1000),
    st.integers(0, 50),
    st.integers(1, 7),
    st.booleans(),
    st.floats(0.0, 1.0),
)
@settings(max_examples=300, deadline=None)
def test_int_round_trips(low: int, k: int, step: int, log: bool, u: float) -> None:
    if log:
        low = abs(low) + 1
    spec = ParamSpec("i", "int", low=low, high=low + k * step, step=step, log=log)
    for j in range(k + 1):
        v = low + j * step
        assert spec.decode(spec.encode(v)) == v
    d = spec.decode(u)
    assert type(d) is int and (d - low) % step == 0 and spec.low <= d <= spec.high


@given(
    st.lists(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3)),
        min_size=1,
        max_size=12,
        unique_by=lambda c: (type(c), c),
    ),
    st.floats(0.0, 1.0),
)
@settings(max_examples=200, deadline=None)
def test_categorical_round_trips(choices: list, u: float) -> None:
    spec = ParamSpec("c", "categorical", choices=tuple(choices))
    for c in spec.choices:
        assert spec.decode(spec.encode(c)) is c
    assert any(spec.decode(u) is c for c in spec.choices)


def test_cube_round_trip_and_equality() -> None:
    specs = [
        ParamSpec("lr", "float", low=1e-4, high=4.0, log=True),
        ParamSpec("units", "int", low=10, high=784),
        ParamSpec("act", "categorical", choices=("relu", None, False)),
    ]
    cube = UnitCube(specs)
    params = {"lr": 1e-4, "units": 784, "act": False}
    x = cube.encode(params)
    assert x.shape == (3,)
    back = cube.decode(x)
    assert back["units"] == 784 and back["act"] is False and math.isclose(back["lr"], 1e-4)
    assert cube == UnitCube(list(specs)) and cube != UnitCube(specs[:2])


def test_log_bounds_with_equal_logarithms() -> None:
    # found by hypothesis: log(9.000000000000002) == log(9.0)
    spec = ParamSpec("f", "float", low=9.0, high=9.000000000000002, log=True)
    for v in (9.0, 9.000000000000002):
        assert spec.decode(spec.encode(v)) == v


@pytest.mark.parametrize(
    "spec",
    [
        ParamSpec("c", "categorical", choices=tuple(range(7))),
        ParamSpec("i", "int", low=-3, high=7),
        ParamSpec("wide", "int", low=0, high=2**40),
        ParamSpec("li", "int", low=1, high=1000, log=True),
        ParamSpec("sf", "float", low=0.0, high=1.0, step=0.1),
    ],
)
def test_bin_indices_and_centres_agree_with_the_scalar_forms(spec: ParamSpec) -> None:
    n = spec.n_values
    assert n is not None
    rng = np.random.default_rng(0)
    edges = [spec.bin_edge(j) for j in (0, 1, n // 2, n - 1, n)]
    near = [e + s for e in edges for s in (-1e-12, 0.0, 1e-12)]
    u = np.concatenate((rng.random(201), near, [-0.5, 1.5])).reshape(2, -1)
    expected = np.vectorize(spec.bin_index)(u)
    np.testing.assert_array_equal(spec.bin_indices(u), expected)
    for k in (0, n // 2, n - 1):
        assert spec.bin_centre(k) == spec.encode(spec.value_at(k))
        assert spec.bin_index(spec.bin_centre(k)) == k
    with pytest.raises(ValueError, match="must be an int in"):
        spec.bin_centre(n)


def test_bin_indices_and_centres_of_a_continuous_parameter_raise() -> None:
    spec = ParamSpec("f", "float", low=0.0, high=1.0)
    with pytest.raises(ValueError, match="'f' is continuous"):
        spec.bin_indices(np.array([0.5]))
    with pytest.raises(ValueError, match="'f' is continuous"):
        spec.bin_centre(0)


def test_value_cells_hold_exactly_the_coordinates_of_the_same_value() -> None:
    cube = UnitCube(
        [
            ParamSpec("f", "float", low=-2.0, high=3.0),
            ParamSpec("li", "int", low=1, high=1000, log=True),
            ParamSpec("sf", "float", low=0.0, high=1.0, step=0.25),
            ParamSpec("c", "categorical", choices=("a", "b", "c")),
            ParamSpec("one", "float", low=2.0, high=2.0),
        ]
    )
    X = np.random.default_rng(0).random((50, 5))
    X[0] = [0.0, 0.0, 0.0, 0.0, 0.0]
    X[1] = [1.0, 1.0, 1.0, 1.0, 1.0]
    lo, hi = cube.value_cells(X)
    np.testing.assert_array_equal(lo[:, 0], X[:, 0])  # a continuous column: the point
    np.testing.assert_array_equal(hi[:, 0], X[:, 0])
    assert np.all(np.isneginf(lo[:, 4]) & np.isposinf(hi[:, 4]))  # one value: everything
    assert np.all(np.isneginf(lo[0, 1:4]) & np.isposinf(hi[1, 1:4]))  # the cube's ends
    for i in range(X.shape[0]):
        for j in (1, 2, 3):
            p, value = cube.params[j], cube.params[j].decode(X[i, j])
            assert lo[i, j] <= X[i, j] < hi[i, j] or X[i, j] == 1.0
            if np.isfinite(lo[i, j]):  # the cell's first coordinate, and the one before it
                assert p.decode(lo[i, j]) == value
                assert p.decode(np.nextafter(lo[i, j], -np.inf)) != value
            if np.isfinite(hi[i, j]):  # the cell's last coordinate, and its end
                assert p.decode(np.nextafter(hi[i, j], -np.inf)) == value
                assert p.decode(hi[i, j]) != value
