"""TreeUCBSearch driven directly (no ray.init): conversion, results, points, checkpoints.

The domain checks follow ray-project/ray ``python/ray/tune/tests/test_sample.py``
(``_testTuneSampleAPI``), the NaN/inf checks ``test_searchers.py`` (``InvalidValuesTest``) and
the checkpoint checks ``SaveRestoreCheckpointTest``.
"""

from __future__ import annotations

import copy
import inspect
import logging
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ray import tune
from ray.tune.search import UNDEFINED_METRIC_MODE
from ray.tune.search import UNDEFINED_SEARCH_SPACE
from ray.tune.search import ConcurrencyLimiter
from ray.tune.search import Repeater
from ray.tune.search.sample import Categorical
from ray.tune.search.sample import Float

from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import ParamSpec
from ray_treeucb import TreeUCBSearch

Objective = Callable[[dict[str, Any]], float]


def _suggest(searcher: Any, trial_id: str) -> dict[str, Any]:
    config = searcher.suggest(trial_id)
    assert isinstance(config, dict)
    return config


def _run(
    searcher: Any, n_trials: int, objective: Objective, *, prefix: str = "t"
) -> list[dict[str, Any]]:
    """Suggest and complete ``n_trials`` trials one after the other; return the configs."""
    configs = []
    for i in range(n_trials):
        trial_id = f"{prefix}{i}"
        config = _suggest(searcher, trial_id)
        configs.append(config)
        searcher.on_trial_complete(trial_id, {"loss": objective(config)})
    return configs


def _noise(seed: int) -> Objective:
    rng = np.random.default_rng(seed)
    return lambda config: float(rng.random())


def _grid_values(spec: ParamSpec) -> list[Any]:
    """The values of a discrete ParamSpec, decoded at the centres of its bins."""
    n = spec.n_values
    assert n is not None
    return [spec.decode((spec.bin_edge(k) + spec.bin_edge(k + 1)) / 2.0) for k in range(n)]


def _same_values(got: list[Any], expected: list[Any]) -> bool:
    return len(got) == len(expected) and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(got, expected)
    )


# -- conversion of every Tune domain -------------------------------------------------------------
# (domain, Python type of its values, its values as Ray documents them in tune/search/sample.py)
DISCRETE: dict[str, tuple[Any, Any, list[Any]]] = {
    "randint": (tune.randint(-3, 4), int, list(range(-3, 4))),
    "randint_one_value": (tune.randint(5, 6), int, [5]),
    "qrandint": (tune.qrandint(1, 10, 3), int, [3, 6, 9]),
    "qrandint_negative": (tune.qrandint(-4, 8, 4), int, [-4, 0, 4, 8]),
    "qrandint_q1": (tune.qrandint(0, 5), int, [0, 1, 2, 3, 4]),
    "lograndint": (tune.lograndint(1, 10), int, list(range(1, 10))),
    "qlograndint": (tune.qlograndint(2, 16, 2), int, [2, 4, 6, 8, 10, 12, 14, 16]),
    "qlograndint_q1": (tune.qlograndint(1, 8, 1), int, list(range(1, 8))),
    "quniform": (tune.quniform(-1.0, 1.0, 0.5), float, [-1.0, -0.5, 0.0, 0.5, 1.0]),
    "quniform_int_q": (tune.quniform(0, 3, 1), float, [0.0, 1.0, 2.0, 3.0]),
    "qloguniform": (tune.qloguniform(0.1, 1.0, 0.1), float, [0.1 * k for k in range(1, 11)]),
}
LOG = {"lograndint", "qlograndint", "qlograndint_q1", "qloguniform"}


@pytest.mark.parametrize("key", sorted(DISCRETE))
def test_discrete_domain_has_rays_values(key: str) -> None:
    domain, _, expected = DISCRETE[key]
    (spec,) = TreeUCBSearch.convert_search_space({"p": domain})
    assert spec.name == "p" and spec.log == (key in LOG)
    assert _same_values(_grid_values(spec), expected)
    # both ends of the range are reachable: the corners of the cube decode to them
    assert spec.decode(0.0) == pytest.approx(expected[0])
    assert spec.decode(1.0) == pytest.approx(expected[-1])
    # Ray's own sampler draws exactly this set
    ray_values = domain.sample(size=4000, random_state=np.random.default_rng(0))
    assert sorted({round(float(v), 9) for v in ray_values}) == [round(v, 9) for v in expected]


