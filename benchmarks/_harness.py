"""The one harness of the benchmark commands: their command line, where results go, worker
processes, the Optuna, core and bandit runs, and the one place that starts Ray, times a
searcher and runs a ``tune.Tuner`` (benchmarks/README.md, Layout).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import inspect
import os
import pickle
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from benchmarks import _problems
from benchmarks import _report
from benchmarks._samplers import make_sampler
from optuna_treeucb.core import TreeUCB

RESULTS = Path(__file__).resolve().parent / "results"  # the committed results
SCRATCH = Path(tempfile.gettempdir()) / "treeucb-benchmarks"
RESULTS_ENV = "TREEUCB_BENCHMARK_RESULTS"  # overrides SCRATCH as the default of --out


# -- the command line ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Quick:
    """A default that ``--quick`` changes: ``full`` without it, ``quick`` with it."""

    full: Any
    quick: Any


# option -> (argparse keywords, help); "{default}" is filled from the command's default
_COMMON: dict[str, tuple[dict[str, Any], str]] = {
    "quick": (
        {"action": "store_true"},
        "Run a short version, in minutes at most{default}; the other options name their "
        "--quick defaults.",
    ),
    "trials": ({"type": int}, "Trials per study or run{default}."),
    "seeds": ({"type": int}, "Number of seeds, consecutive from --seed-offset{default}."),
    "seed_offset": ({"type": int}, "The first seed{default}."),
    "problems": ({}, "Comma-separated problem names (groups where the description says so)."),
    "samplers": (
        {},
        "Comma-separated names of the samplers to run, as the description names them (a name "
        "of benchmarks._samplers may carry constructor options in brackets, e.g. "
        "TreeUCB[sampling=uniform]){default}.",
    ),
    "jobs": ({"type": int}, "Worker processes; 1 runs everything in this process{default}."),
    "name": ({}, "Stem of the result files{default}."),
    "save": ({}, "Pickle the raw runs to this path, to report them later with --load."),
    "load": (
        {},
        "Comma-separated pickles of earlier runs (--save) to report with this run's; only "
        "their samplers that this run does not run are taken.",
    ),
    "paired": (
        {"metavar": "SAMPLER"},
        "Also report each sampler's paired log-ratio of its regret (or score) to this "
        "sampler's on the same runs (e.g. GP).",
    ),
}


def plain(doc: str) -> str:
    """A module docstring as plain text for ``--help``: reST roles and double backquotes
    become single backquotes, and a literal block's ``::`` a colon."""
    text = re.sub(r":(?:mod|func|class|data|meth):`~?([^`]+)`", r"`\1`", inspect.cleandoc(doc))
    return text.replace("``", "`").replace("::\n", ":\n").strip()


