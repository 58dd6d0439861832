"""Scale: many processes on one storage, many pending trials, many trials.

Score: trials per second and defects of processes sharing a storage, milliseconds per trial
with W pending trials (searcher and sampler), and a real Tune run's cost per trial.
benchmarks/README.md describes the four parts.

Usage::

    python -m benchmarks scale --quick --parts searcher sampler
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from benchmarks import _harness
from benchmarks import _postgres
from benchmarks import _samplers
from benchmarks._harness import Quick
from benchmarks._report import md_table

PARTS = ("processes", "searcher", "sampler", "tune")
STORAGES = ("journal", "sqlite", "postgresql")
WORKER = "_worker"


# -- processes on one storage --------------------------------------------------------------------
def objective(trial: Any) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    lr = trial.suggest_float("lr", 1e-5, 1.0, log=True)
    k = trial.suggest_int("k", 1, 64)
    return x * x + y * y + (math.log10(lr) + 3.0) ** 2 + abs(k - 8)


def _storage(kind: str, path: str) -> Any:
    if kind == "postgresql":  # path is the URL
        return optuna.storages.RDBStorage(path)
    if kind == "journal":
        from optuna.storages.journal import JournalFileBackend

        return optuna.storages.JournalStorage(JournalFileBackend(path))
    return optuna.storages.RDBStorage(
        f"sqlite:///{path}", engine_kwargs={"connect_args": {"timeout": 300}}
    )


def _worker(argv: list[str]) -> None:
    """One process: load the study, wait for the start file, optimise, print a JSON line."""
    kind, path, sampler_name, index, n_trials, go = argv
    _harness.quiet()
    # every TreeUCB worker gets seed 0 (trial numbers keep them apart), Random its index
    sampler = _samplers.make_sampler(sampler_name, 0 if sampler_name == "TreeUCB" else int(index))
    study = optuna.load_study(study_name="scale", storage=_storage(kind, path), sampler=sampler)
    Path(f"{go}.ready{index}").touch()
    deadline = time.time() + 600
    while not os.path.exists(go) and time.time() < deadline:
        time.sleep(0.005)
    start, cpu, errors = time.time(), time.process_time(), 0
    try:
        study.optimize(objective, n_trials=int(n_trials))
    except Exception as exc:  # counted, not raised: the table reports it
        errors += 1
        print(f"worker {index}: {type(exc).__name__}: {exc}", file=sys.stderr)
    cpu = time.process_time() - cpu
    print(json.dumps({"start": start, "end": time.time(), "cpu": cpu, "errors": errors}))


def throughput(
    kind: str, n_procs: int, sampler_name: str, per_proc: int, url: str = ""
) -> dict[str, float]:
    """Run ``n_procs`` workers on a fresh study; trials per second and the defects.

    ``url``: the database of the ``postgresql`` kind (its study is deleted afterwards).
    """
    with tempfile.TemporaryDirectory(prefix="treeucb-scale-") as tmp:
        path = url or str(Path(tmp) / ("study.log" if kind == "journal" else "study.db"))
        go = str(Path(tmp) / "go")
        optuna.create_study(study_name="scale", storage=_storage(kind, path))
        cmd = [sys.executable, "-m", "benchmarks.scale", WORKER, kind, path, sampler_name]
        pipe, argvs = subprocess.PIPE, [[*cmd, str(i), str(per_proc), go] for i in range(n_procs)]
        procs = [subprocess.Popen(v, stdout=pipe, stderr=pipe, text=True) for v in argvs]
        deadline = time.time() + 600  # imports and load_study, off the clock
        while time.time() < deadline and not all(
            Path(f"{go}.ready{i}").exists() or procs[i].poll() is not None for i in range(n_procs)
        ):
            time.sleep(0.05)
        Path(go).touch()
        reports, errors = [], 0
        for p in procs:
            out, err = p.communicate(timeout=1800)
            if p.returncode != 0 or not out.strip():
                errors += 1
                print(err[-2000:], file=sys.stderr)
                continue
            reports.append(json.loads(out.strip().splitlines()[-1]))
            errors += reports[-1]["errors"]
        study = optuna.load_study(study_name="scale", storage=_storage(kind, path))
        trials = study.get_trials(deepcopy=False)
        if url:
            optuna.delete_study(study_name="scale", storage=_storage(kind, path))
    state = optuna.trial.TrialState
    complete = [t for t in trials if t.state == state.COMPLETE]
    points = [tuple(sorted(t.params.items())) for t in complete]
    wall = max(r["end"] for r in reports) - min(r["start"] for r in reports) if reports else 0
    cpu = sum(r["cpu"] for r in reports)
    res = {"rate": len(complete) / wall if wall > 0 else 0.0}
    res["cpu_ms"] = 1e3 * cpu / len(complete) if complete else 0.0
    res["lost"] = n_procs * per_proc - len(complete)
    res["running"] = sum(t.state == state.RUNNING for t in trials)
    res["duplicates"] = len(points) - len(set(points))
    return {**res, "errors": errors + sum(t.state == state.FAIL for t in trials)}


# the process part's defects: key of throughput()'s result -> column
DEFECTS = {"lost": "lost", "running": "left running", "duplicates": "duplicates"}
DEFECTS["errors"] = "errors"


def run_processes(kind: str, procs: list[int], per_proc: int, repeats: int) -> str:
    """The table of one storage: Random's and TreeUCB's throughput and defects per count."""
    if kind == "postgresql" and (reason := _postgres.missing()) is not None:
        raise SystemExit(f"python -m benchmarks scale: the postgresql storage: {reason}.")
    server = _postgres.LocalPostgres().start() if kind == "postgresql" else None
    rows = []
    try:
        for n in procs:
            runs: dict[str, list[dict[str, float]]] = {"Random": [], "TreeUCB": []}
            for _, name in _harness.alternating(list(runs), repeats):
                runs[name].append(
                    throughput(kind, n, name, per_proc, server.url if server else "")
                )
                print(f"  {kind} {n} processes {name}: {runs[name][-1]}", flush=True)
            defects = {k: sum(int(r[k]) for r in runs["TreeUCB"]) for k in DEFECTS}
            rand, tree = (float(np.median([r["rate"] for r in runs[s]])) for s in runs)
            cpu_rand, cpu_tree = (float(np.median([r["cpu_ms"] for r in runs[s]])) for s in runs)
            rows.append(
                [kind, str(n), str(n * per_proc), f"{rand:.1f}", f"{tree:.1f}"]
                + [f"{tree / rand:.2f}x" if rand > 0 else "-"]
                + [f"{cpu_rand:.1f}", f"{cpu_tree:.1f}"]
                + [f"{cpu_rand / cpu_tree:.2f}x" if cpu_tree > 0 else "-"]
                + [str(defects[k]) for k in DEFECTS]
            )
    finally:
        if server is not None:
            server.stop()
    samplers = ("Random", "TreeUCB")
    header = ["storage", "processes", "trials", *(f"{s} trials/s" for s in samplers), "ratio"]
    header += [*(f"{s} CPU ms/trial" for s in samplers), "CPU ratio", *DEFECTS.values()]
    return md_table(header, rows)


# -- the searcher with W pending trials -----------------------------------------------------------
def _tune_space() -> dict[str, Any]:
    from ray import tune

    return {
        "x": tune.uniform(-2.0, 2.0),
        "n": tune.randint(0, 16),
        "lr": tune.loguniform(1e-5, 1.0),
        "act": tune.choice(["relu", "tanh", "sigmoid"]),
    }


def _loss(config: dict[str, Any]) -> float:
    loss = (config["x"] - 0.5) ** 2 + 0.1 * abs(config["n"] - 7)
    return float(loss + (math.log10(config["lr"]) + 2.0) ** 2 + (config["act"] != "relu"))


def searcher_cost(name: str, n: int, pending: int) -> tuple[np.ndarray, int]:
    """Seconds per suggest + on_trial_complete with ``pending`` trials live; duplicates."""
    searcher = _samplers.make_searcher(name, 0, space=_tune_space(), metric="loss", mode="min")
    live: list[tuple[str, dict[str, Any]]] = []
    seen: set[tuple[Any, ...]] = set()
    duplicates = 0
    for i in range(pending - 1):  # the first suggest below brings the live trials to W
        live.append((f"w{i}", searcher.suggest(f"w{i}")))
    times = np.zeros(n)
    for i in range(n):
        start = time.perf_counter()
        config = searcher.suggest(str(i))
        live.append((str(i), config))
        trial_id, done = live.pop(0)
        searcher.on_trial_complete(trial_id, {"loss": _loss(done)})
        times[i] = time.perf_counter() - start
        key = tuple(sorted(config.items()))
        duplicates += key in seen
        seen.add(key)
    return times, duplicates


def _window(times: np.ndarray, n: int) -> float:
    """Median milliseconds over the last tenth of the first ``n`` trials."""
    return float(np.median(times[n - max(1, n // 10) : n]) * 1e3)


def run_searcher(n: int, widths: list[int], n_optuna: int) -> str:
    sizes = {"TreeUCBSearch": n, "OptunaSearch (TPE)": n_optuna, "HyperOptSearch": n_optuna}
    for name in list(sizes):
        package = _samplers.SEARCHERS[name].package
        if package and importlib.util.find_spec(package) is None:
            print(f"  {package} is not installed: {name} is left out", flush=True)
            del sizes[name]
    checkpoints = sorted({c for c in (1_000, 2_000, 5_000, 10_000) if c <= n} | {n})
    rows = []
    for name, size in sizes.items():
        for w in widths if name == "TreeUCBSearch" else [w for w in widths if w in (1, 64)]:
            times, dup = searcher_cost(name, size, w)
            cells = [f"{_window(times, c):.2f}" if c <= size else "-" for c in checkpoints]
            rows.append([name, str(w), *cells, f"{times.sum():.1f}", str(dup)])
            print(f"  {rows[-1]}", flush=True)
    header = ["searcher", "W pending", *[f"ms at {c:,}" for c in checkpoints]]
    return md_table([*header, "total s", "duplicates"], rows)


# -- the sampler with W running trials ----------------------------------------------------------
def sampler_cost(name: str, n: int, pending: int, k: int) -> tuple[float, float, float]:
    """(median ms per ask + tell, median ms in sample_relative, cold s) after ``n`` trials."""
    dists: dict[str, Any] = {"x": FloatDistribution(-5.0, 5.0), "y": FloatDistribution(-5.0, 5.0)}
    dists["lr"] = FloatDistribution(1e-5, 1.0, log=True)
    dists.update(k=IntDistribution(1, 64), c=CategoricalDistribution(["a", "b", "c"]))
    rng = np.random.default_rng(0)
    trials = []
    for _ in range(n):
        params: dict[str, Any] = {"x": float(rng.uniform(-5, 5)), "y": float(rng.uniform(-5, 5))}
        params["lr"] = float(10 ** rng.uniform(-5, 0))
        params.update(k=int(rng.integers(1, 65)), c=str(rng.choice(["a", "b", "c"])))
        value = params["x"] ** 2 + params["y"] ** 2 + abs(params["k"] - 8) + (params["c"] != "b")
        trials.append(optuna.create_trial(params=params, distributions=dists, value=value))
    sampler = _samplers.make_sampler(name, 0)
    study = optuna.create_study(sampler=sampler)
    study.add_trials(trials)
    inner = _harness.Clock(sampler, "sample_relative").calls
    start = time.perf_counter()
    live = [study.ask(dists) for _ in range(max(pending, 1))]
    cold = time.perf_counter() - start
    inner.clear()
    times = []
    for _ in range(k):
        start = time.perf_counter()
        live.append(study.ask(dists))
        t = live.pop(0)
        study.tell(t, t.params["x"] ** 2 + t.params["y"] ** 2)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3), float(np.median(inner) * 1e3), cold


def run_sampler(sizes: list[int], widths: list[int], k: int) -> str:
    _harness.quiet()
    rows = []
    for n in sizes:
        for w in widths:
            tree, inner, cold = sampler_cost("TreeUCB", n, w, k)
            rand, _, _ = sampler_cost("Random", n, w, k)
            rows.append(
                [f"{n:,}", str(w), f"{tree:.2f}", f"{inner:.2f}", f"{rand:.2f}"]
                + [f"{tree - rand:.2f}", f"{cold:.1f}"]
            )
            print(f"  {rows[-1]}", flush=True)
    header = ["finished trials", "W running", "TreeUCB ms per ask + tell"]
    header += ["of which sample_relative", "Random ms per ask + tell", "difference"]
    return md_table([*header, "cold s (first W asks)"], rows)


# -- a real Tune run with many concurrent trials -------------------------------------------
def _running_counter() -> Any:
    """A Tune callback that counts the trials Tune holds running, and their peak."""
    from ray.tune import Callback

    class RunningCounter(Callback):
        running = 0
        peak = 0

        def on_trial_start(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
            self.running += 1
            self.peak = max(self.peak, self.running)

        def on_trial_complete(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
            self.running -= 1

        on_trial_error = on_trial_complete

    return RunningCounter()


def tune_run(name: str, n: int, concurrency: int, seconds: float = 0.0) -> dict[str, float]:
    """One ``Tuner.fit`` of ``n`` trials (each sleeps ``seconds``), ``concurrency`` at a time."""
    from ray import tune

    # the ConcurrencyLimiter that max_concurrent_trials would build, timed (a
    # BasicVariantGenerator keeps its own limit)
    search_alg = _harness.timed(
        _samplers.make_searcher(name, 0, max_concurrent=concurrency), concurrency
    )
    counter = _running_counter()

    def trainable(config: dict[str, Any]) -> dict[str, Any]:  # sleeps (no CPU), reports _loss
        time.sleep(seconds)
        return {"loss": _loss(config)}

    config = {"callbacks": [counter]}
    resourced = tune.with_resources(trainable, {"cpu": 2 / concurrency})
    grid, wall = _harness.fit_tuner(
        resourced, search_alg, n, _tune_space(), config, metric="loss", mode="min"
    )
    trials = [grid[i] for i in range(len(grid))]
    points = [tuple(sorted((k, (t.config or {}).get(k)) for k in _tune_space())) for t in trials]
    out = {"wall_ms": 1e3 * wall / n, "searcher_ms": 1e3 * float(search_alg.seconds) / n}
    out.update(peak=float(counter.peak), errors=float(sum(t.error is not None for t in trials)))
    out["missing"] = float(n - len([t for t in trials if "loss" in (t.metrics or {})]))
    return {**out, "duplicates": float(len(points) - len(set(points)))}


# the tune part's defects: key of tune_run()'s result -> column
TUNE_DEFECTS = {"errors": "errors", "missing": "missing results", "duplicates": "duplicates"}


def run_tune(n: int, concurrency: int, repeats: int, seconds: float) -> str:
    _harness.start_ray()
    names = ("BasicVariantGenerator (random)", "TreeUCBSearch")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for _, name in _harness.alternating(names, repeats):
        runs[name].append(tune_run(name, n, concurrency, seconds))
        print(f"  {name}: {runs[name][-1]}", flush=True)
    rows = []
    random_wall = float(np.median([r["wall_ms"] for r in runs[names[0]]]))
    for name, mine in runs.items():
        wall = float(np.median([r["wall_ms"] for r in mine]))
        searcher = float(np.median([r["searcher_ms"] for r in mine]))
        row = [name, f"{n} x {repeats}", f"{wall:.1f}", f"{searcher:.2f}"]
        row += [f"{wall / random_wall:.2f}x", str(int(max(r["peak"] for r in mine)))]
        rows.append(row + [str(int(sum(r[k] for r in mine))) for k in TUNE_DEFECTS])
    header = ["searcher", "trials x runs", "wall ms per trial (median of runs)"]
    header += ["searcher ms per trial", "ratio to random"]
    header += ["most trials running at once (Tune's count)", *TUNE_DEFECTS.values()]
    return md_table(header, rows)


# -- main -----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> None:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in and args_in[0] == WORKER:
        _worker(args_in[1:])
        return
    p = _harness.make_parser("scale", __doc__, quick="smaller sizes", name="scale")
    p.option("--parts", list(PARTS), nargs="+", choices=PARTS, help="The parts to run")
    procs = Quick([1, 2, 4, 8], [1, 2, 4])
    p.option("--procs", procs, type=int, nargs="+", help="Processes part: process counts")
    p.option("--per-process", Quick(200, 50), type=int, help="Processes part: trials per process")
    p.option("--repeats", Quick(2, 1), type=int, help="Processes part: repeats")
    text = "Processes part: the storages to share"
    p.option("--storages", list(STORAGES), nargs="+", choices=STORAGES, help=text)
    p.option("--n-trials", Quick(10_000, 2_000), type=int, help="Searcher part: trials")
    text = "Searcher and sampler parts: numbers of pending trials"
    p.option("--widths", [1, 8, 64, 256], type=int, nargs="+", help=text)
    p.option("--sizes", [1_000, 10_000], type=int, nargs="+", help="Sampler part: finished trials")
    p.option("--sampler-trials", Quick(100, 30), type=int, help="Sampler part: trials timed")
    p.option("--tune-trials", Quick(300, 100), type=int, help="Tune part: trials per run")
    p.option("--tune-repeats", Quick(2, 1), type=int, help="Tune part: runs per searcher")
    p.option("--concurrency", 32, type=int, help="Tune part: trials running at once")
    p.option("--trial-seconds", 0.0, type=float, help="Tune part: each trial sleeps this long")
    args = p.parse(args_in)
    n, per_proc = args.n_trials, args.per_process
    n_optuna = min(n, 1_000 if args.quick else 2_000)
    sections: list[str] = []

    def write(done: bool) -> None:
        title = "Scale: processes, pending trials, trials (issue 13)"
        body = "\n" + "\n".join(sections)
        _harness.finish(args, title, "", body, partial=not done)

    def part(name: str, title: str, prose: str, *tables: Callable[[], str]) -> None:
        """Run one part, its tables in turn, and write the results so far after each."""
        if name in args.parts:
            print(name, flush=True)
            sections.extend([title, "", prose, ""])
            for table in tables:
                sections.append(table())
                write(done=False)

    part(
        "searcher",
        f"## TreeUCBSearch with W pending trials (up to {n:,} trials)",
        "Milliseconds per `suggest` + `on_trial_complete` (median over the last tenth of "
        f"the trials before the checkpoint); OptunaSearch and HyperOptSearch run {n_optuna:,} "
        "trials, W = 1 and 64 only.",
        lambda: run_searcher(n, args.widths, n_optuna),
    )
    k = args.sampler_trials
    part(
        "sampler",
        f"## TreeUCBSampler with W running trials (median of {k} trials)",
        "A study pre-filled with n finished trials and W running ones (asked with "
        "`study.ask(distributions)`); each step asks one trial and tells the oldest.",
        lambda: run_sampler(args.sizes, [0, 64] if args.quick else [0, 8, 64], k),
    )
    n_tune = args.tune_trials
    part(
        "tune",
        f"## A real Tune run with max_concurrent_trials={args.concurrency}",
        f"`tune.Tuner` on a local `ray.init(num_cpus=2)`, {n_tune} zero-cost trials per run "
        f"(each asks for 2/{args.concurrency} CPU so that {args.concurrency} fit), "
        "`reuse_actors=True`, Tune's file loggers off; the two searchers alternate in one "
        "process.  The limit is the `ConcurrencyLimiter` that `max_concurrent_trials` "
        "builds (timed) for TreeUCBSearch, and `BasicVariantGenerator(max_concurrent=...)` "
        "for random (Tune ignores `max_concurrent_trials` for a generator passed in).  "
        "Wall = the whole `Tuner.fit` per trial; searcher = `suggest` + `on_trial_complete` "
        "(`next_trial` for BasicVariantGenerator).  Ratio = wall time per trial against "
        "random's.",
        lambda: run_tune(n_tune, args.concurrency, args.tune_repeats, args.trial_seconds),
    )
    part(  # one table per storage, written as it completes
        "processes",
        f"## Processes on one storage ({per_proc} trials per process, median of "
        f"{args.repeats} run(s))",
        "Zero-cost objective (3 floats, 1 int).  Ratio = TreeUCB / Random throughput "
        "(wall clock; target >= 0.8x).  CPU ms/trial = the workers' CPU time (user + "
        "system) per trial, the storage's share included; CPU ratio = Random's / "
        "TreeUCB's, which a machine shared with other jobs disturbs far less than the "
        "wall clock.  Lost, left running, duplicates and errors are summed over TreeUCB's "
        "runs (all must be 0).",
        *(
            functools.partial(run_processes, kind, args.procs, per_proc, args.repeats)
            for kind in args.storages
        ),
    )
    write(done=True)


if __name__ == "__main__":
    main()