@pytest.mark.parametrize("key", sorted(DISCRETE))
def test_discrete_domain_suggestions(key: str) -> None:
    domain, kind, expected = DISCRETE[key]
    ends = [{"p": expected[0]}, {"p": expected[-1]}]
    searcher = TreeUCBSearch(
        {"p": domain}, metric="loss", mode="min", points_to_evaluate=ends, seed=0
    )
    values = [c["p"] for c in _run(searcher, 40, _noise(0))]
    assert values[:2] == [expected[0], expected[-1]]  # both ends can be suggested
    for v in values:
        assert type(v) is kind  # exactly int or float (not bool, not numpy)
        assert any(math.isclose(v, e, rel_tol=1e-9, abs_tol=1e-12) for e in expected)
        if key in LOG:
            assert v > 0
    sampler = domain.get_sampler()
    if hasattr(sampler, "q"):
        q = sampler.q
        assert all(math.isclose(v / q, round(v / q), abs_tol=1e-9) for v in values)
    assert len({round(v, 9) for v in values}) >= min(len(expected), 3)


@pytest.mark.parametrize(
    ("domain", "low", "high", "log"),
    [
        (tune.uniform(-2.0, 3.0), -2.0, 3.0, False),
        (tune.loguniform(1e-4, 1e-1), 1e-4, 1e-1, True),
        (Float(0.5, 1.5), 0.5, 1.5, False),  # a Float without sampler samples uniformly
    ],
)
def test_continuous_domain_suggestions(domain: Any, low: float, high: float, log: bool) -> None:
    (spec,) = TreeUCBSearch.convert_search_space({"p": domain})
    assert (spec.kind, spec.low, spec.high, spec.log, spec.step) == ("float", low, high, log, None)
    searcher = TreeUCBSearch({"p": domain}, metric="loss", mode="max", seed=1, n_startup_trials=40)
    values = np.array([c["p"] for c in _run(searcher, 40, _noise(1))])
    assert all(type(v) is float for v in values.tolist())
    assert np.all((values >= low) & (values <= high))
    if log:  # spread over the orders of magnitude, not only the top decade
        assert np.all(values > 0)
        u = np.log(values / low) / np.log(high / low)
    else:
        u = (values - low) / (high - low)
    assert u.min() < 0.15 and u.max() > 0.85


def test_choice_returns_the_very_values() -> None:
    choices = [{"a": [1, 2]}, [3, {"b": None}], None, 1, 1.0, True, "s", (4, 5)]
    searcher = TreeUCBSearch(
        {"c": tune.choice(choices)}, metric="loss", mode="min", seed=0, n_startup_trials=80
    )
    original = copy.deepcopy(choices)
    values, mutated, noise = [], 0, _noise(2)
    for i in range(80):
        value = _suggest(searcher, f"t{i}")["c"]
        values.append(copy.deepcopy(value))
        if isinstance(value, (dict, list)):  # the configuration is the caller's to change
            value.clear()
            mutated += 1
        searcher.on_trial_complete(f"t{i}", {"loss": noise({})})
    seen = set()
    for v in values:
        matches = [i for i, c in enumerate(original) if type(c) is type(v) and c == v]
        assert len(matches) == 1, v
        seen.add(matches[0])
    assert seen == set(range(len(choices)))
    assert mutated > 0  # and the searcher's choices stayed intact
    assert searcher.model is not None
    assert searcher.model.space.params[0].choices == tuple(original)


def test_nested_space_is_flattened_and_rebuilt() -> None:
    space = {
        "lr": tune.loguniform(1e-4, 1e-1),
        "model": {
            "layers": [tune.randint(1, 4), 64, {"act": tune.choice(["relu", "tanh"])}],
            "dropout": tune.quniform(0.0, 0.5, 0.1),
            "name": "mlp",
        },
        "pair": (tune.uniform(0.0, 1.0), "fixed"),
        "constant_list": [1, 2, 3],
    }
    names = [p.name for p in TreeUCBSearch.convert_search_space(space)]
    assert names == ["lr", "model/layers/0", "model/layers/2/act", "model/dropout", "pair/0"]
    searcher = TreeUCBSearch(space, metric="loss", mode="min", seed=0)
    for config in _run(searcher, 15, _noise(3)):
        assert set(config) == set(space)
        layers = config["model"]["layers"]
        assert type(layers[0]) is int and 1 <= layers[0] <= 3
        assert layers[1] == 64 and layers[2]["act"] in ("relu", "tanh")
        assert config["model"]["name"] == "mlp" and config["constant_list"] == [1, 2, 3]
        assert 0.0 <= config["model"]["dropout"] <= 0.5
        assert isinstance(config["pair"], tuple) and config["pair"][1] == "fixed"
        assert 0.0 <= config["pair"][0] <= 1.0


