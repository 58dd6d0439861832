"""Discrete columns in the trust region (``discrete="region"``)."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.core._discrete import MIN_BINS
from optuna_treeucb.core._discrete import box_bins
from optuna_treeucb.core._discrete import draw_categories
from optuna_treeucb.core._discrete import embed
from optuna_treeucb.core._discrete import grid_region
from optuna_treeucb.core._discrete import neighbours
from optuna_treeucb.core._discrete import snap
from optuna_treeucb.core._discrete import step_off_centre
from optuna_treeucb.core._inbox import Snapshot
from optuna_treeucb.core._inbox import TrustRegion

INT = ParamSpec("k", "int", low=0, high=20)  # 21 bins, edges j / 21
CAT = ParamSpec("c", "categorical", choices=("a", "b", "c", "d", "e"))  # 5 bins of 0.2
MIXED = [
    ParamSpec("x", "float", low=0.0, high=1.0),
    ParamSpec("y", "float", low=0.0, high=1.0),
    ParamSpec("k", "int", low=0, high=30),
    ParamSpec("n", "int", low=1, high=1000, log=True),
    ParamSpec("q", "float", low=0.0, high=1.0, step=0.1),
    ParamSpec("c", "categorical", choices=("a", "b", "c", "d", "e")),
]
BONUS = {"a": 0.2, "b": 0.0, "c": 0.6, "d": 0.1, "e": 0.2}  # "c", in the middle, is best


def _mixed(p: dict[str, Any]) -> float:
    """Larger is better; the best is x=0.3, y=0.6, k=17, n=50, q=0.4, c='c'."""
    return -(
        (p["x"] - 0.3) ** 2
        + (p["y"] - 0.6) ** 2
        + ((p["k"] - 17) / 30) ** 2
        + (math.log(p["n"] / 50) / 7) ** 2
        + (p["q"] - 0.4) ** 2
        + (0.6 - BONUS[p["c"]])
    )


# -- pure functions by hand --------------------------------------------------------------------
def test_snap_puts_coordinates_on_the_centres_their_values_encode_to() -> None:
    u = np.array([0.0, 0.03, 0.5, 0.999, 1.0])
    k, c = snap(INT, u)
    assert k.tolist() == [0, 0, 10, 20, 20]
    np.testing.assert_array_equal(c, [INT.encode(int(v)) for v in k])
    k, c = snap(CAT, u)
    assert k.tolist() == [0, 0, 2, 4, 4]
    assert [CAT.decode(v) for v in c] == ["a", "a", "c", "e", "e"]


def test_grid_region_keeps_min_bins_on_each_side_within_the_box() -> None:
    c = INT.encode(10)  # bin 10 is [10/21, 11/21)
    lo, hi = grid_region(INT, c, c, c, 0.0, 1.0)  # a trust region of width 0
    assert MIN_BINS == 2 and (lo, hi) == (8 / 21, 13 / 21)
    assert grid_region(INT, c, 0.1, 0.9, 0.0, 1.0) == (0.1, 0.9)  # wide: the region's
    assert grid_region(INT, c, c, c, 0.45, 0.55) == (0.45, 0.55)  # the box wins
    c0 = INT.encode(0)
    assert grid_region(INT, c0, c0, c0, 0.0, 1.0) == (0.0, 3 / 21)  # at the end of the grid


def test_box_bins_are_the_values_whose_centres_lie_in_the_box() -> None:
    assert box_bins(CAT, 0.0, 1.0) == (0, 4)
    assert box_bins(CAT, 0.2, 0.6) == (1, 2)  # centres 0.3 and 0.5
    assert box_bins(CAT, 0.35, 0.8) == (2, 3)  # 0.3 is out, 0.7 in
    assert box_bins(CAT, 0.52, 0.58) == (2, 2)  # no centre inside: the bin it overlaps


def test_categories_stay_at_the_centre_as_rho_shrinks() -> None:
    rng = np.random.default_rng(0)
    c = CAT.encode("b")
    wide = [CAT.decode(v) for v in draw_categories(rng, CAT, c, 0.0, 1.0, 2.0, 5000)]
    shares = np.array([wide.count(x) for x in "abcde"]) / 5000
    np.testing.assert_allclose(shares, 0.2, atol=0.03)  # rho >= 1: uniform on the box
    narrow = [CAT.decode(v) for v in draw_categories(rng, CAT, c, 0.0, 1.0, 0.1, 5000)]
    assert abs(narrow.count("b") / 5000 - (0.9 + 0.1 / 5)) < 0.02
    boxed = {CAT.decode(v) for v in draw_categories(rng, CAT, c, 0.2, 0.6, 1.0, 500)}
    assert boxed == {"b", "c"}  # only the box's choices


def test_a_moved_grid_coordinate_leaves_the_centres_value() -> None:
    rng = np.random.default_rng(1)
    c = INT.encode(10)
    u = np.full(400, c) + rng.normal(0.0, 0.004, 400)  # steps well inside one bin
    moved = np.arange(400) % 2 == 0
    out = step_off_centre(rng, INT, c, u, moved, 8 / 21, 13 / 21)
    values = np.array([INT.decode(v) for v in out])
    assert np.all(values[moved] != 10) and np.all(np.abs(values[moved] - 10) == 1)
    assert np.all(values[~moved] == 10)
    assert {9, 11} <= set(values[moved].tolist())
    # a region of the centre's value only: nowhere to move
    top = INT.encode(20)
    out = step_off_centre(rng, INT, top, np.full(4, top), np.ones(4, bool), 20 / 21, 1.0)
    assert [INT.decode(v) for v in out] == [20] * 4


def test_embed_puts_any_two_choices_at_distance_one() -> None:
    P = np.array([[0.3, CAT.encode(x), 0.7] for x in "abe"])
    Z = embed(P, [ParamSpec("x", "float", low=0.0, high=1.0), CAT])  # the last: a budget
    assert Z.shape == (3, 7)
    dist = np.linalg.norm(Z[:, None] - Z[None], axis=2)
    np.testing.assert_allclose(dist, 1.0 - np.eye(3), atol=1e-12)
    np.testing.assert_array_equal(Z[:, 0], P[:, 0])
    np.testing.assert_array_equal(Z[:, -1], P[:, -1])


# -- inside TreeUCB ----------------------------------------------------------------------------
@pytest.mark.parametrize("sampling", ["local_gp", "trust_region"])
def test_asks_are_legal_values_on_their_bin_centres(sampling: str) -> None:
    bandit = TreeUCB(MIXED, seed=0, n_startup_trials=8, sampling=sampling, discrete="region")  # type: ignore[arg-type]
    for _ in range(30):
        params = bandit.ask()
        bandit.tell(params, _mixed(params))
    for _ in range(5):
        x = bandit.ask_x()
        for spec, u in zip(MIXED, x, strict=True):
            if spec.is_discrete:
                assert u == spec.bin_centre(spec.bin_index(u))
        params = bandit.space.decode(x)
        assert isinstance(params["k"], int) and 0 <= params["k"] <= 30
        assert isinstance(params["n"], int) and 1 <= params["n"] <= 1000
        assert params["c"] in BONUS and round(params["q"] * 10) == pytest.approx(params["q"] * 10)


def _late_draws(discrete: str, seeds: range) -> tuple[float, float]:
    """Share of the right category and of ints within 2 of the best, asks 50 to 69."""
    right, near = [], []
    for seed in seeds:
        bandit = TreeUCB(MIXED, seed=seed, sampling="local_gp", discrete=discrete)  # type: ignore[arg-type]
        for t in range(70):
            params = bandit.ask()
            if t >= 50:
                right.append(params["c"] == "c")
                near.append(abs(params["k"] - 17) <= 2)
            bandit.tell(params, _mixed(params))
    return float(np.mean(right)), float(np.mean(near))


def test_region_concentrates_draws_on_the_best_category_and_int() -> None:
    # the best category sits in the middle of the choices, the best int inside the range
    # (region 0.70 and 0.92; box 0.58 and 0.50 before the box tried the centre's one-column
    # neighbours, 0.83 and 0.32 since: it finds the category, the region keeps the int closer)
    right, near = _late_draws("region", range(3))
    assert right > 0.65 and near > 0.85
    _, near_box = _late_draws("box", range(3))
    assert near > near_box


def test_the_discrete_region_reaches_as_far_as_the_trust_region() -> None:
    specs = [ParamSpec("x", "float", low=0.0, high=1.0), INT, CAT]
    sampler = TrustRegion(UnitCube(specs), n_startup=0, discrete="region")
    c = np.array([0.5, INT.bin_centre(10), CAT.bin_centre(2)])
    low, high = np.array([0.45, INT.bin_edge(9), 0.4]), np.array([0.55, INT.bin_edge(12), 0.6])
    lo, hi = sampler.region(c, low, high)  # rho = 1 before any observation
    # the grid's side is the float's, relative to the cube (0.8 rho), past the box
    assert (lo[1], hi[1]) == (pytest.approx(c[1] - 0.4), pytest.approx(c[1] + 0.4))
    assert (lo[2], hi[2]) == (0.0, 1.0)  # every choice
    snap = Snapshot(
        X=np.zeros((0, 3)),
        y=np.zeros(0),
        leaf_of=np.zeros(0, dtype=np.intp),
        low=low[None],
        high=high[None],
        ctx={},
        rng=np.random.default_rng(0),
        n_pending=0,
        pending=lambda: np.zeros((0, 3)),
        targets=lambda idx: np.zeros(0),
        repeats=lambda P: np.zeros(P.shape[0], dtype=bool),
    )
    cand = sampler.discrete_candidates(np.tile(c, (400, 1)), c, lo, hi, snap)
    # a redraw (p = 0.8) takes any of the 5 choices
    assert set(CAT.bin_indices(cand[:, 2]).tolist()) == {0, 1, 2, 3, 4}
    assert np.mean(cand[:, 2] == c[2]) == pytest.approx(0.2 + 0.8 / 5, abs=0.07)


def test_contexts_are_kept_under_region() -> None:
    bandit = TreeUCB(MIXED, seed=1, n_startup_trials=5, sampling="local_gp", discrete="region")
    for t in range(30):
        ctx = {"c": "abcde"[t % 5], "k": t % 31}
        params = bandit.ask(ctx)
        assert params["c"] == ctx["c"] and params["k"] == ctx["k"]
        bandit.tell(params, _mixed(params))


def test_budget_context_column_under_region() -> None:
    bandit = TreeUCB(
        MIXED, seed=2, sampling="local_gp", discrete="region", pruned="context", max_budget=9
    )
    rng = np.random.default_rng(0)
    for t in range(40):
        params = bandit.ask()
        bandit.tell(params, _mixed(params), budget=None if t % 2 else int(rng.integers(1, 9)))
    assert bandit.space.decode(bandit.ask_x())["c"] in BONUS


def test_region_is_reproducible_and_pickles_mid_run() -> None:
    def run(bandit: TreeUCB, n: int) -> list[Any]:
        out = []
        for _ in range(n):
            params = bandit.ask()
            bandit.tell(params, _mixed(params))
            out.append(sorted(params.items()))
        return out

    a = TreeUCB(MIXED, seed=4, n_startup_trials=6, sampling="local_gp", discrete="region")
    b = TreeUCB(MIXED, seed=4, n_startup_trials=6, sampling="local_gp", discrete="region")
    assert run(a, 20) == run(b, 20)
    clone = pickle.loads(pickle.dumps(a))
    assert clone.discrete == "region"
    assert run(clone, 8) == run(a, 8)


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (
            "grid",
            ValueError,
            r"'discrete' parameter of TreeUCB must be one of \['box', 'region'\]",
        ),
        (1, TypeError, r"'discrete' parameter of TreeUCB must be one of .*Got 1 \(int\)"),
    ],
)
def test_bad_discrete_raises_a_clear_error(value: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCB(MIXED, sampling="local_gp", discrete=value)


def test_discrete_without_a_trust_region_warns() -> None:
    with pytest.warns(UserWarning, match=r"TreeUCB ignores discrete='region'.*sampling="):
        TreeUCB(MIXED, sampling="uniform", discrete="region")


def test_neighbours_move_one_discrete_column_to_each_other_value_of_the_box() -> None:
    specs = [
        ParamSpec("x", "float", low=0.0, high=1.0),
        ParamSpec("k", "int", low=0, high=3),  # 4 bins of 0.25: centres 0.125 ... 0.875
        ParamSpec("c", "categorical", choices=("a", "b")),  # centres 0.25, 0.75
    ]
    center = np.array([0.4, 0.375, 0.25])  # k = 1, c = "a"
    near = neighbours(specs, center, np.zeros(3), np.ones(3))
    expected = [
        [0.4, 0.125, 0.25],  # k = 0 and k = 2 (one value away) first, then k = 3
        [0.4, 0.625, 0.25],
        [0.4, 0.875, 0.25],
        [0.4, 0.375, 0.75],  # c = "b"
    ]
    np.testing.assert_allclose(near, expected)
    # the box's values only; fixed (context) columns and a cap per column
    box = neighbours(specs, center, np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.5, 0.5]))
    np.testing.assert_allclose(box, [[0.4, 0.125, 0.25]])
    assert neighbours(specs, center, np.zeros(3), np.ones(3), fixed=(1, 2)).shape == (0, 3)
    capped = neighbours(specs, center, np.zeros(3), np.ones(3), per_column=1)
    np.testing.assert_allclose(capped, [[0.4, 0.125, 0.25], [0.4, 0.375, 0.75]])
    assert neighbours(specs[:1], center[:1], np.zeros(1), np.ones(1)).shape == (0, 1)


def test_neighbours_of_a_huge_grid_are_the_nearest_values_only() -> None:
    # a grid of 10**12 + 1 values: listing the box's values whole would never end
    spec = ParamSpec("a", "int", low=0, high=10**12)
    c = spec.bin_centre(5 * 10**11)
    near = neighbours([spec], np.array([c]), np.zeros(1), np.ones(1), per_column=4)
    ks = spec.bin_indices(near[:, 0])
    assert sorted(ks.tolist()) == [5 * 10**11 + k for k in (-2, -1, 1, 2)]
