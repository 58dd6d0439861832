from __future__ import annotations

import logging
import math
import pickle
import threading
from collections.abc import Callable

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube

MIXED = [
    ParamSpec("x", "float", low=-2.0, high=2.0),
    ParamSpec("lr", "float", low=1e-4, high=1.0, log=True),
    ParamSpec("k", "int", low=1, high=9, step=2),
    ParamSpec("act", "categorical", choices=("relu", None, True)),
]


def _mixed_objective(p: dict) -> float:
    return (p["x"] - 0.5) ** 2 + (math.log10(p["lr"]) + 2) ** 2 + p["k"] + (p["act"] is None)


def _run(bandit: TreeUCB, n: int) -> list[dict]:
    asked = []
    for _ in range(n):
        p = bandit.ask()
        asked.append(p)
        bandit.tell(p, _mixed_objective(p))
    return asked


@pytest.mark.parametrize("rule", ["refit", "incremental"])
@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_asks_are_legal_values_and_reproducible(rule: str, index: str) -> None:
    a = _run(TreeUCB(MIXED, seed=3, rule=rule, index=index, n_startup_trials=5), 40)  # type: ignore[arg-type]
    b = _run(TreeUCB(MIXED, seed=3, rule=rule, index=index, n_startup_trials=5), 40)  # type: ignore[arg-type]
    assert a == b
    for p in a:
        assert -2.0 <= p["x"] <= 2.0 and 1e-4 <= p["lr"] <= 1.0
        assert type(p["k"]) is int and p["k"] in (1, 3, 5, 7, 9)
        assert any(p["act"] is c for c in ("relu", None, True))
    c = _run(TreeUCB(MIXED, seed=4, rule=rule, index=index, n_startup_trials=5), 40)  # type: ignore[arg-type]
    assert c != a


def test_hoeffding_ask_falls_in_a_box_of_maximal_index() -> None:
    # the paper's rule (the core's default, sampling="uniform"): the point inside the box
    rng = np.random.default_rng(0)
    bandit = TreeUCB(2, seed=0, n_startup_trials=5)
    for t in range(60):
        lv = bandit.fit_leaves()
        x = bandit.ask_x()
        # the boxes that hold x (by its float64 coordinates; the tree routes float32 copies,
        # which may differ for a box narrower than float32's resolution)
        holds = np.all((lv.low <= x) & (x <= lv.high), axis=1)
        assert holds.any()
        if t >= 5:  # after the uniformly random start-up points
            assert lv.index[holds].max() >= lv.index.max() - 1e-12
        bandit.tell_x(x, -np.sum((x - 0.7) ** 2) + 0.01 * rng.standard_normal())


def test_the_core_defaults_to_the_papers_bandit() -> None:
    bandit = TreeUCB(2)
    assert bandit.sampling == "uniform" and bandit.trust_region is None


def test_pending_points_are_counted_and_spread_parallel_asks() -> None:
    bandit = TreeUCB(2, seed=1, n_startup_trials=4, C=1.0)
    rng = np.random.default_rng(1)
    for _ in range(40):
        x = bandit.ask_x()
        bandit.tell_x(x, float(rng.random()))
    asked = [bandit.ask_x() for _ in range(8)]
    lv = bandit.fit_leaves()
    assert lv.n_pending.sum() == 8 and bandit.pending.shape == (8, 2)
    leaves = bandit.partition.locate(np.array(asked))
    assert np.unique(leaves).size > 1  # not all piled onto the same box
    bandit.tell_x(asked[0], 0.5)
    bandit.forget_pending(asked[1])
    assert bandit.pending.shape == (6, 2)
    bandit.set_pending([])
    assert bandit.pending.shape == (0, 2)


def test_pending_point_in_an_empty_box_lowers_its_index_and_keeps_its_prior() -> None:
    # An empty cell (cut by the diameter cap) holds its leaf's mean as one virtual
    # observation; a pending point there adds to n, and the mean stays the prior (it used to
    # become 1, the best reward, which drew further parallel asks into the same cell).
    rng = np.random.default_rng(0)
    X = rng.random((40, 2)) * 0.5  # observations in one quarter: the other cells stay empty
    bandit = TreeUCB(2, seed=0, C=0.1, M=0.0)
    bandit.tell_many(X, X[:, 0] + X[:, 1])
    idle = bandit.fit_leaves()
    b = int(np.flatnonzero(idle.n_obs == 0)[0])
    bandit.set_pending([(idle.low[b] + idle.high[b]) / 2.0])
    busy = bandit.fit_leaves()
    assert busy.n_pending[b] == 1 and busy.n_obs[b] == 0

    def bonus(t: int, n: int) -> float:
        return 0.1 * math.sqrt(4.0 * math.log(t) / n)

    prior = idle.index[b] - bonus(41, 1)  # the cell's mean without the pending point
    np.testing.assert_allclose(busy.index[b], prior + bonus(42, 2))
    assert busy.index[b] < idle.index[b]