@pytest.mark.parametrize(
    ("space", "error", "match"),
    [
        ({"lr": tune.randn()}, ValueError, r"'lr' \(tune\.randn.*Use tune\.uniform"),
        ({"lr": tune.qrandn(0.0, 1.0, 0.1)}, ValueError, r"'lr' \(tune\.qrandn.*Use tune\.uni"),
        ({"g": tune.grid_search([1, 2])}, ValueError, r"'g' \(tune\.grid_search.*tune\.choice"),
        ({"g": Categorical([1, 2]).grid()}, ValueError, r"'g'.*grid.*tune\.choice"),
        ({"m": {"g": tune.grid_search([1])}}, ValueError, r"'m/g' \(tune\.grid_search"),
        ({"f": tune.sample_from(lambda _: 1)}, ValueError, r"'f' \(tune\.sample_from.*Use uni"),
        ({"f": {"eval": "1 + 1"}}, ValueError, r"'f' \(tune\.sample_from"),
        ({"k": tune.randint(3, 3)}, ValueError, r"'k' \(tune\.randint\(3, 3\)\).*no values"),
        ({"k": tune.qrandint(1, 2, 5)}, ValueError, r"'k' \(tune\.qrandint.*no values"),
        ({"c": tune.choice([])}, ValueError, r"'c' \(tune\.choice.*empty"),
        ({"c": tune.choice([tune.uniform(0, 1), 2])}, ValueError, r"'c'.*conditional"),
        ({"x": Float(None, None)}, ValueError, r"'x'.*finite bounds"),
        (
            {"a/b": tune.uniform(0, 1), "a": {"b": tune.uniform(0, 1)}},
            ValueError,
            "'a/b' twice|two",
        ),
        ({"a/b": 1, "a": {"b": tune.uniform(0, 1)}}, ValueError, r"\['a/b'\].*constants"),
        ({"x": 1, "y": "fixed"}, ValueError, "no parameter to tune"),
        ([tune.uniform(0, 1)], TypeError, "must be a dict"),
    ],
)
def test_bad_space_raises(space: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCBSearch.convert_search_space(space)
    with pytest.raises(error, match=match):
        TreeUCBSearch(space, metric="loss", mode="min")
    searcher = TreeUCBSearch(metric="loss", mode="min")
    with pytest.raises(error, match=match):
        searcher.set_search_properties(None, None, space)


# -- arguments, call order, search properties ---------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mode": "maximize"}, ValueError, "'mode'.*'min' or 'max'.*Got 'maximize'"),
        ({"metric": ["a", "b"], "mode": ["min"]}, ValueError, "same length. Got metric="),
        ({"metric": ["a", "b"], "mode": "min"}, ValueError, "'metric' and 'mode' .* both"),
        ({"metric": ["a", "a"], "mode": ["min", "min"]}, TypeError, "'metric'.*distinct"),
        ({"metric": [], "mode": []}, TypeError, "'metric'.*non-empty list"),
        (
            {"metric": ["a", "b"], "mode": ["min", "obs"]},
            ValueError,
            "'mode'.*Got \\['min', 'obs'\\]",
        ),
        ({"mode": ["min", "max"]}, ValueError, "'mode' .* is a list .* 'metric' must be"),
        ({"constraints": "mem_over"}, TypeError, "'constraints' .* list of result keys"),
        ({"constraints": ["a", 1]}, TypeError, "'constraints' .*Got \\['a', 1\\]"),
        (
            {"points_to_evaluate": [{"x": 0.1}], "evaluated_rewards": [1.0], "constraints": ["c"]},
            ValueError,
            "'evaluated_rewards' with 'constraints'",
        ),
        ({"C": -1.0}, ValueError, "'C'"),
        ({"rule": "greedy"}, ValueError, "'rule'"),
        ({"n_startup": -1}, ValueError, "'n_startup'"),
        ({"sampling": "parzen"}, ValueError, "'sampling'"),
        ({"direction": "minimize"}, TypeError, "sets the core's 'direction' from 'mode'"),
        ({"points_to_evaluate": {"x": 1}}, TypeError, "list of dicts"),
        (
            {"points_to_evaluate": [{"x": 0.1}], "evaluated_rewards": [1.0, 2.0]},
            ValueError,
            "one value per point",
        ),
    ],
)
def test_bad_arguments_raise(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, **kwargs)


