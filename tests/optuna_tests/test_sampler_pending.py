"""Running trials as pending points: shared across processes, passed to the core as changes.

That every ask sees exactly the running trials, each under its own key, is tested on both
faces in ``tests/faces_tests/test_pending.py``; here is how the sampler shares a running
trial's point with other processes through the storage, and reads the study once per trial.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

import optuna_treeucb
from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import TreeUCB

DISTS = {"x": FloatDistribution(0.0, 1.0), "y": FloatDistribution(0.0, 1.0)}


def _prefilled(storage: Any = None, n: int = 4) -> optuna.Study:
    study = optuna.create_study(storage=storage, study_name="s")
    rng = np.random.default_rng(0)
    for _ in range(n):
        x, y = rng.random(2).tolist()
        study.add_trial(optuna.create_trial(params={"x": x, "y": y}, distributions=DISTS, value=x))
    return study


def test_a_running_trial_is_pending_before_it_suggests_every_parameter() -> None:
    # Optuna samples the relative parameters at a trial's first suggest_* call; from then on
    # the whole point is pending, before the objective suggests the other parameters.
    sampler = TreeUCBSampler(seed=0, n_startup_trials=1)
    study = _prefilled()
    study.sampler = sampler
    running = study.ask()
    x = running.suggest_float("x", 0.0, 1.0)
    model = TreeUCBSampler(seed=1, n_startup_trials=1).build_model(study, params=["x", "y"])
    assert model.pending.shape == (1, 2)
    y = running.suggest_float("y", 0.0, 1.0)
    np.testing.assert_allclose(model.pending, [[x, y]])


def _pending_seen_elsewhere(study: optuna.Study, params: list[str]) -> list[dict[str, Any]]:
    """The running trials' points as another process (a new sampler) sees them pending."""
    model = TreeUCBSampler(seed=1, n_startup_trials=1).build_model(study, params=params)
    return [model.space.decode(row) for row in model.pending]


def test_a_long_relative_sample_is_shared_in_chunks() -> None:
    choices = ("a" * 3000, "b" * 3000)
    dists = {"x": FloatDistribution(0.0, 1.0), "c": CategoricalDistribution(choices)}
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=1))
    study.add_trial(
        optuna.create_trial(params={"x": 0.5, "c": choices[0]}, distributions=dists, value=1.0)
    )
    study.add_trial(
        optuna.create_trial(params={"x": 0.2, "c": choices[1]}, distributions=dists, value=0.0)
    )
    trial = study.ask()
    x = trial.suggest_float("x", 0.0, 1.0)
    frozen = study.get_trials(states=(TrialState.RUNNING,))[0]
    texts = [v for v in frozen.system_attrs.values() if isinstance(v, str)]
    # 3,000+ characters, each stored value under RDBStorage's 2,046: two chunks at least
    assert sum(map(len, texts)) > 3000 and all(len(v) <= 2045 for v in texts)
    [seen] = _pending_seen_elsewhere(study, ["c", "x"])  # before "c" is suggested
    assert seen == {"x": pytest.approx(x, abs=1e-12), "c": trial.suggest_categorical("c", choices)}


def test_a_torn_shared_sample_falls_back_to_the_suggested_params() -> None:
    storage = optuna.storages.InMemoryStorage()
    study = _prefilled(storage)
    study.sampler = TreeUCBSampler(seed=0, n_startup_trials=1)
    trial = study.ask()
    before = dict(study.get_trials(states=(TrialState.RUNNING,))[0].system_attrs)
    x = trial.suggest_float("x", 0.0, 1.0)  # samples (and shares) x and y
    after = study.get_trials(states=(TrialState.RUNNING,))[0].system_attrs
    shared = [k for k in after if k not in before]
    assert shared and len(_pending_seen_elsewhere(study, ["x", "y"])) == 1
    # another process reads it while it is being written: a torn JSON text reads as nothing
    # shared, and the trial counts as pending once its objective has suggested every parameter
    trial_id = storage.get_trial_id_from_study_id_trial_number(
        storage.get_study_id_from_name("s"), trial.number
    )
    for k in shared:
        storage.set_trial_system_attr(trial_id, k, '{"x": 0.')
    assert _pending_seen_elsewhere(study, ["x", "y"]) == []
    y = trial.suggest_float("y", 0.0, 1.0)
    [seen] = _pending_seen_elsewhere(study, ["x", "y"])
    assert seen == {"x": pytest.approx(x, abs=1e-12), "y": pytest.approx(y, abs=1e-12)}


@pytest.mark.filterwarnings("ignore:Choices for a categorical distribution:UserWarning")
def test_a_sample_that_is_not_json_is_not_shared() -> None:
    # Optuna takes any objects as choices (with a warning): the sample is then not shared,
    # and the trial counts as pending once its objective has suggested every parameter
    choices = (Path("a"), Path("b"))
    dists = {"x": FloatDistribution(0.0, 1.0), "c": CategoricalDistribution(choices)}
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=1))
    for x, c in ((0.5, choices[0]), (0.2, choices[1])):
        study.add_trial(optuna.create_trial(params={"x": x, "c": c}, distributions=dists, value=x))
    trial = study.ask()
    x = trial.suggest_float("x", 0.0, 1.0)
    frozen = study.get_trials(states=(TrialState.RUNNING,))[0]
    assert not any(isinstance(v, str) for v in frozen.system_attrs.values())  # none shared
    assert _pending_seen_elsewhere(study, ["c", "x"]) == []
    c = trial.suggest_categorical("c", choices)
    assert _pending_seen_elsewhere(study, ["c", "x"]) == [{"x": pytest.approx(x), "c": c}]


