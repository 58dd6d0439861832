"""Fingerprints of seeded suggestions, to check that a refactor changed no behaviour.

``python -m benchmarks.fingerprint [--no-ray]`` prints one short hash per run:

* the core's asks (``TreeUCB.ask`` with and without contexts, some points left pending) for
  both tree rules x both indices on a mixed space (float, log float, int, stepped float,
  categorical), and its soft-GP posterior on a few points;
* a 40-trial seeded Optuna study per index (``TreeUCBSampler``);
* a 40-trial seeded ``TreeUCBSearch`` run per index on a nested Tune space with partial
  ``points_to_evaluate`` (driven directly, without ``ray.init``).

Run it before and after a change (two worktrees, or ``git stash``) and compare the lines: a
refactor that reorders no randomness keeps every suggestion hash.  The posterior hashes move
with any change of floating-point operations (e.g. another linear solver) even when every
suggestion stays the same.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
from typing import Any

import numpy as np

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB

INDICES = ("hoeffding", "soft_gp")


def _hash(obj: Any) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()[:16]


def core_fingerprints(n_asks: int = 60) -> dict[str, str]:
    """Hashes of the core's asks and observations, and of its posterior, per rule x index."""
    space = [
        ParamSpec("x", "float", low=-2.0, high=2.0),
        ParamSpec("lr", "float", low=1e-4, high=1.0, log=True),
        ParamSpec("k", "int", low=1, high=9),
        ParamSpec("q", "float", low=0.0, high=1.0, step=0.25),
        ParamSpec("c", "categorical", choices=("a", "b", "c")),
    ]
    contexts: list[dict[str, Any] | None] = [None, {"c": "b"}, {"x": 0.25, "k": 9}, None]
    out = {}
    for rule in ("refit", "incremental"):
        for index in INDICES:
            bandit = TreeUCB(space, seed=3, rule=rule, index=index, direction="minimize")  # type: ignore[arg-type]
            asked = []
            for i in range(n_asks):
                p = bandit.ask(contexts[i % 4])
                asked.append(sorted(p.items()))
                value = (p["x"] - 0.5) ** 2 + np.log10(p["lr"]) ** 2 / 10 + p["k"] / 10 + p["q"]
                if i % 7 != 3:  # else the point stays pending
                    bandit.tell(p, float(value) + {"a": 0.0, "b": 0.3, "c": 0.6}[p["c"]])
            mean, std = bandit.posterior(np.linspace(0.0, 1.0, 15).reshape(3, 5))
            out[f"core {rule} {index}"] = _hash((asked, bandit.X.tobytes()))
            out[f"core {rule} {index} posterior"] = _hash((mean.tobytes(), std.tobytes()))
    return out


def optuna_fingerprints(n_trials: int = 40) -> dict[str, str]:
    """Hashes of the parameters of a seeded Optuna study per index."""
    import optuna

    from optuna_treeucb import TreeUCBSampler

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -5, 5)
        y = trial.suggest_float("y", 1e-3, 1, log=True)
        n = trial.suggest_int("n", 0, 10)
        c = trial.suggest_categorical("c", [True, False, "z"])
        return x * x + y + n / 3 + (c is True)

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    out = {}
    for index in INDICES:
        study = optuna.create_study(sampler=TreeUCBSampler(seed=0, index=index))
        study.optimize(objective, n_trials=n_trials)
        out[f"optuna {index}"] = _hash([sorted(t.params.items()) for t in study.trials])
    return out


def ray_fingerprints(n_trials: int = 40) -> dict[str, str]:
    """Hashes of the configurations of a seeded TreeUCBSearch run per index."""
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
    for index in INDICES:
        searcher = TreeUCBSearch(
            space, metric="loss", mode="min", seed=0, index=index, points_to_evaluate=points
        )
        configs = []
        for i in range(n_trials):
            c = searcher.suggest(f"t{i}")
            assert c is not None
            configs.append(c)
            loss = (c["x"] - 0.3) ** 2 + c["model"]["layers"][0] / 10 + c["lr"]
            searcher.on_trial_complete(f"t{i}", {"loss": loss + (c["model"]["act"] == "relu")})
        out[f"ray {index}"] = _hash(configs)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-ray", action="store_true", help="skip the TreeUCBSearch runs")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    prints = {**core_fingerprints(), **optuna_fingerprints()}
    if not args.no_ray:
        prints.update(ray_fingerprints())
    for name, value in prints.items():
        print(f"{name:38s} {value}")


if __name__ == "__main__":
    main()
