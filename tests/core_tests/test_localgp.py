from __future__ import annotations

import math
import pickle
from collections.abc import Callable

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import optuna_treeucb.core._inbox as inbox_module
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._localgp import FINE_NOISE_RATIOS
from optuna_treeucb.core._localgp import NOISE_RATIOS
from optuna_treeucb.core._localgp import condition_on_pending
from optuna_treeucb.core._localgp import fit_gp
from optuna_treeucb.core._localgp import fit_gp_fixed
from optuna_treeucb.core._localgp import in_cells
from optuna_treeucb.core._localgp import matern52
from optuna_treeucb.core._localgp import mean_optimum
from optuna_treeucb.core._localgp import nearest
from optuna_treeucb.core._localgp import posterior
from optuna_treeucb.core._localgp import posterior_mean
from optuna_treeucb.core._localgp import posterior_mean_grad
from optuna_treeucb.core._localgp import region_candidates
from optuna_treeucb.core._localgp import thompson_sample
from optuna_treeucb.core._partition import RefitPartition


# -- the GP against hand-computed values ------------------------------------------------------
def test_matern52_by_hand() -> None:
    # r = sqrt(5) * 0.5 / 0.5 = sqrt(5): (1 + sqrt(5) + 5 / 3) exp(-sqrt(5))
    K = matern52(np.array([[0.0, 0.0]]), np.array([[0.3, 0.4], [0.0, 0.0]]), 0.5)
    expected = (1 + math.sqrt(5) + 5 / 3) * math.exp(-math.sqrt(5))
    np.testing.assert_allclose(K, [[expected, 1.0]], rtol=1e-12)


def test_one_point_posterior_by_hand() -> None:
    # one observation: the mean is the value everywhere; at the point the latent variance is
    # s2 (1 - 1 / (1 + lam)) = s2 lam / (1 + lam), and far away it is the prior's s2
    gp = fit_gp_fixed(np.array([[0.3, 0.7]]), np.array([5.0]), ell=0.2, lam=0.25)
    mean, var = posterior(gp, np.array([[0.3, 0.7], [0.3, 0.2], [5.0, 5.0]]))
    np.testing.assert_allclose(mean, 5.0)
    np.testing.assert_allclose(var[0], gp.s2 * 0.25 / 1.25, rtol=1e-6)
    np.testing.assert_allclose(var[2], gp.s2, rtol=1e-6)
    assert var[0] < var[1] < var[2]


def test_two_point_posterior_by_hand() -> None:
    # y = (0, 2) standardises to z = (-1, 1), an eigenvector of A = [[1 + lam, c], [c, 1 + lam]]
    # with eigenvalue 1 + lam - c; k* = (c, 1) at x = 1 splits as a (1, 1) + b (-1, 1).
    ell, lam = 0.7, 0.1
    c = float(matern52(np.zeros((1, 1)), np.ones((1, 1)), ell)[0, 0])
    gp = fit_gp_fixed(np.array([[0.0], [1.0]]), np.array([0.0, 2.0]), ell, lam)
    s2 = 1.0 / (1.0 + lam - c)  # z^T A^-1 z / n
    assert gp.s2 == pytest.approx(s2, rel=1e-6)
    mean, var = posterior(gp, np.array([[1.0]]))
    assert mean[0] == pytest.approx(1.0 + (1.0 - c) / (1.0 + lam - c), rel=1e-6)
    a, b = (1.0 + c) / 2.0, (1.0 - c) / 2.0
    quad = 2 * a * a / (1.0 + lam + c) + 2 * b * b / (1.0 + lam - c)
    assert var[0] == pytest.approx(s2 * (1.0 - quad), rel=1e-6)


def test_likelihood_tells_noise_from_signal() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    smooth = fit_gp(X, np.sin(3.0 * X[:, 0]) + np.cos(2.0 * X[:, 1]))
    noise = fit_gp(X, rng.standard_normal(40))
    assert smooth.lam <= 1e-2
    assert noise.lam == max(NOISE_RATIOS)


