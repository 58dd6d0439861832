"""Pending points of TreeUCB: kept incrementally, located once per partition version."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB


def _told(d: int = 2, n: int = 30, seed: int = 0, **options: object) -> TreeUCB:
    bandit = TreeUCB(d, seed=seed, n_startup=5, **options)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    bandit.tell_many(X, -np.sum((X - 0.3) ** 2, axis=1))
    return bandit


def _counts(bandit: TreeUCB, points: list[np.ndarray]) -> np.ndarray:
    """Pending points per box as the former code counted them: locate every point anew."""
    part = bandit.partition
    if not points:
        return np.zeros(part.n_leaves)
    return np.bincount(part.locate(np.array(points)), minlength=part.n_leaves).astype(float)


def test_add_forget_and_duplicates() -> None:
    bandit = _told()
    a, b = [0.2, 0.2], [0.8, 0.1]
    bandit.add_pending(a)
    bandit.add_pending(b)
    bandit.add_pending(a)  # a duplicate is a point of its own
    assert bandit.n_pending == 3
    np.testing.assert_array_equal(bandit.pending, [a, b, a])  # in the order added
    leaves = bandit.fit_leaves()
    assert leaves.n_pending.sum() == 3
    np.testing.assert_array_equal(leaves.n_pending, _counts(bandit, [a, b, a]))
    bandit.forget_pending(a)  # drops one copy, the oldest
    np.testing.assert_array_equal(bandit.pending, [b, a])
    bandit.forget_pending([0.5, 0.5])  # not pending: nothing happens
    assert bandit.n_pending == 2
    bandit.tell_x(b, 1.0)  # a told point drops its pending copy
    np.testing.assert_array_equal(bandit.pending, [a])
    np.testing.assert_array_equal(bandit.fit_leaves().n_pending, _counts(bandit, [a]))
    bandit.forget_pending(a)
    assert bandit.n_pending == 0 and bandit.fit_leaves().n_pending.sum() == 0


def test_negative_zero_is_the_same_point() -> None:
    bandit = TreeUCB(2, seed=0)
    bandit.add_pending([0.0, 0.5])
    bandit.forget_pending(np.array([-0.0, 0.5]))
    assert bandit.n_pending == 0


def test_tell_many_can_leave_pending_points_alone() -> None:
    bandit = _told()
    bandit.add_pending([0.2, 0.2])
    bandit.tell_many(np.array([[0.2, 0.2]]), [1.0], drop_pending=False)
    assert bandit.n_pending == 1
    bandit.tell_many(np.array([[0.2, 0.2]]), [1.0])
    assert bandit.n_pending == 0


@pytest.mark.parametrize("x", [[0.5], [0.5, 1.5], [0.5, float("nan")]])
def test_add_pending_rejects_a_bad_point(x: list[float]) -> None:
    with pytest.raises(ValueError, match=r"TreeUCB\.add_pending"):
        TreeUCB(2, seed=0).add_pending(x)


def test_pending_points_are_located_again_after_a_refit() -> None:
    bandit = _told(n=20)
    points = [np.array([0.1, 0.9]), np.array([0.3, 0.3]), np.array([0.3, 0.31])]
    for p in points:
        bandit.add_pending(p)
    before = bandit.fit_leaves()
    version = bandit.partition.version
    rng = np.random.default_rng(1)
    X = rng.random((30, 2))
    bandit.tell_many(X, -np.sum((X - 0.3) ** 2, axis=1))  # grows the data by 150%: a refit
    after = bandit.fit_leaves()
    assert bandit.partition.version > version
    assert after.low.shape != before.low.shape or not np.array_equal(after.low, before.low)
    np.testing.assert_array_equal(after.n_pending, _counts(bandit, points))


def test_points_are_located_once_per_partition_version(monkeypatch: pytest.MonkeyPatch) -> None:
    bandit = _told(n=40)
    bandit.fit_leaves()
    located: list[int] = []
    original = type(bandit.partition).locate

    def locate(part: object, X: np.ndarray) -> np.ndarray:
        located.append(len(X))
        return original(part, X)  # type: ignore[arg-type]

    monkeypatch.setattr(type(bandit.partition), "locate", locate)
    for p in ([0.1, 0.1], [0.2, 0.7], [0.9, 0.4]):
        bandit.add_pending(p)
    bandit.fit_leaves()
    bandit.fit_leaves()
    bandit.forget_pending([0.2, 0.7])
    bandit.add_pending([0.6, 0.6])
    bandit.fit_leaves()
    assert located == [3, 1]  # the new points only, in one batch per call


def test_pickling_keeps_pending_points_and_their_counts() -> None:
    bandit = _told()
    for _ in range(5):
        bandit.ask()
    bandit.add_pending([0.25, 0.75])
    bandit.fit_leaves()
    copy = pickle.loads(pickle.dumps(bandit))
    np.testing.assert_array_equal(copy.pending, bandit.pending)
    np.testing.assert_array_equal(copy.fit_leaves().n_pending, bandit.fit_leaves().n_pending)
    copy.forget_pending([0.25, 0.75])
    bandit.forget_pending([0.25, 0.75])
    np.testing.assert_array_equal(copy.ask_x(), bandit.ask_x())


def test_a_point_told_as_decoded_parameters_drops_its_pending_point() -> None:
    # issue #21, defect 5: ask_x() then tell(space.decode(x), v) re-encodes x onto bin
    # centres (and a log float through exp/log): the pending point is matched by its cell
    space = [
        ParamSpec("lr", "float", low=1e-5, high=1.0, log=True),
        ParamSpec("k", "int", low=1, high=9),
        ParamSpec("c", "categorical", choices=("a", "b", "c")),
    ]
    bandit = TreeUCB(space, seed=0, n_startup=5)
    for _ in range(60):
        x = bandit.ask_x()
        params = bandit.space.decode(x)
        assert not np.array_equal(bandit.space.encode(params), x)  # another point of the cube
        bandit.tell(params, float(np.log10(params["lr"]) ** 2 + params["k"]))
        assert bandit.n_pending == 0
    x = bandit.ask_x()
    bandit.forget_pending(bandit.space.encode(bandit.space.decode(x)))
    assert bandit.n_pending == 0


@pytest.mark.parametrize(
    ("X", "shape"),
    [
        (np.full((3, 4), 0.5), r"\(3, 4\)"),  # transposed: (d, n) for d = 3
        (np.full((2, 6), 0.5), r"\(2, 6\)"),  # 12 numbers, which reshape(-1, 3) accepted
        (np.full(6, 0.5), r"\(6,\)"),
        (np.full((2, 2, 3), 0.5), r"\(2, 2, 3\)"),
    ],
)
def test_arrays_of_points_must_have_the_shape_n_by_d(X: np.ndarray, shape: str) -> None:
    # issue #21, defect 4: a wrong shape is an error naming expected and received shape
    bandit = TreeUCB(3, seed=0)
    with pytest.raises(ValueError, match=rf"tell_many needs points of shape \(n, 3\).*{shape}"):
        bandit.tell_many(X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match=rf"set_pending needs points of shape \(n, 3\).*{shape}"):
        bandit.set_pending(X)
    assert bandit.n_observations == 0 and bandit.n_pending == 0
    bandit.set_pending([])  # no points is fine
    bandit.set_pending(np.full((2, 3), 0.5))
    assert bandit.n_pending == 2


@pytest.mark.parametrize("rule", ["refit", "incremental"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_counts_as_locating_every_point_on_random_sequences(rule: str, seed: int) -> None:
    # The former bookkeeping: a list, a linear scan with np.array_equal, every point located
    # at every call.  Random asks, adds (many duplicates on a coarse grid), forgets, tells and
    # replacements must leave the same points and the same counts per box.
    rng = np.random.default_rng(seed)
    bandit = TreeUCB(2, seed=seed, rule=rule, n_startup=3)  # type: ignore[arg-type]
    reference: list[np.ndarray] = []

    def drop(x: np.ndarray) -> None:
        for i, p in enumerate(reference):
            if np.array_equal(p, x):
                del reference[i]
                return

    for step in range(300):
        op = rng.integers(6)
        if op == 0:
            reference.append(bandit.ask_x())
        elif op == 1:
            x = rng.integers(0, 4, size=2) / 4.0  # a coarse grid: duplicates are common
            bandit.add_pending(x)
            reference.append(x)
        elif op == 2 and reference:
            x = reference[rng.integers(len(reference))].copy()
            bandit.forget_pending(x)
            drop(x)
        elif op == 3:
            x = reference[rng.integers(len(reference))].copy() if reference else rng.random(2)
            bandit.tell_x(x, float(-np.sum((x - 0.3) ** 2) + 0.01 * rng.standard_normal()))
            drop(x)
        elif op == 4 and step % 50 == 0:
            X = rng.integers(0, 4, size=(int(rng.integers(0, 6)), 2)) / 4.0
            bandit.set_pending(X)
            reference = list(X)
        else:
            x = rng.random(2)
            bandit.tell_x(x, float(-np.sum((x - 0.3) ** 2)))
        np.testing.assert_array_equal(
            bandit.pending.reshape(-1, 2), np.array(reference).reshape(-1, 2)
        )
        np.testing.assert_array_equal(bandit.fit_leaves().n_pending, _counts(bandit, reference))