def test_ask_registers_params_pending_until_told() -> None:
    bandit = TreeUCB(MIXED, seed=0, n_startup_trials=2)
    p = bandit.ask()
    assert bandit.pending.shape == (1, 4)
    bandit.tell(p, 1.0)  # params decode to grid values: pending is matched on them
    assert bandit.pending.shape == (0, 4)


@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_context_is_kept_and_the_played_box_contains_it(index: str) -> None:
    bandit = TreeUCB(MIXED, seed=0, n_startup_trials=5, index=index)  # type: ignore[arg-type]
    _run(bandit, 30)
    for ctx in ({"act": None}, {"k": 9, "x": -2.0}, {"lr": 1.0}):
        p = bandit.ask(context=ctx)
        for key, value in ctx.items():
            assert p[key] is value
        bandit.tell(p, _mixed_objective(p))


def test_contextual_treeucb_learns_per_context_optimum() -> None:
    # reward peaks at arm = context: the best box depends on the context
    bandit = TreeUCB(
        [
            ParamSpec("ctx", "categorical", choices=("low", "high")),
            ParamSpec("arm", "float", low=0, high=1),
        ],
        seed=0,
        n_startup_trials=10,
    )
    rng = np.random.default_rng(0)
    target = {"low": 0.1, "high": 0.9}
    for t in range(400):
        ctx = "low" if t % 2 else "high"
        p = bandit.ask(context={"ctx": ctx})
        bandit.tell(p, -abs(p["arm"] - target[ctx]) + 0.05 * rng.standard_normal())
    for ctx in ("low", "high"):
        arms = [bandit.ask(context={"ctx": ctx})["arm"] for _ in range(20)]
        bandit.set_pending([])
        assert abs(np.median(arms) - target[ctx]) < 0.2


def test_minimize_f_equals_maximize_minus_f() -> None:
    a = TreeUCB(MIXED, seed=5, direction="minimize", n_startup_trials=3)
    b = TreeUCB(MIXED, seed=5, direction="maximize", n_startup_trials=3)
    for _ in range(30):
        pa, pb = a.ask(), b.ask()
        assert pa == pb
        a.tell(pa, _mixed_objective(pa))
        b.tell(pb, -_mixed_objective(pb))
    np.testing.assert_allclose(a.values, -b.values)
    assert a.best_params == b.best_params


def test_nan_is_ignored_with_a_warning_and_inf_is_ranked(caplog: pytest.LogCaptureFixture) -> None:
    bandit = TreeUCB(2, seed=0, n_startup_trials=2)
    with caplog.at_level(logging.WARNING):
        bandit.tell_x([0.1, 0.1], float("nan"))
    assert "NaN" in caplog.text and bandit.n_observations == 0
    bandit.tell_x([0.2, 0.2], float("inf"))
    bandit.tell_x([0.3, 0.3], float("-inf"))
    bandit.tell_x([0.4, 0.4], 1.0)
    r = bandit.rewards()
    assert np.all(np.isfinite(r)) and r[0] == r.max() and r[1] == r.min()
    for _ in range(20):
        x = bandit.ask_x()
        bandit.tell_x(x, float(x.sum()))
    assert bandit.best_params == {"x0": 0.2, "x1": 0.2}


@pytest.mark.parametrize("rule", ["refit", "incremental"])
@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_pickle_mid_run_continues_identically(rule: str, index: str) -> None:
    bandit = TreeUCB(MIXED, seed=2, rule=rule, index=index, n_startup_trials=4)  # type: ignore[arg-type]
    _run(bandit, 25)
    clone = pickle.loads(pickle.dumps(bandit))
    assert _run(clone, 10) == _run(bandit, 10)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(rule="exact"), ValueError, "'rule'.*'refit', 'incremental'.*'exact'"),
        (dict(index="ei"), ValueError, "'index'"),
        (dict(direction="up"), ValueError, "'direction'"),
        (dict(C=-1.0), ValueError, "'C'.*>= 0"),
        (dict(M=float("nan")), ValueError, "'M'"),
        (dict(n_startup_trials=-1), ValueError, "'n_startup_trials'"),
        (dict(n_startup_trials=1.5), TypeError, "'n_startup_trials'"),
        (dict(max_budget=0), ValueError, "'max_budget'.*> 0"),
        (dict(sampling="parzen"), ValueError, "'sampling'.*'uniform', 'trust_region'"),
        (dict(c=0.1), TypeError, "unexpected option 'c'. Did you mean 'C'\\?"),
        (dict(bagging=5), TypeError, "unexpected option 'bagging'.*The options are"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCB(2, **kwargs)


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="'space'.*>= 1"):
        TreeUCB(0)
    with pytest.raises(TypeError, match="'space'"):
        TreeUCB("abc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one"):
        TreeUCB([])
    bandit = TreeUCB(2, seed=0)
    with pytest.raises(ValueError, match="shape \\(2,\\)"):
        bandit.tell_x([0.1, 0.2, 0.3], 1.0)
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        bandit.tell_x([0.1, 1.5], 1.0)
    with pytest.raises(TypeError, match="'value' parameter of TreeUCB.tell must be a real"):
        bandit.tell_x([0.1, 0.5], "good")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shape \\(3,\\), one per row of X.*Got shape \\(2,\\)"):
        bandit.tell_many(np.zeros((3, 2)), [1.0, 2.0])
    with pytest.raises(ValueError, match="Unknown parameter"):
        bandit.ask(context={"y": 0.3})
    with pytest.raises(ValueError, match="'context' parameter of TreeUCB.ask_x"):
        bandit.ask_x(context={5: 0.3})
    with pytest.raises(RuntimeError, match="at least one"):
        _ = bandit.best_params