def test_fine_noise_grid_interpolates_a_noise_free_objective() -> None:
    # a noise-free quadratic: on the fine grid the likelihood takes its smallest noise ratio,
    # below the default grid's 1e-3 floor, and inside the data the mean is closer to the
    # function than the same fit with that floor
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))

    def f(P: np.ndarray) -> np.ndarray:
        return -np.sum((P - 0.4) ** 2, axis=1)

    assert fit_gp(X, f(X)).lam == min(NOISE_RATIOS) == 1e-3
    gp = fit_gp(X, f(X), noise_ratios=FINE_NOISE_RATIOS)
    assert gp.lam == min(FINE_NOISE_RATIOS) < 1e-3
    floor = fit_gp_fixed(X, f(X), gp.ell, 1e-3)
    T = 0.25 + 0.3 * rng.random((2000, 3))
    error = np.max(np.abs(posterior_mean(gp, T) - f(T)))
    assert error < 0.75 * np.max(np.abs(posterior_mean(floor, T) - f(T)))


def test_pending_fantasies_keep_the_mean_and_shrink_the_variance() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((20, 2))
    gp = fit_gp(X, -np.sum((X - 0.5) ** 2, axis=1))
    P = np.array([[0.2, 0.8]])
    grid = rng.random((30, 2))
    m0, v0 = posterior(gp, np.vstack((P, grid)))
    m1, v1 = posterior(condition_on_pending(gp, P), np.vstack((P, grid)))
    np.testing.assert_allclose(m1, m0, atol=1e-6)
    assert v1[0] < 0.5 * v0[0]
    assert np.all(v1 <= v0 + 1e-9)


def test_kriging_believer_by_hand() -> None:
    # observations at a (value 1) and at a point too far to correlate (value 3), so z = (-1, 1)
    # and s2 = z^T A^-1 z / 2 = 1 / (1 + lam); one pending point p, c = k(a, p).  Before: mean
    # 2 - c / (1 + lam), variance s2 (1 - c^2 / (1 + lam)).  The fantasy at p is the posterior
    # mean there, so the mean stays; with A = [[1 + lam, c], [c, 1 + lam]] and k* = (c, 1)
    # the variance becomes s2 (1 - k*^T A^-1 k*), k*^T A^-1 k* = ((1 + lam) (1 + c^2) - 2 c^2)
    # / ((1 + lam)^2 - c^2)
    ell, lam = 0.5, 0.01
    a, p = np.array([[0.3, 0.7]]), np.array([[0.6, 0.3]])
    c = float(matern52(a, p, ell)[0, 0])
    gp = fit_gp_fixed(np.vstack((a, [[40.0, 40.0]])), np.array([1.0, 3.0]), ell, lam)
    s2 = 1.0 / (1.0 + lam)
    assert gp.s2 == pytest.approx(s2, rel=1e-6)
    m0, v0 = posterior(gp, p)
    assert m0[0] == pytest.approx(2.0 - c / (1.0 + lam), rel=1e-6)
    m1, v1 = posterior(condition_on_pending(gp, p), p)
    assert v0[0] == pytest.approx(s2 * (1.0 - c * c / (1.0 + lam)), rel=1e-6)
    quad = ((1.0 + lam) * (1.0 + c * c) - 2.0 * c * c) / ((1.0 + lam) ** 2 - c * c)
    assert v1[0] == pytest.approx(s2 * (1.0 - quad), rel=1e-6)
    assert m1[0] == pytest.approx(m0[0], abs=1e-9)
    # far from every observation (c -> 0) the fantasy leaves the noise level at p:
    # s2 (1 - 1 / (1 + lam)) = s2 lam / (1 + lam)
    far = np.array([[9.0, 9.0]])
    _, v_far = posterior(condition_on_pending(gp, far), far)
    assert v_far[0] == pytest.approx(s2 * lam / (1.0 + lam), rel=1e-6)


