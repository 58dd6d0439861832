"""Studies whose space changes or branches widely: a range widened on resume, one range per
branch, and 50 model variants with a parameter each.

Score: per study and seed, its figures (best value, median after the change, share in the
best branch). benchmarks/README.md describes the three studies.

Usage::

    python -m benchmarks changing_spaces --quick           # 1 seed
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick

SAMPLERS = ("TreeUCB", "TPE")
CHOICES = 50
BEST_CHOICE = 37


def widen_objective(high: float) -> Callable[[Any], float]:
    def objective(trial: Any) -> float:
        x = trial.suggest_float("x", 0.0, high)
        y = trial.suggest_float("y", 0.0, 1.0)
        z = trial.suggest_float("z", 0.0, 1.0)
        return (x - 1.4) ** 2 + (y - 0.3) ** 2 + (z - 0.6) ** 2

    return objective


def widen(sampler: str, seed: int) -> dict[str, float]:
    study = _harness.new_study(sampler, seed)
    study.optimize(widen_objective(1.0), n_trials=50)
    study.sampler = _samplers.make_sampler(sampler, seed + 1000)  # resumed with the wider range
    study.optimize(widen_objective(2.0), n_trials=100)
    after = [t.value for t in study.trials[50:]]
    return {"median after": float(np.median(after)), "best": float(study.best_value)}


def per_branch_objective(trial: Any) -> float:
    if trial.suggest_categorical("branch", ["a", "b"]) == "a":
        lr = trial.suggest_float("lr", 0.0, 0.1)
        m = trial.suggest_float("momentum", 0.0, 1.0)
        return 10 * abs(lr - 0.03) + (m - 0.7) ** 2
    lr = trial.suggest_float("lr", 0.0, 1.0)
    d = trial.suggest_float("dropout", 0.0, 1.0)
    return 0.05 + (lr - 0.6) ** 2 + (d - 0.2) ** 2


def per_branch(sampler: str, seed: int) -> dict[str, float]:
    study = _harness.new_study(sampler, seed)
    study.optimize(per_branch_objective, n_trials=100)
    late = study.trials[50:]
    share = np.mean([t.params["branch"] == "a" for t in late])
    return {"best": float(study.best_value), "share in a, 51-100": float(share)}


def choices(sampler: str, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(12345)  # the problem, the same for every seed
    level = rng.uniform(0.2, 1.0, CHOICES)
    level[BEST_CHOICE] = 0.0
    centre = rng.uniform(0.1, 0.9, CHOICES)
    names = [f"m{i}" for i in range(CHOICES)]

    def objective(trial: Any) -> float:
        choice = trial.suggest_categorical("model", names)
        i = int(choice[1:])
        return float(level[i] + (trial.suggest_float(f"p_{choice}", 0.0, 1.0) - centre[i]) ** 2)

    study = _harness.new_study(sampler, seed)
    study.optimize(objective, n_trials=200)
    played = sum(t.params["model"] == names[BEST_CHOICE] for t in study.trials)
    return {"best": float(study.best_value), f"m{BEST_CHOICE} played": float(played)}


STUDIES: dict[str, Callable[[str, int], dict[str, float]]] = {
    "widen": widen,
    "per-branch": per_branch,
    "choices-50": choices,
}


def run_one(job: tuple[str, str, int]) -> dict[str, Any]:
    """One study of one sampler and seed: its figures."""
    _harness.quiet()
    study, sampler, seed = job
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"study": study, "sampler": sampler, "seed": seed, **STUDIES[study](sampler, seed)}


def report(results: list[dict[str, Any]], samplers: list[str]) -> str:
    """One table per study: each figure per seed, for every sampler."""
    parts = []
    for study in STUDIES:
        runs = [r for r in results if r["study"] == study]
        figures = [k for k in runs[0] if k not in ("study", "sampler", "seed")]
        rows = []
        for s in samplers:
            mine = sorted((r for r in runs if r["sampler"] == s), key=lambda r: r["seed"])
            rows.append([s, *(" / ".join(_report.fmt(r[f]) for r in mine) for f in figures)])
        header = ["sampler", *(f"{f} (seed by seed)" for f in figures)]
        parts.append(f"### {study}\n\n" + _report.md_table(header, rows))
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> None:
    """Run the three studies and write ``changing_spaces.md`` into ``--out``."""
    common = {"seeds": Quick(3, 1), "seed_offset": 0, "samplers": ",".join(SAMPLERS), "jobs": 1}
    p = _harness.make_parser("changing_spaces", __doc__, None, **common, name="changing_spaces")
    args = p.parse(argv)
    samplers = _samplers.split_names(args.samplers)
    jobs = [
        (study, s, seed) for study in STUDIES for s in samplers for seed in _harness.seeds(args)
    ]
    results = _harness.pmap(run_one, jobs, args.jobs)
    _harness.finish(
        args, "Changing and wide conditional spaces", "", "\n" + report(results, samplers)
    )
