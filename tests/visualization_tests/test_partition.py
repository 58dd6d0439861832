from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import matplotlib
import numpy as np
import optuna
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.collections import QuadMesh  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from optuna_treeucb import TreeUCBSampler  # noqa: E402
from optuna_treeucb.core import ParamSpec  # noqa: E402
from optuna_treeucb.core import TreeUCB  # noqa: E402
from optuna_treeucb.visualization import get_partition_slice  # noqa: E402
from optuna_treeucb.visualization import plot_bandit_partition  # noqa: E402
from optuna_treeucb.visualization import plot_partition  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _boxes(ax: Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_gid() == "treeucb-box"]


def _points(ax: Axes, gid: str) -> np.ndarray:
    for c in ax.collections:
        if isinstance(c, PathCollection) and c.get_gid() == gid:
            return np.asarray(c.get_offsets())
    return np.zeros((0, 2))


def _assert_tiling(low: np.ndarray, high: np.ndarray) -> None:
    """Boxes in [0, 1]^2 with areas summing to 1 and disjoint interiors tile the square."""
    assert np.all(low >= -1e-12) and np.all(high <= 1 + 1e-12) and np.all(high > low)
    np.testing.assert_allclose(np.prod(high - low, axis=1).sum(), 1.0, rtol=1e-9)
    for i, j in itertools.combinations(range(low.shape[0]), 2):
        overlap = np.minimum(high[i], high[j]) - np.maximum(low[i], low[j])
        assert not np.all(overlap > 1e-12), (i, j)


def _unit_boxes(
    ax: Axes, to_unit_x: Callable[[float], float], to_unit_y: Callable[[float], float]
) -> tuple[np.ndarray, np.ndarray]:
    low, high = [], []
    for r in _boxes(ax):
        x0, y0 = r.get_xy()
        x1, y1 = x0 + r.get_width(), y0 + r.get_height()
        low.append([to_unit_x(x0), to_unit_y(y0)])
        high.append([to_unit_x(x1), to_unit_y(y1)])
    return np.array(low), np.array(high)


def _study_2d(n_trials: int = 40, **options: Any) -> optuna.Study:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -5.0, 5.0)
        y = trial.suggest_float("y", 0.0, 10.0)
        return (x - 1.0) ** 2 + (y - 2.0) ** 2

    sampler = TreeUCBSampler(seed=0, n_startup_trials=5, **options)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=n_trials)
    return study


def test_plot_partition_tiles_square_and_draws_every_completed_trial() -> None:
    study = _study_2d()
    ax = plot_partition(study, params=("x", "y"))
    assert isinstance(ax, Axes)
    low, high = _unit_boxes(ax, lambda x: (x + 5.0) / 10.0, lambda y: y / 10.0)
    assert low.shape[0] >= 2  # 40 trials of a quadratic give a real partition
    _assert_tiling(low, high)
    completed = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert _points(ax, "treeucb-trials").shape[0] == len(completed)
    # the points are at the trials' own parameter values
    got = {tuple(np.round(p, 9)) for p in _points(ax, "treeucb-trials")}
    want = {(round(t.params["x"], 9), round(t.params["y"], 9)) for t in completed}
    assert got == want
    assert ax.get_xlabel() == "x" and ax.get_ylabel() == "y"
    assert ax.get_xlim() == pytest.approx((-5.0, 5.0))
    # the next box is one of the drawn boxes and holds the next point
    (nxt,) = [p for p in ax.patches if p.get_gid() == "treeucb-next-box"]
    assert isinstance(nxt, Rectangle)
    assert any(
        r.get_xy() == pytest.approx(nxt.get_xy())
        and r.get_width() == pytest.approx(nxt.get_width())
        for r in _boxes(ax)
    )
    (star,) = _points(ax, "treeucb-next-point")
    assert nxt.get_x() <= star[0] <= nxt.get_x() + nxt.get_width()
    assert nxt.get_y() <= star[1] <= nxt.get_y() + nxt.get_height()


def test_plot_partition_default_params_of_2d_study_and_given_axes() -> None:
    study = _study_2d(20)
    fig, ax = plt.subplots()
    out = plot_partition(study, ax=ax)
    assert out is ax
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x", "y")


@pytest.mark.parametrize(
    "params, match",
    [
        (("x", "nope"), r"\['nope'\]"),
        (("bad1", "bad2"), r"\['bad1', 'bad2'\]"),
        (("x",), "two different parameters"),
        (("x", "x"), "two different parameters"),
    ],
)
def test_plot_partition_bad_params_raise_naming_them(params: tuple[str, ...], match: str) -> None:
    study = _study_2d(12)
    with pytest.raises(ValueError, match=match):
        plot_partition(study, params=params)


