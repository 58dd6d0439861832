"""Bagged box means (``bagging``): bootstrap trees replace the box mean in the index."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._bagging import BaggedTrees


def _sphere(X: np.ndarray) -> np.ndarray:
    return -np.sum((np.atleast_2d(X) - 0.3) ** 2, axis=1)


def _data(n: int, d: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(0).random((n, d))
    return X, _sphere(X) + noise * np.random.default_rng(seed).standard_normal(n)


def _run(bandit: TreeUCB, n: int) -> list[np.ndarray]:
    out = []
    for _ in range(n):
        x = bandit.ask_x()
        bandit.tell_x(x, float(_sphere(x)[0]))
        out.append(x)
    return out


@pytest.mark.parametrize("refit_fraction", [0.0, 0.05])
def test_one_tree_without_bootstrap_gives_the_plain_box_means(refit_fraction: float) -> None:
    # without the diameter cap the boxes are the CART leaves, and one tree with every weight 1
    # is that CART: its value at a box's centre is the box's mean of today's rewards
    X, y = _data(80, 3, 0.1, 1)
    plain = TreeUCB(3, seed=0, cap_gamma=None, refit_fraction=refit_fraction)
    plain.tell_many(X, y)
    lv = plain.fit_leaves()
    bag = BaggedTrees(
        3,
        1,
        criterion="absolute_error",
        min_impurity_decrease=0.001,
        refit_fraction=refit_fraction,
        entropy=0,
        bootstrap=False,
    )
    r = plain.rewards()
    bag.update(X, r, plain._rewards_of)
    assert bag.n_fit == plain.partition._n_fit  # same schedule, so the same fits
    np.testing.assert_allclose(bag.box_means(lv.low, lv.high, r), lv.mean, rtol=1e-12)


def test_weights_are_poisson_and_follow_the_observations_not_their_delivery() -> None:
    args = dict(criterion="squared_error", min_impurity_decrease=0.0, refit_fraction=0.0)
    one, many = BaggedTrees(2, 4, entropy=7, **args), BaggedTrees(2, 4, entropy=7, **args)
    for n in range(1, 301, 37):
        one.weights(n)
    np.testing.assert_array_equal(one.weights(300), many.weights(300))
    W = many.weights(300)
    assert W.min() == 0 and np.all(W == np.round(W))
    assert abs(W.mean() - 1.0) < 0.1  # Poisson(1): the bootstrap's multiplicities
    assert abs(np.mean(W == 0) - np.exp(-1)) < 0.05
    other = BaggedTrees(2, 4, entropy=8, **args)
    assert not np.array_equal(other.weights(300), W)


def test_the_partition_is_unchanged_and_only_the_means_move() -> None:
    X, y = _data(120, 2, 0.2, 3)
    plain, bagged = TreeUCB(2, seed=0), TreeUCB(2, seed=0, bagging=5)
    plain.tell_many(X, y)
    bagged.tell_many(X, y)
    a, b = plain.fit_leaves(), bagged.fit_leaves()
    np.testing.assert_array_equal(a.low, b.low)
    np.testing.assert_array_equal(a.high, b.high)
    np.testing.assert_array_equal(a.n_obs, b.n_obs)
    occupied = a.n_obs > 0
    assert not np.allclose(a.mean[occupied], b.mean[occupied])
    assert np.all((b.mean[occupied] >= 0.0) & (b.mean[occupied] <= 1.0))  # means of rewards
    np.testing.assert_array_equal(np.isnan(a.mean), np.isnan(b.mean))  # empty boxes stay empty


def _box_means_at_probes(bagging: int | None) -> np.ndarray:
    """Box means of the boxes holding 10 fixed observations, over 20 draws of the noise."""
    out = []
    for seed in range(20):
        X, y = _data(150, 2, 0.2, 100 + seed)
        bandit = TreeUCB(2, seed=seed, bagging=bagging)
        bandit.tell_many(X, y)
        lv = bandit.fit_leaves()
        out.append(lv.mean[bandit.partition.leaf_of[:10]])
    return np.array(out)


def test_bagged_means_vary_less_across_noise_draws() -> None:
    # the same points, the noise drawn anew: the box of a point has a mean that is mostly
    # noise; the bagged mean pools overlapping leaves of ten bootstrap trees (0.58 here)
    plain, bagged = _box_means_at_probes(None), _box_means_at_probes(10)
    assert bagged.var(axis=0).mean() < 0.75 * plain.var(axis=0).mean()
    # and it still tells the optimum's region from the rest: a noiseless reference ranks alike
    truth = _sphere(np.random.default_rng(0).random((150, 2))[:10])
    assert np.corrcoef(bagged.mean(axis=0), truth)[0, 1] > 0.8


@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_seeded_runs_repeat_pickles_continue_and_rebuilds_agree(rule: str) -> None:
    # the uniform in-box draw keeps the test fast; bagging acts on the box choice only
    a = TreeUCB(3, seed=4, rule=rule, bagging=3, sampling="uniform")  # type: ignore[arg-type]
    b = TreeUCB(3, seed=4, rule=rule, bagging=3, sampling="uniform")  # type: ignore[arg-type]
    np.testing.assert_array_equal(_run(a, 40), _run(b, 40))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(_run(a, 20), _run(c, 20))
    # the trees depend on the seed and the observations only, not on how they arrived
    rebuilt = TreeUCB(3, seed=4, rule=rule, bagging=3, sampling="uniform")  # type: ignore[arg-type]
    rebuilt.tell_many(a.X, a.values)
    np.testing.assert_array_equal(rebuilt.fit_leaves().mean, a.fit_leaves().mean)


def test_bagging_changes_the_asks_and_another_seed_other_trees() -> None:
    plain = _run(TreeUCB(2, seed=1, sampling="uniform"), 40)
    bagged = _run(TreeUCB(2, seed=1, sampling="uniform", bagging=4), 40)
    assert not np.array_equal(plain, bagged)
    X, y = _data(60, 2, 0.2, 0)
    means = []
    for seed in (1, 2):
        bandit = TreeUCB(2, seed=seed, bagging=4)
        bandit.tell_many(X, y)
        means.append(bandit.fit_leaves().mean)
    assert not np.array_equal(*means)


def test_a_pickle_from_before_bagging_loads_without_it() -> None:
    bandit = TreeUCB(2, seed=0)
    _run(bandit, 15)
    state = pickle.loads(pickle.dumps(bandit)).__getstate__()  # shares nothing with bandit
    for key in ("bagging", "_bag", "_bag_entropy"):
        del state[key]
    old = TreeUCB.__new__(TreeUCB)
    old.__setstate__(state)
    assert old.bagging is None
    np.testing.assert_array_equal(_run(old, 5), _run(bandit, 5))


def test_budget_context_and_soft_gp_run_with_bagging() -> None:
    bandit = TreeUCB(2, seed=0, bagging=3, pruned="context", index="soft_gp")
    rng = np.random.default_rng(0)
    for i in range(30):
        x = bandit.ask_x()
        bandit.tell_x(x, float(_sphere(x)[0] + 0.1 * rng.standard_normal()), budget=i % 3 + 1)
    assert bandit._bag is not None and bandit._bag.d == 3  # the budget's context column
    lv = bandit.fit_leaves()
    assert lv.low.shape[1] == 3 and np.all(np.isfinite(lv.index))


@pytest.mark.parametrize(
    ("value", "error"),
    [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError), ("3", TypeError)],
)
def test_bad_bagging_raises_a_clear_error(value: object, error: type[Exception]) -> None:
    match = r"The 'bagging' parameter of TreeUCB must be an int >= 1 or None\. Got "
    with pytest.raises(error, match=match + repr(value).replace(".", r"\.")):
        TreeUCB(2, bagging=value)  # type: ignore[arg-type]