def test_thompson_draws_average_to_the_posterior_mean() -> None:
    rng = np.random.default_rng(2)
    X = rng.random((15, 3))
    gp = fit_gp(X, X @ np.array([1.0, -2.0, 0.5]))
    C = rng.random((10, 3))
    with threadpool_limits(limits=1, user_api="blas"):  # small solves: one thread is fastest
        draws = np.array([thompson_sample(gp, C, rng) for _ in range(300)])
    mean, var = posterior(gp, C)
    se = np.sqrt(var / 300)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * se + 1e-9)
    again = thompson_sample(gp, C, np.random.default_rng(3))
    np.testing.assert_array_equal(again, thompson_sample(gp, C, np.random.default_rng(3)))


def test_nearest_breaks_ties_by_index_and_candidates_stay_in_the_region() -> None:
    X = np.array([[0.5, 0.5], [0.1, 0.1], [0.9, 0.9], [0.5, 0.5], [0.4, 0.5]])
    np.testing.assert_array_equal(nearest(X, np.array([0.5, 0.5]), 3), [0, 3, 4])
    np.testing.assert_array_equal(nearest(X, np.array([0.5, 0.5]), 9), [0, 3, 4, 1, 2])
    lo, hi = np.array([0.2, 0.4]), np.array([0.3, 0.9])
    cand = region_candidates(np.random.default_rng(0), lo, hi, np.array([0.25, 0.5]), 100)
    assert cand.shape == (100, 2) and np.all(cand >= lo) and np.all(cand <= hi)


# -- sampling="local_gp" inside TreeUCB ------------------------------------------------------
def _rotated_quadratic(d: int) -> tuple[np.ndarray, object]:
    Q = np.linalg.qr(np.random.default_rng(d).standard_normal((d, d)))[0]
    scales = np.logspace(0, 2, d)
    opt = np.full(d, 0.37)

    def f(x: np.ndarray) -> float:
        z = Q @ (x - opt)
        return -float(np.sum(scales * z * z))

    return opt, f


def test_local_gp_draws_approach_a_rotated_optimum_faster_than_uniform() -> None:
    # an ill-conditioned quadratic (axis scales 1 to 100) in a random rotation of 5-D
    d = 5
    opt, f = _rotated_quadratic(d)

    def last_distance(sampling: str) -> float:
        dist = []
        for seed in (0, 1):
            bandit = TreeUCB(d, seed=seed, sampling=sampling)  # type: ignore[arg-type]
            for t in range(80):
                x = bandit.ask_x()
                if t >= 60:
                    dist.append(np.linalg.norm(x - opt))
                bandit.tell_x(x, f(x))  # type: ignore[operator]
        return float(np.median(dist))

    assert last_distance("local_gp") < 0.5 * last_distance("uniform")


def test_local_gp_centre_is_the_best_posterior_mean_under_noise() -> None:
    # one box (no splits): a lucky value far from the optimum is the best raw value, but the
    # trust region is centred on the best posterior mean, near the optimum 0.5
    bandit = TreeUCB(2, seed=0, sampling="local_gp", n_startup_trials=5)
    bandit.partition = RefitPartition(2, min_impurity_decrease=1e9, cap_gamma=None)
    rng = np.random.default_rng(0)
    X = rng.random((60, 2))
    values = -np.sum((X - 0.5) ** 2, axis=1) + 0.01 * rng.standard_normal(60)
    lucky = int(np.argmax(np.sum((X - 0.5) ** 2, axis=1)))  # the worst point ...
    values[lucky] = values.max() + 0.05  # ... told as the best
    bandit.tell_many(X, values)
    assert bandit.fit_leaves().low.shape[0] == 1
    asked = np.array([bandit.ask_x() for _ in range(10)])
    to_lucky = np.linalg.norm(asked - X[lucky], axis=1)
    to_opt = np.linalg.norm(asked - 0.5, axis=1)
    assert np.median(to_opt) < 0.5 * np.median(to_lucky)


