"""The command line of the example studies: :class:`StudySpec`, the parser it builds and the
resolution of its options (``--smoke`` defaults, pruning and scheduling checks).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._datasets import Dataset
from examples._models import TrialResult
from examples._models import scaled_iterations
from optuna_treeucb.core import OPTIONS

SAMPLERS = ("treeucb", "tpe", "gp", "random")
SYNTHETIC_NOTE = (
    "--smoke: SYNTHETIC data (random arrays of the real shapes), not the real dataset; the "
    "accuracies only show that the run works."
)
# the examples run from a clone (the package is not on PyPI yet), so the clone's form comes first
GP_INSTALL = (
    "pip install -e '.[gp]' in this clone (once published: pip install 'optuna-treeucb[gp]')"
)
RAY_INSTALL = (
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
    if "gp" in a.samplers and not importable("torch"):
        parser.error(f"--samplers gp (Optuna's GPSampler) needs PyTorch: {GP_INSTALL}.")
    if a.backend == "ray" and not importable("ray"):
        parser.error(f"--backend ray needs Ray Tune: {RAY_INSTALL}.")
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


def importable(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (``None`` in sys.modules: no)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None
