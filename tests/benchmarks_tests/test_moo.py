"""``python -m benchmarks moo`` and ``constrained`` at tiny sizes; the problems' known optima."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import numpy as np
import pytest

from benchmarks import __main__ as cli
from benchmarks import moo
from benchmarks._harness import load_runs
from benchmarks._problems._boxes import CONSTRAINED_PROBLEMS
from benchmarks._problems._boxes import DIGITS_BUDGET
from benchmarks._problems._boxes import DIGITS_HIGH
from benchmarks._problems._boxes import DIGITS_LOW
from benchmarks._problems._boxes import MOO_PROBLEMS
from benchmarks._problems._boxes import REAL_PROBLEMS
from benchmarks._problems._boxes import constrained_problem
from benchmarks._problems._boxes import digits_network
from benchmarks._problems._boxes import moo_problem


def _rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def test_moo_writes_ranks_and_hypervolume_regrets(results_in_tmp: Path) -> None:
    saved = str(results_in_tmp / "random.pkl")
    argv = ["--problems", "zdt1-5d,dtlz2-6d", "--seeds", "2", "--trials", "12"]
    cli.main(["moo", *argv, "--samplers", "Random", "--save", saved])
    cli.main(["moo", *argv, "--samplers", "NSGA-II,TPE", "--load", saved])
    text = (results_in_tmp / "moo.md").read_text()
    assert "Command: `python -m benchmarks moo --problems zdt1-5d,dtlz2-6d" in text
    rows = _rows(text)
    assert rows[0] == ["sampler", "rank @12", "s / trial", "cost / TPE"]
    assert float(rows[2][3]) == 1.0  # TPE's own cost, per (problem, seed) of the same process
    assert [r[0] for r in rows[1:4]] == ["NSGA-II", "TPE", "Random"]  # loaded rows last
    assert sum(float(r[1]) for r in rows[1:4]) == pytest.approx(6.0)  # ranks 1 + 2 + 3
    assert rows[4] == ["problem", "NSGA-II", "TPE", "Random"]
    assert [r[0] for r in rows[5:]] == ["zdt1-5d", "dtlz2-6d"]


def test_saved_runs_alone_make_a_report_without_short_runs(
    results_in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short, long = str(results_in_tmp / "short.pkl"), str(results_in_tmp / "long.pkl")
    argv = ["--problems", "zdt1-5d", "--seeds", "1"]
    cli.main(["moo", *argv, "--trials", "6", "--samplers", "NSGA-II", "--save", short])
    cli.main(["moo", *argv, "--trials", "8", "--samplers", "TPE,Random", "--save", long])
    cli.main(["moo", *argv, "--trials", "8", "--samplers", "", "--load", f"{short},{long}"])
    assert "left out 1 saved runs of fewer than 8 trials" in capsys.readouterr().out
    # a run saved twice is taken once, from the first pickle named
    runs = load_runs(f"{long},{long}", lambda r: r["problem"] == "zdt1-5d")
    assert sorted(r["sampler"] for r in runs) == ["Random", "TPE"]
    rows = _rows((results_in_tmp / "moo.md").read_text())
    assert [r[0] for r in rows[1:3]] == ["TPE", "Random"] and rows[3][0] == "problem"
    with pytest.raises(SystemExit):
        cli.main(["moo", *argv, "--samplers", ""])
    assert "--samplers '' runs nothing" in capsys.readouterr().err


def test_constrained_writes_regret_and_feasible_fraction(results_in_tmp: Path) -> None:
    saved = results_in_tmp / "runs.pkl"
    argv = ["--problems", "gramacy,sphere-ball-5d", "--seeds", "1", "--trials", "10"]
    cli.main(["constrained", *argv, "--samplers", "TPE,Random", "--save", str(saved)])
    rows = _rows((results_in_tmp / "constrained.md").read_text())
    assert rows[0] == ["sampler", "rank @10", "feasible @10", "s / trial", "cost / TPE"]
    runs = pickle.loads(saved.read_bytes())
    for r in runs:
        fraction = moo.feasible_fraction(r["G"], 10)
        row = next(x for x in rows if x[0] == r["sampler"])
        assert 0.0 <= fraction <= 1.0 and r["G"].shape[0] == 10
        assert r["sampler"] != "Random" or float(row[2]) == pytest.approx(
            np.mean([moo.feasible_fraction(x["G"], 10) for x in runs if x["sampler"] == "Random"]),
            abs=1e-3,
        )


def test_a_run_records_objectives_and_constraints_of_every_trial() -> None:
    run = moo.run_one(("constrained", "TPE", "gramacy", 0, 6))
    assert run["F"].shape == (6, 1) and run["G"].shape == (6, 2)
    run = moo.run_one(("moo", "NSGA-II", "dtlz2-6d", 0, 4))
    assert run["F"].shape == (4, 3) and run["G"].shape == (4, 0)
    assert 0.0 < run["evaluate"] < run["wall"]
    assert moo.cost_per_trial(run) == pytest.approx((run["wall"] - run["evaluate"]) / 4)


@pytest.mark.parametrize(
    ("mode", "problem", "shapes"), [("moo", "zdt2-5d", (2, 0)), ("constrained", "g24", (1, 2))]
)
def test_treeucb_runs_in_both_modes(mode: str, problem: str, shapes: tuple[int, int]) -> None:
    run = moo.run_one((mode, "TreeUCB", problem, 0, 15))
    assert run["F"].shape == (15, shapes[0]) and run["G"].shape == (15, shapes[1])
    assert np.isfinite(moo.score(run, 15))


def test_the_samplers_read_the_constraints_the_objective_stores() -> None:
    import optuna

    problem = constrained_problem("gramacy", 0)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    trial = study.ask()
    x = np.array([trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(2)])
    F, G = problem.evaluate(x)
    moo.store_constraints(trial, G)
    study.tell(trial, float(F[0]))
    frozen = study.trials[0]
    stored = (
        list(frozen.constraints.values())
        if moo.SET_CONSTRAINT
        else moo._stored_constraints(frozen)
    )
    np.testing.assert_allclose(stored, G)


def test_bad_names_stop_with_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["moo", "--samplers", "CMA"])
    assert "unknown sampler 'CMA'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["constrained", "--problems", "zdt1-5d"])
    assert "unknown problem 'zdt1-5d'" in capsys.readouterr().err


# -- the problems ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in MOO_PROBLEMS if n not in REAL_PROBLEMS])
def test_points_of_the_true_front_score_no_regret(name: str) -> None:
    # x_1..x_{k-1} free, the rest at 0 (ZDT) or 0.5 (DTLZ2): points of the true front
    p = moo_problem(name)
    free = p.n_objectives - 1
    grid = np.linspace(0.0, 1.0, 401 if free == 1 else 31)
    X = np.zeros((grid.size**free, p.dim)) + (0.5 if name.startswith("dtlz") else 0.0)
    X[:, :free] = np.stack(np.meshgrid(*[grid] * free, indexing="ij"), -1).reshape(-1, free)
    F = np.array([p.evaluate(x)[0] for x in X])
    regret = moo.hypervolume_regret(F, p, len(F))
    assert 0.0 <= regret < 3e-2 * p.optimum  # a fine sample of the front: almost HV*
    assert moo.hypervolume_regret(F[:3], p, 3) > 10 * regret


def test_zdt_hypervolumes_in_closed_form() -> None:
    assert moo_problem("zdt1-5d").optimum == pytest.approx(121 - 1 / 3)
    assert moo_problem("zdt2-10d").optimum == pytest.approx(121 - 2 / 3)
    assert moo_problem("dtlz2-6d").optimum == pytest.approx(1.1**3 - math.pi / 6)


KNOWN_OPTIMA = {
    "gardner": [3 * math.pi / 2, 0.0],
    "gramacy": [0.19512268837582428, 0.40466536362520633],
    "g4": [78.0, 33.0, 29.9952560256815985, 45.0, 36.7758129057882073],
    "g24": [2.3295202, 3.17849307],
}


@pytest.mark.parametrize("name", sorted(KNOWN_OPTIMA))
def test_classic_problems_reach_their_optimum_at_their_known_optimiser(name: str) -> None:
    p = constrained_problem(name, 0)
    F, G = p.evaluate(np.array(KNOWN_OPTIMA[name]))
    assert F[0] == pytest.approx(p.optimum, rel=1e-7, abs=1e-7)
    assert G.shape == (p.n_constraints,) and (G <= 1e-5).all()


@pytest.mark.parametrize(
    "name", [n for n in CONSTRAINED_PROBLEMS if "-" in n and n not in REAL_PROBLEMS]
)
def test_bbob_like_optimum_is_feasible_and_beats_feasible_random_points(name: str) -> None:
    p = constrained_problem(name, 3)
    # the unconstrained optimum (x_opt, where the value is 0) is infeasible
    assert p.optimum > 0.0
    X = np.random.default_rng(0).uniform(p.low, p.high, size=(4000, p.dim)) / 4
    values = [p.evaluate(x) for x in X]
    feasible = [F[0] for F, G in values if (G <= 0).all()]
    assert feasible and min(feasible) >= p.optimum


# -- the real task (digits MLP) ----------------------------------------------------------------
def test_digits_network_counts_weights_and_biases() -> None:
    # log2 width 3 (8 units), depth 2: (64+1)*8 + (8+1)*8 + (8+1)*10
    hidden, lr, alpha, n_params = digits_network(np.array([3.0, 2.2, -2.0, -4.0]))
    assert hidden == (8, 8) and n_params == 65 * 8 + 9 * 8 + 9 * 10
    assert lr == pytest.approx(1e-2) and alpha == pytest.approx(1e-4)
    assert digits_network(DIGITS_HIGH)[3] == 26_122  # the largest network, below 10**4.5
    assert digits_network(DIGITS_LOW)[0] == (2,)


def test_digits_tasks_are_deterministic_and_the_budget_is_a_constraint() -> None:
    size, budget = moo_problem("digits-mlp-size"), constrained_problem("digits-mlp-budget", 5)
    small, large = np.array([2.0, 1.0, -2.0, -4.0]), np.array([6.0, 2.0, -2.5, -4.0])
    F1, _ = size.evaluate(small)
    F2, G2 = size.evaluate(small)
    np.testing.assert_array_equal(F1, F2)
    assert G2.shape == (0,) and F1[1] == pytest.approx(math.log10(digits_network(small)[3]))
    (f_small,), (g_small,) = budget.evaluate(small)
    (f_large,), (g_large,) = budget.evaluate(large)
    assert g_small < 0 < g_large  # 4 units are within the budget, 2 x 64 are not
    assert g_large == pytest.approx(digits_network(large)[3] / DIGITS_BUDGET - 1)
    assert f_large < f_small and 0.0 <= f_large < f_small <= 1.0
    assert math.isnan(size.optimum) and math.isnan(budget.optimum)


def test_real_tasks_score_against_the_best_seen_over_the_runs() -> None:
    runs = [moo.run_one(("constrained", s, "digits-mlp-budget", 0, 6)) for s in ("TPE", "Random")]
    optima = moo.best_seen(runs)
    feasible = np.concatenate([r["F"][(r["G"] <= 0).all(axis=1), 0] for r in runs])
    assert optima == {"digits-mlp-budget": pytest.approx(feasible.min())}
    assert min(moo.score(r, 6, optima) for r in runs) == 0.0
    runs = [moo.run_one(("moo", "Random", "digits-mlp-size", s, 5)) for s in (0, 1)]
    optima = moo.best_seen(runs)
    regrets = [moo.score(r, 5, optima) for r in runs]
    assert all(v >= 0.0 for v in regrets) and optima["digits-mlp-size"] > 0.0


def test_paired_log_ratios_are_those_of_the_scores(results_in_tmp: Path) -> None:
    saved = results_in_tmp / "runs.pkl"
    argv = ["--problems", "gramacy", "--seeds", "2", "--trials", "10"]
    cli.main(["constrained", *argv, "--samplers", "TPE,Random", "--save", str(saved)])
    cli.main(["constrained", *argv, "--samplers", "", "--load", str(saved), "--paired", "TPE"])
    text = (results_in_tmp / "constrained.md").read_text()
    row = next(r for r in _rows(text.split("Paired to TPE")[1]) if r[1] == "Random")
    runs = pickle.loads(saved.read_bytes())
    scores = moo.scores(runs, 10)
    mine = np.array([scores[("Random", "gramacy", s)] for s in (0, 1)])
    base = np.array([scores[("TPE", "gramacy", s)] for s in (0, 1)])
    ok = np.isfinite(mine) & np.isfinite(base)
    assert ok.any() and row[2] == f"{int(ok.sum())} of 2"
    want = np.mean(np.log(np.maximum(mine[ok], 1e-6)) - np.log(np.maximum(base[ok], 1e-6)))
    assert float(row[3].split(" ")[0]) == pytest.approx(want, abs=1e-3)  # printed to 3 decimals
    with pytest.raises(SystemExit):
        cli.main(["constrained", *argv, "--samplers", "", "--load", str(saved), "--paired", "GP"])