def test_local_gp_concurrent_asks_are_as_good_as_independent_ones() -> None:
    # one box (no splits), 16 concurrent asks after 40 tells of a rotated 3-D quadratic: the
    # pending points are kriging-believer fantasies, so the concurrent asks are about as good
    # as 16 independent draws from the same state; a constant liar at the lowest local value
    # pushed them out of the good part of the region (median value -0.121 against -0.075)
    d, k = 3, 16
    opt, f = _rotated_quadratic(d)

    def median_value(concurrent: bool) -> float:
        values, gaps = [], []
        for seed in range(4):
            bandit = TreeUCB(d, seed=seed, sampling="local_gp")
            bandit.partition = RefitPartition(d, min_impurity_decrease=1e9, cap_gamma=None)
            for _ in range(40):
                x = bandit.ask_x()
                bandit.tell_x(x, f(x))  # type: ignore[operator]
            asked = []
            for _ in range(k):
                asked.append(bandit.ask_x())
                if not concurrent:
                    bandit.forget_pending(asked[-1])
            A = np.array(asked)
            values.append(np.median([f(x) for x in A]))  # type: ignore[operator]
            gaps.append(np.min(np.linalg.norm(A[:, None] - A[None], axis=2) + np.eye(k)))
        assert min(gaps) > 0.0  # no pending point is asked again
        return float(np.mean(values))

    independent = median_value(False)
    assert independent < 0.0
    assert median_value(True) > 1.25 * independent


def test_local_gp_keeps_discrete_columns_and_contexts() -> None:
    space = [
        ParamSpec("x", "float", low=0.0, high=1.0),
        ParamSpec("y", "float", low=0.0, high=1.0),
        ParamSpec("k", "int", low=0, high=3),
    ]
    bandit = TreeUCB(space, seed=0, n_startup_trials=5, sampling="local_gp")
    for t in range(40):
        p = bandit.ask({"k": t % 4})
        assert p["k"] == t % 4 and 0.0 <= p["x"] <= 1.0
        bandit.tell(p, -((p["x"] - 0.2 * p["k"]) ** 2) - (p["y"] - 0.5) ** 2)


def test_local_gp_handles_infinite_and_constant_values() -> None:
    bandit = TreeUCB(2, seed=0, sampling="local_gp", n_startup_trials=3)
    for t in range(20):
        x = bandit.ask_x()
        bandit.tell_x(x, -math.inf if t % 3 == 0 else 1.0)
    x = bandit.ask_x()
    assert np.all((x >= 0.0) & (x <= 1.0))


def test_local_gp_in_the_option_errors() -> None:
    with pytest.raises(ValueError, match=r"'local_gp'\]\. Got 'gp' instead"):
        TreeUCB(2, sampling="gp")  # type: ignore[arg-type]


def test_fit_gp_reuses_the_factor_fit_gp_fixed_computes() -> None:
    # the grid's factor of the chosen pair is kept: the same GP as refitting that pair
    rng = np.random.default_rng(3)
    X = rng.random((30, 4))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.normal(size=30)
    gp = fit_gp(X, y)
    again = fit_gp_fixed(X, y, gp.ell, gp.lam)
    assert np.array_equal(gp.chol, again.chol) and np.array_equal(gp.weights, again.weights)
    assert (gp.s2, gp.y_mean, gp.y_std) == (again.s2, again.y_mean, again.y_std)


def test_in_cells_by_hand() -> None:
    # column 0 continuous (a point cell), column 1 a bin [0.25, 0.5)
    lo = np.array([[0.3, 0.25]])
    hi = np.array([[0.3, 0.5]])
    C = np.array([[0.3, 0.25], [0.3, 0.4999], [0.3, 0.5], [0.3000001, 0.3], [0.9, 0.9]])
    np.testing.assert_array_equal(in_cells(C, lo, hi), [True, True, False, False, False])
    assert not in_cells(C, np.zeros((0, 2)), np.zeros((0, 2))).any()