def _tell(**kwargs: object) -> Callable[[TreeUCB], object]:
    return lambda bandit: bandit.tell_x([0.5, 0.5], **{"value": 1.0, **kwargs})  # type: ignore


@pytest.mark.parametrize(
    ("call", "error", "name", "got"),
    [
        (_tell(value=None), TypeError, "value", "None"),
        (_tell(value="1.0"), TypeError, "value", "'1.0'"),
        (_tell(value=True), TypeError, "value", "True"),
        (_tell(violation="0.5"), TypeError, "violation", "'0.5'"),
        (_tell(violation=True), TypeError, "violation", "True"),
        (_tell(violation=-0.5), ValueError, "violation", "-0.5"),
        (_tell(budget=np.bool_(True)), TypeError, "budget", "np.True_"),
        (lambda b: b.tell_many(np.full((2, 2), 0.5), [1.0, None]), TypeError, "values", "None"),
        (
            lambda b: b.tell_many(np.full((1, 2), 0.5), [1.0], [0], ["1"]),
            TypeError,
            "violations",
            "",
        ),
        (lambda b: b.ask_x([0.5, 0.5]), TypeError, "context", "\\[0.5, 0.5\\]"),
        (lambda b: b.ask_x({0: True}), TypeError, "context", "{0: True}"),
        (lambda b: b.ask_x({0: "0.5"}), TypeError, "context", "{0: '0.5'}"),
        (lambda b: b.ask_x({True: 0.5}), TypeError, "context", "{True: 0.5}"),
        (lambda b: b.ask_x({0: 1.5}), ValueError, "context", "{0: 1.5}"),
    ],
)
def test_every_numeric_input_follows_one_rule(
    call: Callable[[TreeUCB], object], error: type[Exception], name: str, got: str
) -> None:
    # a number is a Python or NumPy int or float; bool, str and None are not
    bandit = TreeUCB(2, seed=0)
    with pytest.raises(
        error, match=f"The '{name}' parameter of TreeUCB\\.\\w+ must be .*Got .*{got}"
    ):
        call(bandit)
    assert bandit.n_observations == 0 and bandit.n_pending == 0


def test_numpy_numbers_and_nan_values_are_accepted() -> None:
    bandit = TreeUCB(2, seed=0)
    bandit.tell_x([0.5, 0.5], np.float32(1.0), budget=np.int64(3), violation=np.float64(0.5))
    bandit.tell_x([0.2, 0.5], math.nan)  # documented: a failed evaluation, ignored
    bandit.ask_x({np.int64(1): np.float32(0.25)})
    np.testing.assert_array_equal(bandit.violations, [0.5])
    np.testing.assert_array_equal(bandit.budgets, [3.0])


def test_space_accepts_cube_and_specs() -> None:
    cube = UnitCube(MIXED)
    assert TreeUCB(cube).space is cube
    assert TreeUCB(MIXED).space == cube
    assert TreeUCB(3).space.names == ("x0", "x1", "x2")


def test_posterior_is_available_for_plots() -> None:
    bandit = TreeUCB(1, seed=0, n_startup_trials=3, index="soft_gp")
    for _ in range(30):
        x = bandit.ask_x()
        bandit.tell_x(x, float(np.sin(6 * x[0])))
    mean, std = bandit.posterior(np.linspace(0, 1, 11)[:, None])
    assert mean.shape == (11,) and np.all(std > 0) and np.all(std < 1)


# -- it optimises: noisy Lipschitz functions, 2,000 rounds ------------------------------------
def _garland(x: np.ndarray) -> float:
    u = x[0]
    return float(4 * u * (1 - u) * (0.75 + 0.25 * (1 - np.sqrt(abs(np.sin(60 * u))))))