def test_docstring_describes_each_argument_once() -> None:
    # the core's options are rendered from OPTIONS (tests/faces_tests/test_options.py) in the
    # place of **options
    doc = TreeUCBSearch.__doc__ or ""
    args = doc[doc.index("Args:") : doc.index("Raises:")]
    described = re.findall(r"^ {8}(\w+):$", args, flags=re.M)
    own = ["space", "metric", "mode", "points_to_evaluate", "evaluated_rewards", "seed"]
    assert described[:6] == own and described[-2:] == ["time_attr", "constraints"]
    signature = inspect.signature(TreeUCBSearch.__init__).parameters
    assert set(signature) - {"self", "options"} <= set(described)
    assert len(described) == len(set(described))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        # the inconsistencies reported in issue 11 (defect 5)
        ({"foo": 1}, TypeError, r"^TreeUCBSearch got an unexpected option 'foo'\."),
        ({"C": -1}, ValueError, r"^The 'C' parameter of TreeUCBSearch must be a float >= 0"),
        ({"M": True}, TypeError, r"'M' parameter of TreeUCBSearch"),
        ({"n_startup": "x"}, TypeError, r"'n_startup' parameter of TreeUCBSearch"),
        ({"seed": 2**70}, ValueError, rf"'seed' parameter of TreeUCBSearch.*Got {2**70} instead"),
        ({"n_startp": 5}, TypeError, r"'n_startp'\. Did you mean 'n_startup_trials'\?"),
        ({"n_startup": 1, "n_startup_trials": 2}, TypeError, "both 'n_startup_trials' and 'n_s"),
    ],
)
def test_option_errors_name_the_searcher(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        TreeUCBSearch(**kwargs)


def test_n_startup_trials_and_its_former_name_set_the_start_up() -> None:
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=0, n_startup_trials=7)
    assert searcher.model is not None and searcher.model.n_startup_trials == 7
    with pytest.warns(FutureWarning, match="'n_startup' parameter of TreeUCBSearch is deprecat"):
        former = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=0, n_startup=7)
    assert former.model is not None and former.model.n_startup_trials == 7
    default = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=0, n_startup_trials=None)
    assert default.model is not None
    assert default.model.n_startup_trials == OPTIONS["n_startup_trials"].default


def test_suggest_before_space_or_metric_raises() -> None:
    no_space = re.escape(UNDEFINED_SEARCH_SPACE.format(cls="TreeUCBSearch", space="space"))
    with pytest.raises(RuntimeError, match=no_space):
        TreeUCBSearch(metric="loss", mode="min").suggest("t0")
    no_mode = re.escape(UNDEFINED_METRIC_MODE.format(cls="TreeUCBSearch", metric=None, mode=None))
    with pytest.raises(RuntimeError, match=no_mode):
        TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}).suggest("t0")
    with pytest.raises(RuntimeError, match=no_mode):
        TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}).add_evaluated_point({"x": 0.5}, 1.0)


def test_model_is_none_until_ready_then_the_live_core_that_can_be_plotted() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from optuna_treeucb.visualization import plot_bandit_partition

    space = {"a": {"x": tune.uniform(0.0, 1.0)}, "y": tune.uniform(-1.0, 1.0)}
    searcher = TreeUCBSearch(space, seed=0)
    assert searcher.model is None  # no metric and mode yet
    searcher.set_search_properties("loss", "min", {})
    model = searcher.model
    assert model is not None and model.n_observations == 0
    _run(searcher, 12, lambda c: (c["a"]["x"] - 0.3) ** 2 + c["y"] ** 2)
    assert searcher.model is model and model.n_observations == 12  # live, not a copy
    assert model.best_params.keys() == {"a/x", "y"}  # named by their paths
    ax = plot_bandit_partition(model, ["a/x", "y"])
    assert ax.get_xlabel() == "a/x" and ax.get_ylabel() == "y"
    matplotlib.pyplot.close("all")


def test_set_search_properties() -> None:
    space = {"x": tune.uniform(0.0, 1.0)}
    searcher = TreeUCBSearch(seed=0)
    assert searcher.set_search_properties("loss", "max", space) is True
    assert (searcher.metric, searcher.mode) == ("loss", "max")
    assert searcher.set_search_properties("acc", "min", {"y": tune.uniform(0.0, 1.0)}) is False
    assert (searcher.metric, searcher.mode) == ("loss", "max")
    assert set(_suggest(searcher, "t0")) == {"x"}
    # a space given first keeps it; a missing metric and mode are taken from the Tuner
    given = TreeUCBSearch(space)
    assert given.set_search_properties("loss", "min", {"y": tune.uniform(0.0, 1.0)}) is False
    assert (given.metric, given.mode) == ("loss", "min") and set(_suggest(given, "t0")) == {"x"}
    # Ray's idiom: a mode without a metric optimises the anonymous metric
    anonymous = TreeUCBSearch(mode="min")
    assert anonymous.set_search_properties(None, None, space) is True
    assert anonymous.metric == "_metric"


def test_mode_sets_the_direction() -> None:
    space = {"x": tune.uniform(-1.0, 1.0)}
    best = {}
    for mode in ("min", "max"):
        searcher = TreeUCBSearch(space, metric="v", mode=mode, seed=0, rule="incremental")
        for i in range(40):
            config = searcher.suggest(f"t{i}")
            assert config is not None
            searcher.on_trial_complete(f"t{i}", {"v": config["x"]})
        assert searcher.model is not None
        best[mode] = searcher.model.best_params["x"]
    assert best["min"] < -0.8 and best["max"] > 0.8


