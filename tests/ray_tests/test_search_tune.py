"""TreeUCBSearch inside real ``tune.Tuner`` runs on one shared 2-CPU local Ray.

Trainables are built inside functions so that Ray pickles them by value.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ray import tune
from ray.tune.search import ConcurrencyLimiter
from ray.tune.search import Repeater

from ray_treeucb import TreeUCBSearch

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("ray_session")]

Trainable = Callable[[dict[str, Any]], dict[str, Any]]


def _quadratic_trainable(log: Path | None = None, sleep: float = 0.0) -> Trainable:
    """Loss (x - 0.3)^2 + (y + 0.2)^2; logs 'start <id>' and 'done <id>' lines to ``log``."""

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        trial_id = tune.get_context().get_trial_id()
        if log is not None:
            with open(log, "a") as f:
                f.write(f"start {trial_id}\n")
        start = time.time()
        time.sleep(sleep)
        loss = (config["x"] - 0.3) ** 2 + (config["y"] + 0.2) ** 2
        if log is not None:
            with open(log, "a") as f:
                f.write(f"done {trial_id}\n")
        return {"loss": loss, "start": start, "end": time.time()}

    return trainable


SPACE = {"x": tune.uniform(-1.0, 1.0), "y": tune.uniform(-1.0, 1.0)}


def _run_config(tmp_path: Path, name: str, **kwargs: Any) -> tune.RunConfig:
    return tune.RunConfig(storage_path=str(tmp_path), name=name, verbose=0, **kwargs)


def _results(grid: Any) -> list[Any]:
    return [grid[i] for i in range(len(grid))]


def _observations(searcher: TreeUCBSearch) -> int:
    assert searcher.model is not None
    return searcher.model.n_observations


def _pending(searcher: TreeUCBSearch) -> int:
    """How many trials the searcher holds as running (none once Tune has ended them all)."""
    assert searcher.model is not None
    return searcher.model.n_pending


def test_tuner_mode_min_with_concurrency(tmp_path: Path) -> None:
    searcher = TreeUCBSearch(seed=0, n_startup_trials=4)
    tuner = tune.Tuner(
        _quadratic_trainable(sleep=1.5),
        # the space comes through set_search_properties; Tune itself resolves sample_from
        # and non-primitive choices (it hands the searcher placeholders for them)
        param_space={
            **SPACE,
            "fixed": {"name": "quadratic"},
            "twice_x": tune.sample_from(lambda config: 2.0 * config["x"]),
            "obj": tune.choice([Path("a"), Path("b")]),
        },
        tune_config=tune.TuneConfig(
            search_alg=searcher,
            metric="loss",
            mode="min",
            num_samples=8,
            max_concurrent_trials=2,
            reuse_actors=True,
        ),
        run_config=_run_config(tmp_path, "min"),
    )
    results = tuner.fit()
    assert len(results) == 8 and results.num_errors == 0
    configs = [r.config for r in _results(results)]
    for c in configs:
        assert c["fixed"] == {"name": "quadratic"} and c["twice_x"] == 2.0 * c["x"]
        assert c["obj"] in (Path("a"), Path("b"))
    assert len({(c["x"], c["y"]) for c in configs}) == 8
    assert _observations(searcher) == 8 and _pending(searcher) == 0
    spans = sorted((r.metrics["start"], r.metrics["end"]) for r in _results(results))
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:]))  # two trials ran at once
    best = results.get_best_result()
    assert best.metrics is not None
    assert best.metrics["loss"] == min(r.metrics["loss"] for r in _results(results) if r.metrics)


def _risky_trainable() -> Trainable:
    """Score to maximise; raises for x > 0.6 and reports NaN for x < -0.8."""

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        if config["x"] > 0.6:
            raise ValueError("diverged")
        if config["x"] < -0.8:
            return {"score": float("nan")}
        return {"score": -((config["x"] - 0.3) ** 2) - (config["y"] + 0.2) ** 2}

    return trainable


def test_tuner_mode_max_points_and_failing_trials(tmp_path: Path) -> None:
    points = [{"x": 0.9, "y": 0.0}, {"y": 0.5}]  # a full point (it raises) and a context
    searcher = TreeUCBSearch(
        SPACE, metric="score", mode="max", points_to_evaluate=points, seed=1, n_startup_trials=4
    )
    tuner = tune.Tuner(
        _risky_trainable(),
        tune_config=tune.TuneConfig(
            search_alg=ConcurrencyLimiter(searcher, max_concurrent=2),
            num_samples=10,
            reuse_actors=True,
        ),
        run_config=_run_config(tmp_path, "max"),
    )
    results = tuner.fit()
    assert len(results) == 10
    configs = [r.config for r in _results(results)]
    assert configs.count({"x": 0.9, "y": 0.0}) == 1
    assert sum(c["y"] == 0.5 for c in configs) >= 1
    failed = [c for c in configs if c["x"] > 0.6]
    nan = [c for c in configs if c["x"] < -0.8]
    assert results.num_errors == len(failed) >= 1
    assert _observations(searcher) == 10 - len(failed) - len(nan)
    assert _pending(searcher) == 0
    best = results.get_best_result(metric="score", mode="max")
    scores = [r.metrics["score"] for r in _results(results) if r.error is None and r.metrics]
    assert best.metrics is not None
    assert best.metrics["score"] == max(s for s in scores if not math.isnan(s))


def test_tuner_with_repeater(tmp_path: Path) -> None:
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=2)
    tuner = tune.Tuner(
        _quadratic_trainable(),
        tune_config=tune.TuneConfig(
            search_alg=Repeater(searcher, repeat=2), num_samples=6, reuse_actors=True
        ),
        run_config=_run_config(tmp_path, "repeat"),
    )
    results = tuner.fit()
    assert len(results) == 6 and results.num_errors == 0
    points = [(r.config["x"], r.config["y"]) for r in _results(results)]
    assert len(set(points)) == 3 and all(points.count(p) == 2 for p in points)
    assert _observations(searcher) == 3


def test_tuner_searcher_restored_from_a_finished_run(tmp_path: Path) -> None:
    first = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=3, n_startup_trials=4)
    config = tune.TuneConfig(num_samples=4, max_concurrent_trials=2, reuse_actors=True)
    tune.Tuner(
        _quadratic_trainable(),
        tune_config=dataclasses.replace(config, search_alg=first),
        run_config=_run_config(tmp_path, "part1"),
    ).fit()

    second = TreeUCBSearch()  # everything comes from the checkpoint
    second.restore_from_dir(str(tmp_path / "part1"))
    assert (second.metric, second.mode) == ("loss", "min") and _observations(second) == 4
    results = tune.Tuner(
        _quadratic_trainable(),
        tune_config=dataclasses.replace(config, search_alg=second),
        run_config=_run_config(tmp_path, "part2"),
    ).fit()
    assert len(results) == 4 and results.num_errors == 0
    assert _observations(second) == 8
    assert second.model is not None
    assert len({tuple(row) for row in second.model.X}) == 8  # no configuration re-run


class _InterruptOnce(tune.Callback):
    """Log completed trials; send SIGUSR1 (Tune's stop signal, like Ctrl+C) after ``n``."""

    def __init__(self, n: int, folder: Path) -> None:
        self.n = n
        self.folder = folder

    def on_trial_complete(
        self, iteration: int, trials: list[Any], trial: Any, **info: Any
    ) -> None:
        with open(self.folder / "completed.log", "a") as f:
            f.write(f"{trial.trial_id}\n")
        fired = self.folder / "fired"
        if len(_completed(self.folder)) >= self.n and not fired.exists():
            fired.touch()
            os.kill(os.getpid(), signal.SIGUSR1)


def _completed(folder: Path) -> list[str]:
    return (folder / "completed.log").read_text().split()


def _events(log: Path) -> list[tuple[str, str]]:
    return [(line.split()[0], line.split()[1]) for line in log.read_text().splitlines()]


def test_tuner_restore_continues_an_interrupted_run(tmp_path: Path) -> None:
    log = tmp_path / "runs.log"
    trainable = _quadratic_trainable(log=log, sleep=0.3)
    searcher = TreeUCBSearch(SPACE, metric="loss", mode="min", seed=4, n_startup_trials=4)
    tuner = tune.Tuner(
        trainable,
        tune_config=tune.TuneConfig(
            search_alg=searcher, num_samples=8, max_concurrent_trials=2, reuse_actors=True
        ),
        run_config=_run_config(tmp_path, "interrupted", callbacks=[_InterruptOnce(3, tmp_path)]),
    )
    tuner.fit()
    path = str(tmp_path / "interrupted")
    done_first = set(_completed(tmp_path))  # trials Tune saw complete before it stopped
    assert 3 <= len(done_first) < 8
    assert tune.Tuner.can_restore(path)

    results = tune.Tuner.restore(path, trainable=trainable).fit()
    assert len(results) == 8 and results.num_errors == 0
    starts = [t for event, t in _events(log) if event == "start"]
    done = {t for event, t in _events(log) if event == "done"}
    assert (
        len(done) == 8 and {r.metrics["trial_id"] for r in _results(results) if r.metrics} == done
    )
    assert all(starts.count(t) == 1 for t in done_first)  # finished trials are not re-run

    restored = TreeUCBSearch()
    restored.restore_from_dir(path)
    assert _observations(restored) == 8 and _pending(restored) == 0
    assert restored.model is not None
    assert len({tuple(row) for row in restored.model.X}) == 8
