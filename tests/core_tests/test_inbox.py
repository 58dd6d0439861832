from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.core._inbox import CUBE_SIDE
from optuna_treeucb.core._inbox import RHO_INIT
from optuna_treeucb.core._inbox import RHO_MAX
from optuna_treeucb.core._inbox import RHO_MIN
from optuna_treeucb.core._inbox import Front
from optuna_treeucb.core._inbox import LocalGP
from optuna_treeucb.core._inbox import Snapshot
from optuna_treeucb.core._inbox import TrustRegion
from optuna_treeucb.core._inbox import TrustRegionState
from optuna_treeucb.core._inbox import Uniform
from optuna_treeucb.core._inbox import failure_tolerance
from optuna_treeucb.core._inbox import region_bounds
from optuna_treeucb.core._inbox import trust_region_replay
from optuna_treeucb.core._inbox import trust_region_step
from optuna_treeucb.core._localgp import fit_gp

SAMPLINGS = ["uniform", "trust_region", "local_gp"]


def _replay(values: list[float], d: int, n_startup: int = 0) -> TrustRegionState:
    return trust_region_replay(TrustRegionState(), np.array(values, dtype=float), d, n_startup)


# -- the trust-region rule against hand-computed sequences ------------------------------------
def test_four_failures_halve_and_three_successes_double_in_2d() -> None:
    # d = 2: max(4, d) = 4 failures.  The first value only sets the best.
    s = _replay([0.0, -1.0, -1.0, -1.0], d=2)
    assert (s.rho, s.n_failure, s.n_success) == (RHO_INIT, 3, 0)
    s = _replay([0.0, -1.0, -1.0, -1.0, -1.0], d=2)
    assert (s.rho, s.n_failure, s.n_success) == (RHO_INIT / 2, 0, 0)
    s = _replay([0.0, -1.0, -1.0, -1.0, -1.0, 1.0, 2.0], d=2)
    assert (s.rho, s.n_success, s.best) == (0.5, 2, 2.0)
    s = _replay([0.0, -1.0, -1.0, -1.0, -1.0, 1.0, 2.0, 3.0], d=2)
    assert (s.rho, s.n_success, s.n_failure) == (1.0, 0, 0)


def test_failure_tolerance_is_d_above_four() -> None:
    assert _replay([0.0] + [-1.0] * 9, d=10).rho == RHO_INIT
    assert _replay([0.0] + [-1.0] * 10, d=10).rho == RHO_INIT / 2
    # a success in between restarts the failure count; equal values are failures
    s = _replay([0.0, -1.0, -1.0, -1.0, 0.5, -1.0, -1.0, -1.0, 0.5], d=3)
    assert (s.rho, s.n_failure) == (RHO_INIT / 2, 0)  # 4th failure (0.5 == best) halves
    assert _replay([0.0, -1.0, -1.0, -1.0, 0.5, -1.0, -1.0, -1.0], d=3).n_failure == 3


def test_pending_points_raise_the_failure_tolerance() -> None:
    assert failure_tolerance(3) == 4 and failure_tolerance(10) == 10
    assert failure_tolerance(3, 7) == 11 and failure_tolerance(10, 31) == 41
    values = np.array([0.0] + [-1.0] * 10)
    # d = 2: every 4 failures halve alone; with 7 pending it takes 11, which 10 do not reach
    assert trust_region_replay(TrustRegionState(), values, 2, 0).rho == RHO_INIT / 4
    held = trust_region_replay(TrustRegionState(), values, 2, 0, n_pending=7)
    assert (held.rho, held.n_failure) == (RHO_INIT, 10)
    assert trust_region_replay(held, np.append(values, -1.0), 2, 0, n_pending=7).rho == 0.5