class Parser(argparse.ArgumentParser):
    """The parser of ``python -m benchmarks COMMAND``; :meth:`parse` fills :class:`Quick`
    defaults from ``--quick``."""

    def __init__(self, command: str, doc: str | None) -> None:
        super().__init__(
            prog=f"python -m benchmarks {command}",
            description=plain(doc or ""),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.command = command
        self.quick_defaults: dict[str, Quick] = {}
        self.add_argument(
            "--out",
            type=Path,
            default=None,
            metavar="DIR",
            help=f"Folder of the result files (default: ${RESULTS_ENV} or {SCRATCH}); pass "
            "benchmarks/results to update the committed results.",
        )

    def option(self, flag: str, default: Any = None, *, help: str, **kwargs: Any) -> None:
        """Add an option; its default (a :class:`Quick` pair or a value) is named at
        ``{default}`` in its help, else at the end."""
        quick = isinstance(default, Quick)
        if quick:
            text = f" (default: {default.full}; {default.quick} with --quick)"
        else:
            text = "" if default is None or default is False else f" (default: {default})"
        help = help.replace("{default}", text) if "{default}" in help else help + text
        action = self.add_argument(flag, default=None if quick else default, help=help, **kwargs)
        if quick:
            self.quick_defaults[action.dest] = default

    def parse(self, argv: Sequence[str] | None, stamp: bool = True) -> argparse.Namespace:
        """Parse ``argv``, resolve the :class:`Quick` defaults (and ``name``, the command's
        without ``--name``), and (``stamp``) name the code measured (:func:`stamp_core`) and
        start the clock of :func:`finish`."""
        a = self.parse_args(argv)
        a.name = getattr(a, "name", self.command)
        for dest, default in self.quick_defaults.items():
            if getattr(a, dest) is None:
                setattr(a, dest, default.quick if getattr(a, "quick", False) else default.full)
        a.command_line = command_line(self.command, argv)
        a.mode = "quick" if getattr(a, "quick", False) else "full"
        if stamp:
            stamp_core()
        a.started = time.time()
        return a


def make_parser(command: str, doc: str | None, quick: str | None, **common: Any) -> Parser:
    """The parser of a command: its module docstring as the description (line breaks kept,
    so usage examples stay one per line), ``--out``, ``--quick`` (``quick``: what else it
    changes, or ``None``) and the common options named in ``common``, in that order, with
    their defaults (a :class:`Quick` one depends on ``--quick``)."""
    parser = Parser(command, doc)
    kwargs, text = _COMMON["quick"]
    parser.add_argument(
        "--quick", help=text.format(default=f": {quick}" if quick else ""), **kwargs
    )
    for dest, default in common.items():
        kwargs, text = _COMMON[dest]
        parser.option("--" + dest.replace("_", "-"), default, help=text, **kwargs)
    return parser


def study_parser(
    command: str,
    doc: str | None,
    quick: str | None,
    trials: Quick,
    seeds: Quick,
    name: str | None,
    samplers: str | None = None,
    problems: bool = False,
    paired: bool = True,
) -> Parser:
    """The parser of the commands that run Optuna studies (``optimize``, ``mixed``, ``moo``,
    ``constrained``, ``async``): their common options, in one order."""
    runs = {"seed_offset": 0, **({"problems": None} if problems else {}), "samplers": samplers}
    saved = {"save": None, "load": None, **({"paired": None} if paired else {})}
    common = {"trials": trials, "seeds": seeds, **runs, "jobs": 1, "name": name}
    return make_parser(command, doc, quick, **common, **saved)


def command_line(command: str, argv: Sequence[str] | None) -> str:
    """The exact command of a run, ``argv`` (``sys.argv[1:]`` if ``None``) shell-quoted."""
    args = sys.argv[1:] if argv is None else list(argv)
    return shlex.join(["python", "-m", "benchmarks", command, *args])


def checkpoints(n_trials: int, marks: Sequence[int] = (50, 100, 200)) -> list[int]:
    """The report's checkpoints: the ``marks`` within ``n_trials``, else ``n_trials``."""
    return [n for n in marks if n <= n_trials] or [n_trials]


def seeds(a: argparse.Namespace) -> range:
    """The seeds of a run: ``--seeds`` of them from ``--seed-offset``."""
    return range(a.seed_offset, a.seed_offset + a.seeds)


NOISES = {"both": (False, True), "noiseless": (False,), "noisy": (True,)}


def bbob_options(p: Parser, dims: Any) -> None:
    """``--dims``, ``--functions`` and ``--noise``: the BBOB runs of ``inbox`` and ``async``."""
    p.option("--dims", dims, help="Comma-separated dimensions.")
    p.option("--functions", help="Comma-separated BBOB ids (all 24; 1, 8, 15, 21 with --quick).")
    p.option(
        "--noise", "both", choices=NOISES, help="Which BBOB functions: noiseless, noisy or both."
    )


def bbob_cases(a: argparse.Namespace) -> tuple[list[int], list[int], list[tuple[Any, ...]]]:
    """The dimensions, the function ids and the ``(fid, dim, noisy, seed)`` runs of
    :func:`bbob_options`."""
    dims = [int(v) for v in a.dims.split(",")]
    fids = [1, 8, 15, 21] if a.quick else list(_problems.FUNCTION_IDS)
    fids = [int(v) for v in a.functions.split(",")] if a.functions else fids
    cases = [(f, d, nz, s) for d in dims for f in fids for nz in NOISES[a.noise] for s in seeds(a)]
    return dims, fids, cases


def alternating(names: Sequence[str], repeats: int) -> list[tuple[int, str]]:
    """``(repeat, name)`` in the order timed runs take: the names forward on even repeats and
    backward on odd ones, so that neither always runs first."""
    return [(r, n) for r in range(repeats) for n in (names if r % 2 == 0 else names[::-1])]


def known(p: argparse.ArgumentParser, what: str, given: Sequence[str], allowed: Any) -> None:
    """Exit with a usage error naming the first of ``given`` that is not in ``allowed``."""
    for g in given:
        if g not in allowed:
            p.error(f"unknown {what} {g!r}; use some of {list(allowed)}")


# -- results --------------------------------------------------------------------------------------
def results_dir(out: Path | str | None = None) -> Path:
    """``out``, else ``$TREEUCB_BENCHMARK_RESULTS``, else the scratch folder (created)."""
    folder = Path(out or os.environ.get(RESULTS_ENV) or SCRATCH)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def finish(
    a: argparse.Namespace,
    title: str,
    intro: str,
    body: str,
    name: str | None = None,
    source: str = "",
    partial: bool = False,
) -> Path:
    """Write ``# title``, the ``intro`` paragraph ending with the exact command (and
    ``source``, where loaded rows come from), ``body`` and the :func:`machine_note` to
    ``<name or --name>.md`` in :func:`results_dir`, print it and say where it went; or
    (``partial``) write the results so far of a run still going, saying so, and no more."""
    text = f"# {title}\n\n{intro}Command: `{a.command_line}`{source}.\n{body}\n"
    path = results_dir(a.out) / f"{name or a.name}.md"
    note = machine_note(a.mode, a.started)
    if partial:
        path.write_text(text + "_Partial: the run is still going (or was stopped)._\n\n" + note)
        return path
    path.write_text(text + note)
    print(path.read_text())
    print(f"wrote {path}", flush=True)
    return path


def save_and_load(
    a: argparse.Namespace,
    results: list[dict[str, Any]],
    samplers: list[str],
    keep: Callable[[dict[str, Any]], bool],
    sort: bool = True,
) -> None:
    """``--save`` the runs; add the runs of ``--load`` that ``keep`` accepts and whose sampler
    this run did not run (a run saved in several pickles is taken from the first), and their
    samplers (sorted, or in the order they came), in place."""
    if getattr(a, "save", None):
        with open(a.save, "wb") as fh:
            pickle.dump(results, fh)
    if getattr(a, "load", None):
        old = load_runs(a.load, lambda r: r["sampler"] not in samplers and keep(r))
        new = list(dict.fromkeys(r["sampler"] for r in old))
        samplers += sorted(new) if sort else new
        results += old


def load_runs(paths: str, keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The runs of earlier ``--save`` files (comma-separated ``paths``) that ``keep`` accepts;
    a (sampler, problem, seed, W) saved in several files is taken from the first."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for path in paths.split(","):
        with open(path, "rb") as fh:
            for r in filter(keep, pickle.load(fh)):
                key = (r["sampler"], r.get("problem"), r.get("seed"), r.get("W"))
                out.setdefault(key, r)
    return list(out.values())


@functools.cache
def core_version() -> str:
    """The commit and a hash of the core's sources as imported: the version measured (cached:
    :func:`stamp_core` takes it in the parent process before forking workers, so that every
    worker runs that code)."""
    import optuna_treeucb.core as core

    root = Path(core.__file__).resolve().parents[2]
    digest = hashlib.sha1()
    for path in sorted(Path(core.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())

    def git(*args: str) -> str:
        cmd = ["git", "-C", str(root), *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "optuna_treeucb")
    except (OSError, subprocess.CalledProcessError):
        head, dirty = "unknown", ""
    note = " + uncommitted changes" if dirty else ""
    return f"commit {head}{note}, core sha1 {digest.hexdigest()[:10]}"


def stamp_core() -> None:
    """Import the core now and print its version (:func:`core_version`)."""
    print(core_version(), flush=True)


def machine_note(mode: str, started: float) -> str:
    """One line naming the mode, the code measured, the machine and the wall time of a run."""
    return (
        f"_Mode: {mode}; {core_version()}; {os.cpu_count()} CPUs (shared), "
        f"Python {platform.python_version()}, numpy {np.__version__}; "
        f"wall time {time.time() - started:.0f} s._\n"
    )


# -- runs -----------------------------------------------------------------------------------------
def pmap(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int) -> list[Any]:
    """``[fn(x) for x in items]``, in ``jobs`` processes when ``jobs > 1`` (order kept)."""
    out: list[Any] = []
    step = max(1, len(items) // 10)
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else contextlib.nullcontext() as ex:
        for r in ex.map(fn, items, chunksize=1) if ex else map(fn, items):
            out.append(r)
            if len(out) % step == 0 or len(out) == len(items):
                print(f"  {len(out)}/{len(items)} runs, {time.time() - t0:.0f} s", flush=True)
    return out


def quiet() -> None:
    """Optuna's log at ERROR and its ExperimentalWarning off: runs are unattended."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)


def new_study(sampler: str, seed: int, **kwargs: Any) -> Any:
    """A new in-memory Optuna study (``kwargs`` to ``create_study``) with the sampler named
    ``sampler`` (:func:`benchmarks._samplers.make_sampler`) seeded ``seed``."""
    return optuna.create_study(sampler=make_sampler(sampler, seed), **kwargs)


def optimize(study: Any, objective: Callable[[Any], Any], n_trials: int, **kwargs: Any) -> float:
    """``study.optimize(objective, n_trials, **kwargs)`` with every warning ignored; returns
    its wall time in seconds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=n_trials, **kwargs)
        return time.perf_counter() - t0


def run_study(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """One Optuna study ``(sampler, problem, seed, n_trials)`` of a problem of
    :func:`benchmarks._problems.study`: per trial the observed and the noiseless value and
    the branch, the problem's scale and group, and the wall time."""
    quiet()
    sampler_name, name, seed, n_trials = job
    prob = _problems.study(name, seed)
    study = new_study(sampler_name, seed)
    wall = optimize(study, prob.objective, n_trials)
    return {
        "sampler": sampler_name,
        "problem": name,
        "group": prob.group,
        "seed": seed,
        "obs": np.array([t.value for t in study.trials], dtype=float),
        "true": np.array(prob.trues, dtype=float),
        "scale": prob.scale,
        "seeded": prob.seeded,
        "wall": wall,
        "branches": list(prob.branches),
        "best_branch": prob.best_branch,
    }


def core_regret(job: tuple[dict[str, Any], str, int, int]) -> np.ndarray:
    """Normalised simple regret, shape (n_trials,), of the core's ask/tell ``(options,
    function, seed, n_trials)`` on a function of :func:`benchmarks._problems.function`: the
    noiseless regret of the best *observed* trial over that of a median random point."""
    options, name, seed, n_trials = job
    fn = _problems.function(name, seed)
    bandit = TreeUCB(fn.dim, seed=seed, direction="minimize", **options)
    seen: list[tuple[float, float]] = []  # (observed, noiseless) per trial
    for _ in range(n_trials):
        x = bandit.ask_x()
        seen.append(fn.observe(-5.0 + 10.0 * x))
        bandit.tell_x(x, seen[-1][0])
    obs, true = np.array(seen).T
    return _report.scaled_regret(obs, true, fn.median_random, take_first=False)


# -- the bandit run: the core, PyXAB's algorithms or uniform random, T rounds ---------------
@dataclass(frozen=True)
class Method:
    """A bandit algorithm: ``kind`` in {"treeucb", "pyxab", "random"} with its options."""

    label: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    algo: str = ""


def _player(method: Method, dim: int, T: int, seed: int) -> tuple[Any, Any]:
    """``ask(t) -> x in [0, 1]^d`` and ``tell(t, x, y)`` (maximise y) of round ``t`` >= 1."""
    if method.kind == "treeucb":
        bandit = TreeUCB(dim, seed=seed, **method.options)
        return lambda t: bandit.ask_x(), lambda t, x, y: bandit.tell_x(x, y)
    if method.kind == "pyxab":
        from PyXAB.algos.HCT import HCT
        from PyXAB.algos.HOO import T_HOO
        from PyXAB.algos.POO import POO
        from PyXAB.algos.StroquOOL import StroquOOL
        from PyXAB.algos.VHCT import VHCT
        from PyXAB.algos.VPCT import VPCT

        classes = {"HOO": T_HOO, "HCT": HCT, "VHCT": VHCT, "POO": POO, "VPCT": VPCT}
        classes["StroquOOL"] = StroquOOL
        # the horizon, where the algorithm takes it (POO also takes the algorithm it runs)
        horizon = {"HOO": {"rounds": T}, "POO": {"rounds": T, "algo": T_HOO}}
        horizon.update(VPCT={"rounds": T}, StroquOOL={"n": T})
        # PyXAB's BinaryPartition draws split dimensions from the global NumPy RNG; seed it
        # (in this worker only) so that the baselines are reproducible.
        np.random.seed(seed)  # noqa: NPY002
        domain = [[0.0, 1.0] for _ in range(dim)]
        options = {**horizon.get(method.algo, {}), **method.options}
        algo = classes[method.algo](domain=domain, **options)
        ask = lambda t: np.clip(np.array(algo.pull(t), dtype=float), 0.0, 1.0)  # noqa: E731
        return ask, lambda t, x, y: algo.receive_reward(t, y)
    if method.kind == "random":
        rng = np.random.default_rng([seed, 3])
        return lambda t: rng.random(dim), lambda t, x, y: None
    raise ValueError(f"Unknown method kind {method.kind!r}.")


def run_bandit(job: tuple[Method, str, int, int, float]) -> dict[str, Any]:
    """Play one method on one bandit function for T rounds: the cumulative regret curve and
    the time per round (ask + tell).  A method that raises gets a NaN regret curve (reported,
    and skipped when tuning)."""
    method, fname, seed, T, noise = job
    out = {"label": method.label, "function": fname, "seed": seed}
    try:
        problem = _problems.BanditProblem(_problems.FUNCTIONS[fname], seed)
        noise_draws = np.random.default_rng([seed, 11]).normal(0.0, noise, size=T)
        ask, tell = _player(method, problem.dim, T, seed)
        regret = np.empty(T)
        spent = 0.0
        for t in range(T):
            t0 = time.perf_counter()
            x = ask(t + 1)
            spent += time.perf_counter() - t0
            v = problem.value(x)
            regret[t] = 1.0 - v
            t0 = time.perf_counter()
            tell(t + 1, x, v + float(noise_draws[t]))
            spent += time.perf_counter() - t0
    except Exception as exc:  # a baseline's bug must not lose the other runs
        print(f"FAILED {method.label} on {fname} seed {seed}: {exc!r}", flush=True)
        return {**out, "cum": np.full(T, np.nan), "sec_per_round": np.nan}
    return {**out, "cum": np.cumsum(regret), "sec_per_round": spent / T}


def final_regrets(results: list[dict[str, Any]]) -> tuple[dict[Any, list[float]], dict[Any, Any]]:
    """The cumulative regrets at T of :func:`run_bandit`'s results by (label, function), and
    their seconds per round by label."""
    final: dict[tuple[str, str], list[float]] = {}
    secs: dict[str, list[float]] = {}
    for r in results:
        final.setdefault((r["label"], r["function"]), []).append(float(r["cum"][-1]))
        secs.setdefault(r["label"], []).append(r["sec_per_round"])
    return final, secs


# -- Ray Tune -------------------------------------------------------------------------------------
def start_ray() -> None:
    """A local 2-CPU Ray without the dashboard, once per process, with Tune's per-trial file
    loggers off (most of a zero-cost trial) and the warning that follows from that."""
    import logging

    import ray

    os.environ.setdefault("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS", "1")
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    logging.getLogger("ray.tune.analysis.experiment_analysis").setLevel(logging.ERROR)
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)


class Clock:
    """Times the calls of ``obj``'s ``methods``: ``calls`` lists each call's seconds and
    ``seconds`` (also set on ``obj``) adds them up."""

    def __init__(self, obj: Any, *methods: str) -> None:
        self.obj, self.seconds = obj, 0.0
        self.calls: list[float] = []
        obj.seconds = 0.0
        for name in methods:
            setattr(obj, name, self._timed(getattr(obj, name)))

    def _timed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.calls.append(time.perf_counter() - start)
                self.seconds += self.calls[-1]
                self.obj.seconds = self.seconds

        return timed


def timed(searcher: Any, max_concurrent: int = 1) -> Any:
    """The search algorithm Tune gets, its ``seconds`` the time spent in the searcher
    (:class:`Clock`): ``suggest`` + ``on_trial_complete`` of a ``Searcher`` wrapped in
    ``ConcurrencyLimiter(searcher, max_concurrent)``, ``next_trial`` of a
    ``BasicVariantGenerator`` (its only per-trial work; it keeps its own limit)."""
    from ray.tune.search import ConcurrencyLimiter
    from ray.tune.search import SearchAlgorithm

    if isinstance(searcher, SearchAlgorithm):  # BasicVariantGenerator is no Searcher
        return Clock(searcher, "next_trial").obj
    limiter = ConcurrencyLimiter(searcher, max_concurrent=max_concurrent)
    return Clock(limiter, "suggest", "on_trial_complete").obj


def fit_tuner(
    trainable: Any,
    search_alg: Any,
    n_trials: int,
    param_space: dict[str, Any] | None = None,
    run_config: dict[str, Any] | None = None,
    **tune_config: Any,
) -> tuple[Any, float]:
    """One ``tune.Tuner`` run on the local Ray (:func:`start_ray`), in a throwaway folder,
    with ``reuse_actors=True`` and ``run_config`` and ``tune_config`` added to Tune's configs;
    returns Tune's ``ResultGrid`` and the wall time of ``Tuner.fit`` (s)."""
    from ray import tune

    start_ray()
    storage = tempfile.mkdtemp(prefix="treeucb-benchmarks-tune-")
    try:
        tuner = tune.Tuner(
            trainable,
            param_space=param_space,
            tune_config=tune.TuneConfig(
                search_alg=search_alg, num_samples=n_trials, reuse_actors=True, **tune_config
            ),
            run_config=tune.RunConfig(
                storage_path=storage, name="run", verbose=0, **(run_config or {})
            ),
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            grid = tuner.fit()
            return grid, time.perf_counter() - start
    finally:
        shutil.rmtree(storage, ignore_errors=True)


def trial_results(grid: Any, n_trials: int) -> list[dict[str, Any]]:
    """The last result of every trial of :func:`fit_tuner`'s grid, in the order the trials
    started (each trial reports ``start``); a failed or missing trial raises
    ``RuntimeError``."""
    rows = []
    for i in range(len(grid)):
        metrics = grid[i].metrics
        if grid[i].error is not None or not metrics or "start" not in metrics:
            raise RuntimeError(f"trial {i} failed: {grid[i].error!r}")
        rows.append(metrics)
    if len(rows) != n_trials:
        raise RuntimeError(f"{len(rows)} of {n_trials} trials came back")
    return sorted(rows, key=lambda m: m["start"])
