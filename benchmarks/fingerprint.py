"""Fingerprints of seeded suggestions, to check that a refactor changed no behaviour.

``python -m benchmarks.fingerprint [--no-ray] [--write FILE]`` prints one short hash per
run of the core, of a seeded Optuna study and of a TreeUCBSearch run, per case;
benchmarks/README.md says what they cover and when to rewrite the golden file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB

INDICES = ("hoeffding", "soft_gp")
GOLDEN = "tests/benchmarks_tests/fingerprints.json"  # the hashes every refactor must keep
# Options of the core per case, beyond the rule x index grid (which plays the HPO recipe,
# sampling="local_gp", the sampler's and the searcher's default).
CORE_CASES: dict[str, dict[str, Any]] = {
    **{
        f"{rule} {index}": {"rule": rule, "index": index, "sampling": "local_gp"}
        for rule in ("refit", "incremental")
        for index in INDICES
    },
    "uniform": {"sampling": "uniform"},
    "trust_region": {"sampling": "trust_region"},
    "discrete=region": {"sampling": "local_gp", "discrete": "region"},
    "discrete=region trust_region": {"sampling": "trust_region", "discrete": "region"},
    "C M n_startup": {"sampling": "local_gp", "C": 0.1, "M": 0.5, "n_startup_trials": 5},
    "pruned=context": {"sampling": "local_gp", "pruned": "context", "max_budget": 4.0},
}
# Options of the sampler and the searcher per case (by the wrappers' names); {} is the default.
WRAPPER_CASES: dict[str, dict[str, Any]] = {
    "default": {},
    "soft_gp": {"index": "soft_gp"},
    "incremental": {"rule": "incremental"},
    "uniform": {"sampling": "uniform"},
    "trust_region": {"sampling": "trust_region"},
    "discrete=region": {"discrete": "region"},
    "C M n_startup_trials": {"C": 0.1, "M": 0.5, "n_startup_trials": 5},
    "pruned": {},  # the default, with trials stopped early
    "pruned=context": {"pruned": "context", "max_budget": 4},
}
BUDGETS = (None, 1.0, 2.0, None, 4.0)  # the budget told per ask, in turn (pruned=context)


def _hash(obj: Any) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:16]


def core_fingerprints(n_asks: int = 60) -> dict[str, str]:
    """Hashes of the core's asks and observations, and of its posterior, per case."""
    space = [
        ParamSpec("x", "float", low=-2.0, high=2.0),
        ParamSpec("lr", "float", low=1e-4, high=1.0, log=True),
        ParamSpec("k", "int", low=1, high=9),
        ParamSpec("q", "float", low=0.0, high=1.0, step=0.25),
        ParamSpec("c", "categorical", choices=("a", "b", "c")),
    ]
    contexts: list[dict[str, Any] | None] = [None, {"c": "b"}, {"x": 0.25, "k": 9}, None]
    out = {}
    for name, options in CORE_CASES.items():
        bandit = TreeUCB(space, seed=3, direction="minimize", **options)
        budgets = options.get("pruned") == "context"
        asked = []
        for i in range(n_asks):
            p = bandit.ask(contexts[i % 4])
            asked.append(sorted(p.items()))
            value = (p["x"] - 0.5) ** 2 + np.log10(p["lr"]) ** 2 / 10 + p["k"] / 10 + p["q"]
            if i % 7 != 3:  # else the point stays pending
                budget = BUDGETS[i % len(BUDGETS)] if budgets else None
                value += {"a": 0.0, "b": 0.3, "c": 0.6}[p["c"]]
                bandit.tell(p, float(value), budget=budget)
        out[f"core {name}"] = _hash((asked, bandit.X.tobytes()))
        if options.get("index") == "soft_gp" or name in ("refit hoeffding", "uniform"):
            mean, std = bandit.posterior(np.linspace(0.0, 1.0, 15).reshape(3, 5))
            # to 9 decimals, as the CPU's BLAS kernel changes the last bits; + 0.0 makes -0.0 0.0
            rounded = tuple((np.round(v, 9) + 0.0).tolist() for v in (mean, std))
            out[f"core {name} posterior"] = _hash(rounded)
    return out


def optuna_fingerprints(n_trials: int = 40) -> dict[str, str]:
    """Hashes of the parameters of a seeded Optuna study per case (and of their states)."""

    def value(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -5, 5)
        y = trial.suggest_float("y", 1e-3, 1, log=True)
        n = trial.suggest_int("n", 0, 10)
        c = trial.suggest_categorical("c", [True, False, "z"])
        return x * x + y + n / 3 + (c is True)

    def stepped(trial: optuna.Trial) -> float:
        v = value(trial)
        for step in range(5):
            trial.report(v + 4 - step, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return v

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    out = {}
    for name, options in WRAPPER_CASES.items():
        pruning = name.startswith("pruned")
        pruner = optuna.pruners.MedianPruner(n_startup_trials=3) if pruning else None
        sampler = TreeUCBSampler(seed=0, **options)
        study = optuna.create_study(sampler=sampler, pruner=pruner)
        study.optimize(stepped if pruning else value, n_trials=n_trials)
        trials = [(sorted(t.params.items()), t.state.name) for t in study.trials]
        out[f"optuna {name}"] = _hash(trials)
    return out


def ray_fingerprints(n_trials: int = 40) -> dict[str, str]:
    """Hashes of the configurations of a seeded TreeUCBSearch run per case."""
    from ray import tune

    from ray_treeucb import TreeUCBSearch

    space = {
        "x": tune.uniform(-1.0, 1.0),
        "model": {
            "layers": [tune.randint(1, 5), tune.qrandint(8, 64, 8)],
            "act": tune.choice(["relu", "tanh"]),
        },
        "lr": tune.loguniform(1e-4, 1e-1),
        "const": 3,
    }
    points = [{"x": 0.1}, {"model": {"act": "tanh"}}]
    out = {}
    for name, options in WRAPPER_CASES.items():
        pruning = name.startswith("pruned")
        searcher = TreeUCBSearch(
            space, metric="loss", mode="min", seed=0, points_to_evaluate=points, **options
        )
        configs = []
        for i in range(n_trials):
            c = searcher.suggest(f"t{i}")
            assert c is not None
            configs.append(c)
            loss = (c["x"] - 0.3) ** 2 + c["model"]["layers"][0] / 10 + c["lr"]
            loss += c["model"]["act"] == "relu"
            if pruning:  # every third trial is stopped by a scheduler after 2 of 4 steps
                last = 2 if i % 3 == 1 else 4
                for step in range(1, last + 1):
                    result = {"loss": loss + 4 - step, "training_iteration": step}
                    searcher.on_trial_result(f"t{i}", result)
                searcher.on_trial_complete(f"t{i}", result)
            else:
                searcher.on_trial_complete(f"t{i}", {"loss": loss})
        out[f"ray {name}"] = _hash(configs)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-ray", action="store_true", help="skip the TreeUCBSearch runs")
    parser.add_argument(
        "--write", metavar="FILE", help=f"write the hashes as JSON (the golden file: {GOLDEN})"
    )
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    prints = {**core_fingerprints(), **optuna_fingerprints()}
    if not args.no_ray:
        prints.update(ray_fingerprints())
    for name, value in prints.items():
        print(f"{name:38s} {value}")
    if args.write:
        Path(args.write).write_text(json.dumps(prints, indent=1) + "\n")


if __name__ == "__main__":
    main()
