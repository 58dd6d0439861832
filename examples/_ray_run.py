"""The Ray Tune backend of the example studies: searchers by sampler name, the conversion of
the Optuna space to Tune domains, the trainable, the local Ray, and one run (one sampler, one
seed) as a ``tune.Tuner``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import METRIC
from examples._cli import StudySpec
from examples._cli import tuned_space
from examples._cli import uses_epochs
from examples._datasets import Split
from examples._models import TF_QUIET_ENV
from examples._models import Settings
from examples._optuna_run import full_training
from examples._optuna_run import make_optuna_sampler
from examples._optuna_run import pruned_rule
from examples._optuna_run import require_package
from examples._optuna_run import trial_seed
from examples._report import RunSummary
from examples._report import TrialRecord
from examples._report import summarise

if TYPE_CHECKING:
    from ray.tune.search import Searcher

_REPO_ROOT = Path(__file__).resolve().parent.parent


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
        require_package("ray_treeucb", name, "Install this repository: pip install -e '.[ray]'.")
        from ray_treeucb import TreeUCBSearch

        return TreeUCBSearch(
            metric=METRIC,
            mode="max",
            seed=seed,
            points_to_evaluate=points_to_evaluate,
            n_startup_trials=n_startup_trials,
            **pruned_rule(pruned, max_budget),
        )
    from ray.tune.search.optuna import OptunaSearch

    sampler = make_optuna_sampler(name, seed=seed, n_startup_trials=n_startup_trials)
    return OptunaSearch(
        metric=METRIC, mode="max", sampler=sampler, points_to_evaluate=points_to_evaluate
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
        full_training(spec, params), data, settings, epochs=epochs, report=report
    )
    if result.diverged:  # it stopped in the epoch after its last report
        tune.report({**metrics(result.accuracy, True, result.steps), "epoch": last[0] + 1})


def ray_init() -> bool:
    """Start a local Ray unless one is running; returns whether this call started it."""
    import ray

    if ray.is_initialized():
        return False
    path = os.pathsep.join(p for p in (str(_REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    # the workers quiet TensorFlow themselves (import_keras); a value the user set goes along
    user_tf = {k: os.environ[k] for k in TF_QUIET_ENV if k in os.environ}
    ray.init(include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": path, **user_tf}})
    return True


def run_ray(
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
    return records, summarise(sampler_name, repeat, seed, records, wall)


def _finished(metrics: Mapping[str, Any], epochs: int) -> bool:
    """Whether a Ray trial's last result ends its training (all epochs, or diverged)."""
    return int(metrics["epoch"]) >= epochs or bool(metrics["diverged"])
