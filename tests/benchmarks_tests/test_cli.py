"""The entry point ``python -m benchmarks``: readable help, and packages asked for by need."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import __main__ as cli
from benchmarks._harness import RESULTS_ENV


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    return tmp_path


def test_help_lists_every_command_in_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["--help"])  # exits 0 by returning
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m benchmarks COMMAND")
    for command in cli.COMMANDS:
        assert f"\n  {command} " in out
    assert "``" not in out and "::" not in out and ":mod:" not in out


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as err:
        cli.main([command, "--help"])
    assert err.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m benchmarks {command}")
    assert "``" not in out and ":mod:" not in out and ":func:" not in out


def test_optimize_help_keeps_its_usage_examples_one_per_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["optimize", "--help"])
    lines = capsys.readouterr().out.splitlines()
    examples = [ln for ln in lines if ln.startswith("    python -m benchmarks optimize")]
    assert len(examples) == 2
    assert (
        "    python -m benchmarks optimize --quick        # 100 trials, 2 seeds, no GPSampler"
        in lines
    )
    # a continued command keeps its backslash and its next line
    i = lines.index(examples[1])
    assert lines[i].endswith(" \\") and lines[i + 1].startswith("        --samplers ")


def test_optimize_asks_for_cmaes_only_when_cmaes_runs(
    monkeypatch: pytest.MonkeyPatch, results_in_tmp: Path
) -> None:
    monkeypatch.setitem(sys.modules, "cmaes", None)  # as if cmaes were not installed
    argv = ["--problems", "sphere-2d", "--seeds", "1", "--trials", "12"]
    cli.main(["optimize", "--samplers", "TreeUCB,TPE", *argv])
    assert (results_in_tmp / "optimize.md").is_file()
    with pytest.raises(SystemExit) as err:
        cli.main(["optimize", "--samplers", "TreeUCB,CmaEs", *argv, "--name", "with_cmaes"])
    assert "'cmaes'" in str(err.value.code) and "pip install -e '.[benchmarks]'" in str(
        err.value.code
    )
    assert not (results_in_tmp / "with_cmaes.md").exists()


def test_gp_names_the_gp_extra(monkeypatch: pytest.MonkeyPatch, results_in_tmp: Path) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(SystemExit) as err:
        cli.main(["optimize", "--quick", "--gp", "--problems", "sphere-2d", "--seeds", "1"])
    message = str(err.value.code)
    assert "\n" not in message
    assert "GP needs the 'torch' package" in message and "pip install -e '.[gp]'" in message
    assert not list(results_in_tmp.iterdir())  # nothing ran, nothing was written


def test_an_unknown_sampler_stops_before_anything_runs(results_in_tmp: Path) -> None:
    with pytest.raises(SystemExit, match="Unknown sampler 'TreeUBC'; choose from TreeUCB, TPE"):
        cli.main(["optimize", "--samplers", "TPE,TreeUBC", "--problems", "sphere-2d"])
    assert not list(results_in_tmp.iterdir())


_ISSUE = re.compile(r"\bissues?\b|#\d+", re.I)


def test_top_level_help_is_full_sentences_without_issue_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cli.main(["--help"])
    lines = capsys.readouterr().out.split("commands:\n")[1].splitlines()
    assert len(lines) == len(cli.COMMANDS)
    for line in lines:
        summary = line.split(None, 1)[1]
        assert summary.endswith("."), line  # a whole sentence, not its first line
        assert not _ISSUE.search(summary), line


def _parsers(command: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The parser a command builds, caught when it parses ``--help``."""
    caught: list[argparse.ArgumentParser] = []

    def parse_args(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        caught.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    (parser,) = caught
    return parser


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_option_has_help_without_issue_numbers(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = _parsers(command, monkeypatch)
    assert parser.description and not _ISSUE.search(parser.description), command
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"{command} {name} has no help"
        assert not _ISSUE.search(action.help), f"{command} {name}: {action.help}"
    assert not _ISSUE.search(parser.epilog or ""), command


def test_optimize_with_no_samplers_reports_saved_runs_only(
    results_in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --samplers '' runs nothing, as in moo and mixed: it once ran every default sampler
    saved = str(results_in_tmp / "runs.pkl")
    argv = ["--problems", "sphere-2d", "--seeds", "1", "--trials", "6"]
    cli.main(["optimize", *argv, "--samplers", "TPE,Random", "--save", saved])
    capsys.readouterr()
    cli.main(["optimize", *argv, "--samplers", "", "--load", saved])
    out = capsys.readouterr().out
    assert "runs," not in out  # no progress line: nothing ran
    rows = [line for line in out.splitlines() if line.startswith(("| TPE", "| Random", "| Tree"))]
    assert {row.split(" | ")[0] for row in rows} == {"| TPE", "| Random"}
    with pytest.raises(SystemExit):
        cli.main(["optimize", *argv, "--samplers", ""])
    assert "--samplers '' runs nothing" in capsys.readouterr().err
