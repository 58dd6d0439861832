"""The benchmark commands run end to end at tiny sizes and write their tables.

The test extra brings the benchmarks extra, so everything but GPSampler (torch, the ``gp``
extra) can run here.  Results go to a temporary folder, never to the committed
``benchmarks/results/``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks import __main__ as cli
from benchmarks import _harness
from benchmarks._harness import RESULTS_ENV


def _rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[1:]]


def test_paired(results_in_tmp: Path) -> None:
    argv = ["--seeds", "1", "--trials", "14", "--settings", "0.03,0.1", "1,1", "--jobs", "1"]
    cli.main(["paired", *argv])
    text = (results_in_tmp / "paired_hoeffding.md").read_text()
    # the exact command, every flag given included
    assert f"Command: `python -m benchmarks paired {' '.join(argv)}`." in text
    rows = _rows(text)
    assert [r[0] for r in rows] == ["C=0.03 M=0.1 (baseline)", "C=1 M=1"]
    assert rows[0][2] == "+0.000 ± 0.000"
    assert re.fullmatch(r"[+-]\d\.\d{3} ± \d\.\d{3}", rows[1][2])
    assert 0.0 <= float(rows[1][3]) <= 1.0


def test_paired_rejects_a_malformed_setting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["paired", "--settings", "0.03"])
    assert "a setting is 'C,M' with two numbers" in capsys.readouterr().err


def test_ablation(results_in_tmp: Path) -> None:
    cli.main(
        ["ablation", "--quick", "--seeds", "1", "--rounds", "30", "--trials", "14"]
        + ["--only", "core defaults,C=0.1 M=1"]
    )
    text = (results_in_tmp / "ablation.md").read_text()
    assert {r[0] for r in _rows(text)} >= {"core defaults", "C=0.1 M=1"}
    assert "T=30" in text and "@14" in text


def test_unknown_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as err:
        cli.main(["nope"])
    assert err.value.code == 2
    assert "paired" in capsys.readouterr().out


def test_memory(results_in_tmp: Path) -> None:
    cli.main(["memory", "--trials", "15"])
    rows = _rows((results_in_tmp / "memory.md").read_text())
    assert [r[0] for r in rows] == ["Random", "TreeUCB"]
    assert all(float(r[3]) < 50 and float(r[5]) < 50 for r in rows)


def test_paired_quick_writes_into_out(tmp_path: Path) -> None:
    out = tmp_path / "given"
    cli.main(["paired", "--quick", "--seeds", "1", "--trials", "12", "--out", str(out)])
    text = (out / "paired_hoeffding.md").read_text()
    assert "Mode: quick" in text and "12 trials" in text
    assert "--out " + str(out) in text


def test_results_default_to_a_scratch_folder_not_the_committed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(RESULTS_ENV)
    monkeypatch.setattr(_harness, "SCRATCH", tmp_path / "scratch")
    assert _harness.results_dir() == tmp_path / "scratch"
    assert _harness.results_dir() != _harness.RESULTS
    assert _harness.results_dir(_harness.RESULTS) == _harness.RESULTS  # only when asked
    cli.main(["paired", "--seeds", "1", "--trials", "12", "--settings", "0.03,0.1"])
    assert (tmp_path / "scratch" / "paired_hoeffding.md").is_file()


def test_command_line_defaults_to_sys_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["benchmarks", "--quick", "--out", "a b"])
    assert _harness.command_line("bandit", None) == (
        "python -m benchmarks bandit --quick --out 'a b'"
    )


def test_bandit_without_pyxab_stops_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, results_in_tmp: Path
) -> None:
    monkeypatch.setitem(sys.modules, "PyXAB", None)  # as if PyXAB were not installed
    with pytest.raises(SystemExit) as err:
        cli.main(["bandit", "--quick", "--seeds", "1", "--rounds", "5"])
    message = str(err.value.code)
    assert "\n" not in message
    assert "'PyXAB'" in message and "pip install -e '.[benchmarks]'" in message
    assert not list(results_in_tmp.iterdir())  # nothing ran, nothing was written


def test_fidelity(results_in_tmp: Path) -> None:
    argv = ["--tasks", "curves", "--pruners", "none,hyperband", "--seeds", "2", "--fulls", "2"]
    cli.main(["fidelity", *argv])
    text = (results_in_tmp / "fidelity.md").read_text()
    assert f"Command: `python -m benchmarks fidelity {' '.join(argv)}`." in text
    rows = _rows(text)
    assert [r[:2] for r in rows] == [
        ["none", "TreeUCB"],
        ["none", "TPE"],
        ["none", "Random"],
        ["hyperband", "TreeUCB[pruned=last_value]"],
        ["hyperband", "TreeUCB[pruned=context,max_budget=27]"],
        ["hyperband", "TPE"],
        ["hyperband", "Random"],
    ]
    assert rows[3][5] == "+0.000 ± 0.000"  # the paired baseline of its pruner
    assert "![regret against resource, curves](fidelity_curves.png)" in text
    assert (results_in_tmp / "fidelity_curves.png").stat().st_size > 0


@pytest.mark.parametrize("argv", [["--pruners", "hyperband"], ["--tasks", "sgd-digits"]])
def test_fidelity_ray_backend_takes_asha_and_the_curves_only(
    results_in_tmp: Path, argv: list[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["fidelity", "--backend", "ray", *argv])
    assert not list(results_in_tmp.iterdir())  # nothing ran, nothing was written


def test_fidelity_regret_counts_the_best_complete_trial_finished_in_time() -> None:
    from benchmarks.fidelity import curve_loss
    from benchmarks.fidelity import regret_at

    log = [(27, 0.5, 0.4), (60, 0.2, 0.3), (90, 0.1, 0.35)]  # (steps spent, reported, final)
    assert regret_at(log, 26, 0.1) != regret_at(log, 26, 0.1)  # nothing complete yet: NaN
    assert regret_at(log, 60, 0.1) == pytest.approx(0.2)
    assert regret_at(log, 90, 0.1) == pytest.approx(0.25)  # by reported value, not final
    u = np.array([[1.0, 0.3, 0.6, 0.45], [0.47, 0.3, 0.6, 0.45]])
    early, final = curve_loss(u, 1), curve_loss(u, 27)
    assert early[0] < early[1] and final[0] > final[1]  # the curves cross


def test_scale(results_in_tmp: Path) -> None:
    argv = ["--quick", "--parts", "searcher", "sampler", "--n-trials", "40", "--widths", "1", "4"]
    cli.main(["scale", *argv, "--sizes", "30", "--sampler-trials", "3"])
    text = (results_in_tmp / "scale.md").read_text()
    assert "Command: `python -m benchmarks scale --quick --parts searcher sampler" in text
    rows = _rows(text)
    searcher = [r for r in rows if r[0] == "TreeUCBSearch"]
    assert [r[1] for r in searcher] == ["1", "4"] and all(r[-1] == "0" for r in searcher)
    assert [r[:2] for r in rows if r[0] == "30"] == [["30", "0"], ["30", "64"]]


def test_inbox(results_in_tmp: Path) -> None:
    argv = ["--settings", "sampling=uniform", "sampling=trust_region", "--dims", "2"]
    argv += ["--functions", "1,2", "--noise", "noiseless", "--seeds", "1", "--trials", "15"]
    cli.main(["inbox", *argv])
    text = (results_in_tmp / "inbox.md").read_text()
    assert f"Command: `python -m benchmarks inbox {' '.join(argv)}`." in text
    rows = _rows(text)
    assert [r[:2] for r in rows] == [
        ["sampling=uniform (baseline)", "2d"],
        ["sampling=uniform (baseline)", "overall"],
        ["sampling=trust_region", "2d"],
        ["sampling=trust_region", "overall"],
    ]
    assert rows[0][4] == "+0.000 ± 0.000" and rows[2][2] == "2"  # paired with itself; 2 runs


def test_optimize_takes_treeucb_variants_and_mixed_problems() -> None:
    from benchmarks._harness import run_study
    from benchmarks._problems import kind_of
    from benchmarks._problems import select
    from benchmarks._samplers import make_sampler
    from benchmarks._samplers import split_names

    names = split_names("TreeUCB,TreeUCB[discrete=region,C=0.03],TPE")
    assert names == ["TreeUCB", "TreeUCB[discrete=region,C=0.03]", "TPE"]
    sampler = make_sampler(names[1], 0)
    options = sampler._core_options
    assert (options["discrete"], options["C"]) == ("region", 0.03)
    with pytest.raises(TypeError, match="unexpected option 'discret'. Did you mean 'discrete'"):
        make_sampler("TreeUCB[discret=region]", 0)
    assert select("mixed-sphere-5d") == ["mixed-sphere-5d"]
    assert kind_of("mixed-sphere-5d") == ("mixed", "mixed")
    with pytest.raises(SystemExit, match="Unknown problem"):
        select("mixed-nothing-5d")
    result = run_study((names[1], "mixed-sphere-4d", 0, 14))
    assert result["true"].shape == (14,) and np.all(result["true"] >= 0.0)


def test_optimize_names_problems_by_kind_and_reports_them_together() -> None:
    from benchmarks._harness import run_study
    from benchmarks._problems import kind_of
    from benchmarks._problems import select
    from benchmarks._report import rank_tables

    probs = select("bbob-f01-2d,sphere-2d-noisy,bbob-2d-noiseless")
    assert [kind_of(p) for p in probs[:2]] == [
        ("function", "bbob-2d"),
        ("function", "continuous-noisy"),
    ]
    assert len(probs) == 2 + 24
    for bad in ("bbob-f01", "mixed-sphere-5d-x", "nothing"):
        with pytest.raises(SystemExit, match="Unknown problem"):
            select(bad)
    runs = [
        run_study((s, p, 0, 10))
        for p in (probs[0], "enet-diabetes")
        for s in ("Random", "TreeUCB")
    ]
    text, headline = rank_tables(runs, ["Random", "TreeUCB"], [10], reference="Random")
    assert "rank bbob-2d" in text and "rank sklearn" in text
    assert sum(headline[10]["rank"].values()) == pytest.approx(3.0)
    assert all(np.all(r["regret"] >= 0.0) for r in runs)


def test_bandit(results_in_tmp: Path) -> None:
    cli.main(["bandit", "--quick", "--seeds", "1", "--rounds", "6", "--no-tuning"])
    text = (results_in_tmp / "bandit.md").read_text()
    rows = _rows(text)
    labels = [r[0] for r in rows]
    assert "TreeUCB (default)" in labels and "VHCT (default)" in labels and "Random" in labels
    assert "VHCT (c=0.01)" in labels and "HCT (c=0.01)" in labels
    # mean ranks over the 5 functions (two significant digits): each function ranks every
    # method once
    n = len(rows)
    assert all(1.0 <= float(r[-2]) <= n for r in rows)
    assert sum(float(r[-2]) for r in rows) == pytest.approx(n * (n + 1) / 2, abs=0.5 * n)
    assert (results_in_tmp / "bandit.png").stat().st_size > 0


def test_changing_spaces_quick_writes_a_table_per_study(tmp_path: Path) -> None:
    out = tmp_path / "r"
    cli.main(["changing_spaces", "--quick", "--samplers", "Random", "--out", str(out)])
    text = (out / "changing_spaces.md").read_text()
    assert "Mode: quick" in text
    for study in ("### widen", "### per-branch", "### choices-50"):
        assert study in text
    assert "| Random |" in text
