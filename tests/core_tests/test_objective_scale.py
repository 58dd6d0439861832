"""Objective values at the limits of a double, and very many parameters (issue 21, defects
1 to 3).

The local GP standardised the raw values with ``np.std``: its squares overflowed for values
near 1e160 (NaN posterior, then an empty ``argmax``: every later ask failed) and underflowed
to 0 for values near 1e-160 (a constant objective, silently).  ``RefitPartition`` listed a
leaf's cells with ``np.indices`` over every axis, and numpy arrays have at most 64 axes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._localgp import fit_gp
from optuna_treeucb.core._localgp import posterior
from optuna_treeucb.core._localgp import standardise
from optuna_treeucb.core._localgp import unit_scale

SPACE = [ParamSpec(f"x{i}", "float", low=-1.0, high=1.0) for i in range(3)]


def _run(scale: float, n: int = 40, seed: int = 0, big_at: int | None = None) -> list[list[float]]:
    """The asks of a local-GP TreeUCB minimising ``scale`` times a quadratic."""
    bandit = TreeUCB(SPACE, seed=seed, sampling="local_gp", direction="minimize")
    asked = []
    for i in range(n):
        p = bandit.ask()
        asked.append([p[s.name] for s in SPACE])
        value = scale * sum((p[s.name] - 0.3) ** 2 for s in SPACE)
        bandit.tell(p, 1e160 if i == big_at else value)
    return asked


@pytest.mark.parametrize("y", [[1.0, 2.5, -3.0, 7.25], [1e-3, 2e-3, 5e-4], [3.0, 3.0, 3.0]])
def test_standardise_gives_the_plain_formulas_bits_for_ordinary_values(y: list[float]) -> None:
    arr = np.array(y)
    z, mean, std = standardise(arr)
    plain_std = float(np.std(arr))
    plain = (arr - np.mean(arr)) / (plain_std if plain_std > 0 else 1.0)
    assert z.tobytes() == plain.tobytes()
    assert mean == float(np.mean(arr))
    assert std == (plain_std if plain_std > 0 else 1.0)


@pytest.mark.parametrize("scale", [1e300, 1e160, 1e-160, 1e-300, 5e-324])
def test_standardise_is_finite_and_free_of_scale(scale: float) -> None:
    y = np.array([1.0, 0.25, -0.5, 0.75])
    z, mean, std = standardise(scale * y)
    assert np.all(np.isfinite(z)) and math.isfinite(mean) and math.isfinite(std)
    if scale >= 1e-300:  # 5e-324 is the smallest subnormal: its multiples are coarse
        np.testing.assert_allclose(z, standardise(y)[0], rtol=1e-12)
    assert np.std(z) > 0.5  # not a constant objective


def test_unit_scale_is_a_power_of_two_into_half_to_one() -> None:
    for m in (1e308, 3.0, 1.0, 0.5, 1e-200, 5e-324):
        y, e = unit_scale(np.array([m, -m / 3]))
        assert 0.5 <= np.max(np.abs(y)) < 1.0
        assert y[0] == math.ldexp(m, -e)
    zeros = np.zeros(3)
    assert unit_scale(zeros)[0] is zeros


def test_a_gp_on_huge_values_has_a_finite_posterior() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((12, 2))
    y = 1e300 * np.sin(3 * X[:, 0])
    mean, var = posterior(fit_gp(X, unit_scale(y)[0]), rng.random((5, 2)))
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(var))


def test_one_diverged_value_does_not_break_later_asks() -> None:
    asked = _run(1.0, n=30, big_at=3)  # raised ValueError from the 10th ask on
    assert len(asked) == 30
    assert all(-1.0 <= v <= 1.0 for row in asked for v in row)


def test_the_widest_float_range_is_optimised_with_the_local_gp() -> None:
    space = [ParamSpec("x", "float", low=-1e308, high=1e308)]
    bandit = TreeUCB(space, seed=0, sampling="local_gp", direction="minimize")
    for _ in range(30):  # failed at the 10th ask: the values near 1e308 overflowed np.std
        p = bandit.ask()
        bandit.tell(p, abs(p["x"]))
    assert bandit.n_observations == 30
    assert abs(bandit.best_params["x"]) < 1e308


@pytest.mark.parametrize("e", [-990, -500, -1, 3, 500, 990])
def test_scaling_the_objective_by_a_power_of_two_gives_the_same_trials(e: int) -> None:
    assert _run(math.ldexp(1.0, e)) == _run(1.0)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-100, 1e100, 1e300])
def test_scaling_the_objective_keeps_the_trials_up_to_rounding(scale: float) -> None:
    """Any positive scale between 1e-300 and 1e300 gives the same trials up to rounding: at
    1e-200 the GP used to see a constant objective (np.std underflowed to 0)."""
    np.testing.assert_allclose(_run(scale, n=25), _run(1.0, n=25), rtol=0, atol=1e-6)


@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_five_hundred_parameters(rule: str) -> None:
    space = [ParamSpec(f"x{i}", "float", low=0.0, high=1.0) for i in range(500)]
    bandit = TreeUCB(space, seed=0, rule=rule, sampling="local_gp", direction="minimize")  # type: ignore[arg-type]
    for _ in range(15):  # np.indices failed at the first model-based ask beyond 63 columns
        p = bandit.ask()
        bandit.tell(p, sum((p[s.name] - 0.5) ** 2 for s in space[:5]))
    assert bandit.n_observations == 15
    assert len(bandit.fit_leaves().low) >= 1
