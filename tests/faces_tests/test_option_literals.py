"""The allowed values of each str option are spelled once: the ``Literal`` types that annotate
the keywords of ``TreeUCB`` and ``TreeUCBSampler`` hold exactly ``OPTIONS``' choices."""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable
from typing import Any

import pytest

from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import TreeUCB

STR_OPTIONS = [o for o in OPTIONS.values() if o.kind == "str" and not o.core_only]


def _choices(func: Callable[..., Any], name: str) -> tuple[str, ...]:
    """The values of the ``Literal`` annotating keyword ``name`` of ``func``."""
    annotation = inspect.signature(func).parameters[name].annotation
    namespace = vars(sys.modules[func.__module__])
    return typing.get_args(eval(annotation, namespace))  # noqa: S307 - our own annotations


@pytest.mark.parametrize("option", STR_OPTIONS, ids=lambda o: o.name)
@pytest.mark.parametrize("face", [TreeUCB, TreeUCBSampler], ids=lambda f: f.__name__)
def test_literal_annotation_is_the_options_choices(face: type, option: Any) -> None:
    assert _choices(face.__init__, option.name) == option.choices


def test_direction_literal_is_the_options_choices() -> None:
    annotation = inspect.signature(TreeUCB.__init__).parameters["direction"].annotation
    namespace = vars(sys.modules[TreeUCB.__init__.__module__])
    direction = typing.get_args(eval(annotation, namespace))[0]  # noqa: S307
    assert typing.get_args(direction) == OPTIONS["direction"].choices