def test_a_parallel_bandit_does_not_halve_on_failures_drawn_before_its_best() -> None:
    # W = 8 trials running: after the startup, 7 points stay pending while 6 values fail
    # against the best; sequentially (nothing pending) the same values halve the region.
    values = [float(v) for v in range(10)] + [-1.0] * 6

    def run(n_pending: int) -> float:
        bandit = TreeUCB(2, seed=0, sampling="trust_region", n_startup_trials=10)
        held = [bandit.ask_x() for _ in range(n_pending)]
        for v in values:
            bandit.tell_x(bandit.ask_x(), v)
        assert bandit.n_pending == len(held)
        return bandit.trust_region.rho

    assert run(0) == RHO_INIT / 2
    assert run(7) == RHO_INIT


def test_rho_is_bounded_and_restarts_below_its_minimum() -> None:
    up = _replay(list(range(20)), d=2)  # 19 successes: doubles up to RHO_MAX and stays
    assert up.rho == RHO_MAX == 2.0
    # 7 halvings reach RHO_MIN = 2^-7; the 8th would go below it and restarts
    assert _replay([0.0] + [-1.0] * 28, d=2).rho == RHO_MIN
    assert _replay([0.0] + [-1.0] * 32, d=2).rho == RHO_INIT


def test_startup_values_only_set_the_best() -> None:
    s = _replay([0.0, 1.0, 2.0, 3.0, -1.0, -1.0], d=2, n_startup=4)
    assert (s.rho, s.n_success, s.n_failure, s.best, s.n_seen) == (1.0, 0, 2, 3.0, 6)
    assert trust_region_step(TrustRegionState(), 5.0, 2, count=True).n_success == 0  # first value


def test_while_none_is_feasible_a_smaller_violation_is_a_success() -> None:
    # SCBO (Eriksson and Poloczek 2021): before a feasible value, the least violation leads
    def run(violations: list[float], values: list[float] | None = None) -> TrustRegionState:
        y = np.array(values if values is not None else [-np.inf] * len(violations))
        v = np.array(violations)
        return trust_region_replay(TrustRegionState(), y, 2, 0, violations=v)

    s = run([3.0, 2.0, 1.0, 0.5])  # the first sets the least; 3 successes double
    assert (s.rho, s.n_success, s.least, s.best) == (2.0, 0, 0.5, -np.inf)
    s = run([1.0, 2.0, 2.0, 1.0, 3.0])  # no smaller violation: 4 failures halve
    assert (s.rho, s.n_failure, s.least) == (0.5, 0, 1.0)
    # the first feasible value is a success; from then on an infeasible one is a failure
    s = run([1.0, 0.5, 0.0, 0.1], [-np.inf, -np.inf, -5.0, -np.inf])
    assert (s.n_success, s.n_failure, s.best) == (0, 1, -5.0)
    s = run([1.0, 0.5, 0.0], [-np.inf, -np.inf, -5.0])
    assert (s.n_success, s.best, s.least) == (2, -5.0, 0.5)
    # all feasible: the plain rule, bit for bit
    y = np.random.default_rng(1).standard_normal(50)
    assert run([0.0] * 50, list(y)) == _replay(list(y), d=2)


def test_an_all_infeasible_bandit_moves_its_region_and_the_violation_falls() -> None:
    # constraint 1 + x^2 + y^2 <= 0 on [-1, 1]^2: never feasible, least violation 1 at 0
    space = [ParamSpec(n, "float", low=-1.0, high=1.0) for n in "xy"]
    bandit = TreeUCB(space, seed=0, direction="minimize", sampling="local_gp")
    told = []
    for _ in range(120):
        p = bandit.ask()
        told.append(1.0 + p["x"] ** 2 + p["y"] ** 2)
        bandit.tell(p, p["x"] + p["y"], violation=told[-1])
    state = bandit.trust_region
    assert state is not None and state.best == -np.inf
    assert state.rho < RHO_INIT and state.least == min(told[:-1])
    # uniform draws have a median of about 1.6; the last 40 stay near the least violation
    assert np.median(told[80:]) < 1.1


