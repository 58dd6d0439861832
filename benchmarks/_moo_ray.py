"""``--backend ray`` of ``python -m benchmarks moo`` and ``constrained``: real Tune runs.

Each run is a ``tune.Tuner`` on a local ``ray.init(num_cpus=2)`` (started once per process by
:func:`benchmarks._harness.start_ray`), one trial at a time, of a function trainable that
evaluates one point of the problem and reports every objective (``f0``, ``f1``, ...) and every
constraint value (``c0``, ...).  The searcher gets the space, the metrics and the modes at
construction (Tune's own ``metric`` is left unset, as a list of metrics needs):

* ``TreeUCBSearch``: ``metric=[...]``, ``mode=[...]`` (one string each for one objective) and
  ``constraints=["c0", ...]``, the result keys whose values are feasible when <= 0;
* ``OptunaSearch (TPE)``: Ray's ``OptunaSearch`` with ``TPESampler(multivariate=True)``.
  It has no constraints argument, so for the constrained problems a small subclass stores the
  ``c*`` metrics of each result on its Optuna trial (``Trial.set_constraint``, where Optuna 5's
  samplers read them) before telling it; TPE then handles them as in the Optuna runs.

A run returns the objectives ``F`` and constraints ``G`` of its trials in the order they
started, so :mod:`benchmarks.moo` scores it like an Optuna run; its cost per trial is the
searcher's own time (``suggest`` + ``on_trial_complete``, :func:`benchmarks._harness.timed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks._problems import problem_of

SEARCHERS = ("TreeUCBSearch", "OptunaSearch (TPE)")


def _names(problem: Any) -> tuple[list[str], list[str]]:
    return [f"f{j}" for j in range(problem.n_objectives)], [
        f"c{j}" for j in range(problem.n_constraints)
    ]


def make_trainable(mode: str, name: str, seed: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A trainable that evaluates one point of the problem (``benchmarks`` imported in the
    worker, which Ray puts on the driver's ``sys.path``)."""

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        import time as _time

        import numpy as _np

        from benchmarks._problems import problem_of

        start = _time.time()
        problem = problem_of(mode, name, seed)
        x = _np.array([config[f"x{i}"] for i in range(problem.dim)], dtype=float)
        F, G = problem.evaluate(x)
        out = {f"f{j}": float(v) for j, v in enumerate(F)}
        out.update({f"c{j}": float(v) for j, v in enumerate(G)})
        out["start"] = start
        return out

    return trainable


def make_searcher(searcher: str, problem: Any, seed: int) -> Any:
    """One of :data:`SEARCHERS`, given the space, metrics, modes (and constraints)."""
    from ray import tune

    space = {
        f"x{i}": tune.uniform(float(problem.low[i]), float(problem.high[i]))
        for i in range(problem.dim)
    }
    objectives, constraints = _names(problem)
    metric: str | list[str] = objectives if len(objectives) > 1 else objectives[0]
    mode: str | list[str] = ["min"] * len(objectives) if len(objectives) > 1 else "min"
    if searcher == "TreeUCBSearch":
        from ray_treeucb import TreeUCBSearch

        extra = {"constraints": constraints} if constraints else {}
        return TreeUCBSearch(space=space, metric=metric, mode=mode, seed=seed, **extra)
    if searcher == "OptunaSearch (TPE)":
        import optuna
        from ray.tune.search.optuna import OptunaSearch

        class ConstrainedOptunaSearch(OptunaSearch):  # type: ignore[misc]
            """Stores the result's constraint metrics on the Optuna trial before the tell."""

            def on_trial_complete(
                self, trial_id: str, result: dict[str, Any] | None = None, error: bool = False
            ) -> None:
                if result and trial_id in self._ot_trials:
                    for c in constraints:
                        self._ot_trials[trial_id].set_constraint(c, float(result[c]))
                super().on_trial_complete(trial_id, result=result, error=error)

        cls = ConstrainedOptunaSearch if constraints else OptunaSearch
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True)
        return cls(space=space, metric=metric, mode=mode, sampler=sampler, seed=seed)
    raise ValueError(f"Unknown searcher {searcher!r}; use one of {SEARCHERS}.")


def run_one(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
    """One Tune run, in the form of :func:`benchmarks.moo.run_one`."""
    mode, searcher, name, seed, n_trials = job
    problem = problem_of(mode, name, seed)
    objectives, constraints = _names(problem)
    search_alg = _harness.timed(make_searcher(searcher, problem, seed))
    out: dict[str, Any] = {"mode": mode, "sampler": searcher, "problem": name, "seed": seed}
    rows, out["wall_tune"] = _harness.fit_tuner(
        make_trainable(mode, name, seed), search_alg, n_trials
    )
    out["F"] = np.array([[m[k] for k in objectives] for m in rows], dtype=float)
    G = np.array([[m[k] for k in constraints] for m in rows], dtype=float)
    out["G"] = G.reshape(n_trials, len(constraints))
    # the cost per trial of benchmarks.moo is (wall - evaluate) / n: the searcher's time
    out["wall"] = float(search_alg.seconds)
    out["evaluate"] = 0.0
    return out