def test_no_attribute_is_named_searcher(tmp_path: Path) -> None:
    # SearchGenerator and the wrappers treat an object with `.searcher` as a wrapper
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, metric="loss", mode="min")
    searcher.suggest("t0")
    searcher.save(str(tmp_path / "s.pkl"))
    searcher.restore(str(tmp_path / "s.pkl"))
    assert not hasattr(searcher, "searcher")


def test_missing_ray_raises_import_error_when_the_searcher_is_used() -> None:
    # in a fresh interpreter, so that hiding Ray cannot disturb a running Ray session;
    # the package itself imports (it needs only the core's dependencies)
    code = (
        "import sys; sys.modules['ray'] = None; import ray_treeucb; print('imported'); "
        "from ray_treeucb import TreeUCBSearch"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True
    )
    assert proc.stdout == "imported\n" and proc.returncode != 0
    assert "ImportError" in proc.stderr
    assert "pip install 'optuna-treeucb[ray]'" in proc.stderr


# -- results --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("result", "error"),
    [
        ({"loss": float("nan")}, False),
        ({"loss": None}, False),
        ({"loss": "0.5"}, False),
        ({"other": 1.0}, False),
        ({}, False),
        (None, False),
        ({"loss": 1.0}, True),
        (None, True),
    ],
)
def test_unusable_result_is_dropped(
    result: dict[str, Any] | None, error: bool, caplog: pytest.LogCaptureFixture
) -> None:
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, metric="loss", mode="min", seed=0)
    _run(searcher, 5, _noise(4))
    assert searcher.suggest("bad") is not None
    core = searcher.model
    assert core is not None and core.pending.shape == (1, 1)
    with caplog.at_level(logging.INFO, logger="ray_treeucb"):
        searcher.on_trial_complete("bad", result, error=error)
    assert core.n_observations == 5
    assert core.pending.shape == (0, 1)  # the pending point is forgotten
    assert "trial bad" in caplog.text
    _run(searcher, 3, _noise(5), prefix="after")  # the search goes on
    assert core.n_observations == 8


@pytest.mark.parametrize("mode", ["min", "max"])
def test_infinite_results_are_recorded(mode: str) -> None:
    searcher = TreeUCBSearch(
        {"x": tune.uniform(-1.0, 1.0), "y": tune.uniform(-1.0, 1.0)},
        metric="loss",
        mode=mode,
        seed=0,
        rule="incremental",
    )
    sign = 1.0 if mode == "min" else -1.0
    values = []
    for i in range(45):  # every 3rd result NaN, every 5th +inf (bad), every 7th -inf (good)
        config = searcher.suggest(f"t{i}")
        assert config is not None and -1.0 <= config["x"] <= 1.0 and -1.0 <= config["y"] <= 1.0
        value = sign * ((config["x"] - 0.3) ** 2 + (config["y"] + 0.2) ** 2)
        if i % 3 == 0:
            value = float("nan")
        elif i % 5 == 0:
            value = sign * float("inf")
        elif i % 7 == 0:
            value = -sign * float("inf")
        values.append(value)
        searcher.on_trial_complete(f"t{i}", {"loss": value})
    core = searcher.model
    assert core is not None
    assert core.n_observations == sum(not math.isnan(v) for v in values)
    assert np.isinf(core.values).sum() == sum(math.isinf(v) for v in values)
    # the infinities are ranked at the ends of the rewards, which stay finite in [0, 1]
    rewards = core.rewards()
    told = np.array([v for v in values if not math.isnan(v)])
    good = told == (-sign * np.inf)  # -inf loss in mode min, +inf score in mode max
    bad = told == (sign * np.inf)
    assert np.all(np.isfinite(rewards)) and rewards.min() > 0 and rewards.max() < 1
    assert rewards[good].min() > rewards[~good].max()
    assert rewards[bad].max() < rewards[~bad].min()


def test_unknown_or_repeated_completion_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, metric="loss", mode="min")
    _run(searcher, 2, _noise(6))
    with caplog.at_level(logging.WARNING, logger="ray_treeucb"):
        searcher.on_trial_complete("never-suggested", {"loss": 1.0})
        searcher.on_trial_complete("t0", {"loss": 1.0})
    assert searcher.model is not None and searcher.model.n_observations == 2
    assert "never-suggested" in caplog.text and "t0" in caplog.text