def test_state_depends_on_the_sequence_only() -> None:
    values = np.random.default_rng(0).standard_normal(200).cumsum()
    whole = trust_region_replay(TrustRegionState(), values, 5, 10)
    state = TrustRegionState()
    for n in (3, 10, 11, 57, 200):
        state = trust_region_replay(state, values[:n], 5, 10)
    assert state == whole


def test_region_bounds_by_hand() -> None:
    assert CUBE_SIDE == 0.8  # TuRBO's initial side
    lo, hi = region_bounds(np.array([0.38, 0.9]), 1.0)  # side 0.8 around the centre
    np.testing.assert_allclose(lo, [0.0, 0.5])
    np.testing.assert_allclose(hi, [0.78, 1.0])  # clipped to the cube
    lo, hi = region_bounds(np.array([0.5, 0.5]), 0.25)
    np.testing.assert_allclose(lo, [0.4, 0.4])
    np.testing.assert_allclose(hi, [0.6, 0.6])


# -- the in-box samplers through their own interface ------------------------------------------
SPACE = [
    ParamSpec("x", "float", low=0.0, high=1.0),
    ParamSpec("c", "categorical", choices=("a", "b", "c", "d")),
]


def _snapshot(seed: int = 0, ctx: dict[int, float] | None = None, n_pending: int = 0) -> Snapshot:
    """Two boxes split at x = 0.5; box 0 holds observations, the best at x = 0.3."""
    X = np.array([[0.1, 0.1], [0.3, 0.4], [0.45, 0.9], [0.7, 0.3]])
    y = np.array([-4.0, -1.0, -3.0, -2.0])
    return Snapshot(
        X=X,
        y=y,
        leaf_of=np.array([0, 0, 0, 1]),
        low=np.array([[0.0, 0.0], [0.5, 0.0]]),
        high=np.array([[0.5, 1.0], [1.0, 1.0]]),
        ctx=ctx or {},
        rng=np.random.default_rng(seed),
        n_pending=n_pending,
        pending=lambda: np.zeros((0, 2)),
        targets=lambda idx: y[idx],
        repeats=lambda P: np.zeros(P.shape[0], dtype=bool),
    )


def test_uniform_draws_fill_the_box_and_keep_contexts() -> None:
    draws = Uniform().draw(_snapshot(ctx={1: 0.6}), 1, 500)
    assert np.all((draws[:, 0] >= 0.5) & (draws[:, 0] <= 1.0))
    assert np.ptp(draws[:, 0]) > 0.45
    np.testing.assert_array_equal(draws[:, 1], 0.6)


def test_trust_region_draws_around_the_best_and_keeps_discrete_columns_whole() -> None:
    sampler = TrustRegion(UnitCube(SPACE), n_startup=0)
    sampler.state = TrustRegionState(rho=0.25, n_seen=4, best=-1.0)  # values consumed
    draws = sampler.draw(_snapshot(), 0, 400)
    half = 0.5 * CUBE_SIDE * 0.25
    assert np.all(np.abs(draws[:, 0] - 0.3) <= half + 1e-12)  # around the best, x = 0.3
    assert np.ptp(draws[:, 0]) > 1.5 * half
    assert np.ptp(draws[:, 1]) > 0.9  # the categorical keeps the box's whole range


def test_trust_region_state_changes_only_in_update() -> None:
    sampler = TrustRegion(UnitCube(SPACE), n_startup=0)
    assert sampler.state == TrustRegionState()
    sampler.update(np.array([0.0, -1.0, -1.0, -1.0, -1.0]), n_pending=0)
    assert (sampler.state.rho, sampler.state.n_seen) == (0.5, 5)
    sampler.update(np.array([0.0, -1.0, -1.0, -1.0, -1.0]), n_pending=0)  # nothing new
    assert (sampler.state.rho, sampler.state.n_seen) == (0.5, 5)
    # a draw consumes the values it has not seen, with the points pending then
    snap = _snapshot(n_pending=9)
    sampler = TrustRegion(UnitCube(SPACE), n_startup=0)
    sampler.draw(snap, 0, 1)
    assert sampler.state == trust_region_replay(TrustRegionState(), snap.y, 2, 0, 9)