def test_plot_partition_params_must_be_a_sequence_of_names() -> None:
    study = _study_2d(12)
    with pytest.raises(TypeError, match="sequence of two parameter names"):
        plot_partition(study, params="xy")


def test_plot_partition_rejects_multi_objective_study() -> None:
    study = optuna.create_study(directions=["minimize", "minimize"])
    with pytest.raises(ValueError, match="single-objective"):
        plot_partition(study)


def test_plot_partition_rejects_other_samplers() -> None:
    study = _study_2d(12)
    with pytest.raises(TypeError, match="TreeUCBSampler"):
        plot_partition(study, sampler=optuna.samplers.RandomSampler())  # type: ignore[arg-type]


def test_plot_partition_of_a_study_run_by_another_sampler() -> None:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("a", 0, 1) + t.suggest_float("b", 0, 1), n_trials=20)
    ax = plot_partition(study)
    assert _points(ax, "treeucb-trials").shape[0] == 20


CHOICES = ["sgd", "adam", "rmsprop"]


def _log_int_categorical_study() -> optuna.Study:
    def objective(trial: optuna.Trial) -> float:
        lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
        units = trial.suggest_int("units", 1, 8)
        opt = trial.suggest_categorical("opt", CHOICES)
        return (math.log10(lr) + 3) ** 2 + abs(units - 4) + CHOICES.index(opt)

    study = optuna.create_study(sampler=TreeUCBSampler(seed=1, n_startup_trials=5))
    study.optimize(objective, n_trials=40)
    return study


def _lr_opt_boxes(study: optuna.Study) -> tuple[Axes, np.ndarray, np.ndarray]:
    ax = plot_partition(study, params=("lr", "opt"))
    low, high = _unit_boxes(
        ax, lambda x: (math.log10(x) + 5.0) / 4.0, lambda y: (y + 0.5) / len(CHOICES)
    )
    return ax, low, high


@pytest.mark.xfail(
    strict=True,
    reason="known defect: the leaf-diameter cap halves the widest side of a box, a categorical "
    "side too, so a cut can fall inside one choice's bin (here at 0.5 of 'opt', the middle "
    "of 'adam'); strict, so that the fix is noticed",
)
def test_every_box_edge_on_a_categorical_axis_falls_between_two_choices() -> None:
    _, low, high = _lr_opt_boxes(_log_int_categorical_study())
    k = np.concatenate((low[:, 1], high[:, 1])) * len(CHOICES)
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)


def test_axes_in_parameter_units_log_int_and_categorical() -> None:
    study = _log_int_categorical_study()
    ax, low, high = _lr_opt_boxes(study)
    assert ax.get_xscale() == "log"
    assert ax.get_xlim() == pytest.approx((1e-5, 1e-1))
    assert [t.get_text() for t in ax.get_yticklabels()] == CHOICES
    _assert_tiling(low, high)

    plt.close("all")
    ax = plot_partition(study, params=("units", "lr"))
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "log"
    assert ax.get_xlim() == pytest.approx((0.5, 8.5))  # bins of the grid values 1..8
    low, high = _unit_boxes(ax, lambda x: (x - 0.5) / 8.0, lambda y: (math.log10(y) + 5) / 4)
    _assert_tiling(low, high)
    # points sit on the grid values
    pts = np.concatenate([_points(ax, "treeucb-trials"), _points(ax, "treeucb-trials-off-slice")])
    np.testing.assert_allclose(pts[:, 0], np.round(pts[:, 0]))
    assert pts.shape[0] == 40


def test_slice_of_a_4d_model_tiles_the_square_and_keeps_every_point() -> None:
    bandit = TreeUCB(4, seed=0, n_startup_trials=5)
    rng = np.random.default_rng(0)
    for _ in range(80):
        x = bandit.ask_x()
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)) + 0.01 * rng.normal())
    for slice_at in ("best", "next", {"x0": 0.9}):
        info = get_partition_slice(bandit, ("x1", "x3"), slice_at=slice_at)
        _assert_tiling(info.low, info.high)
        assert info.X.shape == (80, 2)
        assert 0 < info.in_slice.sum() <= 80
        assert info.n_obs.sum() == info.in_slice.sum()
    info = get_partition_slice(bandit, ("x1", "x3"), slice_at={"x0": 0.9})
    assert info.slice_point[0] == 0.9
    assert info.slice_point[2] == bandit.X[np.argmax(bandit.values), 2]
    info = get_partition_slice(bandit, ("x1", "x3"), slice_at="next")
    assert info.next_row is not None  # slicing through the next point shows its box
    ax = plot_bandit_partition(bandit, ("x1", "x3"))
    low, high = _unit_boxes(ax, float, float)
    _assert_tiling(low, high)
    n_on = _points(ax, "treeucb-trials").shape[0]
    assert n_on + _points(ax, "treeucb-trials-off-slice").shape[0] == 80
    assert "slice at x0=" in ax.get_title()