def test_only_the_change_in_running_trials_reaches_the_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    added: list[int] = []
    forgotten: list[int] = []
    original_add, original_forget = TreeUCB.add_pending, TreeUCB.forget

    def add_pending(core: TreeUCB, x: Any, **kwargs: Any) -> None:
        added.append(1)
        original_add(core, x, **kwargs)

    def forget(core: TreeUCB, key: Any) -> None:
        forgotten.append(1)
        original_forget(core, key)

    monkeypatch.setattr(TreeUCB, "add_pending", add_pending)
    monkeypatch.setattr(TreeUCB, "forget", forget)
    sampler = TreeUCBSampler(seed=0, n_startup_trials=1)
    study = _prefilled()
    study.sampler = sampler
    live = [study.ask(DISTS) for _ in range(8)]
    added.clear()
    seen: list[np.ndarray] = []
    original_ask = TreeUCB.ask

    def ask(core: TreeUCB, context: Any = None, **kwargs: Any) -> dict[str, Any]:
        seen.append(core.pending)
        return original_ask(core, context, **kwargs)

    monkeypatch.setattr(TreeUCB, "ask", ask)
    for _ in range(20):
        live.append(study.ask(DISTS))
        done = live.pop(0)
        study.tell(done, done.params["x"])
    expected = [[t.params["x"], t.params["y"]] for t in live]
    study.ask(DISTS)
    # the core's own asks are recorded as they are made: no running trial is added again,
    # and each finished trial is forgotten once, at the next ask
    assert added == [] and len(forgotten) == 20
    np.testing.assert_allclose(np.sort(seen[-1], axis=0), np.sort(expected, axis=0))


_WORKER = textwrap.dedent(
    """
    import json, os, sys, time
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna_treeucb import TreeUCBSampler

    path, sampled, go, out = sys.argv[1:]
    storage = JournalStorage(JournalFileBackend(path))
    sampler = TreeUCBSampler(seed=0, n_startup_trials=1)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)

    def objective(trial):
        x = trial.suggest_float("x", 0.0, 1.0)  # Optuna samples the relative params here
        open(sampled, "w").close()
        deadline = time.time() + 60
        while not os.path.exists(go):
            if time.time() > deadline:
                raise TimeoutError("no start signal")
            time.sleep(0.01)
        y = trial.suggest_float("y", 0.0, 1.0)
        with open(out, "w") as f:
            json.dump([x, y], f)
        return x

    study.optimize(objective, n_trials=1)
    """
)


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout: float) -> None:
    deadline = time.time() + timeout
    while not path.exists():
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"the worker process did not get there: {err[-2000:]}")
        time.sleep(0.02)


@pytest.mark.slow
def test_another_process_sees_a_running_point_before_it_suggests(tmp_path: Path) -> None:
    # Process 1 samples a trial (at its first suggest_*) and blocks in its objective before
    # suggesting "y"; this process (the second) must count that trial's whole point as
    # pending, "y" included.
    path = str(tmp_path / "journal.log")
    _prefilled(JournalStorage(JournalFileBackend(path)))
    sampled, go, out = tmp_path / "sampled", tmp_path / "go", tmp_path / "out.json"
    root = str(Path(optuna_treeucb.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER, path, str(sampled), str(go), str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(sampled, worker, timeout=120)
        study = optuna.load_study(study_name="s", storage=JournalStorage(JournalFileBackend(path)))
        running = study.get_trials(states=(TrialState.RUNNING,))
        assert len(running) == 1 and list(running[0].params) == ["x"]  # "y" not suggested
        sampler = TreeUCBSampler(seed=1, n_startup_trials=1)
        model = sampler.build_model(study, params=["x", "y"])
        pending = model.pending
        go.touch()
        _wait_for(out, worker, timeout=60)
        assert worker.wait(timeout=60) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.communicate()
    np.testing.assert_allclose(pending, [json.loads(out.read_text())])


def test_the_study_is_read_once_per_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    # infer_relative_search_space reads the trials; sample_relative, which Optuna calls right
    # after it for the same trial, uses that read (each read costs milliseconds on an RDB).
    study = _prefilled()
    study.sampler = TreeUCBSampler(seed=0, n_startup_trials=1)
    reads: list[int] = []
    original = optuna.Study.get_trials

    def get_trials(self: optuna.Study, *args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(optuna.Study, "get_trials", get_trials)
    study.optimize(lambda t: t.suggest_float("x", 0, 1) + t.suggest_float("y", 0, 1), 5)
    assert len(reads) == 5