def test_an_empty_box_is_drawn_uniformly_by_every_sampler() -> None:
    snap = _snapshot()
    snap = Snapshot(**{**snap.__dict__, "leaf_of": np.array([0, 0, 0, 0])})
    for sampler in (TrustRegion(UnitCube(SPACE), 0), LocalGP(UnitCube(SPACE), 0)):
        draws = sampler.draw(snap, 1, 200)
        assert np.all(draws[:, 0] >= 0.5) and np.ptp(draws[:, 0]) > 0.45
        assert sampler.state == TrustRegionState()  # nothing to refine around: untouched


def test_local_gp_asked_for_candidates_gives_the_trust_regions() -> None:
    tr, gp = TrustRegion(UnitCube(SPACE), 0), LocalGP(UnitCube(SPACE), 0)
    np.testing.assert_array_equal(gp.draw(_snapshot(3), 0, 32), tr.draw(_snapshot(3), 0, 32))


def test_local_gp_draws_one_point_in_the_region_with_contexts_fixed() -> None:
    sampler = LocalGP(UnitCube(SPACE), n_startup=0)
    x = sampler.draw(_snapshot(ctx={1: 0.6}), 0, 1)
    assert x.shape == (1, 2) and x[0, 1] == 0.6
    assert abs(x[0, 0] - 0.3) <= 0.5 * CUBE_SIDE + 1e-12


# -- the in-box samplers inside TreeUCB --------------------------------------------------------
def _sphere(x: np.ndarray) -> float:
    return -float(np.sum((x - 0.3) ** 2))


OPTIMUM = np.array([0.53, 0.5])


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_only_the_trust_region_gets_to_an_optimum_across_the_box_edge(sampling: str) -> None:
    # 40 observations of -|x - OPTIMUM|^2 outside a disc around the optimum, so that the box
    # of the best observation ends 0.047 short of it (seed 10); n_startup_trials=40 keeps the trust
    # region at its initial side
    rng = np.random.default_rng(10)
    X = rng.random((200, 2))
    X = X[np.linalg.norm(X - OPTIMUM, axis=1) > 0.08][:40]
    bandit = TreeUCB(2, seed=0, n_startup_trials=40, sampling=sampling)  # type: ignore[arg-type]
    bandit.tell_many(X, -np.sum((X - OPTIMUM) ** 2, axis=1))
    stats = bandit.fit_leaves()
    b = int(np.argmax(stats.index))
    low, high = stats.low[b], stats.high[b]
    gap = float(np.linalg.norm(np.maximum(low - OPTIMUM, 0) + np.maximum(OPTIMUM - high, 0)))
    assert gap > 0.04  # the optimum lies outside the played box
    draws = []
    for _ in range(30):
        draws.append(bandit.ask_x())
        bandit.forget_pending(draws[-1])  # the partition and the index stay as they are
    P = np.array(draws)
    in_box = np.all((P >= low) & (P <= high), axis=1)
    closest = float(np.min(np.linalg.norm(P - OPTIMUM, axis=1)))
    if sampling == "uniform":  # the paper's rule stays in the box
        assert in_box.all() and closest >= gap
    else:  # TuRBO's region reaches past the box's faces
        assert np.mean(~in_box) >= 0.5
        assert np.all(np.ptp(P, axis=0) <= CUBE_SIDE + 1e-12)  # rho = 1
    if sampling == "local_gp":  # and the local GP finds the optimum there
        assert closest < 0.5 * gap


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_contexts_are_respected(sampling: str, index: str) -> None:
    space = [ParamSpec("x", "float", low=0.0, high=1.0), ParamSpec("c", "int", low=0, high=3)]
    bandit = TreeUCB(space, seed=0, n_startup_trials=4, sampling=sampling, index=index)  # type: ignore[arg-type]
    for t in range(40):
        c = t % 4
        p = bandit.ask({"c": c})
        assert p["c"] == c and 0.0 <= p["x"] <= 1.0
        bandit.tell(p, -((p["x"] - 0.2 * c) ** 2))


