"""Shared command line and backends of the example studies.

A study (``examples/mnist.py`` and the others) declares only a :class:`StudySpec`: its search
space as Optuna distributions, its data loader and its objective. This module turns the spec
into a command line, runs each requested sampler for each repeat through Optuna or Ray Tune,
and writes the results:

* ``trials.csv`` and ``trials.json``: one row per finished trial (sampler, repeat, seed, trial
  number in completion order, value, diverged, minibatch steps, trial seconds, seconds since
  the start of its run, and the parameters);
* ``best_accuracy.png``: best validation accuracy so far against wall-clock time and against
  trials, one line per sampler, averaged over repeats;
* a comparison table on stdout (sampler, runs, trials, mean best accuracy, mean run time).

Pruning (``--pruner`` on Optuna, ``--scheduler asha`` on Ray): the training length is then the
resource, not a tuned parameter. The study's ``resource`` parameter (``iterations``) leaves the
search space; every trial trains up to its upper bound, cut into ``--epochs`` epochs of equal
length, and reports its validation accuracy after each. The pruner or scheduler stops the
trials it judges unpromising; the files then list pruned trials too (``state``, ``epochs``), the
best accuracy counts complete trials only, and the plot's second panel is against epochs spent.

Progress shows as Optuna's tqdm bar or as Ray Tune's trial table.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import sys
import time
import zlib
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._datasets import DataNotFoundError
from examples._datasets import Dataset
from examples._datasets import Split
from examples._datasets import split_train_val
from examples._datasets import synthetic
from examples._models import TF_QUIET_ENV
from examples._models import Settings
from examples._models import TrialResult
from examples._models import scaled_iterations
from optuna_treeucb.core import OPTIONS

if TYPE_CHECKING:
    from ray.tune.search import Searcher

SAMPLERS = ("treeucb", "tpe", "gp", "random")
SYNTHETIC_NOTE = (
    "--smoke: SYNTHETIC data (random arrays of the real shapes), not the real dataset; the "
    "accuracies only show that the run works."
)
# the examples run from a clone (the package is not on PyPI yet), so the clone's form comes first
_GP_INSTALL = (
    "pip install -e '.[gp]' in this clone (once published: pip install 'optuna-treeucb[gp]')"
)
_RAY_INSTALL = (
    "pip install -e '.[ray]' in this clone (once published: pip install 'optuna-treeucb[ray]')"
)
BACKENDS = ("optuna", "ray")
PRUNERS = ("none", "median", "hyperband")  # Optuna backend
SCHEDULERS = ("fifo", "asha")  # Ray backend
PRUNED_RULES: tuple[str, ...] = tuple(OPTIONS["pruned"].choices or ())
EPOCHS = 27
METRIC = "accuracy"
_REPO_ROOT = Path(__file__).resolve().parent.parent
# What --smoke changes, unless the option is given explicitly.
SMOKE_DEFAULTS: dict[str, Any] = {
    "n_trials": 3,
    "train_size": 64,
    "val_size": 32,
    "iter_scale": 0.01,
    "width_scale": 0.02,
    "n_startup_trials": 1,
    "epochs": 2,
}


@dataclass(frozen=True)
class StudySpec:
    """Everything that distinguishes one tuning study.

    Args:
        name:
            Short name, used for the default output folder ``results/<name>``.
        description:
            One line shown by ``--help``.
        space:
            The search space, parameter name to Optuna distribution. Ray runs convert it with
            :func:`to_tune_space`.
        load:
            ``load(data_dir, download=...)`` returning the dataset.
        evaluate:
            ``evaluate(params, split, settings)`` training one configuration; with a pruner
            or scheduler it is called with the keywords ``epochs`` and ``report`` of
            :func:`examples._models.evaluate_mlp`.
        input_shape:
            Shape of one input, used for synthetic ``--smoke`` data.
        val_size:
            Default number of validation examples.
        n_trials:
            Default trials per run.
        samplers:
            Default samplers.
        repeats:
            Default number of repeats (seeds).
        iter_scale:
            Default ``--iter-scale``.
        width_scale:
            Default ``--width-scale``; ``None`` for studies without that option.
        bundled_data:
            Whether the data ship with a package, so ``--smoke`` uses them instead of
            synthetic arrays.
        resource:
            The parameter of ``space`` that sets the training length (an int distribution,
            minibatch steps). With a pruner or scheduler it leaves the space and every trial
            trains up to its upper bound, in epochs.
    """

    name: str
    description: str
    space: Mapping[str, BaseDistribution]
    load: Callable[..., Dataset]
    evaluate: Callable[..., TrialResult]
    input_shape: tuple[int, ...]
    val_size: int
    n_trials: int = 50
    samplers: tuple[str, ...] = ("treeucb", "tpe")
    repeats: int = 1
    iter_scale: float = 1.0
    width_scale: float | None = None
    bundled_data: bool = False
    resource: str = "iterations"


@dataclass
class TrialRecord:
    """One finished trial, as written to ``trials.csv`` and ``trials.json``.

    ``state`` is ``"COMPLETE"`` or ``"PRUNED"`` (stopped by a pruner or scheduler; ``value`` is
    its last reported accuracy); ``epochs`` is the epochs it trained, ``None`` without pruning.
    """

    study: str
    backend: str
    sampler: str
    repeat: int
    seed: int
    trial: int
    value: float
    diverged: bool
    steps: int
    duration_s: float
    elapsed_s: float
    params: dict[str, Any] = field(default_factory=dict)
    state: str = "COMPLETE"
    epochs: int | None = None


@dataclass
class RunSummary:
    """One run: one sampler for one repeat.

    ``best`` is the best complete trial's accuracy; ``n_pruned`` and ``epochs`` (spent by all
    trials) are set with pruning only.  ``train_s`` is the trials' training time, summed; set
    for runs whose trials run one at a time (the Optuna backend), where ``wall_s - train_s``
    is the time spent outside training: the sampler's suggestions and Optuna's bookkeeping.
    """

    sampler: str
    repeat: int
    seed: int
    n_trials: int
    best: float
    wall_s: float
    n_pruned: int = 0
    epochs: int | None = None
    train_s: float | None = None


@dataclass
class RunResult:
    """Everything :func:`run` produced.

    Args:
        records:
            Finished trials of all runs.
        runs:
            One summary per (sampler, repeat).
        studies:
            The Optuna studies by (sampler, repeat); empty for the Ray backend.
        files:
            Written files by kind (``"csv"``, ``"json"``, ``"plot"``).
        table:
            The printed comparison table.
    """

    records: list[TrialRecord]
    runs: list[RunSummary]
    studies: dict[tuple[str, int], optuna.Study]
    files: dict[str, Path]
    table: str


# --------------------------------------------------------------------------- command line


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1. Got {value} instead.")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite float > 0. Got {text} instead.")
    return value


def _enqueue_example(space: Mapping[str, BaseDistribution]) -> str:
    """A valid ``--enqueue`` value for ``space``: its first two parameters at their upper end."""
    point: dict[str, Any] = {}
    for name, dist in list(space.items())[:2]:
        if isinstance(dist, (FloatDistribution, IntDistribution)):
            point[name] = dist.high
        elif isinstance(dist, CategoricalDistribution):
            point[name] = dist.choices[-1]
    return json.dumps(point)


def _smoke(option: str) -> str:
    return f"{SMOKE_DEFAULTS[option]} with --smoke"


def build_parser(spec: StudySpec) -> argparse.ArgumentParser:
    """Command line of a study.

    Args:
        spec:
            The study.

    Returns:
        The parser; unset options stay ``None`` and are resolved by :func:`resolve_args`.
    """
    parser = argparse.ArgumentParser(
        prog=f"python -m examples.{spec.name}",
        description=spec.description,
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, default="optuna", help="(default: %(default)s)"
    )
    parser.add_argument(
        "--samplers",
        nargs="+",
        choices=SAMPLERS,
        default=None,
        help=f"samplers to compare (default: {' '.join(spec.samplers)}); on Ray, treeucb is "
        "TreeUCBSearch and the others run through OptunaSearch",
    )
    parser.add_argument(
        "--n-trials",
        type=_positive_int,
        metavar="N",
        default=None,
        help=f"trials per run (default: {spec.n_trials}; {_smoke('n_trials')})",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_float,
        default=None,
        metavar="SECONDS",
        help="wall-clock budget per run (one sampler, one seed); a run stops at --n-trials or "
        "--timeout, whichever comes first",
    )
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument(
        "--repeats",
        type=_positive_int,
        metavar="N",
        default=None,
        help=f"runs per sampler, with seeds 0, 1, ... (default: {spec.repeats})",
    )
    seeds.add_argument(
        "--seeds", type=int, nargs="+", default=None, metavar="SEED", help="explicit seeds"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder with the dataset files (default: data; with --smoke, synthetic arrays)",
    )
    parser.add_argument("--no-download", action="store_true", help="never download missing data")
    parser.add_argument(
        "--train-size",
        metavar="N",
        type=_positive_int,
        default=None,
        help=f"training examples (default: all not held out; {_smoke('train_size')})",
    )
    parser.add_argument(
        "--val-size",
        metavar="N",
        type=_positive_int,
        default=None,
        help="validation examples held out of the training files "
        f"(default: {spec.val_size}; {_smoke('val_size')})",
    )
    parser.add_argument(
        "--iter-scale",
        metavar="X",
        type=_positive_float,
        default=None,
        help="factor on the tuned training iterations "
        f"(default: {spec.iter_scale}; {_smoke('iter_scale')})",
    )
    if spec.width_scale is not None:
        parser.add_argument(
            "--width-scale",
            metavar="X",
            type=_positive_float,
            default=None,
            help=f"factor on the CNN's 200 channels and 512 dense units (default: "
            f"{spec.width_scale}; {_smoke('width_scale')}); 1 is the paper's size",
        )
    parser.add_argument(
        "--n-startup-trials",
        metavar="N",
        type=_positive_int,
        default=None,
        help="random trials before the model-based samplers start (default: each sampler's "
        f"own; {_smoke('n_startup_trials')})",
    )
    parser.add_argument(
        "--enqueue",
        action="append",
        default=[],
        metavar="JSON",
        help=f"parameters evaluated first in every run, e.g. '{_enqueue_example(spec.space)}' "
        "(repeatable; a partial point fixes the parameters it names and the sampler chooses "
        "the others, TreeUCB treating them as a context; on Ray the samplers run through "
        "OptunaSearch need every parameter)",
    )
    parser.add_argument(
        "--pruner",
        choices=PRUNERS,
        default=None,
        help="Optuna only: stop unpromising trials early with Optuna's MedianPruner or "
        f"HyperbandPruner (reduction factor 3, 1 to --epochs epochs); with a pruner, "
        f"'{spec.resource}' is the resource, no longer tuned (default: none)",
    )
    parser.add_argument(
        "--scheduler",
        choices=SCHEDULERS,
        default=None,
        help="Ray only: Ray Tune's trial scheduler; asha is ASHAScheduler with max_t = --epochs, "
        f"and '{spec.resource}' is then the resource, no longer tuned (default: fifo)",
    )
    parser.add_argument(
        "--epochs",
        metavar="N",
        type=_positive_int,
        default=None,
        help=f"with --pruner or --scheduler asha: a trial trains the upper bound of "
        f"'{spec.resource}' (times --iter-scale) minibatch steps, cut into N epochs of equal "
        f"length, each ending with a validation report (default: {EPOCHS}; {_smoke('epochs')})",
    )
    parser.add_argument(
        "--pruned",
        choices=PRUNED_RULES,
        default=None,
        help="treeucb only, with --pruner or --scheduler asha: how TreeUCB ranks early-stopped "
        "trials (its 'pruned' option; default: the sampler's own)",
    )
    parser.add_argument(
        "--max-concurrent",
        metavar="N",
        type=_positive_int,
        default=None,
        help="Ray only: concurrent trials (default: as many as free CPUs)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=None,
        help=f"output folder (default: results/{spec.name})",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny end-to-end run: few trials, tiny data, model and iterations, no download; "
        "synthetic arrays of the real shapes unless --data-dir is given",
    )
    return parser


def resolve_args(
    spec: StudySpec, args: argparse.Namespace, parser: argparse.ArgumentParser
) -> argparse.Namespace:
    """Fill unset options with the study's (or ``--smoke``'s) defaults and check them.

    Args:
        spec:
            The study.
        args:
            Parsed options.
        parser:
            The parser, used to report errors.

    Returns:
        A copy of ``args`` with every option set (``timeout``, ``train_size``,
        ``n_startup_trials`` and ``max_concurrent`` may stay ``None``).
    """
    a = argparse.Namespace(**vars(args))
    smoke = a.smoke
    a.samplers = list(dict.fromkeys(a.samplers or spec.samplers))
    a.n_trials = a.n_trials or (SMOKE_DEFAULTS["n_trials"] if smoke else spec.n_trials)
    a.seeds = a.seeds if a.seeds is not None else list(range(a.repeats or spec.repeats))
    if len(set(a.seeds)) != len(a.seeds):
        parser.error(f"--seeds must be distinct. Got {a.seeds} instead.")
    a.val_size = a.val_size or (SMOKE_DEFAULTS["val_size"] if smoke else spec.val_size)
    if a.train_size is None and smoke:
        a.train_size = SMOKE_DEFAULTS["train_size"]
    a.iter_scale = a.iter_scale or (SMOKE_DEFAULTS["iter_scale"] if smoke else spec.iter_scale)
    if spec.width_scale is not None:
        a.width_scale = a.width_scale or (
            SMOKE_DEFAULTS["width_scale"] if smoke else spec.width_scale
        )
    else:
        a.width_scale = 1.0
    if a.n_startup_trials is None and smoke:
        a.n_startup_trials = SMOKE_DEFAULTS["n_startup_trials"]
    a.out = a.out or Path("results") / spec.name
    enqueued = []
    for text in a.enqueue:
        try:
            point = json.loads(text)
        except json.JSONDecodeError as exc:
            parser.error(f"--enqueue must be a JSON object. Got {text!r} instead ({exc}).")
        if not isinstance(point, dict) or not set(point) <= set(spec.space):
            parser.error(
                f"--enqueue must be a JSON object whose keys are among {sorted(spec.space)}. "
                f"Got {text!r} instead."
            )
        enqueued.append(point)
    a.enqueue = enqueued
    # with a pruner or scheduler the resource is not tuned (checked in _resolve_pruning)
    epochs = (a.pruner or "none") != "none" or (a.scheduler or "fifo") != "fifo"
    names = set(spec.space) - ({spec.resource} if epochs else set())
    partial = [p for p in enqueued if set(p) != names]
    via_optuna_search = [s for s in a.samplers if s != "treeucb"]
    if a.backend == "ray" and partial and via_optuna_search:
        parser.error(
            f"--enqueue with --backend ray and --samplers {' '.join(via_optuna_search)} (run "
            f"through Ray's OptunaSearch) must name every parameter {sorted(names)}. "
            f"Got {json.dumps(partial[0])} instead; partial points work with treeucb or "
            "--backend optuna."
        )
    if "gp" in a.samplers and not _importable("torch"):
        parser.error(f"--samplers gp (Optuna's GPSampler) needs PyTorch: {_GP_INSTALL}.")
    if a.backend == "ray" and not _importable("ray"):
        parser.error(f"--backend ray needs Ray Tune: {_RAY_INSTALL}.")
    if a.max_concurrent is not None and a.backend != "ray":
        parser.error(f"--max-concurrent applies to --backend ray only. Got --backend {a.backend}.")
    _resolve_pruning(spec, a, parser)
    return a


def uses_epochs(a: argparse.Namespace) -> bool:
    """Whether the resolved options train in epochs (a pruner or the ASHA scheduler)."""
    return a.pruner != "none" or a.scheduler != "fifo"


def _resolve_pruning(
    spec: StudySpec, a: argparse.Namespace, parser: argparse.ArgumentParser
) -> None:
    """Check and fill ``--pruner``, ``--scheduler``, ``--epochs`` and ``--pruned``."""
    if a.pruner is not None and a.backend != "optuna":
        parser.error(
            f"--pruner {a.pruner} applies to --backend optuna (Optuna's pruners). Got --backend "
            f"{a.backend}; with Ray use --scheduler asha."
        )
    if a.scheduler is not None and a.backend != "ray":
        parser.error(
            f"--scheduler {a.scheduler} applies to --backend ray (Ray Tune's schedulers). Got "
            f"--backend {a.backend}; with Optuna use --pruner median or --pruner hyperband."
        )
    a.pruner = a.pruner or "none"
    a.scheduler = a.scheduler or "fifo"
    if not uses_epochs(a):
        for flag, value in (("--epochs", a.epochs), ("--pruned", a.pruned)):
            if value is not None:
                parser.error(
                    f"{flag} applies with --pruner median or hyperband (--backend optuna) or "
                    f"--scheduler asha (--backend ray). Got {flag} {value} with neither."
                )
        return
    if a.pruned is not None and "treeucb" not in a.samplers:
        parser.error(
            f"--pruned is TreeUCB's option. Got --pruned {a.pruned} with --samplers "
            f"{' '.join(a.samplers)}; add treeucb."
        )
    dist = spec.space.get(spec.resource)
    if not isinstance(dist, IntDistribution):  # a study's own error, not the user's
        raise TypeError(
            f"The 'resource' of StudySpec {spec.name!r} must name an IntDistribution of its "
            f"space. Got {spec.resource!r} instead."
        )
    a.epochs = a.epochs or (SMOKE_DEFAULTS["epochs"] if a.smoke else EPOCHS)
    steps = scaled_iterations(dist.high, a.iter_scale)
    if a.epochs > steps:
        parser.error(
            f"--epochs must be at most {steps}, the minibatch steps of a full training (the "
            f"upper bound of '{spec.resource}', {dist.high}, times --iter-scale {a.iter_scale:g}"
            f"), so that each epoch has a step. Got --epochs {a.epochs} instead."
        )
    named = [p for p in a.enqueue if spec.resource in p]
    if named:
        parser.error(
            f"--enqueue must not name '{spec.resource}' with a pruner or scheduler: it is the "
            f"resource, no longer tuned. Got {json.dumps(named[0])} instead."
        )


def tuned_space(spec: StudySpec, a: argparse.Namespace) -> dict[str, BaseDistribution]:
    """The parameters the samplers tune: the study's space, less its resource with epochs."""
    if not uses_epochs(a):
        return dict(spec.space)
    return {name: d for name, d in spec.space.items() if name != spec.resource}