def test_slice_of_a_model_with_the_budget_as_context_is_at_the_full_budget() -> None:
    bandit = TreeUCB(3, seed=0, n_startup_trials=5, pruned="context", max_budget=9)
    for i in range(60):
        x = bandit.ask_x()
        step = (1, 3, None)[i % 3]
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)) * (1 + (step or 9)), budget=step)
    assert bandit.fit_leaves().low.shape[1] == 4  # x0, x1, x2 and the budget's context
    for params in (None, ("x0", "x2")):
        info = get_partition_slice(bandit, params, slice_at="next")
        _assert_tiling(info.low, info.high)  # the boxes at the full budget tile the square
        assert info.X.shape == (60, 2)
        assert info.n_obs.sum() == info.in_slice.sum() > 0
        assert info.next_row is not None
    ax = plot_bandit_partition(bandit, ("x0", "x2"))
    _assert_tiling(*_unit_boxes(ax, float, float))


@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_default_params_of_a_wide_model_are_the_finest_split(rule: str) -> None:
    bandit = TreeUCB(4, seed=0, rule=rule)  # type: ignore[arg-type]
    X = np.random.default_rng(0).random((200, 4))
    bandit.tell_many(X, np.sin(12 * X[:, 0]) + np.sin(12 * X[:, 2]) + 0.1 * X[:, 3])
    chosen = get_partition_slice(bandit).params
    # the documented rule: the largest mean over observations of log(1 / width) of their box
    leaves = bandit.fit_leaves()
    score = leaves.n_obs @ -np.log(leaves.high - leaves.low)
    top = sorted(np.argsort(-score)[:2])
    assert chosen == tuple(f"x{j}" for j in top)
    if rule == "refit":  # CART splits on what matters: x1 is irrelevant, x3 nearly so
        assert chosen == ("x0", "x2")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"slice_at": "worst"}, ValueError, "'best', 'next'"),
        ({"slice_at": {"x0": 0.5}}, ValueError, r"not plotted \['x2'\]"),
        ({"slice_at": {"zz": 0.5}}, ValueError, r"\['zz'\]"),
        ({"show_index": "size"}, ValueError, "show_index"),
        ({"resolution": 1}, ValueError, "resolution"),
    ],
)
def test_plot_bandit_partition_bad_arguments(
    kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    bandit = TreeUCB(3, seed=0, n_startup_trials=2)
    bandit.tell_many(np.random.default_rng(0).random((10, 3)), np.arange(10.0))
    with pytest.raises(error, match=match):
        plot_bandit_partition(bandit, ("x0", "x1"), **kwargs)  # type: ignore[arg-type]


def test_one_parameter_model_is_refused() -> None:
    bandit = TreeUCB(1, seed=0)
    with pytest.raises(ValueError, match=r"only \['x0'\]"):
        plot_bandit_partition(bandit)
    with pytest.raises(TypeError, match="TreeUCB"):
        plot_bandit_partition(object())  # type: ignore[arg-type]


@pytest.mark.parametrize("index", ["hoeffding", "soft_gp"])
def test_plotting_leaves_the_bandit_untouched_and_predicts_its_next_point(index: str) -> None:
    bandit = TreeUCB(2, seed=3, index=index, n_startup_trials=4)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    for _ in range(30):
        x = bandit.ask_x()
        bandit.tell_x(x, float(-np.abs(x - 0.7).sum() + 0.05 * rng.normal()))
    info = get_partition_slice(bandit)
    plot_bandit_partition(bandit)
    assert bandit.pending.shape[0] == 0 and bandit.n_observations == 30
    x_next = bandit.ask_x()
    assert info.next_x is not None
    np.testing.assert_array_equal(info.next_x, x_next)
    assert info.next_low is not None and info.next_high is not None
    assert np.all((info.next_low <= x_next) & (x_next <= info.next_high))


def test_start_up_has_no_next_box_and_pending_points_are_drawn() -> None:
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=10))
    study.optimize(lambda t: t.suggest_float("a", 0, 1) - t.suggest_float("b", 0, 1), n_trials=5)
    running = study.ask()
    running.suggest_float("a", 0, 1)
    running.suggest_float("b", 0, 1)
    ax = plot_partition(study)
    assert not [p for p in ax.patches if p.get_gid() == "treeucb-next-box"]
    assert "start-up" in ax.get_title()
    assert _points(ax, "treeucb-pending").shape == (1, 2)
    assert _points(ax, "treeucb-trials").shape == (5, 2)