@pytest.mark.parametrize("sampling", ["local_gp", "trust_region"])
def test_in_box_samplers_play_the_full_budget_under_pruned_context(sampling: str) -> None:
    # with pruned="context" the partition has a budget column the parameters do not: the
    # draw, its trust region and the pending points live in that larger cube and come back as
    # points of the parameters' cube, near the optimum of the full evaluations
    bandit = TreeUCB(3, seed=1, sampling=sampling, pruned="context", max_budget=27)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for t in range(80):
        x = bandit.ask_x()
        budget = None if t % 3 == 0 else int(rng.integers(1, 27))
        bandit.tell_x(x, _sphere(x), budget=budget)
    bandit.add_pending(bandit.ask_x())
    x = bandit.ask_x()
    assert x.shape == (3,) and np.all((x >= 0.0) & (x <= 1.0))
    assert np.linalg.norm(bandit.best_x - 0.3) < 0.1


@pytest.mark.parametrize("sampling", ["trust_region", "local_gp"])
def test_concurrent_asks_in_one_box_differ(sampling: str) -> None:
    bandit = TreeUCB(2, seed=0, sampling=sampling)  # type: ignore[arg-type]
    for _ in range(40):
        x = bandit.ask_x()
        bandit.tell_x(x, _sphere(x))
    asked = np.array([bandit.ask_x() for _ in range(8)])  # all pending
    assert np.unique(asked, axis=0).shape[0] == 8


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_seeded_runs_repeat_and_pickles_continue(sampling: str) -> None:
    def run(b: TreeUCB, n: int) -> list[np.ndarray]:
        out = []
        for _ in range(n):
            x = b.ask_x()
            b.tell_x(x, _sphere(x))
            out.append(x)
        return out

    a, b = TreeUCB(3, seed=4, sampling=sampling), TreeUCB(3, seed=4, sampling=sampling)  # type: ignore[arg-type]
    np.testing.assert_array_equal(run(a, 30), run(b, 30))
    c = pickle.loads(pickle.dumps(a))
    assert c.trust_region == a.trust_region
    assert (a.trust_region is None) == (sampling == "uniform")
    np.testing.assert_array_equal(run(a, 20), run(c, 20))


def test_a_rebuilt_bandit_gets_the_same_trust_region() -> None:
    live = TreeUCB(2, seed=0, sampling="trust_region")
    for _ in range(50):
        x = live.ask_x()
        live.tell_x(x, _sphere(x))
    rebuilt = TreeUCB(2, seed=1, sampling="trust_region")
    rebuilt.tell_many(live.X, live.values)
    rebuilt.ask_x()
    live.ask_x()  # each draw consumes the values told since the last one
    assert rebuilt.trust_region == live.trust_region
    assert live.trust_region is not None and live.trust_region.n_seen == 50


def test_reading_the_trust_region_changes_nothing() -> None:
    bandit = TreeUCB(2, seed=0, sampling="trust_region")
    for _ in range(20):
        x = bandit.ask_x()
        bandit.tell_x(x, _sphere(x))
    before = bandit.trust_region
    for _ in range(3):
        bandit.tell_x(np.array([0.9, 0.9]), -10.0)
    assert bandit.trust_region == before  # the told values wait for the next draw


def test_bad_sampling_raises_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"'sampling' parameter of TreeUCB must be one of"):
        TreeUCB(2, sampling="parzen")  # type: ignore[arg-type]