def test_joint_draw_of_the_best_upper_bounds_only() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    gp = fit_gp(X, -np.sum((X - 0.5) ** 2, axis=1))
    C = rng.random((100, 2))
    score = thompson_sample(gp, C, np.random.default_rng(1), n_joint=10)
    mean, var = posterior(gp, C)
    ucb = (mean - gp.y_mean) / gp.y_std + 3.0 * np.sqrt(var) / gp.y_std
    drawn = np.isfinite(score)
    assert drawn.sum() == 10 and np.min(ucb[drawn]) >= np.max(ucb[~drawn])
    # n_joint >= m is the full joint draw, normal for normal
    full = thompson_sample(gp, C, np.random.default_rng(1))
    np.testing.assert_array_equal(full, thompson_sample(gp, C, np.random.default_rng(1), 100))


def test_the_joint_draw_takes_the_best_means_too() -> None:
    # a candidate at an observation of the best value is sure (small variance): among many
    # uncertain ones its upper bound is never in the top n_joint, so it was never drawn
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    gp = fit_gp(X, -np.sum((X - 0.5) ** 2, axis=1))
    best = X[[int(np.argmax(-np.sum((X - 0.5) ** 2, axis=1)))]]
    C = np.vstack((best, rng.random((100, 2)) * 6.0 - 2.5))  # far, uncertain candidates
    mean, var = posterior(gp, C)
    ucb = mean / gp.y_std + 3.0 * np.sqrt(var) / gp.y_std
    assert int(np.argmax(mean)) == 0 and int(np.sum(ucb > ucb[0])) >= 10
    assert not np.isfinite(thompson_sample(gp, C, np.random.default_rng(1), n_joint=10)[0])
    score = thompson_sample(gp, C, np.random.default_rng(1), n_joint=10, n_mean=3)
    drawn = np.flatnonzero(np.isfinite(score))
    top_mean = set(np.argsort(-mean, kind="stable")[:3].tolist())
    assert top_mean <= set(drawn.tolist()) and 10 < drawn.size <= 13
    # n_mean=0 is the draw as before, bit for bit
    np.testing.assert_array_equal(
        thompson_sample(gp, C, np.random.default_rng(1), n_joint=10),
        thompson_sample(gp, C, np.random.default_rng(1), n_joint=10, n_mean=0),
    )


def _ask_with_candidates(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[TreeUCB], np.ndarray]
) -> tuple[TreeUCB, np.ndarray]:
    """A bandit on a float and an int, told values until an ask scores ``make(bandit)``."""
    space = [ParamSpec("x", "float", low=0.0, high=1.0), ParamSpec("k", "int", low=0, high=4)]
    bandit = TreeUCB(space, seed=0, n_startup_trials=5, sampling="local_gp")
    used = []

    def candidates(*args: object) -> np.ndarray:
        used.append(True)
        return make(bandit)

    monkeypatch.setattr(inbox_module, "region_candidates", candidates)
    # the candidates are these alone: no one-column neighbours of the centre
    monkeypatch.setattr(inbox_module, "neighbours", lambda specs, c, *a: np.empty((0, c.size)))
    for _ in range(30):
        x = bandit.ask_x()
        if used:  # else the ask was in an empty box or a start-up one
            return bandit, x
        bandit.tell_x(x, -((x[0] - 0.3) ** 2) - 0.1 * x[1])
    raise AssertionError("no ask of the local GP")


def test_local_gp_skips_candidates_that_repeat_a_point(monkeypatch: pytest.MonkeyPatch) -> None:
    # every candidate but one repeats an observed point (its int by bin only) or a pending one
    def make(bandit: TreeUCB) -> np.ndarray:
        bandit.add_pending([0.77, 0.1])
        seen = bandit.X[:5] + [0.0, 0.05]  # the same bins of k
        return np.vstack([seen, [[0.77, 0.15]], [[0.123, 0.5]], seen])

    bandit, x = _ask_with_candidates(monkeypatch, make)
    np.testing.assert_array_equal(x, [0.123, 0.5])


def test_local_gp_draws_in_the_box_when_every_candidate_repeats_a_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bandit, x = _ask_with_candidates(monkeypatch, lambda b: np.repeat(b.X[:1], 8, axis=0))
    # a uniform draw in the box, not a repeat of the candidate
    assert not np.any(np.all(bandit.X == x, axis=1))