@pytest.mark.parametrize("C", [None, 0.03])
def test_running_trials_are_pending_and_spread(C: float | None) -> None:
    # Pending points count in their box's n (GP-BUCB style: the bonus shrinks, the mean does
    # not move), so concurrent suggestions leave a box once its bonus no longer beats the next
    # box.  How soon depends on C: with the default (0.01) the 8 suggestions may all go to the
    # best box; with C = 0.03 they spread over several.
    options = {} if C is None else {"C": C}
    searcher = TreeUCBSearch(
        {"x": tune.uniform(-1.0, 1.0), "y": tune.uniform(-1.0, 1.0)},
        metric="loss",
        mode="min",
        seed=0,
        **options,
    )
    _run(searcher, 30, lambda c: (c["x"] - 0.3) ** 2 + (c["y"] + 0.2) ** 2)
    configs = [searcher.suggest(f"p{i}") for i in range(8)]
    core = searcher.model
    assert core is not None
    expected = np.array([core.space.encode(c) for c in configs if c is not None])
    np.testing.assert_allclose(np.sort(core.pending, axis=0), np.sort(expected, axis=0))
    leaves = core.fit_leaves()
    assert leaves.n_pending.sum() == 8
    busy = leaves.n_pending > 0
    idle_core = copy.deepcopy(core)  # the live model holds the trials' points by trial id
    idle_core.set_pending(np.zeros((0, 2)))
    idle = idle_core.fit_leaves()
    assert np.all(leaves.index[busy] < idle.index[busy])
    assert np.all(leaves.index[~busy] >= idle.index[~busy])  # t grew, n did not
    if C == 0.03:
        assert np.count_nonzero(leaves.n_pending) >= 2
    for i in range(3):
        searcher.on_trial_complete(f"p{i}", {"loss": 1.0})
    assert core.pending.shape == (5, 2) and core.n_observations == 33


# -- points_to_evaluate, evaluated_rewards, add_evaluated_point -----------------------------------
SPACE = {
    "x": tune.uniform(-1.0, 1.0),
    "n": tune.randint(0, 10),
    "opt": {"name": tune.choice(["adam", "sgd"]), "momentum": 0.9},
}


def test_full_points_first_in_order_exactly_once() -> None:
    points = [
        {"x": 0.5, "n": 9, "opt": {"name": "sgd"}},
        {"x": -1.0, "n": 0, "opt/name": "adam"},  # flat "a/b" keys work as well
        {"x": 0.5, "n": 9, "opt": {"name": "sgd", "momentum": 0.9}},  # constants may be given
    ]
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", points_to_evaluate=points, seed=0)
    configs = _run(searcher, 20, _noise(7))
    assert configs[0] == {"x": 0.5, "n": 9, "opt": {"name": "sgd", "momentum": 0.9}}
    assert configs[1] == {"x": -1.0, "n": 0, "opt": {"name": "adam", "momentum": 0.9}}
    assert configs[2] == configs[0]
    assert all(c["x"] not in (0.5, -1.0) for c in configs[3:])
    assert searcher.model is not None and searcher.model.n_observations == 20


def test_partial_points_are_contexts() -> None:
    points: list[dict[str, Any]] = [{"opt": {"name": "sgd"}}, {"n": 3, "x": 0.25}, {"n": 7}]
    searcher = TreeUCBSearch(
        SPACE, metric="loss", mode="min", points_to_evaluate=points, seed=0, n_startup_trials=2
    )
    configs = _run(searcher, 6, lambda c: c["x"] ** 2 + c["n"])
    assert configs[0]["opt"]["name"] == "sgd"
    assert (configs[1]["n"], configs[1]["x"], configs[1]["opt"]["momentum"]) == (3, 0.25, 0.9)
    assert configs[2]["n"] == 7  # chosen by Contextual TreeUCB, after the tree is used
    for config in configs:
        assert -1.0 <= config["x"] <= 1.0 and 0 <= config["n"] <= 9
        assert config["opt"]["name"] in ("adam", "sgd")


def test_evaluated_rewards_are_recorded_not_run() -> None:
    points = [{"x": 0.1 * k, "n": k, "opt": {"name": "adam"}} for k in range(5)]
    searcher = TreeUCBSearch(
        SPACE,
        metric="loss",
        mode="min",
        points_to_evaluate=points,
        evaluated_rewards=[1.0, 2.0, float("nan"), float("inf"), 0.5],
        seed=0,
    )
    assert searcher.model is not None and searcher.model.n_observations == 4
    config = searcher.suggest("t0")
    assert config is not None and config["x"] not in [p["x"] for p in points]
    with pytest.raises(ValueError, match=r"points_to_evaluate\[0\] must give every parameter"):
        TreeUCBSearch(
            SPACE,
            metric="loss",
            mode="min",
            points_to_evaluate=[{"x": 0.0}],
            evaluated_rewards=[1.0],
        )