def _constrained_snapshot() -> Snapshot:
    """40 observations of a bowl at (0.35, 0.35) under x0 <= 0.3, in two boxes split at 0.5."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    g = X[:, 0] - 0.3  # feasible when x0 <= 0.3
    y = -np.sum((X - 0.35) ** 2, axis=1)  # the best feasible sits near x0 = 0.3
    v = np.maximum(g, 0.0)
    scores = np.where(v > 0, -v - 10.0, y)  # feasible above infeasible, as the rewards
    return Snapshot(
        X=X,
        y=scores,
        leaf_of=(X[:, 0] >= 0.5).astype(int),
        low=np.array([[0.0, 0.0], [0.5, 0.0]]),
        high=np.array([[0.5, 1.0], [1.0, 1.0]]),
        ctx={},
        rng=np.random.default_rng(1),
        n_pending=0,
        pending=lambda: np.zeros((0, 2)),
        targets=lambda idx: scores[idx],
        repeats=lambda P: np.zeros(P.shape[0], dtype=bool),
        violations=v,
        objective=lambda idx: y[idx],
        constraints=g[:, None],
    )


def test_under_constraints_the_local_gp_centres_on_the_best_feasible_point_of_all() -> None:
    # SCBO: the region sits around the best feasible observation, here in box 0, whichever
    # box is played; with the constraint values known, one GP per constraint
    snap = _constrained_snapshot()
    X, best = snap.X, int(np.argmax(snap.y))
    sampler = LocalGP(UnitCube(SPACE), n_startup=0)
    x = sampler.draw(snap, 1, 1)[0]  # box 1 played: x0 >= 0.5, all infeasible
    half = CUBE_SIDE * sampler.state.rho / 2
    assert np.all(np.abs(x - X[best]) <= half + 1e-12)
    assert x[0] < 0.5  # outside the played box, near the feasible optimum


def test_under_constraints_draws_reach_the_boundary_optimum_of_the_models() -> None:
    # the constrained optimum (0.3, 0.35) lies on the constraint's boundary, where random
    # candidates land only by chance: the optima of the objective's posterior mean subject to
    # the constraints' means, among the candidates, are drawn when Thompson's draws favour them
    snap = _constrained_snapshot()
    floats = UnitCube([ParamSpec(n, "float", low=0.0, high=1.0) for n in "xy"])
    dist = []
    for seed in range(20):
        snap = Snapshot(**{**snap.__dict__, "rng": np.random.default_rng(seed)})
        x = LocalGP(floats, n_startup=0).draw(snap, 1, 1)[0]
        dist.append(np.hypot(x[0] - 0.3, x[1] - 0.35))
    # without the optima, none of these 20 draws comes within 0.015 (median distance 0.044)
    assert np.sum(np.array(dist) < 0.01) >= 5


@pytest.mark.parametrize(
    ("n", "k", "expected"),
    [(5, 2, True), (6, 2, False), (7, 3, True), (7, 4, False), (7, 1, False)],
)
def test_every_other_ask_proposes_by_hypervolume_with_two_or_three_objectives(
    n: int, k: int, expected: bool
) -> None:
    snap = _snapshot()
    Y = np.random.default_rng(0).random((n, k))
    snap = Snapshot(**{**snap.__dict__, "objectives": Y, "front": np.arange(n)})
    assert snap.several() is expected
    assert Snapshot(**{**snap.__dict__, "objectives": None}).several() is False


def test_the_hypervolume_proposal_fills_the_largest_gap_of_the_front() -> None:
    # both objectives (maximised) known exactly along x: f1 = x, f2 = 1 - x, a straight front
    X = np.linspace(0.0, 1.0, 41)[:, None]
    gps = [fit_gp(X, X[:, 0]), fit_gp(X, 1.0 - X[:, 0])]
    seen = np.array([0.0, 0.1, 0.2, 0.9, 1.0])
    front = Front(np.column_stack((seen, 1.0 - seen)), np.array([-0.1, -0.1]))
    # the gap (0.2, 0.9) gains 0.35 x 0.35 at its middle; (0, 0.1) only 0.05 x 0.05
    cand = np.array([[0.05], [0.55], [0.95], [0.2]])
    for seed in range(5):
        score = LocalGP._score(gps, cand, np.random.default_rng(seed), front)
        assert int(np.argmax(score)) == 1
        assert score[1] == pytest.approx(0.35**2, rel=0.05)
        assert score[3] == pytest.approx(0.0, abs=1e-3)  # a front point adds nothing