def test_local_gp_repeats_a_point_when_the_box_has_no_other() -> None:
    # a single value: nothing new to ask, and no error
    bandit = TreeUCB(
        [ParamSpec("k", "int", low=3, high=3)], seed=0, n_startup_trials=1, sampling="local_gp"
    )
    for _ in range(5):
        bandit.tell(bandit.ask(), 1.0)
    assert bandit.ask() == {"k": 3}


def test_local_gp_draws_are_a_function_of_the_data() -> None:
    # a core told the same observations at once draws what the core asked along the way draws
    bandit = TreeUCB(3, seed=0, n_startup_trials=5, sampling="local_gp")
    for _ in range(33):
        x = bandit.ask_x()
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)))
    rebuilt = TreeUCB(3, seed=0, n_startup_trials=5, sampling="local_gp")
    rebuilt.tell_many(bandit.X, bandit.values)
    for seed in range(5):
        bandit.reseed(seed)
        rebuilt.reseed(seed)
        x = bandit.ask_x()
        np.testing.assert_array_equal(x, rebuilt.ask_x())
        bandit.forget_pending(x)
        rebuilt.forget_pending(x)


def test_posterior_mean_is_the_posteriors() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    gp = fit_gp(X, np.sin(5 * X[:, 0]))
    C = rng.random((7, 3))
    np.testing.assert_array_equal(posterior_mean(gp, C), posterior(gp, C)[0])


def test_local_gp_after_pickling_under_pruned_context() -> None:
    # the observations' value cells are dropped on pickling and rebuilt in the parameters'
    # cube, which is narrower than the model's (the budget column)
    bandit = TreeUCB(3, seed=1, pruned="context", max_budget=27, sampling="local_gp")
    for t in range(30):
        x = bandit.ask_x()
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)), budget=None if t % 2 else 3)
    again = pickle.loads(pickle.dumps(bandit))
    bandit.reseed(0)
    again.reseed(0)
    np.testing.assert_array_equal(again.ask_x(), bandit.ask_x())


def test_posterior_mean_gradient_matches_central_differences() -> None:
    rng = np.random.default_rng(3)
    X = rng.random((25, 3))
    gp = fit_gp(X, np.sin(4 * X[:, 0]) + X[:, 1] * X[:, 2])
    C = rng.random((6, 3))
    mean, grad = posterior_mean_grad(gp, C)
    np.testing.assert_allclose(mean, posterior_mean(gp, C), rtol=1e-12)
    h = 1e-6
    fd = np.column_stack(
        [
            (posterior_mean(gp, C + h * e) - posterior_mean(gp, C - h * e)) / (2 * h)
            for e in np.eye(3)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)


def test_mean_optimum_is_the_best_feasible_mean_on_a_grid() -> None:
    # maximise a bowl's mean at (0.7, 0.7) subject to the mean of -(x + y - 1) being >= 0: the
    # optimum lies on the constraint's boundary, which no grid point meets exactly; the third
    # column is not free and keeps the start's value
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    objective = fit_gp(X, -np.sum((X[:, :2] - 0.7) ** 2, axis=1))
    constraint = fit_gp(X, 1.0 - X[:, 0] - X[:, 1])
    x0 = np.array([0.2, 0.3, 0.45])
    lo, hi = np.zeros(3), np.ones(3)
    x = mean_optimum(objective, [constraint], x0, lo, hi, np.array([True, True, False]))
    assert x[2] == 0.45 and np.all((x >= lo) & (x <= hi))
    assert posterior_mean(constraint, x[None])[0] >= -1e-6  # on the boundary, from inside
    g = np.linspace(0.0, 1.0, 201)
    grid = np.column_stack([np.repeat(g, g.size), np.tile(g, g.size), np.full(g.size**2, 0.45)])
    ok = posterior_mean(constraint, grid) >= 0.0
    best_on_grid = posterior_mean(objective, grid[ok]).max()
    assert posterior_mean(objective, x[None])[0] >= best_on_grid - 1e-6
    assert abs(x[0] + x[1] - 1.0) < 0.02  # the model's boundary is near the true one