def test_reward_fn_is_drawn_on_the_parameters_grid() -> None:
    space = [ParamSpec("u", "float", low=0.0, high=2.0), ParamSpec("k", "int", low=0, high=3)]
    bandit = TreeUCB(space, seed=0, n_startup_trials=3)
    for _ in range(20):
        p = bandit.ask()
        bandit.tell(p, p["u"] * p["k"])
    calls: list[dict[str, Any]] = []

    def reward(params: dict[str, Any]) -> float:
        calls.append(params)
        return float(params["u"]) * params["k"]

    ax = plot_bandit_partition(bandit, ("u", "k"), reward_fn=reward, resolution=8)
    assert len(calls) == 64 and all(set(c) == {"u", "k"} for c in calls)
    assert all(isinstance(c["k"], int) for c in calls)
    (mesh,) = [c for c in ax.collections if isinstance(c, QuadMesh)]
    z = np.asarray(mesh.get_array()).reshape(8, 8)
    assert z[-1, -1] == pytest.approx(max(c["u"] * c["k"] for c in calls))  # top right
    assert any(t.get_text() for t in ax.texts)  # indices written, since the map is coloured


def test_missing_matplotlib_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    bandit = TreeUCB(2, seed=0)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot_bandit_partition(bandit)


def test_plot_partition_of_conditional_parameters() -> None:
    def objective(trial: optuna.Trial) -> float:
        if trial.suggest_categorical("kind", ["a", "b"]) == "a":
            return trial.suggest_float("a1", 0, 1) + trial.suggest_float("a2", 0, 1)
        return 1.0 + trial.suggest_float("b1", 0, 1)

    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=3))
    study.optimize(objective, n_trials=25)
    n_a = sum("a1" in t.params for t in study.trials)
    ax = plot_partition(study, params=("a1", "a2"))  # outside the intersection search space
    assert _points(ax, "treeucb-trials").shape[0] == n_a
    with pytest.raises(ValueError, match=r"\['zz'\]"):
        plot_partition(study, params=("a1", "zz"))


def test_next_point_sits_on_the_row_of_its_choice() -> None:
    # the model's next point lies anywhere in its choice's bin; it is drawn on the choice's row
    choices = ["sgd", "adam", "rmsprop", "adagrad"]
    space = [
        ParamSpec("lr", "float", low=1e-4, high=1.0, log=True),
        ParamSpec("opt", "categorical", choices=tuple(choices)),
        ParamSpec("units", "int", low=1, high=6),
    ]
    for seed in range(3):
        bandit = TreeUCB(space, seed=seed, n_startup_trials=5)
        for _ in range(30):
            p = bandit.ask()
            bandit.tell(p, -abs(math.log10(p["lr"]) + 2) - choices.index(p["opt"]) - p["units"])
        info = get_partition_slice(bandit, ("opt", "units"))
        assert info.next_x is not None
        ax = plot_bandit_partition(bandit, ("opt", "units"))
        ((x, y),) = _points(ax, "treeucb-next-point")
        decoded = space[1].decode(float(info.next_x[1])), space[2].decode(float(info.next_x[2]))
        assert (x, y) == (choices.index(decoded[0]), decoded[1])
        plt.close("all")


def test_a_next_box_too_thin_to_see_is_circled() -> None:
    bandit = TreeUCB(2, seed=0, n_startup_trials=5)  # the paper's draws stay in the played box
    rng = np.random.default_rng(0)
    for _ in range(400):
        x = bandit.ask_x()
        bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)) + 0.01 * rng.normal())
    info = get_partition_slice(bandit)
    assert info.next_low is not None and info.next_high is not None
    thin = bool(np.any(info.next_high - info.next_low < 0.015))
    ax = plot_bandit_partition(bandit)
    (box,) = [p for p in ax.patches if p.get_gid() == "treeucb-next-box"]
    assert box.get_linewidth() >= 2.5 and box.get_zorder() > 3  # above the observations
    assert (_points(ax, "treeucb-next-box-mark").shape[0] == 1) == thin
    assert thin  # this run ends in a thin box (as the paper's figure does)
