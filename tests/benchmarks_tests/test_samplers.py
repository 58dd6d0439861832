"""The one sampler factory (``benchmarks/_samplers.py``): its naming rule and its registry."""

from __future__ import annotations

import optuna
import pytest

from benchmarks._samplers import SAMPLERS
from benchmarks._samplers import make_sampler
from benchmarks._samplers import make_searcher
from benchmarks._samplers import parse_name
from benchmarks._samplers import split_names
from optuna_treeucb import TreeUCBSampler


def test_names_with_options() -> None:
    assert parse_name("TreeUCB") == ("TreeUCB", {})
    assert parse_name("TreeUCB[C=0.03,sampling=uniform]") == (
        "TreeUCB",
        {"C": 0.03, "sampling": "uniform"},
    )
    assert split_names("TreeUCB[C=0.03,M=1],TPE,,QMC") == ["TreeUCB[C=0.03,M=1]", "TPE", "QMC"]


@pytest.mark.parametrize("name", [n for n, e in SAMPLERS.items() if e.package is None])
def test_every_registered_sampler_builds_with_its_seed(name: str) -> None:
    sampler = make_sampler(name, 3)
    assert isinstance(sampler, optuna.samplers.BaseSampler)


def test_options_reach_the_constructor() -> None:
    tree = make_sampler("TreeUCB[sampling=uniform,C=0.03]", 0)
    assert isinstance(tree, TreeUCBSampler)
    assert (tree._core_options["sampling"], tree._core_options["C"]) == ("uniform", 0.03)
    tpe = make_sampler("TPE[constant_liar=True]", 0)
    assert tpe._constant_liar is True
    assert make_sampler("QMC", 0)._scramble is True  # the registry's fixed option


def test_a_treeucb_searcher_with_options() -> None:
    pytest.importorskip("ray.tune")
    searcher = make_searcher("TreeUCBSearch[pruned=context,max_budget=27]", 0)
    assert type(searcher).__name__ == "TreeUCBSearch"


def test_unknown_names_say_the_rule() -> None:
    with pytest.raises(
        ValueError, match=r"Unknown sampler 'TreeUBC'.*TreeUCB\[sampling=uniform\]"
    ):
        make_sampler("TreeUBC", 0)
    with pytest.raises(ValueError, match="Unknown searcher 'SMAC'"):
        make_searcher("SMAC", 0)
    with pytest.raises(TypeError, match="unexpected option 'samplin'. Did you mean 'sampling'"):
        make_sampler("TreeUCB[samplin=uniform]", 0)