def _himmelblau(x: np.ndarray) -> float:
    a, b = 12 * x[0] - 6, 12 * x[1] - 6
    return float(-((a * a + b - 11) ** 2 + (a + b * b - 7) ** 2) / 890.0)


GARLAND_MAX = max(_garland(np.array([u])) for u in np.linspace(0, 1, 200_001))


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["refit", "incremental"])
@pytest.mark.parametrize(
    "f, d, fmax",
    [(_garland, 1, GARLAND_MAX), (_himmelblau, 2, 0.0)],
    ids=["garland", "himmelblau"],
)
def test_regret_falls_on_noisy_lipschitz_functions(rule: str, f, d: int, fmax: float) -> None:  # type: ignore[no-untyped-def]
    T, seeds = 2000, 3
    first, last, uniform = [], [], []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        # the core's default: the paper's Algorithm 1, whose regret the theorem bounds
        bandit = TreeUCB(d, seed=seed, rule=rule)  # type: ignore[arg-type]
        regret = np.empty(T)
        for t in range(T):
            x = bandit.ask_x()
            v = f(x)
            bandit.tell_x(x, v + 0.1 * rng.standard_normal())
            regret[t] = fmax - v
        first.append(regret[: T // 5].mean())
        last.append(regret[-T // 5 :].mean())
        uniform.append(np.mean([fmax - f(u) for u in rng.random((T, d))]))
    print(
        f"first fifth {np.mean(first):.4f}, last fifth {np.mean(last):.4f}, uniform "
        f"{np.mean(uniform):.4f}"
    )
    assert np.mean(last) < 0.7 * np.mean(first)
    assert np.mean(last) < 0.2 * np.mean(uniform)


def test_duplicate_pending_points_count_separately() -> None:
    bandit = TreeUCB(2, seed=0, n_startup_trials=1)
    bandit.tell_x([0.5, 0.5], 1.0)
    bandit.set_pending([[0.2, 0.2], [0.2, 0.2]])
    assert bandit.fit_leaves().n_pending.sum() == 2
    bandit.tell_x([0.2, 0.2], 0.0)  # one of the two running trials finished
    assert bandit.pending.shape == (1, 2)


def test_best_params_are_the_values_as_told() -> None:
    bandit = TreeUCB([ParamSpec("x", "float", low=0.0, high=3.0)], seed=0)
    bandit.tell({"x": 0.2}, 5.0)
    bandit.tell({"x": 2.9}, 1.0)
    assert bandit.best_params == {"x": 0.2}  # not 0.19999999999999996 from the cube


@pytest.mark.parametrize("n_startup_trials", [0, 1, 3])
def test_in_startup_until_n_startup_values_are_told(n_startup_trials: int) -> None:
    bandit = TreeUCB(2, seed=0, n_startup_trials=n_startup_trials)
    for _ in range(max(n_startup_trials, 1)):
        assert bandit.in_startup
        x = bandit.ask_x()
        bandit.tell_x(x, float(x.sum()))
    assert not bandit.in_startup
    assert bandit.partition.version == 0  # start-up asks never fitted the tree
    bandit.ask_x()
    assert bandit.partition.version == (1 if bandit.n_observations >= 2 else 0)


@pytest.mark.parametrize("direction", ["maximize", "minimize"])
def test_best_x_is_the_first_best_point_as_best_params(direction: str) -> None:
    bandit = TreeUCB([ParamSpec("x", "float", low=0.0, high=1.0)], seed=0, direction=direction)
    with pytest.raises(RuntimeError, match="TreeUCB.best_x needs at least one told value"):
        _ = bandit.best_x
    for x, value in [(0.1, 3.0), (0.2, 1.0), (0.3, 3.0), (0.4, 1.0)]:
        bandit.tell({"x": x}, value)
    expected = 0.1 if direction == "maximize" else 0.2  # ties: the first one told
    np.testing.assert_array_equal(bandit.best_x, [expected])
    assert bandit.best_params == {"x": expected}


@pytest.mark.parametrize("sampling", ["uniform", "local_gp"])
def test_two_threads_can_ask_and_tell_one_bandit(sampling: str) -> None:
    # unlocked, this raised "The weights and list don't have the same length" or IndexError
    bandit = TreeUCB(2, seed=0, n_startup_trials=3, sampling=sampling)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def worker(offset: float) -> None:
        start.wait()
        try:
            for _ in range(100):
                x = bandit.ask_x()
                bandit.tell_x(x, float((x[0] - 0.3) ** 2) + offset)
                _ = bandit.best_x, bandit.pending
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert bandit.n_observations == 200 and bandit.n_pending == 0
    copy = pickle.loads(pickle.dumps(bandit))  # the lock is made again, not pickled
    np.testing.assert_array_equal(copy.ask_x(), bandit.ask_x())
