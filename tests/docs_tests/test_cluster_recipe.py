"""The user guide's cluster recipe (docs/guide/parallel.rst), run on one machine as on several.

* The Optuna block runs in several OS processes on one SQLite file, and in two on one
  PostgreSQL database served by a throwaway local server (skipped, with the reason, where
  PostgreSQL's binaries or psycopg2 are missing): no trial is lost, left running, failed or
  duplicated.
* The Ray block runs in a subprocess that joins, by address, a Ray started with
  ``ray start --head`` in another subprocess, then again to take the ``Tuner.restore``
  branch.  The head is stopped by terminating the ``ray start --block`` process this test
  started (which stops the processes it started), never with ``ray stop``, which would stop
  every Ray of the machine (the suite's own included).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from benchmarks._postgres import LocalPostgres
from benchmarks._postgres import missing as postgres_missing
from tests.docs_tests.docs_text import GUIDE as GUIDE_PAGES
from tests.docs_tests.docs_text import python_blocks

ROOT = Path(__file__).resolve().parents[2]
GUIDE = "docs/guide/parallel.rst"
RECIPE = GUIDE_PAGES[GUIDE].split("On a cluster\n---")[1]
BLOCKS = python_blocks(GUIDE, RECIPE)
OPTUNA_BLOCK = next(b for b in BLOCKS if "RDBStorage" in b)
RAY_BLOCK = next(b for b in BLOCKS if "ray.init(address=" in b)


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _cli(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    assert found, f"the {name} command is not installed"
    return found


def _run_workers(n_procs: int, cwd: Path, env: dict[str, str], url: str) -> None:
    # the recipe's first step: create the study once, before the workers
    create = [_cli("optuna"), "create-study", "--study-name", "cluster", "--storage", url]
    subprocess.run([*create, "--skip-if-exists"], cwd=cwd, env=env, check=True, timeout=120)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPTUNA_BLOCK],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(n_procs)
    ]
    try:
        outputs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, err[-3000:]
        assert "Traceback" not in err, err[-3000:]


def _check_study(storage: str, n_trials: int) -> None:
    study = optuna.load_study(study_name="cluster", storage=storage)
    trials = study.get_trials(deepcopy=False)
    assert len(trials) == n_trials  # none lost
    assert all(t.state == TrialState.COMPLETE for t in trials)  # none running or failed
    points = {tuple(sorted(t.params.items())) for t in trials}
    assert len(points) == n_trials  # none duplicated
    assert sorted(t.number for t in trials) == list(range(n_trials))


def _trials_per_process() -> int:
    found = re.search(r"n_trials=(\d+)", OPTUNA_BLOCK)
    assert found is not None
    return int(found.group(1))


@pytest.fixture
def memory_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory where the machine has one (SQLite's fsync calls cost nothing)."""
    if not os.path.isdir("/dev/shm"):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="treeucb-", dir="/dev/shm"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_optuna_recipe_in_three_processes_on_one_sqlite_file(
    memory_dir: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{memory_dir / 'cluster.db'}"
    _run_workers(3, tmp_path, _env(STUDY_STORAGE=url), url)
    _check_study(url, 3 * _trials_per_process())


@pytest.fixture
def postgres() -> Iterator[LocalPostgres]:
    reason = postgres_missing()
    if reason is not None:
        pytest.skip(f"no local PostgreSQL server: {reason}")
    with LocalPostgres(durable=False) as server:
        yield server


@pytest.mark.slow
def test_optuna_recipe_in_two_processes_on_one_postgresql_study(
    postgres: LocalPostgres, tmp_path: Path
) -> None:
    _run_workers(2, tmp_path, _env(STUDY_STORAGE=postgres.url), postgres.url)
    _check_study(postgres.url, 2 * _trials_per_process())
    assert not (tmp_path / "cluster.db").exists()  # the URL was used, not the default


# -- Ray ---------------------------------------------------------------------------------------
# Both processes keep Ray on the loopback (it otherwise replaces 127.0.0.1 by the address of
# the machine's network interface) and without token authentication (a token left in
# ~/.ray by an earlier local Ray would turn it on for the head only).
_RAY_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def ray_head() -> Iterator[str]:
    """A 2-CPU Ray head on 127.0.0.1 (``ray start --head --block``); yields its address."""
    port = _free_port()
    # Ray's sockets live under the temp dir: keep its path short (Unix sockets: 107 bytes)
    temp_dir = tempfile.mkdtemp(prefix="rt-")
    cmd = [
        _cli("ray"),
        "start",
        "--head",
        "--block",
        "--num-cpus=2",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--ray-client-server-port={_free_port()}",
        f"--dashboard-agent-listen-port={_free_port()}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
    ]
    head = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: stopped by id below
        env=_env(**_RAY_ENV),
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while not list(Path(temp_dir).glob("ray_current_cluster")):
            if head.poll() is not None or time.time() > deadline:
                pytest.fail(f"ray start --head did not come up: {_stop(head)[-3000:]}")
            time.sleep(0.2)
        yield address
    finally:
        _stop(head)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _stop(head: subprocess.Popen[str]) -> str:
    """Stop ``ray start --block`` (it stops what it started), its group if it hangs."""
    if head.poll() is None:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
    try:
        os.killpg(head.pid, signal.SIGKILL)  # any straggler of this group only
    except ProcessLookupError:
        pass
    out, _ = head.communicate(timeout=60)
    return out or ""


_REPORT = """
import json as _json
print("REPORT " + _json.dumps({
    "address": ray.get_runtime_context().gcs_address,
    "trials": len(results),
    "errors": len(results.errors),
    "configs": sorted(str(sorted(r.config.items())) for r in results),
}))
"""


def _run_ray_block(cwd: Path, address: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", RAY_BLOCK + _REPORT],
        cwd=cwd,
        env=_env(RAY_ADDRESS=address, **_RAY_ENV),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT "))
    report: dict[str, object] = json.loads(line.removeprefix("REPORT "))
    return report


@pytest.mark.slow
def test_ray_recipe_joins_a_cluster_by_address_and_restores(ray_head: str, tmp_path: Path) -> None:
    found = re.search(r"num_samples=(\d+)", RAY_BLOCK)
    assert found is not None
    n = int(found.group(1))
    first = _run_ray_block(tmp_path, ray_head)
    assert first["address"] == ray_head  # joined the head, did not start a Ray of its own
    assert first["trials"] == n and first["errors"] == 0
    assert len(set(first["configs"])) == n  # type: ignore[arg-type]
    # run again: the experiment folder exists, so the block restores it (nothing to rerun)
    again = _run_ray_block(tmp_path, ray_head)
    assert again["configs"] == first["configs"] and again["errors"] == 0