def _full_training(spec: StudySpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the resource at its upper bound (trained in epochs)."""
    high = spec.space[spec.resource].high  # type: ignore[attr-defined]
    return {**params, spec.resource: high}


def make_pruner(name: str, *, epochs: int) -> optuna.pruners.BasePruner:
    """An Optuna pruner by ``--pruner`` name.

    Args:
        name:
            One of ``"none"``, ``"median"``, ``"hyperband"``.
        epochs:
            Epochs of a full training (Hyperband's maximum resource).

    Returns:
        ``NopPruner``, ``MedianPruner`` with Optuna's defaults, or ``HyperbandPruner`` from 1
        to ``epochs`` epochs with reduction factor 3.

    Raises:
        ValueError: If ``name`` is unknown.
    """
    if name == "none":
        return optuna.pruners.NopPruner()
    if name == "median":
        return optuna.pruners.MedianPruner()
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=epochs, reduction_factor=3
        )
    raise ValueError(f"The pruner name must be one of {PRUNERS}. Got {name!r} instead.")


# --------------------------------------------------------------------------- samplers


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (``None`` in sys.modules: no)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def _require(module: str, sampler: str, hint: str) -> None:
    if not _importable(module):
        raise ImportError(f"The '{sampler}' sampler needs the '{module}' package. {hint}")


def make_optuna_sampler(
    name: str,
    *,
    seed: int,
    n_startup_trials: int | None = None,
    pruned: str | None = None,
    max_budget: int | None = None,
) -> optuna.samplers.BaseSampler:
    """An Optuna sampler by name.

    Args:
        name:
            One of ``"treeucb"``, ``"tpe"``, ``"gp"``, ``"random"``.
        seed:
            Sampler seed.
        n_startup_trials:
            Random trials before the model starts, or ``None`` for the sampler's default.
        pruned:
            TreeUCB's ``pruned`` option, or ``None`` for its default; the other samplers
            have no such option and ignore it.
        max_budget:
            The last step a trial reports (the epochs of a full training): TreeUCB's
            ``max_budget`` with ``pruned="context"``, where new points are played; ignored
            otherwise.

    Returns:
        The sampler.

    Raises:
        ValueError: If ``name`` is unknown.
        ImportError: If the sampler's package is missing.
    """
    startup: dict[str, Any] = {}
    if n_startup_trials is not None:
        startup["n_startup_trials"] = n_startup_trials
    if name == "treeucb":
        _require("optuna_treeucb", name, "Install this repository: pip install -e .")
        from optuna_treeucb import TreeUCBSampler

        return TreeUCBSampler(seed=seed, **startup, **_pruned_rule(pruned, max_budget))
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, **startup)
    if name == "gp":
        _require("torch", name, f"Optuna's GPSampler needs PyTorch: {_GP_INSTALL}.")
        return optuna.samplers.GPSampler(seed=seed, **startup)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"The sampler name must be one of {SAMPLERS}. Got {name!r} instead.")


def _pruned_rule(pruned: str | None, max_budget: int | None) -> dict[str, Any]:
    """TreeUCB's options for early-stopped trials: ``pruned``, and with ``"context"`` the full
    budget, so that new points are played at the full training from the first trial on (left
    unset, it is the largest step told so far: under Hyperband a lower rung for a while)."""
    rule: dict[str, Any] = {} if pruned is None else {"pruned": pruned}
    if pruned == "context" and max_budget is not None:
        rule["max_budget"] = max_budget
    return rule


def make_ray_searcher(
    name: str,
    *,
    seed: int,
    n_startup_trials: int | None = None,
    points_to_evaluate: list[dict[str, Any]] | None = None,
    pruned: str | None = None,
    max_budget: int | None = None,
) -> Searcher:
    """A Ray Tune searcher by sampler name, maximizing ``"accuracy"``.

    ``"treeucb"`` gives ``ray_treeucb.TreeUCBSearch``; the others wrap the Optuna sampler of
    :func:`make_optuna_sampler` in Ray's ``OptunaSearch``.

    Args:
        name:
            One of ``"treeucb"``, ``"tpe"``, ``"gp"``, ``"random"``.
        seed:
            Searcher seed.
        n_startup_trials:
            Random trials before the model starts, or ``None`` for the searcher's default.
        points_to_evaluate:
            Configurations evaluated first.
        pruned:
            TreeUCBSearch's ``pruned`` option, or ``None`` for its default; ignored by the
            others.
        max_budget:
            The scheduler's ``max_t`` (the epochs of a full training): TreeUCBSearch's
            ``max_budget`` with ``pruned="context"``; ignored otherwise.

    Returns:
        The searcher.
    """
    if name == "treeucb":
        _require("ray_treeucb", name, "Install this repository: pip install -e '.[ray]'.")
        from ray_treeucb import TreeUCBSearch

        return TreeUCBSearch(
            metric=METRIC,
            mode="max",
            seed=seed,
            points_to_evaluate=points_to_evaluate,
            n_startup_trials=n_startup_trials,
            **_pruned_rule(pruned, max_budget),
        )
    from ray.tune.search.optuna import OptunaSearch

    sampler = make_optuna_sampler(name, seed=seed, n_startup_trials=n_startup_trials)
    return OptunaSearch(
        metric=METRIC, mode="max", sampler=sampler, points_to_evaluate=points_to_evaluate
    )


# --------------------------------------------------------------------------- spaces


def suggest(trial: optuna.Trial, name: str, dist: BaseDistribution) -> Any:
    """Ask ``trial`` for parameter ``name`` drawn from ``dist`` through the public API.

    Args:
        trial:
            The running trial.
        name:
            Parameter name.
        dist:
            Its distribution.

    Returns:
        The suggested value.

    Raises:
        TypeError: If ``dist`` is not an Int, Float or Categorical distribution.
    """
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    raise TypeError(
        f"Parameter {name!r} must use IntDistribution, FloatDistribution or "
        f"CategoricalDistribution. Got {type(dist).__name__} instead."
    )


def to_tune_space(space: Mapping[str, BaseDistribution]) -> dict[str, Any]:
    """Convert Optuna distributions to Ray Tune domains with the same values.

    Ints become ``randint`` (upper bound + 1, Tune's is exclusive), ``lograndint``, or
    ``qrandint`` when stepped (inclusive; the low end must be a multiple of the step); floats
    become ``uniform``, ``loguniform`` or ``quniform``; categoricals become ``choice``.

    Args:
        space:
            Parameter name to distribution.

    Returns:
        A ``param_space`` for ``tune.Tuner``.

    Raises:
        ValueError: If a stepped int does not start on a multiple of its step.
        TypeError: If a distribution has another type.
    """
    from ray import tune

    out: dict[str, Any] = {}
    for name, d in space.items():
        if isinstance(d, IntDistribution):
            if d.log:
                out[name] = tune.lograndint(d.low, d.high + 1)
            elif d.step == 1:
                out[name] = tune.randint(d.low, d.high + 1)
            elif d.low % d.step == 0:
                out[name] = tune.qrandint(d.low, d.high, d.step)
            else:
                raise ValueError(
                    f"Parameter {name!r}: a stepped int must start on a multiple of its step "
                    f"for Ray's qrandint. Got low={d.low}, step={d.step} instead."
                )
        elif isinstance(d, FloatDistribution):
            if d.log:
                out[name] = tune.loguniform(d.low, d.high)
            elif d.step is not None:
                out[name] = tune.quniform(d.low, d.high, d.step)
            else:
                out[name] = tune.uniform(d.low, d.high)
        elif isinstance(d, CategoricalDistribution):
            out[name] = tune.choice(list(d.choices))
        else:
            raise TypeError(
                f"Parameter {name!r} must use IntDistribution, FloatDistribution or "
                f"CategoricalDistribution. Got {type(d).__name__} instead."
            )
    return out


def trial_seed(seed: int, params: Mapping[str, Any]) -> int:
    """Seed of a model: a hash of the run seed and the configuration.

    The same configuration in the same repeat trains identically on either backend.

    Args:
        seed:
            The run's seed.
        params:
            The trial's parameters.

    Returns:
        An int in [0, 2**32).
    """
    text = json.dumps({"seed": seed, "params": dict(params)}, sort_keys=True, default=str)
    return zlib.crc32(text.encode())


# --------------------------------------------------------------------------- backends


def _run_optuna(
    spec: StudySpec, data: Split, sampler_name: str, repeat: int, seed: int, a: argparse.Namespace
) -> tuple[list[TrialRecord], RunSummary, optuna.Study]:
    sampler = make_optuna_sampler(
        sampler_name,
        seed=seed,
        n_startup_trials=a.n_startup_trials,
        pruned=a.pruned,
        max_budget=a.epochs,  # the last step a trial reports
    )
    epochs = uses_epochs(a)
    study = optuna.create_study(
        direction="maximize",
        sampler=sampler,
        pruner=make_pruner(a.pruner, epochs=a.epochs or 1),
        # HyperbandPruner draws each trial's bracket from a hash of the study name: one name
        # per seed gives every sampler the same brackets
        study_name=f"{spec.name}-{a.pruner}-{seed}"
        if epochs
        else f"{spec.name}-{sampler_name}-{seed}",
    )
    for point in a.enqueue:
        study.enqueue_trial(point)
    base = Settings(iter_scale=a.iter_scale, width_scale=a.width_scale, seed=seed)
    space = tuned_space(spec, a)
    start = time.perf_counter()

    def objective(trial: optuna.Trial) -> float:
        params = {name: suggest(trial, name, dist) for name, dist in space.items()}
        settings = replace(base, seed=trial_seed(seed, params))
        t0 = time.perf_counter()

        def timing(steps: int) -> None:
            trial.set_user_attr("steps", steps)
            trial.set_user_attr("duration_s", time.perf_counter() - t0)
            trial.set_user_attr("elapsed_s", time.perf_counter() - start)

        if not epochs:
            result = spec.evaluate(params, data, settings)
        else:

            def report(epoch: int, steps: int, accuracy: float) -> None:
                trial.report(accuracy, epoch)
                trial.set_user_attr("epochs", epoch)
                if epoch < a.epochs and trial.should_prune():
                    timing(steps)
                    raise optuna.TrialPruned(f"pruned after epoch {epoch}")

            trial.set_user_attr("epochs", 0)
            result = spec.evaluate(
                _full_training(spec, params), data, settings, epochs=a.epochs, report=report
            )
            if result.diverged:  # it stopped in the epoch after its last report
                trial.set_user_attr("epochs", trial.user_attrs["epochs"] + 1)
        trial.set_user_attr("diverged", result.diverged)
        timing(result.steps)
        return result.accuracy

    study.optimize(objective, n_trials=a.n_trials, timeout=a.timeout, show_progress_bar=True)
    wall = time.perf_counter() - start
    records = []
    states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    for t in study.get_trials(deepcopy=False, states=states):
        pruned = t.state == optuna.trial.TrialState.PRUNED
        if pruned and t.last_step is None:  # pruned before its first report: nothing measured
            continue
        value = t.intermediate_values[t.last_step] if pruned else t.value  # type: ignore[index]
        assert value is not None
        records.append(
            TrialRecord(
                study=spec.name,
                backend="optuna",
                sampler=sampler_name,
                repeat=repeat,
                seed=seed,
                trial=t.number,
                value=float(value),
                diverged=bool(t.user_attrs.get("diverged", False)),
                steps=int(t.user_attrs["steps"]),
                duration_s=float(t.user_attrs["duration_s"]),
                elapsed_s=float(t.user_attrs["elapsed_s"]),
                params=dict(t.params),
                state=t.state.name,
                epochs=t.user_attrs.get("epochs"),
            )
        )
    summary = _summary(sampler_name, repeat, seed, records, wall)
    summary.train_s = sum(r.duration_s for r in records)
    return records, summary, study


def _ray_trainable(
    config: dict[str, Any],
    spec: StudySpec,
    data: Split,
    settings: Settings,
    epochs: int | None = None,
) -> None:
    """Ray Tune function trainable: one configuration, one report (or one per epoch)."""
    from ray import tune

    tuned = [name for name in spec.space if epochs is None or name != spec.resource]
    params = {name: config[name] for name in tuned}
    settings = replace(settings, seed=trial_seed(settings.seed, params))
    t0 = time.perf_counter()

    def metrics(accuracy: float, diverged: bool, steps: int) -> dict[str, Any]:
        return {
            METRIC: accuracy,
            "diverged": diverged,
            "steps": steps,
            "duration_s": time.perf_counter() - t0,
            "end_time": time.time(),
        }

    if epochs is None:
        result = spec.evaluate(params, data, settings)
        tune.report(metrics(result.accuracy, result.diverged, result.steps))
        return
    last = [0]

    def report(epoch: int, steps: int, accuracy: float) -> None:
        last[0] = epoch
        tune.report({**metrics(accuracy, False, steps), "epoch": epoch})

    result = spec.evaluate(
        _full_training(spec, params), data, settings, epochs=epochs, report=report
    )
    if result.diverged:  # it stopped in the epoch after its last report
        tune.report({**metrics(result.accuracy, True, result.steps), "epoch": last[0] + 1})


def _ray_init() -> bool:
    """Start a local Ray unless one is running; returns whether this call started it."""
    import ray

    if ray.is_initialized():
        return False
    path = os.pathsep.join(p for p in (str(_REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    # the workers quiet TensorFlow themselves (import_keras); a value the user set goes along
    user_tf = {k: os.environ[k] for k in TF_QUIET_ENV if k in os.environ}
    ray.init(include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": path, **user_tf}})
    return True


def _run_ray(
    spec: StudySpec, data: Split, sampler_name: str, repeat: int, seed: int, a: argparse.Namespace
) -> tuple[list[TrialRecord], RunSummary]:
    from ray import tune

    searcher = make_ray_searcher(
        sampler_name,
        seed=seed,
        n_startup_trials=a.n_startup_trials,
        points_to_evaluate=[dict(p) for p in a.enqueue] or None,
        pruned=a.pruned,
        max_budget=a.epochs,  # ASHA's max_t; one report per epoch
    )
    settings = Settings(iter_scale=a.iter_scale, width_scale=a.width_scale, seed=seed)
    epochs = a.epochs if uses_epochs(a) else None
    trainable = tune.with_parameters(
        _ray_trainable, spec=spec, data=data, settings=settings, epochs=epochs
    )
    scheduler = None
    if a.scheduler == "asha":
        from ray.tune.schedulers import ASHAScheduler

        # one report per epoch, so Tune's training_iteration (what TreeUCBSearch reads) is
        # the epoch too
        scheduler = ASHAScheduler(
            time_attr="epoch", max_t=a.epochs, grace_period=1, reduction_factor=3
        )
    tuner = tune.Tuner(
        trainable,
        param_space=to_tune_space(tuned_space(spec, a)),
        tune_config=tune.TuneConfig(
            metric=METRIC,
            mode="max",
            search_alg=searcher,
            scheduler=scheduler,
            num_samples=a.n_trials,
            time_budget_s=a.timeout,
            max_concurrent_trials=a.max_concurrent,
            reuse_actors=True,
        ),
        run_config=tune.RunConfig(
            name=f"{spec.name}-{sampler_name}-seed{seed}-{int(time.time())}",
            storage_path=str((Path(a.out) / "ray_results").resolve()),
        ),
    )
    start_wall, start = time.time(), time.perf_counter()
    grid = tuner.fit()
    wall = time.perf_counter() - start
    finished = []
    for i in range(len(grid)):
        r = grid[i]
        metrics = r.metrics or {}
        if r.error is not None or METRIC not in metrics:
            print(f"warning: a Ray trial failed and is left out: {r.error}", file=sys.stderr)
            continue
        finished.append(metrics)
    finished.sort(key=lambda m: float(m["end_time"]))
    records = [
        TrialRecord(
            study=spec.name,
            backend="ray",
            sampler=sampler_name,
            repeat=repeat,
            seed=seed,
            trial=number,
            value=float(m[METRIC]),
            diverged=bool(m["diverged"]),
            steps=int(m["steps"]),
            duration_s=float(m["duration_s"]),
            elapsed_s=float(m["end_time"]) - start_wall,
            params={name: m["config"][name] for name in tuned_space(spec, a)},
            state="COMPLETE" if epochs is None or _finished(m, epochs) else "PRUNED",
            epochs=None if epochs is None else int(m["epoch"]),
        )
        for number, m in enumerate(finished)
    ]
    return records, _summary(sampler_name, repeat, seed, records, wall)


def _finished(metrics: Mapping[str, Any], epochs: int) -> bool:
    """Whether a Ray trial's last result ends its training (all epochs, or diverged)."""
    return int(metrics["epoch"]) >= epochs or bool(metrics["diverged"])


def _summary(
    sampler: str, repeat: int, seed: int, records: list[TrialRecord], wall: float
) -> RunSummary:
    best = max((r.value for r in records if r.state == "COMPLETE"), default=float("nan"))
    epochs = [r.epochs for r in records if r.epochs is not None]
    return RunSummary(
        sampler,
        repeat,
        seed,
        len(records),
        best,
        wall,
        n_pruned=sum(r.state == "PRUNED" for r in records),
        epochs=sum(epochs) if epochs else None,
    )


# --------------------------------------------------------------------------- outputs


def write_results(
    records: list[TrialRecord], runs: list[RunSummary], out: Path, meta: dict[str, Any]
) -> dict[str, Path]:
    """Write ``trials.csv`` and ``trials.json`` into ``out``.

    Args:
        records:
            The finished trials.
        runs:
            The run summaries.
        out:
            Output folder (created).
        meta:
            Run options stored in the JSON file.

    Returns:
        The paths by kind, ``"csv"`` and ``"json"``.
    """
    out.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(k for r in records for k in r.params))
    csv_path, json_path = out / "trials.csv", out / "trials.json"
    with open(csv_path, "w", newline="") as f:
        writer = csv.writer(f)
        head = [k for k in asdict(records[0]) if k != "params"] if records else []
        writer.writerow(head + names)
        for r in records:
            row = asdict(r)
            writer.writerow([row[k] for k in head] + [r.params.get(n, "") for n in names])
    with open(json_path, "w") as f:
        json.dump(
            {
                "meta": meta,
                "runs": [asdict(r) for r in runs],
                "trials": [asdict(r) for r in records],
            },
            f,
            indent=1,
            default=str,
        )
    return {"csv": csv_path, "json": json_path}


def _best_so_far(records: list[TrialRecord]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Finish times, best complete value so far (NaN before the first) and epochs spent."""
    ordered = sorted(records, key=lambda r: r.elapsed_s)
    times = np.array([r.elapsed_s for r in ordered])
    values = np.array([r.value if r.state == "COMPLETE" else -np.inf for r in ordered])
    best = np.maximum.accumulate(values)
    best[np.isneginf(best)] = np.nan
    spent = np.cumsum([r.epochs or 0 for r in ordered])
    return times, best, spent


def _on_grid(x: np.ndarray, best: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The step function ``best`` (changing at ``x``) read on ``grid``; NaN before ``x[0]``."""
    i = np.searchsorted(x, grid, side="right") - 1
    return np.where(i >= 0, best[np.maximum(i, 0)], np.nan)


def _curves(
    records: list[TrialRecord], sampler: str, by_epochs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One sampler's runs on common grids: against trials (or epochs) and against time.

    Returns:
        ``x`` (trials or epochs), ``y`` shape (n_runs, len(x)), ``t`` (seconds) and ``y_t``
        shape (n_runs, len(t)); NaN where a run has no complete trial yet or has ended.
    """
    runs = [
        _best_so_far([r for r in records if r.sampler == sampler and r.repeat == k])
        for k in sorted({r.repeat for r in records if r.sampler == sampler})
    ]
    runs = [run for run in runs if len(run[0])]
    if by_epochs:
        x = np.arange(1, max(spent[-1] for _, _, spent in runs) + 1)
        y = np.array([_on_grid(spent, best, x) for _, best, spent in runs])
    else:
        x = np.arange(1, max(len(best) for _, best, _ in runs) + 1)
        y = np.full((len(runs), x.size), np.nan)
        for i, (_, best, _) in enumerate(runs):
            y[i, : len(best)] = best
    # against time, from the moment every run has a trial
    t0 = max(times[0] for times, _, _ in runs)
    t1 = max(times[-1] for times, _, _ in runs)
    t = np.linspace(t0, t1, 200) if t1 > t0 else np.array([t0])
    y_t = np.array([_on_grid(times, best, t) for times, best, _ in runs])
    return x, y, t, y_t


def _zoom(ax: Any, shown: list[np.ndarray]) -> None:
    """Fit the y axis to the values drawn after the first quarter of each run's x axis, where
    the samplers differ; the steep first trials go below it (the label says so)."""
    late = np.concatenate([v[:, v.shape[1] // 4 :].ravel() for v in shown])
    late = late[np.isfinite(late)]
    if late.size == 0:
        return
    lo, hi = float(late.min()), float(late.max())
    pad = max(0.1 * (hi - lo), 0.002)
    ax.set_ylim(lo - pad, hi + pad)


def plot_best(records: list[TrialRecord], path: Path, title: str) -> Path:
    """Plot best validation accuracy against wall-clock time and against trials or epochs.

    One line per sampler, the mean over its repeats, in a band from the worst to the best
    repeat (with two repeats or more): against trials, over the repeats that ran that many
    trials; against time, from the moment every repeat has a complete trial. When the records
    carry epochs (a pruned study), the second panel is against epochs spent by all trials,
    pruned ones included, and the best counts complete trials only. The y axis is fitted to the
    last three quarters of the curves, where the samplers differ; the legend sits outside the
    panels.

    Args:
        records:
            The finished trials.
        path:
            PNG file to write.
        title:
            Figure title.

    Returns:
        ``path``.
    """
    import warnings

    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    by_epochs = bool(records) and all(r.epochs is not None for r in records)
    fig = Figure(figsize=(10, 4.6), layout="constrained")
    ax_time, ax_trials = fig.subplots(1, 2, sharey=True)
    shown = []
    banded = False
    for i, sampler in enumerate(dict.fromkeys(r.sampler for r in records)):
        x, y, t, y_t = _curves(records, sampler, by_epochs)
        n = y.shape[0]
        label = f"{sampler} ({n} run{'s' if n > 1 else ''})"
        banded |= n > 1
        color = f"C{i}"
        for ax, grid, values in ((ax_trials, x, y), (ax_time, t, y_t)):
            with warnings.catch_warnings():  # all-NaN columns: before a run's first trial
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean(values, axis=0)
                lo, hi = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
            # the best so far changes when a trial ends, not between trials
            ax.plot(grid, mean, drawstyle="steps-post", color=color, label=label)
            if n > 1:
                ax.fill_between(grid, lo, hi, step="post", color=color, alpha=0.2, lw=0)
            shown.append(np.vstack([lo, hi]))
    ax_time.set_xlabel("wall-clock time (s)")
    ylabel = "best validation accuracy" + (" (complete trials)" if by_epochs else "")
    ax_time.set_ylabel(ylabel + "\n(axis fitted to the last 3/4 of each curve)")
    ax_trials.set_xlabel("epochs spent (all trials)" if by_epochs else "trials")
    ax_trials.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (ax_time, ax_trials):
        ax.grid(alpha=0.3)
    if shown:
        _zoom(ax_time, shown)
        ax_trials.legend(
            title="mean over runs; band: worst to best run" if banded else None,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.17),  # below the panel: it never covers a curve
            ncols=len(shown) // 2,
        )
    fig.suptitle(title)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def format_table(runs: list[RunSummary]) -> str:
    """Comparison table: per sampler, runs, mean trials, mean best accuracy, mean run time.

    With pruning, two more columns: mean pruned trials and mean epochs spent per run.

    Args:
        runs:
            The run summaries.

    Returns:
        The table as text.
    """
    pruning = any(r.epochs is not None for r in runs)
    head = f"{'sampler':<10}{'runs':>5}{'trials':>8}"
    if pruning:
        head += f"{'pruned':>8}{'epochs':>8}"
    head += f"{'best accuracy (mean ± sd)':>28}{'run s':>8}{'training s':>12}{'sampler s':>11}"
    lines = [head]
    for sampler in dict.fromkeys(r.sampler for r in runs):
        mine = [r for r in runs if r.sampler == sampler]
        best = np.array([r.best for r in mine])
        sd = float(np.std(best, ddof=1)) if len(best) > 1 else 0.0
        line = f"{sampler:<10}{len(mine):>5}{_count([r.n_trials for r in mine]):>8}"
        if pruning:
            line += f"{_count([r.n_pruned for r in mine]):>8}"
            line += f"{_count([r.epochs or 0 for r in mine]):>8}"
        wall = float(np.mean([r.wall_s for r in mine]))
        trains = [r.train_s for r in mine if r.train_s is not None]
        train = f"{np.mean(trains):.1f}" if len(trains) == len(mine) else "-"
        other = f"{wall - np.mean(trains):.1f}" if len(trains) == len(mine) else "-"
        lines.append(
            line + f"{f'{np.mean(best):.4f} ± {sd:.4f}':>28}{wall:>8.1f}{train:>12}{other:>11}"
        )
    return "\n".join(lines)


def _count(values: Sequence[int]) -> str:
    """The mean of counts: an int when they are all equal (``30``, not ``30.0``)."""
    return str(values[0]) if len(set(values)) == 1 else f"{np.mean(values):.1f}"


def interpret(runs: list[RunSummary]) -> str:
    """One line: which of the first two samplers is ahead on best accuracy, and whether the
    seeds they share can tell them apart (a paired t-test at 5%, two-sided)."""
    from scipy import stats

    names = list(dict.fromkeys(r.sampler for r in runs))
    if len(names) < 2:
        return "One sampler ran: nothing to compare."
    a, b = names[:2]
    best = {(r.sampler, r.seed): r.best for r in runs}
    seeds = [s for (name, s) in best if name == a and (b, s) in best]
    diff = np.array([best[(a, s)] - best[(b, s)] for s in seeds])
    diff = diff[np.isfinite(diff)]
    n = diff.size
    if n == 0:
        return f"{a} and {b} share no seed with a complete trial: nothing to compare."
    mean = float(diff.mean())
    ahead, behind = (a, b) if mean >= 0 else (b, a)
    wins = int(np.sum(diff > 0 if mean >= 0 else diff < 0))
    head = (
        f"{ahead} is ahead of {behind} by {abs(mean):.4f} best accuracy on average over "
        f"{n} paired seed{'s' if n > 1 else ''} ({wins} of {n} won)"
    )
    if mean == 0:
        return f"{a} and {b} tie on best accuracy over {n} paired seeds."
    if n < 3:
        return (
            head
            + f": {n} seed{'s' if n > 1 else ''} cannot tell them apart; run --repeats 5 or more."
        )
    se = float(diff.std(ddof=1) / np.sqrt(n))
    t = abs(mean) / se if se > 0 else math.inf
    need = float(stats.t.ppf(0.975, n - 1))
    verdict = "the seeds tell them apart" if t > need else "the seeds cannot tell them apart"
    return head + f"; paired t = {t:.2f} against {need:.2f} needed at 5%: {verdict}."


# --------------------------------------------------------------------------- entry points


def synthetic_data(spec: StudySpec, a: argparse.Namespace) -> bool:
    """Whether synthetic arrays stand in for the data (``--smoke`` without ``--data-dir``)."""
    return bool(a.smoke and a.data_dir is None and not spec.bundled_data)


def load_split(spec: StudySpec, a: argparse.Namespace) -> Split:
    """Load the study's data as the resolved options ask and split off validation.

    With ``--smoke`` and no ``--data-dir``, synthetic arrays of the real shapes stand in for
    the data (unless the data ship with a package); ``--smoke`` never downloads.

    Args:
        spec:
            The study.
        a:
            Resolved options.

    Returns:
        The training and validation arrays.

    Raises:
        DataNotFoundError: If the data are missing and cannot be downloaded.
        ValueError: If ``--train-size`` or ``--val-size`` do not fit the data.
    """
    if synthetic_data(spec, a):
        data = synthetic(
            spec.input_shape, a.train_size + a.val_size, n_classes=10, seed=min(a.seeds)
        )
    else:
        data_dir = a.data_dir if a.data_dir is not None else Path("data")
        data = spec.load(data_dir, download=not (a.smoke or a.no_download))
    return split_train_val(data, train_size=a.train_size, val_size=a.val_size)


def _warm_up(spec: StudySpec, data: Split, a: argparse.Namespace) -> None:
    """Train one tiny configuration, untimed, so that the first run is not charged for it.

    Importing TensorFlow and its first graph take seconds, which the first sampler's first
    trial would otherwise pay, skewing its time in the table and the time plot.
    """
    params: dict[str, Any] = {}
    for name, dist in spec.space.items():
        if isinstance(dist, (FloatDistribution, IntDistribution)):
            params[name] = dist.low
        elif isinstance(dist, CategoricalDistribution):
            params[name] = dist.choices[0]
    t0 = time.perf_counter()
    spec.evaluate(params, data, Settings(iter_scale=1e-9, width_scale=a.width_scale, seed=0))
    print(f"[{spec.name}] warm-up (untimed): {time.perf_counter() - t0:.1f} s", flush=True)


def run(spec: StudySpec, a: argparse.Namespace) -> RunResult:
    """Run every sampler for every seed, then write the results, plot and table.

    Args:
        spec:
            The study.
        a:
            Options resolved by :func:`resolve_args`.

    Returns:
        The trials, run summaries, Optuna studies and written files.
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for name in a.samplers:  # Fail before any training if a sampler is unavailable.
        if a.backend == "ray":
            make_ray_searcher(name, seed=0)
        else:
            make_optuna_sampler(name, seed=0)
    data = load_split(spec, a)
    pruning = ""
    if uses_epochs(a):
        how = f"pruner {a.pruner}" if a.backend == "optuna" else f"scheduler {a.scheduler}"
        pruning = f"; {how}, {a.epochs} epochs, '{spec.resource}' is the resource"
    if synthetic_data(spec, a):
        print(f"[{spec.name}] {SYNTHETIC_NOTE}", flush=True)
    print(
        f"[{spec.name}] {len(data.y_train)} training / {len(data.y_val)} validation examples; "
        f"backend {a.backend}; samplers {', '.join(a.samplers)}; seeds {a.seeds}; "
        f"{a.n_trials} trials per run" + (f" or {a.timeout:g} s" if a.timeout else "") + pruning,
        flush=True,
    )
    if a.backend == "optuna":
        _warm_up(spec, data, a)
    started_ray = _ray_init() if a.backend == "ray" else False
    records: list[TrialRecord] = []
    runs: list[RunSummary] = []
    studies: dict[tuple[str, int], optuna.Study] = {}
    try:
        for repeat, seed in enumerate(a.seeds):
            for name in a.samplers:
                print(f"[{spec.name}] {name}, repeat {repeat + 1}/{len(a.seeds)} (seed {seed})")
                if a.backend == "ray":
                    recs, summary = _run_ray(spec, data, name, repeat, seed, a)
                else:
                    recs, summary, study = _run_optuna(spec, data, name, repeat, seed, a)
                    studies[(name, repeat)] = study
                records += recs
                runs.append(summary)
    finally:
        if started_ray:
            import ray

            ray.shutdown()
    meta = {
        k: (str(v) if isinstance(v, Path) else v)
        for k, v in vars(a).items()
        if k not in ("enqueue",)
    }
    meta["enqueue"] = a.enqueue
    files = write_results(records, runs, Path(a.out), meta)
    if records:
        title = f"{spec.name}: best validation accuracy ({a.backend})"
        files["plot"] = plot_best(records, Path(a.out) / "best_accuracy.png", title)
    table = format_table(runs)
    print(table)
    print(interpret(runs))
    if synthetic_data(spec, a):
        print(SYNTHETIC_NOTE)
    for kind, path in files.items():
        print(f"wrote {kind}: {path}")
    return RunResult(records, runs, studies, files, table)


def run_cli(spec: StudySpec, argv: Sequence[str] | None = None) -> RunResult | None:
    """Parse ``argv`` and run the study; missing data print a message instead of a traceback.

    Args:
        spec:
            The study.
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The result, or ``None`` if the data were missing (the message went to stderr).
    """
    parser = build_parser(spec)
    a = resolve_args(spec, parser.parse_args(argv), parser)
    try:
        return run(spec, a)
    except DataNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def main_for(spec: StudySpec, argv: Sequence[str] | None = None) -> int:
    """``main()`` of a study: exit status 0 on success, 2 if the data are missing.

    Args:
        spec:
            The study.
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The exit status.
    """
    return 0 if run_cli(spec, argv) is not None else 2
