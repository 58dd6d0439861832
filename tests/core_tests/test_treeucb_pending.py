"""Pending points of TreeUCB: kept incrementally, located once per partition version."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.core._observations import Pending


def _told(d: int = 2, n: int = 30, seed: int = 0, **options: object) -> TreeUCB:
    bandit = TreeUCB(d, seed=seed, n_startup_trials=5, **options)  # type: ignore[arg-type]
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
    bandit = TreeUCB(space, seed=0, n_startup_trials=5)
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
    bandit = TreeUCB(2, seed=seed, rule=rule, n_startup_trials=3)  # type: ignore[arg-type]
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


# -- pending points held by the caller's key (issue 30) ------------------------------------------
def _grid() -> TreeUCB:
    space = [ParamSpec("k", "int", low=0, high=3), ParamSpec("x", "float", low=0.0, high=1.0)]
    return TreeUCB(space, seed=0, n_startup_trials=3)


def test_a_told_key_frees_its_own_slot_even_beside_an_equal_point_or_one_in_its_cell() -> None:
    bandit = _grid()
    x = np.array([0.1, 0.5])
    same_cell = np.array([0.2, 0.5])  # k's bin [0, 0.25): the same values as x
    bandit.add_pending(x, key=1)
    bandit.add_pending(x, key=2)
    bandit.add_pending(same_cell, key=3)
    bandit.add_pending(x)  # no key
    bandit.tell_x(x, 1.0, key=2)
    assert bandit.pending_keys == [1, 3]
    np.testing.assert_array_equal(bandit.pending, [x, same_cell, x])
    bandit.tell(bandit.space.decode(x), 2.0, key=3)  # told as parameters: still by its key
    assert bandit.pending_keys == [1] and bandit.n_pending == 2
    bandit.tell_x(same_cell, 3.0)  # no key: the point without a key in its cell, never a key's
    assert bandit.pending_keys == [1] and bandit.n_pending == 1
    bandit.forget_pending(x)  # by point: points held by a key are left alone
    assert bandit.pending_keys == [1] and bandit.n_pending == 1
    bandit.forget(1)
    assert bandit.pending_keys == [] and bandit.n_pending == 0
    assert bandit.n_observations == 3


def test_a_key_holds_one_point_and_an_unknown_key_is_an_error() -> None:
    bandit = _grid()
    bandit.add_pending([0.1, 0.1], key="t")
    bandit.add_pending([0.9, 0.9], key="t")  # replaces the point the key held
    np.testing.assert_array_equal(bandit.pending, [[0.9, 0.9]])
    bandit.forget("t")
    with pytest.raises(ValueError, match=r"'key' parameter of TreeUCB\.forget.*Got 't'"):
        bandit.forget("t")
    with pytest.raises(ValueError, match=r"'key' parameter of TreeUCB\.tell.*Got 7"):
        bandit.tell({"k": 1, "x": 0.5}, 1.0, key=7)
    assert bandit.n_observations == 0  # nothing recorded
    with pytest.raises(TypeError, match=r"'key' parameter of TreeUCB\.ask must be hashable"):
        bandit.ask(key=[1])
    assert bandit.n_pending == 0


def test_keyed_draws_are_seeded_by_seed_and_key() -> None:
    def reseeded(seed: list[int]) -> np.ndarray:
        bandit = _told(seed=3)
        bandit.reseed(seed)
        return bandit.ask_x()

    np.testing.assert_array_equal(_told(seed=3).ask_x(key=5), reseeded([3, 5]))
    np.testing.assert_array_equal(_told(seed=3).ask_x(key=(5, 1)), reseeded([3, 5, 1]))
    np.testing.assert_array_equal(_told(seed=3).ask_x(key="t", seed_key=(7,)), reseeded([3, 7]))
    np.testing.assert_array_equal(_told(seed=3).ask_x(key="t"), _told(seed=3).ask_x())
    moved = _told(seed=3)
    moved.reseed(11)  # an int seed also seeds the keyed draws from now on
    np.testing.assert_array_equal(moved.ask_x(key=5), reseeded([11, 5]))
    # a keyed draw leaves the generator of draws without a key where it was
    plain, keyed = _told(seed=3), _told(seed=3)
    keyed.ask_x(key=9)
    keyed.forget(9)
    np.testing.assert_array_equal(keyed.ask_x(), plain.ask_x())
    with pytest.raises(ValueError, match=r"'key' parameter of TreeUCB\.ask seeds the draw"):
        _grid().ask(key=-1)
    with pytest.raises(TypeError, match=r"'seed_key' parameter of TreeUCB\.ask must be"):
        _grid().ask(key="t", seed_key="t")  # type: ignore[arg-type]


def test_pickling_keeps_the_keys() -> None:
    bandit = _told()
    bandit.ask(key=(4, 0))
    bandit.add_pending([0.25, 0.75], key="other")
    copy = pickle.loads(pickle.dumps(bandit))
    assert copy.pending_keys == bandit.pending_keys == [(4, 0), "other"]
    copy.tell_x([0.25, 0.75], 1.0, key="other")
    bandit.tell_x([0.25, 0.75], 1.0, key="other")
    np.testing.assert_array_equal(copy.ask_x(key=6), bandit.ask_x(key=6))
    assert copy.pending_keys == [(4, 0), 6]


def test_pending_points_pickled_before_keys_have_none() -> None:
    pending = Pending(UnitCube([ParamSpec("x", "float", low=0.0, high=1.0)]))
    pending.add(np.array([0.25]))
    state = pending.__getstate__()
    del state["_id_of"], state["_key_of"]  # as pickled before keys were kept
    old = Pending.__new__(Pending)
    old.__setstate__(state)
    assert old.keys == [] and len(old) == 1 and "x" not in old
    assert old.drop(np.array([0.25])) and len(old) == 0
