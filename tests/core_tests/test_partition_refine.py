"""Adaptive refinement (``refine``): boxes deepened around their incumbents."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._partition import RefinedPartition
from optuna_treeucb.core._partition import chain_boxes
from optuna_treeucb.core._partition import incumbent_chain


def _sphere(x: np.ndarray) -> float:
    return -float(np.sum((x - 0.3) ** 2))


def test_incumbent_chain_by_hand() -> None:
    # box [0, 1] x [0, 0.5]; the best point (0.1, 0.1); m = 2
    low, high = np.array([0.0, 0.0]), np.array([1.0, 0.5])
    X = np.array([[0.1, 0.1], [0.2, 0.4], [0.8, 0.1], [0.9, 0.4]])
    r = np.array([1.0, 0.5, 0.2, 0.0])
    # x0 at 0.5 (longest side): (0.1, 0.1), (0.2, 0.4) stay; then 0.25 on x1 (0.5 x 0.5: the
    # first of equal sides is x0): x0 at 0.25 keeps both; then x1 at 0.25 keeps one: stop
    assert incumbent_chain(low, high, X, r, 2) == [
        (0, 0.5, True),
        (0, 0.25, True),
        (1, 0.25, True),
    ]
    assert incumbent_chain(low, high, X, r, 5) == []  # too few observations
    inc_lo, inc_hi, sib_lo, sib_hi = chain_boxes(low, high, incumbent_chain(low, high, X, r, 2))
    np.testing.assert_allclose([inc_lo, inc_hi], [[0.0, 0.0], [0.25, 0.25]])
    np.testing.assert_allclose(sib_lo, [[0.5, 0.0], [0.25, 0.0], [0.0, 0.25]])
    np.testing.assert_allclose(sib_hi, [[1.0, 0.5], [0.5, 0.5], [0.25, 0.5]])
    volume = np.prod(inc_hi - inc_lo) + np.prod(sib_hi - sib_lo, axis=1).sum()
    assert volume == pytest.approx(0.5)


def _run(bandit: TreeUCB, n: int) -> list[np.ndarray]:
    out = []
    for _ in range(n):
        x = bandit.ask_x()
        bandit.tell_x(x, _sphere(x))
        out.append(x)
    return out


@pytest.mark.parametrize("rule", ["refit", "incremental"])
@pytest.mark.parametrize("d", [2, 3])
def test_refined_leaves_tile_the_cube_and_nest_in_the_base_boxes(rule: str, d: int) -> None:
    bandit = TreeUCB(d, seed=0, rule=rule, refine=6)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for _ in range(4):
        _run(bandit, 40)
        lv = bandit.fit_leaves()
        part = bandit.partition
        assert isinstance(part, RefinedPartition)
        assert np.prod(lv.high - lv.low, axis=1).sum() == pytest.approx(1.0)
        np.testing.assert_array_equal(part.leaf_of, part.locate(bandit.X))
        U = rng.random((500, d))
        box = part.locate(U)
        assert np.all((lv.low[box] <= U) & (U <= lv.high[box]))
        base = part.base
        inside = base.locate(U)  # each leaf lies inside the base box of its points
        assert np.all(base.low[inside] <= lv.low[box]) and np.all(
            lv.high[box] <= base.high[inside]
        )


def test_refinement_deepens_only_around_the_incumbent() -> None:
    bandit = TreeUCB(2, seed=0, refine=6)
    _run(bandit, 150)
    lv = bandit.fit_leaves()
    part = bandit.partition
    assert isinstance(part, RefinedPartition)
    assert part.n_leaves > part.base.n_leaves
    best = int(part.locate(bandit.best_x[None])[0])
    base_best = int(part.base.locate(bandit.best_x[None])[0])
    volume = np.prod(lv.high - lv.low, axis=1)
    assert volume[best] < np.prod(part.base.high[base_best] - part.base.low[base_best])
    # every base box with fewer than `refine` observations stays whole
    counts = np.bincount(part.base.leaf_of, minlength=part.base.n_leaves)
    for b in np.flatnonzero(counts < 6):
        np.testing.assert_array_equal(lv.low[b], part.base.low[b])
        np.testing.assert_array_equal(lv.high[b], part.base.high[b])


def _near_share(refine: int | None) -> float:
    near = []
    for seed in (1, 2, 3):
        bandit = TreeUCB(3, seed=seed, sampling="uniform", refine=refine)
        for t, x in enumerate(_run(bandit, 150)):
            if t >= 100:
                near.append(np.linalg.norm(x - 0.3) < 0.02)
    return float(np.mean(near))


def test_refinement_alone_concentrates_uniform_draws_near_the_optimum() -> None:
    assert _near_share(6) >= _near_share(None) + 0.2


@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_seeded_runs_repeat_pickles_continue_and_rebuilds_agree(rule: str) -> None:
    a = TreeUCB(3, seed=4, rule=rule, refine=5)  # type: ignore[arg-type]
    b = TreeUCB(3, seed=4, rule=rule, refine=5)  # type: ignore[arg-type]
    np.testing.assert_array_equal(_run(a, 40), _run(b, 40))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(_run(a, 20), _run(c, 20))
    rebuilt = TreeUCB(3, seed=4, rule=rule, refine=5)  # type: ignore[arg-type]
    rebuilt.tell_many(a.X, a.values)
    np.testing.assert_array_equal(rebuilt.fit_leaves().low, a.fit_leaves().low)


def test_pending_points_and_contexts_follow_the_refined_boxes() -> None:
    bandit = TreeUCB(2, seed=0, refine=4)
    _run(bandit, 60)
    asked = np.array([bandit.ask_x() for _ in range(5)])
    lv = bandit.fit_leaves()
    boxes = bandit.partition.locate(asked)
    np.testing.assert_array_equal(lv.n_pending, np.bincount(boxes, minlength=lv.low.shape[0]))
    for _ in range(10):
        x = bandit.ask_x({0: 0.7})
        assert x[0] == 0.7


@pytest.mark.parametrize(("value", "error"), [(1, ValueError), (0, ValueError), (2.5, TypeError)])
def test_bad_refine_raises_a_clear_error(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"'refine' parameter of TreeUCB must be an int >= 2 or None"):
        TreeUCB(2, refine=value)  # type: ignore[arg-type]
