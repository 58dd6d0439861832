"""TreeUCB with constraint violations and several objectives (``direction`` a sequence)."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB


def _run(bandit: TreeUCB, n: int, violation: bool) -> list[np.ndarray]:
    asked = []
    for _ in range(n):
        x = bandit.ask_x()
        asked.append(x)
        value = -float(np.sum((x - 0.3) ** 2))
        if violation:
            bandit.tell_x(x, value, violation=0.0)
        else:
            bandit.tell_x(x, value)
    return asked


@pytest.mark.parametrize("sampling", ["uniform", "local_gp"])
def test_every_point_feasible_is_the_unconstrained_run_bit_for_bit(sampling: str) -> None:
    plain = _run(TreeUCB(2, seed=3, sampling=sampling, n_startup_trials=5), 25, violation=False)
    told = _run(TreeUCB(2, seed=3, sampling=sampling, n_startup_trials=5), 25, violation=True)
    np.testing.assert_array_equal(np.array(plain), np.array(told))


def test_infeasible_observations_rank_below_feasible_ones_by_violation() -> None:
    bandit = TreeUCB(1, seed=0)
    for x, value, violation in [
        (0.1, 1.0, 0.0),
        (0.2, 2.0, 0.0),
        (0.3, 4.0, 2.0),
        (0.4, 3.0, 1.0),
    ]:
        bandit.tell_x([x], value, violation=violation)
    # ranks: violation 2 -> 1, violation 1 -> 2, then the feasible by value: 3, 4; (r - 1/2) / 4
    np.testing.assert_allclose(bandit.rewards(), [0.625, 0.875, 0.125, 0.375])
    assert bandit.best_params == {"x0": 0.2}  # the best feasible, not the largest value
    np.testing.assert_array_equal(bandit.violations, [0.0, 0.0, 2.0, 1.0])


def test_while_none_is_feasible_the_best_is_the_least_violating() -> None:
    bandit = TreeUCB(1, seed=0, direction="minimize")
    bandit.tell_many([[0.1], [0.2], [0.3]], [0.0, 1.0, 2.0], violations=[3.0, 0.5, 1.0])
    assert bandit.best_params == {"x0": 0.2}


def test_two_objectives_front_points_get_the_top_rewards() -> None:
    bandit = TreeUCB(1, seed=0, direction=["minimize", "maximize"])
    told = [(0.1, (1.0, 1.0)), (0.2, (2.0, 2.0)), (0.3, (2.0, 0.0)), (0.4, (3.0, 1.0))]
    for x, values in told:
        bandit.tell({"x0": x}, values)
    r = bandit.rewards()
    # (1, 1) and (2, 2) are the front; (2, 0) and (3, 1) are dominated by (1, 1)
    assert set(np.argsort(r)[-2:].tolist()) == {0, 1}
    assert r[:2].min() > r[2:].max()
    assert bandit.front_params == [{"x0": 0.1}, {"x0": 0.2}]
    np.testing.assert_array_equal(bandit.values, [v for _, v in told])
    assert bandit.direction == ("minimize", "maximize")
    with pytest.raises(RuntimeError, match="front_params"):
        _ = bandit.best_params


def test_an_infeasible_point_leaves_the_front() -> None:
    bandit = TreeUCB(1, seed=0, direction=["maximize", "maximize"])
    bandit.tell_many([[0.1], [0.2], [0.3]], [[3.0, 3.0], [1.0, 2.0], [2.0, 1.0]], [None] * 3)
    assert bandit.front_params == [{"x0": 0.1}]
    bandit.tell_many([[0.4]], [[0.0, 0.0]])
    bandit2 = TreeUCB(1, seed=0, direction=["maximize", "maximize"])
    bandit2.tell_many(
        [[0.1], [0.2], [0.3]], [[3.0, 3.0], [1.0, 2.0], [2.0, 1.0]], violations=[1.0, 0, 0]
    )
    assert bandit2.front_params == [{"x0": 0.2}, {"x0": 0.3}]
    assert bandit2.rewards()[0] == bandit2.rewards().min()


@pytest.mark.parametrize("sampling", ["uniform", "trust_region", "local_gp"])
def test_several_objectives_and_violations_run_reproducibly_and_pickle(sampling: str) -> None:
    def f(x: np.ndarray) -> tuple[tuple[float, float], float]:
        return (float(np.sum(x**2)), float(np.sum((x - 1) ** 2))), max(0.0, x[0] - 0.7)

    def run(bandit: TreeUCB, n: int) -> list[np.ndarray]:
        out = []
        for _ in range(n):
            x = bandit.ask_x()
            values, violation = f(x)
            bandit.tell_x(x, values, violation=violation)
            out.append(x)
        return out

    a = TreeUCB(2, seed=1, sampling=sampling, n_startup_trials=5, direction=["minimize"] * 2)
    b = TreeUCB(2, seed=1, sampling=sampling, n_startup_trials=5, direction=["minimize"] * 2)
    run(a, 15)
    run(b, 15)
    c = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(np.array(run(a, 10)), np.array(run(c, 10)))
    assert all(0.0 <= r <= 1.0 for r in a.rewards())


def test_a_nan_among_the_objectives_is_ignored_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bandit = TreeUCB(1, direction=["minimize", "minimize"])
    with caplog.at_level(logging.WARNING, logger="optuna_treeucb"):
        bandit.tell_x([0.5], [1.0, float("nan")])
    assert bandit.n_observations == 0
    assert "NaN" in caplog.text


@pytest.mark.parametrize(
    ("direction", "error", "match"),
    [
        ([], ValueError, "'direction' parameter of TreeUCB .* non-empty .* Got \\[\\]"),
        (["minimize", "min"], ValueError, "'direction' .* Got 'min'"),
        (["minimize", 1], TypeError, "'direction' .* Got 1"),
    ],
)
def test_bad_directions_name_the_parameter(direction: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCB(2, direction=direction)  # type: ignore[arg-type]


def test_bad_values_and_violations_raise_clear_errors() -> None:
    bandit = TreeUCB(2, direction=["minimize", "maximize"])
    with pytest.raises(
        ValueError,
        match="'value' .*TreeUCB.tell must be 2 real numbers, one per objective.*Got 1.0",
    ):
        bandit.tell_x([0.1, 0.2], 1.0)
    with pytest.raises(ValueError, match="2 real numbers.*Got \\[1.0, 2.0, 3.0\\]"):
        bandit.tell({"x0": 0.1, "x1": 0.2}, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="shape \\(3, 2\\), a row per row of X"):
        bandit.tell_many(np.zeros((3, 2)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="'violation' parameter of TreeUCB.tell .*>= 0.*Got -1"):
        bandit.tell_x([0.1, 0.2], [1.0, 2.0], violation=-1.0)
    with pytest.raises(ValueError, match="'violation' .*Got nan"):
        bandit.tell_x([0.1, 0.2], [1.0, 2.0], violation=float("nan"))
    with pytest.raises(ValueError, match="'violations' parameter of TreeUCB.tell_many"):
        bandit.tell_many(np.zeros((3, 2)), np.zeros((3, 2)), violations=[0.0, 1.0])
    assert bandit.n_observations == 0


def test_constraint_values_sum_to_the_violation_the_core_keeps() -> None:
    bandit = TreeUCB(1, seed=0)
    bandit.tell_x([0.1], 1.0, constraints=[-1.0, 0.5])
    bandit.tell({"x0": 0.2}, 2.0, constraints=[2.0, 0.25])
    bandit.tell_many([[0.3], [0.4]], [3.0, 4.0], constraints=[[-1.0, -2.0], [0.0, -0.5]])
    np.testing.assert_array_equal(bandit.violations, [0.5, 2.25, 0.0, 0.0])
    np.testing.assert_array_equal(bandit.constraints, [[-1, 0.5], [2, 0.25], [-1, -2], [0, -0.5]])
    assert bandit.best_params == {"x0": 0.4}  # the best feasible
    with pytest.raises(ValueError, match="a violation or constraint values, not both"):
        bandit.tell_x([0.5], 1.0, violation=1.0, constraints=[1.0])
    with pytest.raises(ValueError, match="'constraints' parameter of TreeUCB.tell_x .*Got \\[\\]"):
        bandit.tell_x([0.5], 1.0, constraints=[])
    with pytest.raises(ValueError, match="'constraints' .*shape \\(2, c\\)"):
        bandit.tell_many([[0.5], [0.6]], [1.0, 2.0], constraints=[1.0, 2.0])
    with pytest.raises(ValueError, match="'constraints' .*no NaN"):
        bandit.tell_x([0.5], 1.0, constraints=[float("nan")])
    assert bandit.n_observations == 4


@pytest.mark.parametrize("how", ["each", "total"])
def test_scbo_in_the_region_finds_the_constrained_optimum(how: str) -> None:
    # minimise (x - 0.9)^2 + (y - 0.9)^2 subject to x + y <= 1: the optimum is (0.5, 0.5)
    bandit = TreeUCB(2, seed=0, direction="minimize", sampling="local_gp")
    for _ in range(60):
        x = bandit.ask_x()
        g = float(x[0] + x[1] - 1.0)
        value = float(np.sum((x - 0.9) ** 2))
        if how == "each":
            bandit.tell_x(x, value, constraints=[g])
        else:
            bandit.tell_x(x, value, violation=max(g, 0.0))
    best = bandit.best_x
    assert best.sum() <= 1.0
    assert np.sum((best - 0.9) ** 2) < 0.32 + 0.02  # the optimum's value is 0.32


def test_constraints_are_forgotten_once_a_row_lacks_them_or_has_another_number() -> None:
    bandit = TreeUCB(1, seed=0)
    bandit.tell_x([0.1], 1.0, constraints=[1.0, 2.0])
    bandit.tell_x([0.2], 1.0, constraints=[1.0])  # another number: the total alone from now on
    assert bandit.constraints is None
    np.testing.assert_array_equal(bandit.violations, [3.0, 1.0])
    other = TreeUCB(1, seed=0)
    other.tell_x([0.1], 1.0, violation=1.0)
    other.tell_x([0.2], 1.0, constraints=[1.0])
    assert other.constraints is None


@pytest.mark.parametrize(
    ("sampling", "index"),
    [("uniform", "hoeffding"), ("local_gp", "hoeffding"), ("uniform", "soft_gp")],
)
@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_one_direction_in_a_list_is_the_plain_string(
    sampling: str, index: str, direction: str
) -> None:
    # the faces hand the core one direction per objective, always: a list of one must run the
    # very bandit the string runs, and read the same
    runs = []
    for given in (direction, [direction], (direction,)):
        bandit = TreeUCB(
            2, seed=5, direction=given, sampling=sampling, index=index, n_startup_trials=5
        )  # type: ignore[arg-type]
        asked = []
        for i in range(25):
            params = bandit.ask(key=i)
            asked.append(params)
            bandit.tell(params, (params["x0"] - 0.3) ** 2 + params["x1"], key=i)
        assert bandit.direction == direction  # the string, however it was given
        assert bandit.values.shape == (25,)
        runs.append((asked, bandit.rewards().tolist(), bandit.best_params))
    assert runs[0] == runs[1] == runs[2]
