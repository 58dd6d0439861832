"""Pieces of the shared runner (examples/_runner.py and its parts) that need no training."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples import cifar10
from examples import digits
from examples import mnist
from examples import svhn
from examples._cli import PRUNED_RULES
from examples._cli import StudySpec
from examples._cli import build_parser
from examples._cli import resolve_args
from examples._cli import tuned_space
from examples._models import Settings
from examples._models import TrialResult
from examples._optuna_run import make_optuna_sampler
from examples._optuna_run import make_pruner
from examples._optuna_run import suggest
from examples._optuna_run import trial_seed
from examples._ray_run import to_tune_space
from examples._report import RunSummary
from examples._report import TrialRecord
from examples._report import format_table
from examples._report import interpret
from examples._report import plot_best
from examples._runner import run

STUDIES = [mnist.STUDY, svhn.STUDY, cifar10.STUDY, digits.STUDY]


def _parse(spec: StudySpec, argv: list[str]) -> argparse.Namespace:
    parser = build_parser(spec)
    return resolve_args(spec, parser.parse_args(argv), parser)


def _on_grid(value: float, dist: BaseDistribution) -> bool:
    step = getattr(dist, "step", None)
    if step is None:
        return True
    k = (value - dist.low) / step  # type: ignore[attr-defined]
    return abs(k - round(k)) < 1e-9


@pytest.mark.parametrize("spec", STUDIES, ids=lambda s: s.name)
def test_tune_space_draws_the_optuna_values(spec: StudySpec) -> None:
    space = to_tune_space(spec.space)
    assert list(space) == list(spec.space)
    for name, dist in spec.space.items():
        values = np.asarray(space[name].sample(size=3000))
        if isinstance(dist, CategoricalDistribution):
            assert set(values.tolist()) == set(dist.choices)
            continue
        assert isinstance(dist, (IntDistribution, FloatDistribution))
        assert values.min() >= dist.low and values.max() <= dist.high, name
        assert all(_on_grid(float(v), dist) for v in values), name
        n_values = (dist.high - dist.low) / dist.step + 1 if dist.step is not None else np.inf
        if not dist.log and n_values <= 25:  # Small grids: both ends are drawn.
            assert np.isclose(values.min(), dist.low) and np.isclose(values.max(), dist.high)
        if isinstance(dist, IntDistribution):
            assert np.issubdtype(values.dtype, np.integer), name


def test_tune_space_rejects_off_grid_steps_and_other_types() -> None:
    with pytest.raises(ValueError, match="'n'.*multiple of its step"):
        to_tune_space({"n": IntDistribution(1, 9, step=2)})
    with pytest.raises(TypeError, match="'x'"):
        to_tune_space({"x": object()})  # type: ignore[dict-item]


def test_suggest_covers_every_distribution() -> None:
    space: dict[str, BaseDistribution] = {
        "i": IntDistribution(1, 3),
        "f": FloatDistribution(0.0, 1.0, step=0.5),
        "c": CategoricalDistribution(["a", "b"]),
    }
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    trial = study.ask()
    params = {name: suggest(trial, name, dist) for name, dist in space.items()}
    assert params["i"] in (1, 2, 3) and params["f"] in (0.0, 0.5, 1.0) and params["c"] in "ab"


def test_trial_seed_depends_on_seed_and_params_only() -> None:
    p = {"a": 1, "b": 0.5}
    assert trial_seed(0, p) == trial_seed(0, {"b": 0.5, "a": 1})
    assert trial_seed(0, p) != trial_seed(1, p)
    assert trial_seed(0, p) != trial_seed(0, {"a": 2, "b": 0.5})


def test_smoke_defaults_and_explicit_values_win() -> None:
    a = _parse(svhn.STUDY, ["--smoke", "--n-trials", "2"])
    assert (a.n_trials, a.train_size, a.val_size, a.n_startup_trials) == (2, 64, 32, 1)
    assert a.seeds == [0] and a.samplers == ["treeucb", "tpe"]
    assert a.out == Path("results/svhn") and a.width_scale == 0.02
    b = _parse(mnist.STUDY, ["--repeats", "3", "--samplers", "random", "random"])
    assert b.seeds == [0, 1, 2] and b.samplers == ["random"] and b.train_size is None


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--enqueue", '{"nope": 1}'], "keys are among"),
        (["--enqueue", "[1"], "must be a JSON object"),
        (["--max-concurrent", "2"], "--backend ray only"),
        (
            ["--backend", "ray", "--samplers", "treeucb", "tpe", "--enqueue", '{"dropout": 0.5}'],
            "--samplers tpe (run through Ray's OptunaSearch) must name every parameter",
        ),
        (["--seeds", "1", "1"], "distinct"),
        (["--iter-scale", "0"], "finite float > 0"),
        (["--n-trials", "0"], "int >= 1"),
        (
            ["--backend", "ray", "--pruner", "median"],
            "--pruner median applies to --backend optuna (Optuna's pruners). Got --backend ray",
        ),
        (
            ["--scheduler", "asha"],
            "--scheduler asha applies to --backend ray (Ray Tune's schedulers). Got --backend "
            "optuna",
        ),
        (["--epochs", "9"], "--epochs applies with --pruner median or hyperband"),
        (["--pruner", "none", "--pruned", "context"], "Got --pruned context with neither"),
        (
            ["--pruner", "hyperband", "--samplers", "tpe", "--pruned", "context"],
            "--pruned is TreeUCB's option. Got --pruned context with --samplers tpe",
        ),
        (
            ["--pruner", "median", "--iter-scale", "0.1", "--epochs", "25"],
            "--epochs must be at most 24",
        ),
        (
            ["--pruner", "median", "--enqueue", '{"iterations": 30}'],
            "must not name 'iterations' with a pruner or scheduler",
        ),
    ],
)
def test_bad_options_exit_with_a_message(
    argv: list[str], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        _parse(mnist.STUDY, argv)
    assert info.value.code == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize("spec", STUDIES, ids=lambda s: s.name)
def test_every_example_offers_pruning(spec: StudySpec, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser(spec).parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for flag in (
        "--pruner {none,median,hyperband}",
        "--scheduler {fifo,asha}",
        "--epochs N",
        f"--pruned {{{','.join(PRUNED_RULES)}}}",
    ):
        assert flag in help_text
    a = _parse(spec, ["--smoke", "--pruner", "hyperband"])
    assert (a.pruner, a.scheduler, a.epochs) == ("hyperband", "fifo", 2)
    assert set(tuned_space(spec, a)) == set(spec.space) - {"iterations"}
    b = _parse(spec, ["--backend", "ray", "--scheduler", "asha", "--pruned", "context"])
    assert (b.pruner, b.scheduler, b.epochs, b.pruned) == ("none", "asha", 27, "context")
    c = _parse(spec, [])
    assert (c.pruner, c.scheduler, c.epochs) == ("none", "fifo", None)
    assert tuned_space(spec, c) == dict(spec.space)


def test_the_pruned_choices_are_the_samplers_and_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import optuna_treeucb

    assert set(PRUNED_RULES) == {"last_value", "context"}
    given: list[dict[str, Any]] = []

    def spy(**kwargs: Any) -> Any:
        given.append(kwargs)
        return optuna.samplers.RandomSampler()

    monkeypatch.setattr(optuna_treeucb, "TreeUCBSampler", spy)
    make_optuna_sampler("treeucb", seed=0, pruned="context")
    make_optuna_sampler("treeucb", seed=0)
    assert given == [{"seed": 0, "pruned": "context"}, {"seed": 0}]  # None: the sampler's default
    assert isinstance(make_pruner("median", epochs=27), optuna.pruners.MedianPruner)
    with pytest.raises(ValueError, match="'asha'"):
        make_pruner("asha", epochs=3)


class _Built(Exception):
    """Raised by a spy in place of building TreeUCB, to stop the run right there."""


@pytest.mark.parametrize(
    ("backend", "pruning", "name"),
    [
        ("optuna", ["--pruner", "hyperband"], "TreeUCBSampler"),
        ("ray", ["--scheduler", "asha"], "TreeUCBSearch"),
    ],
)
@pytest.mark.parametrize("rule", ["context", "last_value"])
def test_pruned_context_is_played_at_the_epochs_of_a_full_training(
    backend: str, pruning: list[str], name: str, rule: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the README tells users to give max_budget with pruned="context"; the examples know it
    import optuna_treeucb
    import ray_treeucb
    from examples import _optuna_run
    from examples import _ray_run

    given: list[dict[str, Any]] = []

    def spy(**kwargs: Any) -> Any:
        given.append(kwargs)
        raise _Built

    monkeypatch.setattr(optuna_treeucb if backend == "optuna" else ray_treeucb, name, spy)
    argv = ["--backend", backend, *pruning, "--epochs", "9", "--pruned", rule]
    a = _parse(digits.STUDY, [*argv, "--samplers", "treeucb"])
    run_one = _optuna_run.run_optuna if backend == "optuna" else _ray_run.run_ray
    with pytest.raises(_Built):
        run_one(digits.STUDY, None, "treeucb", 0, 0, a)  # type: ignore[arg-type]
    (options,) = given
    assert options["pruned"] == rule
    assert options.get("max_budget") == (9 if rule == "context" else None)


def test_unknown_sampler_name() -> None:
    with pytest.raises(ValueError, match="'cmaes'"):
        make_optuna_sampler("cmaes", seed=0)


def _record(sampler: str, repeat: int, trial: int, value: float, elapsed: float) -> TrialRecord:
    return TrialRecord(
        "toy", "optuna", sampler, repeat, repeat, trial, value, False, 1, 1.0, elapsed, {"x": 1}
    )


def test_plot_and_table_average_over_repeats(tmp_path: Path) -> None:
    records = [
        _record("a", 0, 0, 0.5, 1.0),
        _record("a", 0, 1, 0.7, 2.0),
        _record("a", 1, 0, 0.6, 1.5),  # A shorter repeat (a timeout).
        _record("b", 0, 0, 0.9, 0.5),
    ]
    path = plot_best(records, tmp_path / "plot.png", "toy")
    assert path.stat().st_size > 1000
    runs = [
        RunSummary("a", 0, 0, 2, 0.7, 10.0),
        RunSummary("a", 1, 1, 1, 0.6, 20.0),
        RunSummary("b", 0, 0, 1, 0.9, 5.0),
    ]
    runs[2].train_s = 3.5  # b's training: the rest of its run is the sampler's
    lines = format_table(runs).splitlines()
    assert lines[0].split()[:3] == ["sampler", "runs", "trials"]
    assert lines[0].split()[-5:] == ["run", "s", "training", "s", "sampler", "s"][-5:]
    assert lines[1].split() == ["a", "2", "1.5", "0.6500", "±", "0.0707", "15.0", "-", "-"]
    # a whole count stays an int (trials 1, not 1.0)
    assert lines[2].split() == ["b", "1", "1", "0.9000", "±", "0.0000", "5.0", "3.5", "1.5"]


@pytest.mark.parametrize(
    ("bests", "words"),
    [
        (
            [(0.9, 0.8)],
            "treeucb is ahead of tpe by 0.1000 best accuracy on average over 1 "
            "paired seed (1 of 1 won): 1 seed cannot tell them apart",
        ),
        ([(0.90, 0.80), (0.91, 0.81), (0.92, 0.80), (0.93, 0.82)], "the seeds tell them apart"),
        (
            [(0.9, 0.8), (0.7, 0.8), (0.9, 0.85)],
            "(2 of 3 won); paired t = 0.28 against 4.30 needed at 5%: the seeds cannot",
        ),
        ([(0.7, 0.8), (0.7, 0.9), (0.7, 0.85)], "tpe is ahead of treeucb by 0.1500"),
    ],
)
def test_interpret_says_who_is_ahead_and_whether_the_seeds_tell(
    bests: list[tuple[float, float]], words: str
) -> None:
    runs = [
        RunSummary(name, k, k, 30, best, 1.0)
        for k, pair in enumerate(bests)
        for name, best in zip(("treeucb", "tpe"), pair)
    ]
    assert words in interpret(runs)


@pytest.mark.parametrize("repeats", [1, 2])
def test_best_accuracy_zooms_to_where_samplers_differ_with_a_band_and_a_legend_aside(
    repeats: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    # a first trial at 0.3, then 0.96-0.98: an axis from 0.3 would flatten the difference
    records = [
        _record(sampler, k, t, 0.3 if t == 0 else 0.96 + 0.002 * t + 0.005 * k - 0.003 * b, t)
        for b, sampler in enumerate(("a", "b"))
        for k in range(repeats)
        for t in range(8)
    ]
    plot_best(records, tmp_path / "plot.png", "toy")
    (fig,) = saved
    fig.canvas.draw()
    ax_time, ax_trials = fig.axes[:2]
    low, high = ax_trials.get_ylim()
    assert 0.9 < low < 0.962 and 0.975 < high < 0.99
    for ax in (ax_time, ax_trials):
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == (2 if repeats > 1 else 0)  # one per sampler
    legend = ax_trials.get_legend()
    assert legend is not None
    for ax in (ax_time, ax_trials):
        overlap = Bbox.intersection(legend.get_window_extent(), ax.get_window_extent())
        assert overlap is None or overlap.width * overlap.height == 0


def test_the_partition_colour_bar_says_why_the_index_passes_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from matplotlib.figure import Figure

    from examples._runner import RunResult
    from optuna_treeucb import TreeUCBSampler

    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=5))
    study.optimize(
        lambda t: -sum(suggest(t, n, d) for n, d in mnist.SPACE.items() if n != "dropout"),
        n_trials=12,
    )
    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    result = RunResult([], [], {("treeucb", 0): study}, {}, "")
    assert digits.plot_treeucb_partition(result, tmp_path / "partition.png") is not None
    (fig,) = saved
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert digits.INDEX_LABEL in labels and "TreeUCB index" not in labels


def test_a_pruned_run_plots_against_epochs_and_counts_complete_trials(tmp_path: Path) -> None:
    records = [
        replace(_record("a", 0, 0, 0.5, 1.0), epochs=9),
        replace(_record("a", 0, 1, 0.9, 2.0), state="PRUNED", epochs=1),  # not a best
        replace(_record("a", 0, 2, 0.6, 3.0), epochs=9),
    ]
    assert plot_best(records, tmp_path / "plot.png", "toy").stat().st_size > 1000
    lines = format_table([RunSummary("a", 0, 0, 3, 0.6, 10.0, n_pruned=1, epochs=19)])
    assert lines.splitlines()[0].split()[:5] == ["sampler", "runs", "trials", "pruned", "epochs"]
    assert lines.splitlines()[1].split() == ["a", "1", "3", "1", "19", "0.6000", "±"] + [
        "0.0000",
        "10.0",
        "-",
        "-",
    ]


@pytest.mark.parametrize("spec", STUDIES, ids=lambda s: s.name)
def test_the_enqueue_example_in_help_is_accepted(
    spec: StudySpec, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser(spec).parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    example = re.search(r"--enqueue JSON .*?e\.g\. '(\{.*?\})'", help_text)
    assert example is not None
    (point,) = _parse(spec, ["--enqueue", example.group(1)]).enqueue
    for name, value in point.items():
        dist = spec.space[name]
        assert dist._contains(dist.to_internal_repr(value)), (name, value)


@pytest.mark.parametrize(
    ("argv", "module", "extra"),
    [
        (["--samplers", "treeucb", "gp"], "torch", "optuna-treeucb[gp]"),
        (["--backend", "ray"], "ray", "optuna-treeucb[ray]"),
    ],
)
def test_a_missing_optional_package_is_a_one_line_error_naming_the_extra(
    argv: list[str],
    module: str,
    extra: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    with pytest.raises(SystemExit) as info:
        _parse(digits.STUDY, argv)
    assert info.value.code == 2
    (error,) = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert f"pip install '{extra}'" in error
    assert f"pip install -e '.[{extra.split('[')[1]}" in error  # the clone's form, first
    assert error.index("pip install -e") < error.index(f"pip install '{extra}'")


def test_partial_points_are_accepted_where_they_work() -> None:
    point = '{"dropout": 0.5}'
    assert _parse(mnist.STUDY, ["--enqueue", point]).enqueue == [{"dropout": 0.5}]
    ray = _parse(mnist.STUDY, ["--backend", "ray", "--samplers", "treeucb", "--enqueue", point])
    assert ray.enqueue == [{"dropout": 0.5}]
    # with ASHA, a full point is every parameter but the resource
    full = {"hidden_units": 10, "learning_rate": 0.1, "dropout": 0.5, "batch_size": 10}
    asha = ["--backend", "ray", "--scheduler", "asha", "--samplers", "tpe"]
    assert _parse(mnist.STUDY, [*asha, "--enqueue", json.dumps(full)]).enqueue == [full]


def test_an_untimed_warm_up_runs_before_the_first_run(tmp_path: Path) -> None:
    # TensorFlow's import and first graph must not be charged to the first sampler's time
    calls: list[float] = []

    def evaluate(params: Any, data: Any, settings: Settings) -> TrialResult:
        calls.append(settings.iter_scale)
        return TrialResult(accuracy=0.5, diverged=False, steps=1)

    spec = replace(digits.STUDY, evaluate=evaluate)
    a = _parse(
        spec, ["--smoke", "--samplers", "random", "--n-trials", "2", "--out", str(tmp_path)]
    )
    result = run(spec, a)
    assert calls[0] < 1e-6 and len(calls) == 1 + 2 * len(a.seeds)
    assert len(result.records) == 2 * len(a.seeds)  # the warm-up is no trial


@pytest.mark.parametrize("spec", STUDIES, ids=lambda s: s.name)
def test_smoke_runs_on_synthetic_data_say_so(spec: StudySpec) -> None:
    from examples._cli import SYNTHETIC_NOTE
    from examples._runner import synthetic_data

    parser = build_parser(spec)
    smoke = resolve_args(spec, parser.parse_args(["--smoke"]), parser)
    real = resolve_args(spec, parser.parse_args(["--smoke", "--data-dir", "d"]), parser)
    assert synthetic_data(spec, smoke) is (not spec.bundled_data)  # digits ships its data
    assert not synthetic_data(spec, real)
    assert "SYNTHETIC" in SYNTHETIC_NOTE
