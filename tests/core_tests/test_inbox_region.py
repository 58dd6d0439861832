"""The reach of the trust region (``region``): inside the played box, around it, or the cube."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import optuna_treeucb.core._treeucb as treeucb_module
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._inbox import CUBE_SIDE
from optuna_treeucb.core._inbox import RHO_MAX
from optuna_treeucb.core._inbox import region_bounds
from optuna_treeucb.core._localgp import LocalGP

REACHING = ["around", "cube"]
OPTIMUM = np.array([0.53, 0.5])


def test_region_bounds_by_hand() -> None:
    # box [0.2, 0.4] x [0.5, 1], centre near its right face, rho = 1
    low, high, center = np.array([0.2, 0.5]), np.array([0.4, 1.0]), np.array([0.38, 0.9])
    lo, hi = region_bounds(center, low, high, 1.0, "box")
    np.testing.assert_allclose(lo, [0.28, 0.65])
    np.testing.assert_allclose(hi, [0.4, 1.0])  # clipped to the box
    lo, hi = region_bounds(center, low, high, 1.0, "around")
    np.testing.assert_allclose(lo, [0.28, 0.65])
    np.testing.assert_allclose(hi, [0.48, 1.0])  # past the box's face, inside the cube
    lo, hi = region_bounds(center, low, high, 1.0, "cube")
    assert CUBE_SIDE == 0.8  # TuRBO's initial side
    np.testing.assert_allclose(lo, [0.0, 0.5])  # side 0.8 around the centre, in the cube
    np.testing.assert_allclose(hi, [0.78, 1.0])
    # the largest regions stay in the unit cube
    for region in ("around", "cube"):
        lo, hi = region_bounds(np.array([0.01, 0.99]), low, high, RHO_MAX, region)
        assert np.all(lo >= 0.0) and np.all(hi <= 1.0)


def _edge_case(region: str, sampling: str = "local_gp") -> tuple[TreeUCB, np.ndarray, np.ndarray]:
    """40 observations of ``-|x - OPTIMUM|^2`` outside a disc around the optimum, so that the
    box of the best observation ends 0.047 short of the optimum (seed 10).  ``n_startup=40``
    keeps the trust region at its initial side.  Returns the bandit and its played box."""
    rng = np.random.default_rng(10)
    X = rng.random((200, 2))
    X = X[np.linalg.norm(X - OPTIMUM, axis=1) > 0.08][:40]
    bandit = TreeUCB(2, seed=0, n_startup=40, sampling=sampling, region=region)  # type: ignore[arg-type]
    bandit.tell_many(X, -np.sum((X - OPTIMUM) ** 2, axis=1))
    lv = bandit.fit_leaves()
    b = int(np.argmax(lv.index))
    return bandit, lv.low[b], lv.high[b]


def _draws(bandit: TreeUCB, n: int) -> np.ndarray:
    out = []
    for _ in range(n):
        x = bandit.ask_x()
        bandit.forget_pending(x)  # the partition and the index stay as they are
        out.append(x)
    return np.array(out)


@pytest.mark.parametrize("region", ["box", *REACHING])
def test_only_a_reaching_region_gets_to_an_optimum_across_the_box_edge(region: str) -> None:
    bandit, low, high = _edge_case(region)
    gap = float(np.linalg.norm(np.maximum(low - OPTIMUM, 0) + np.maximum(OPTIMUM - high, 0)))
    assert gap > 0.04  # the optimum lies outside the played box
    draws = _draws(bandit, 30)
    assert np.all((draws >= 0.0) & (draws <= 1.0))
    in_box = np.all((draws >= low) & (draws <= high), axis=1)
    closest = float(np.min(np.linalg.norm(draws - OPTIMUM, axis=1)))
    if region == "box":
        assert in_box.all() and closest >= gap
    else:
        assert np.mean(~in_box) >= 0.5 and closest < 0.5 * gap


@pytest.mark.parametrize("region", ["box", *REACHING])
def test_trust_region_draws_fill_the_reaching_region(region: str) -> None:
    # sampling="trust_region" draws uniformly in the region: inside the box with "box", past
    # it with the others, within the region's side of the centre either way
    bandit, low, high = _edge_case(region, sampling="trust_region")
    draws = _draws(bandit, 60)
    in_box = np.all((draws >= low) & (draws <= high), axis=1)
    assert in_box.all() if region == "box" else (~in_box).any()
    side = (high - low) if region != "cube" else np.full(2, CUBE_SIDE)
    assert np.all(np.ptp(draws, axis=0) <= side + 1e-12)  # rho = 1
    assert np.all((draws >= 0.0) & (draws <= 1.0))


@pytest.mark.parametrize("region", REACHING)
@pytest.mark.parametrize("sampling", ["trust_region", "local_gp"])
@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_contexts_stay_fixed_and_discrete_columns_keep_the_box(
    region: str, sampling: str, index: str
) -> None:
    space = [
        ParamSpec("x", "float", low=0.0, high=1.0),
        ParamSpec("y", "float", low=0.0, high=1.0),
        ParamSpec("c", "int", low=0, high=3),
    ]
    bandit = TreeUCB(space, seed=0, n_startup=4, sampling=sampling, index=index, region=region)  # type: ignore[arg-type]
    for t in range(40):
        c = t % 4
        lv = bandit.fit_leaves() if t >= 4 else None
        x = bandit.ask_x({2: bandit.space.encode({"x": 0.0, "y": 0.0, "c": c})[2]})
        p = bandit.space.decode(x)
        assert p["c"] == c and np.all((x >= 0.0) & (x <= 1.0))
        if lv is not None:  # the context column lies in some box the context admits
            ok = (lv.low[:, 2] <= x[2]) & (x[2] <= lv.high[:, 2])
            assert ok.any()
        bandit.tell(p, -((p["x"] - 0.2 * c) ** 2) - (p["y"] - 0.5) ** 2)


@pytest.mark.parametrize("region", ["box", *REACHING])
@pytest.mark.parametrize("sampling", ["local_gp", "trust_region"])
def test_in_box_samplers_play_the_full_budget_under_pruned_context(
    region: str, sampling: str
) -> None:
    # with pruned="context" the model has a budget column the parameters do not: the draw,
    # its trust region and the pending points live in that larger cube and come back as
    # points of the parameters' cube, near the optimum of the full evaluations; the budget
    # column is a context, never moved by a region that reaches past the box
    bandit = TreeUCB(3, seed=1, sampling=sampling, region=region, pruned="context", max_budget=27)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for t in range(80):
        x = bandit.ask_x()
        budget = None if t % 3 == 0 else int(rng.integers(1, 27))
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)), budget=budget)
    bandit.add_pending(bandit.ask_x())
    x = bandit.ask_x()
    assert x.shape == (3,) and np.all((x >= 0.0) & (x <= 1.0))
    assert np.linalg.norm(bandit.best_x - 0.3) < 0.1


def test_the_local_gp_conditions_on_pending_points_in_the_region_outside_the_box(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a point pending just past the played box's face, inside the reaching region, must be
    # told to the GP, or concurrent asks would pile onto it
    bandit, low, high = _edge_case("around")
    outside = np.array([high[0] + 0.005, 0.5 * (low[1] + high[1])])
    bandit.add_pending(outside)
    seen: list[np.ndarray] = []
    real = treeucb_module.condition_on_pending

    def spy(gp: LocalGP, P: np.ndarray, lie: float | None = None) -> LocalGP:
        seen.append(P)
        return real(gp, P, lie)

    monkeypatch.setattr(treeucb_module, "condition_on_pending", spy)
    bandit.ask_x()
    assert any(np.any(np.all(np.isclose(P, outside), axis=1)) for P in seen)


@pytest.mark.parametrize("region", REACHING)
def test_concurrent_asks_differ_and_seeded_runs_repeat(region: str) -> None:
    def run(b: TreeUCB, n: int) -> np.ndarray:
        out = []
        for _ in range(n):
            x = b.ask_x()
            b.tell_x(x, -float(np.sum((x - 0.3) ** 2)))
            out.append(x)
        return np.array(out)

    a = TreeUCB(2, seed=4, region=region)  # type: ignore[arg-type]
    b = TreeUCB(2, seed=4, region=region)  # type: ignore[arg-type]
    np.testing.assert_array_equal(run(a, 40), run(b, 40))
    c = pickle.loads(pickle.dumps(a))
    assert c.region == region
    np.testing.assert_array_equal(run(a, 5), run(c, 5))
    asked = np.array([a.ask_x() for _ in range(8)])  # all pending
    assert np.unique(asked, axis=0).shape[0] == 8


def test_a_state_pickled_before_the_option_plays_inside_the_box() -> None:
    bandit = TreeUCB(2, seed=0, region="cube")
    state = bandit.__getstate__()
    del state["region"]
    old = TreeUCB.__new__(TreeUCB)
    old.__setstate__(state)
    assert old.region == "box"


def test_bad_region_names_option_value_and_allowed_values() -> None:
    allowed = r"'region' parameter of TreeUCB must be one of \['box', 'around', 'cube'\]"
    with pytest.raises(ValueError, match=rf"{allowed}\. Got 'parent' instead"):
        TreeUCB(2, region="parent")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=rf"{allowed}\. Got 1 \(int\)"):
        TreeUCB(2, region=1)  # type: ignore[arg-type]
    with pytest.warns(UserWarning, match=r"TreeUCB ignores region='box'.*sampling=\"local_gp\""):
        TreeUCB(2, region="box", sampling="uniform")