@pytest.mark.parametrize(
    ("point", "match"),
    [
        ({"x": 0.0, "typo": 1}, r"points_to_evaluate\[0\] has the key 'typo'"),
        ({"n": 10}, r"points_to_evaluate\[0\] is not a legal point.*'n'.*\[0, 9\]"),
        ({"opt": {"name": "rmsprop"}}, r"points_to_evaluate\[0\].*'rmsprop'"),
        ({"x": 2.0}, r"points_to_evaluate\[0\].*'x'"),
        ({}, r"points_to_evaluate\[0\] gives no parameter"),
    ],
)
def test_bad_point_raises(point: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TreeUCBSearch(SPACE, metric="loss", mode="min", points_to_evaluate=[point])
    # a space that arrives later checks the points then
    searcher = TreeUCBSearch(metric="loss", mode="min", points_to_evaluate=[point])
    with pytest.raises(ValueError, match=match):
        searcher.set_search_properties(None, None, SPACE)


def test_add_evaluated_point(caplog: pytest.LogCaptureFixture) -> None:
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="max", seed=0)
    core = searcher.model
    assert core is not None
    searcher.add_evaluated_point({"x": 0.2, "n": 4, "opt": {"name": "sgd"}, "extra": 1}, 3.0)
    searcher.add_evaluated_point({"x": 0.3, "n": 5, "opt/name": "adam"}, -float("inf"))
    assert core.n_observations == 2
    assert core.best_params == {"x": pytest.approx(0.2), "n": 4, "opt/name": "sgd"}
    with caplog.at_level(logging.INFO, logger="ray_treeucb"):
        searcher.add_evaluated_point({"x": 0.2, "n": 4, "opt/name": "sgd"}, 9.0, error=True)
        searcher.add_evaluated_point({"x": 0.2, "n": 4, "opt/name": "sgd"}, 9.0, pruned=True)
        searcher.add_evaluated_point({"x": 0.2, "n": 4, "opt/name": "sgd"}, float("nan"))
    assert core.n_observations == 2
    assert "errored" in caplog.text and "pruned" in caplog.text and "nan" in caplog.text
    with pytest.raises(ValueError, match=r"every parameter.*\['n'\]"):
        searcher.add_evaluated_point({"x": 0.2, "opt/name": "sgd"}, 1.0)
    with pytest.raises(ValueError, match="not a legal point.*'n'"):
        searcher.add_evaluated_point({"x": 0.2, "n": 12, "opt/name": "sgd"}, 1.0)
    searcher.add_evaluated_point({"x": 0.4, "n": 4, "opt/name": "sgd"}, {"loss": 2.0})
    assert core.n_observations == 3


@pytest.mark.parametrize("value", [None, "1.0", True, [1.0], {"acc": 1.0}])
def test_add_evaluated_point_with_a_value_that_is_not_a_number_raises(value: Any) -> None:
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="max", seed=0)
    match = (
        "'value' parameter of TreeUCBSearch.add_evaluated_point must be a real number, or a "
        f"dict {{'loss': number}} .*Got {re.escape(repr(value))} instead"
    )
    with pytest.raises(ValueError if isinstance(value, dict) else TypeError, match=match):
        searcher.add_evaluated_point({"x": 0.2, "n": 4, "opt/name": "sgd"}, value)
    assert searcher.model is not None and searcher.model.n_observations == 0


# -- checkpoints and wrappers ---------------------------------------------------------------------
def test_save_restore_with_pending_trial(tmp_path: Path) -> None:
    points = [{"x": 0.0, "n": 1, "opt": {"name": "adam"}}] * 2 + [{"n": 8}]
    kwargs: dict[str, Any] = {"metric": "loss", "points_to_evaluate": points}
    searcher = TreeUCBSearch(SPACE, mode="min", seed=3, n_startup_trials=4, **kwargs)
    configs = _run(searcher, 6, _noise(8))  # the three points, then TreeUCB
    assert configs[0]["x"] == configs[1]["x"] == 0.0 and configs[2]["n"] == 8  # none queued
    searcher.suggest("pending-1")
    searcher.suggest("pending-2")
    path = str(tmp_path / "searcher.pkl")
    searcher.save(path)

    restored = TreeUCBSearch()  # a bare searcher gets the whole state back
    restored.restore(path)
    assert (restored.metric, restored.mode) == ("loss", "min")
    core, restored_core = searcher.model, restored.model
    assert core is not None and restored_core is not None
    assert restored_core.space == core.space  # the search space came back
    assert sorted(restored_core.pending_keys) == ["pending-1", "pending-2"]  # the live trials
    np.testing.assert_array_equal(restored_core.pending, core.pending)
    np.testing.assert_array_equal(restored_core.X, core.X)
    # both continue identically: same results recorded, same RNG, same suggestions
    for s in (searcher, restored):
        s.on_trial_complete("pending-1", {"loss": 0.3})
        s.on_trial_complete("pending-2", {"loss": float("nan")})
    assert restored_core.n_observations == core.n_observations == 7
    assert _run(restored, 5, _noise(9), prefix="n") == _run(searcher, 5, _noise(9), prefix="n")


def test_save_restore_keeps_queued_points(tmp_path: Path) -> None:
    points = [{"x": 0.1 * k, "n": k, "opt": {"name": "sgd"}} for k in range(4)]
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="max", points_to_evaluate=points)
    first = searcher.suggest("t0")
    searcher.save(str(tmp_path / "s.pkl"))
    restored = TreeUCBSearch(SPACE, metric="other", mode="min", points_to_evaluate=points[:1])
    restored.restore(str(tmp_path / "s.pkl"))
    assert restored.metric == "loss" and restored.mode == "max"
    rest = _run(restored, 3, _noise(10), prefix="r")
    assert [first] + rest == [{**p, "opt": {"name": "sgd", "momentum": 0.9}} for p in points]


def test_same_seed_same_suggestions() -> None:
    runs = [
        _run(TreeUCBSearch(SPACE, metric="loss", mode="min", seed=7), 25, _noise(11))
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    other = _run(TreeUCBSearch(SPACE, metric="loss", mode="min", seed=8), 25, _noise(11))
    assert other != runs[0]


@pytest.mark.parametrize("how", ["evaluated_rewards", "add_evaluated_point"])
def test_warm_start_continues_the_previous_run(how: str) -> None:
    # A new searcher with the same seed, given the previous run's results in order, suggests
    # what the uninterrupted run did; its first suggestions used to repeat the previous
    # run's start-up configurations.
    def loss(config: dict[str, Any]) -> float:
        return (config["x"] - 0.3) ** 2 + config["n"] + (config["opt"]["name"] == "sgd")

    reference = _run(TreeUCBSearch(SPACE, metric="loss", mode="min", seed=5), 30, loss)
    first = reference[:12]  # beyond the start-up configurations
    if how == "evaluated_rewards":
        values = [loss(c) for c in first]
        kwargs: dict[str, Any] = {"points_to_evaluate": first, "evaluated_rewards": values}
        searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=5, **kwargs)
    else:
        searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=5)
        for config in first:
            searcher.add_evaluated_point(config, loss(config))
    assert first + _run(searcher, 18, loss, prefix="w") == reference


def test_concurrency_limiter() -> None:
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, metric="loss", mode="min", seed=0)
    limited = ConcurrencyLimiter(searcher, max_concurrent=2)
    assert limited.suggest("a") is not None and limited.suggest("b") is not None
    assert limited.suggest("c") is None  # the limiter holds back the third trial
    limited.on_trial_complete("a", {"loss": 1.0})
    assert limited.suggest("c") is not None
    assert searcher.model is not None and searcher.model.pending.shape == (2, 1)


def test_repeater_averages_repeats() -> None:
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, metric="loss", mode="min", seed=0)
    repeater = Repeater(searcher, repeat=3)
    configs = [_suggest(repeater, f"t{i}") for i in range(6)]
    assert configs[0]["x"] == configs[2]["x"] != configs[3]["x"] == configs[5]["x"]
    scores = [1.0, 2.0, 6.0, 4.0, float("nan"), 8.0]
    for i, score in enumerate(scores):
        repeater.on_trial_complete(f"t{i}", {"loss": score})
    core = searcher.model
    assert core is not None and core.n_observations == 2
    np.testing.assert_allclose(core.values, [3.0, 6.0])


# -- does it search? ------------------------------------------------------------------------------
def _quadratic(config: dict[str, Any]) -> float:
    return (config["x"] - 0.3) ** 2 + (config["y"] + 0.2) ** 2


def _mixed(config: dict[str, Any]) -> float:
    act = {"relu": 0.0, "tanh": 0.5, "sigmoid": 1.0}[config["act"]]
    return (
        (config["x"] - 0.5) ** 2
        + 0.1 * abs(config["n"] - 7)
        + (math.log10(config["lr"]) + 2.0) ** 2
        + act
    )


PROBLEMS = {
    "quadratic": (_quadratic, {"x": tune.uniform(-1.0, 1.0), "y": tune.uniform(-1.0, 1.0)}),
    "mixed": (
        _mixed,
        {
            "x": tune.uniform(-2.0, 2.0),
            "n": tune.randint(0, 16),
            "lr": tune.loguniform(1e-5, 1.0),
            "act": tune.choice(["relu", "tanh", "sigmoid"]),
        },
    ),
}


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_beats_random_search(problem: str) -> None:
    objective, space = PROBLEMS[problem]
    n_trials, seeds = 50, range(11)
    treeucb, random = [], []
    for seed in seeds:
        searcher = TreeUCBSearch(space, metric="loss", mode="min", seed=seed)
        treeucb.append(min(objective(c) for c in _run(searcher, n_trials, objective)))
        rng = np.random.default_rng(seed)  # Ray's random search: each domain's own sampler
        random.append(
            min(
                objective({k: d.sample(random_state=rng) for k, d in space.items()})
                for _ in range(n_trials)
            )
        )
    assert np.median(treeucb) < 0.5 * np.median(random), (treeucb, random)
