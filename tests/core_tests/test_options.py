from __future__ import annotations

import inspect
import math
import re
from typing import Any

import numpy as np
import pytest

from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import Option
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._options import SEED_LIMIT
from optuna_treeucb.core._options import TABLE_END
from optuna_treeucb.core._options import TABLE_START
from optuna_treeucb.core._options import _has_effect
from optuna_treeucb.core._options import face_defaults
from optuna_treeucb.core._options import options_table
from optuna_treeucb.core._options import splice_table
from optuna_treeucb.core._options import validate_options
from tests.invalid_values import invalid_values

# every bad value the table implies, for every option: (name, value, error)
# (``direction`` may be a sequence, one per objective: ``[]`` is a bad value, not a bad type)
BAD = [
    (name, v, ValueError if name == "direction" and v == [] else e)
    for name, option in OPTIONS.items()
    for v, e in invalid_values(option)
]


def assert_names(err: pytest.ExceptionInfo, owner: str, key: str, value: Any) -> None:
    """The message names the class the user called, the option, the value and what is allowed."""
    message = str(err.value)
    assert message.startswith(f"The {key!r} parameter of {owner} must be "), message
    assert f"Got {value!r}" in message, message


# -- the table ------------------------------------------------------------------------------------
def test_treeucb_signature_matches_the_table() -> None:
    params = inspect.signature(TreeUCB).parameters
    assert [n for n in params if n not in ("space", "unknown")] == list(OPTIONS)
    assert params["unknown"].kind == inspect.Parameter.VAR_KEYWORD  # named in the error
    for name, option in OPTIONS.items():
        assert params[name].default == option.default, name
        assert params[name].kind == inspect.Parameter.KEYWORD_ONLY


def args_entries(doc: str | None) -> dict[str, str]:
    """The entries of a Google-style ``Args:`` section: name -> its text on one line."""
    assert doc is not None
    section = doc[doc.index("    Args:\n") : doc.index("    Raises:\n")]
    entries = re.findall(r"^        (\*{0,2}\w+):\n((?:            .*\n)+)", section, re.M)
    return {name: " ".join(text.split()) for name, text in entries}


def test_treeucb_docstring_describes_every_option_from_the_table() -> None:
    # rendered from OPTIONS at import (document_options): meaning, allowed values, default
    entries = args_entries(TreeUCB.__doc__)
    assert list(entries) == ["space", *OPTIONS]
    for name, option in OPTIONS.items():
        text = entries[name]
        assert text.startswith(" ".join(option.doc.replace("`", "``").split())), name
        assert f"default: ``{option.default!r}``." in text, name
    assert 'It has an effect only when ``pruned="context"``' in entries["max_budget"]
    assert (
        "Allowed: one of ``'uniform'``, ``'trust_region'``, ``'local_gp'``"
        in (entries["sampling"])
    )
    assert "<the options" not in (TreeUCB.__doc__ or "")


def test_at_most_twelve_options_each_saying_when_to_change_it() -> None:
    assert len(OPTIONS) <= 12
    for option in OPTIONS.values():
        assert option.doc.endswith("."), option.name
    import optuna_treeucb.core as core

    assert len(core.__all__) <= 8


def test_the_faces_differ_in_the_sampling_default_only() -> None:
    core, wrappers = face_defaults(wrapper=False), face_defaults(wrapper=True)
    assert core["sampling"] == "uniform" and wrappers["sampling"] == "local_gp"
    assert {k for k in core if core[k] != wrappers[k]} == {"sampling"}
    table = options_table()
    assert "`'uniform'` (`TreeUCB`), `'local_gp'` (sampler, searcher)" in table


def test_every_default_is_valid() -> None:
    defaults = {name: option.default for name, option in OPTIONS.items()}
    assert validate_options("TreeUCB", defaults) == defaults


def test_allowed_values_in_words() -> None:
    assert OPTIONS["seed"].allowed() == "an int in [0, 2**32) or None"
    assert OPTIONS["max_budget"].allowed() == "a float > 0 or None"
    assert Option("a", "float", 1.0, "", low=0, high=1, closed="neither").allowed() == (
        "a float in (0, 1)"
    )
    assert Option("a", "float", 1.0, "", low=0, closed="right").allowed() == "a float > 0"
    assert OPTIONS["C"].allowed() == "a float >= 0"
    assert OPTIONS["n_startup_trials"].allowed() == "an int >= 0"
    assert OPTIONS["rule"].allowed() == "one of ['refit', 'incremental']"


def test_invalid_values_cover_type_and_range_of_every_option() -> None:
    for name, option in OPTIONS.items():
        errors = {e for v, e in invalid_values(option)}
        assert errors == {TypeError, ValueError}, name


# -- validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "value", "error"), BAD)
def test_treeucb_rejects_every_bad_value(name: str, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as err:
        TreeUCB(2, **{name: value})
    assert_names(err, "TreeUCB", name, value)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        # the inconsistencies reported in issue 11 (defect 5)
        ({"seed": "0"}, TypeError),  # was numpy's "SeedSequence expects int..."
        ({"seed": 2**70}, ValueError),  # accepted by numpy, refused by Optuna's RandomSampler
        ({"seed": SEED_LIMIT}, ValueError),
        ({"seed": -1}, ValueError),
        ({"seed": 1.0}, TypeError),
        ({"C": True}, TypeError),  # was ValueError
        ({"M": "x"}, TypeError),  # was ValueError
        ({"n_startup_trials": 2.0}, TypeError),  # was ValueError
        ({"n_startup_trials": "x"}, TypeError),
        ({"rule": 1}, TypeError),  # was ValueError
        ({"C": math.inf}, ValueError),
        ({"M": 10**400}, ValueError),  # beyond a double
        ({"n_startup_trials": -(10**400)}, ValueError),
    ],
)
def test_treeucb_bad_values_raise_by_kind(kwargs: dict[str, Any], error: type) -> None:
    with pytest.raises(error) as err:
        TreeUCB(2, **kwargs)
    ((name, value),) = kwargs.items()
    assert_names(err, "TreeUCB", name, value)


def test_huge_ints_are_compared_exactly() -> None:
    opts = {"n_startup_trials": 10**400}
    assert validate_options("TreeUCB", opts) == opts
    with pytest.raises(ValueError, match="'seed'"):
        validate_options("TreeUCB", {"seed": 10**400})


@pytest.mark.parametrize("seed", [None, 0, SEED_LIMIT - 1, np.int64(7), np.uint32(3)])
def test_seeds_in_range_are_accepted_as_plain_ints(seed: Any) -> None:
    bandit = TreeUCB(2, seed=seed)
    assert bandit.seed == seed and (seed is None or type(bandit.seed) is int)


def test_values_are_normalised_to_plain_python() -> None:
    context = {"pruned": "context"}  # max_budget has an effect only then
    opts = validate_options(
        "TreeUCB", {"C": np.float32(0.5), "n_startup_trials": np.int64(3), "M": 1, **context}
    )
    assert opts == {"C": 0.5, "n_startup_trials": 3, "M": 1.0, **context}
    assert [type(v) for v in opts.values()] == [float, int, float, str]
    assert validate_options("TreeUCB", {"max_budget": np.int32(27), **context}) == {
        "max_budget": 27.0,
        **context,
    }


def test_unknown_option_suggests_the_closest_name() -> None:
    with pytest.raises(
        TypeError, match=r"TreeUCBX got an unexpected option 'n_statup'\. Did you "
    ):
        validate_options("TreeUCBX", {"n_statup": 3})
    with pytest.raises(TypeError, match=r"Did you mean 'n_startup_trials'\?.*'sampling'"):
        validate_options("TreeUCBX", {"n_statup": 3})
    with pytest.raises(TypeError, match=r"Did you mean 'C'\?"):
        validate_options("TreeUCBX", {"c": 0.1})
    with pytest.raises(TypeError, match=r"unexpected option 'zzz'\. The options are \['seed'"):
        validate_options("TreeUCBX", {"zzz": 3})


@pytest.mark.parametrize(
    ("name", "value", "close"),
    [
        ("index", "soft-gp", "soft_gp"),
        ("index", "Soft GP", "soft_gp"),
        ("sampling", "localgp", "local_gp"),
        ("sampling", "trust-region", "trust_region"),
        ("rule", "Incremental", "incremental"),
        ("pruned", "last-value", "last_value"),
    ],
)
def test_a_bad_choice_suggests_the_closest_value(name: str, value: str, close: str) -> None:
    with pytest.raises(ValueError, match=rf"Got '{value}' instead\. Did you mean '{close}'\?$"):
        TreeUCB(2, **{name: value})


def test_a_choice_far_from_every_value_gets_no_suggestion() -> None:
    with pytest.raises(ValueError) as err:
        TreeUCB(2, rule="bogus")
    assert str(err.value).endswith("Got 'bogus' instead.")


def test_the_former_name_works_with_a_future_warning_that_names_the_new_one() -> None:
    with pytest.warns(
        FutureWarning,
        match=r"'n_startup' parameter of TreeUCB is deprecated.*"
        r"renamed 'n_startup_trials'\. Pass n_startup_trials=3 instead",
    ):
        bandit = TreeUCB(2, n_startup=3)
    assert bandit.n_startup_trials == 3
    with pytest.warns(FutureWarning, match=r"TreeUCB\.n_startup is deprecated.*n_startup_trials"):
        assert bandit.n_startup == 3
    with pytest.raises(AttributeError):
        bandit.n_startup = 4  # type: ignore[misc]


def test_a_bandit_pickled_under_the_former_name_loads_under_the_new_one() -> None:
    bandit = TreeUCB(2, seed=0, n_startup_trials=3)
    state = bandit.__getstate__()
    state["n_startup"] = state.pop("n_startup_trials")  # as pickled before the rename
    loaded = TreeUCB.__new__(TreeUCB)
    loaded.__setstate__(state)
    assert loaded.n_startup_trials == 3 and "n_startup" not in vars(loaded)


def test_both_names_of_an_option_raise_a_type_error_naming_both() -> None:
    with pytest.raises(
        TypeError,
        match=r"TreeUCB got both 'n_startup_trials' and 'n_startup', which name the same "
        r"option \('n_startup' is its former name, deprecated\)\. Give only 'n_startup_trials'\.",
    ):
        TreeUCB(2, n_startup_trials=10, n_startup=3)  # the default given explicitly


@pytest.mark.parametrize(
    ("value", "error"), [(-1, ValueError), ("x", TypeError), (2.0, TypeError)]
)
def test_a_bad_value_by_the_former_name_names_it(value: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as err:
        TreeUCB(2, n_startup=value)
    assert_names(err, "TreeUCB", "n_startup", value)


def test_wrapper_options() -> None:
    assert validate_options("W", {"n_startup_trials": 3}, wrapper=True) == {"n_startup_trials": 3}
    with pytest.raises(TypeError, match="'n_startup_trials'"):
        validate_options("W", {"n_startup_trials": 1.5}, wrapper=True)
    with pytest.raises(TypeError, match="unexpected option 'direction'"):
        validate_options("W", {"direction": "minimize"}, wrapper=True)
    # a former name is renamed at the front doors that still take it, not here
    with pytest.raises(
        TypeError,
        match=r"W got an unexpected option 'n_startup'\. W takes it as 'n_startup_trials'; "
        r"'n_startup' is its former name \(deprecated in TreeUCB and TreeUCBSearch, never taken "
        r"by TreeUCBSampler\)\. The options are \[",
    ):
        validate_options("W", {"n_startup": 3}, wrapper=True)


# -- the README's table ---------------------------------------------------------------------------
def test_options_table_has_one_row_per_option() -> None:
    lines = options_table().splitlines()
    assert len(lines) == 2 + len(OPTIONS)
    assert lines[2].startswith("| `seed` | `None` | an int in [0, 2**32) or None |")
    assert any(
        line.startswith("| `n_startup_trials` (formerly `n_startup`, deprecated) | `10` |")
        for line in lines
    )
    assert all(line.count(" | ") == 4 for line in lines[2:])


def test_splice_table_replaces_only_between_the_markers() -> None:
    text = f"intro\n{TABLE_START}\nold table\n{TABLE_END}\nend\n"
    assert splice_table(text) == f"intro\n{TABLE_START}\n{options_table()}{TABLE_END}\nend\n"
    assert splice_table(splice_table(text)) == splice_table(text)
    with pytest.raises(ValueError, match="markers"):
        splice_table("no markers")


def _non_default(name: str) -> Any:
    """A legal value other than the default of option ``name``."""
    option = OPTIONS[name]
    if option.choices:
        return next(c for c in option.choices if c != option.default)
    if option.kind == "int":
        return (option.default or 2) + 1
    return option.default * 0.5 if option.default else 0.5


_DEFAULTS = {n: o.default for n, o in OPTIONS.items()}
# options that depend on another option, and have no effect under the defaults
IDLE_BY_DEFAULT = [n for n, o in OPTIONS.items() if not _has_effect(o, _DEFAULTS)]


def test_some_options_have_no_effect_under_the_defaults() -> None:
    assert {"max_budget", "discrete"} == set(IDLE_BY_DEFAULT)  # the core's defaults
    assert "C" not in IDLE_BY_DEFAULT


@pytest.mark.parametrize("name", IDLE_BY_DEFAULT)
def test_an_option_that_has_no_effect_warns_naming_owner_option_and_condition(
    name: str,
) -> None:
    # Nothing a user gives is dropped in silence: an option whose condition the other options
    # (here the defaults) do not meet is a UserWarning, never a silent no-op.
    value = _non_default(name)
    with pytest.warns(UserWarning, match=rf"TreeUCB ignores {name}=.*only when") as record:
        TreeUCB(2, **{name: value})
    assert OPTIONS[name].applies in str(record[0].message)


@pytest.mark.parametrize(
    "options",
    [
        {"pruned": "context", "max_budget": 27.0},
        {"sampling": "trust_region", "discrete": "region"},
        {"sampling": "local_gp", "discrete": "region"},
    ],
)
def test_options_that_have_an_effect_do_not_warn(options: dict[str, Any]) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TreeUCB(2, **options)


def test_ignored_options_lists_only_non_default_values_without_effect() -> None:
    from optuna_treeucb.core._options import ignored_options

    assert ignored_options({"max_budget": 3.0, "C": 0.5}) == ["max_budget"]
    assert ignored_options({"max_budget": None}) == []  # the default: no-op
    assert ignored_options({"pruned": "context", "max_budget": 3.0}) == []
    # discrete applies under the wrappers' default sampling, not under the core's
    assert ignored_options({"discrete": "region"}) == ["discrete"]
    assert ignored_options({"discrete": "region"}, wrapper=True) == []


def test_face_options_is_the_one_intake_of_both_faces() -> None:
    from optuna_treeucb.core._options import face_defaults
    from optuna_treeucb.core._options import face_options

    options, seed = face_options("TreeUCBSearch", {"seed": 3, "n_startup_trials": 4, "C": 0.5})
    expected = face_defaults(wrapper=True) | {"n_startup_trials": 4, "C": 0.5}
    del expected["seed"]
    assert seed == 3 and options == expected  # keyed by the core's names, the faces' defaults
    assert face_options("TreeUCBSearch", {})[1] is None
    with pytest.raises(TypeError, match="TreeUCBSampler"):
        face_options("TreeUCBSampler", {"n_startup": 4})


def test_signs_is_the_one_place_a_direction_becomes_a_sign() -> None:
    from optuna_treeucb.core._options import signs

    np.testing.assert_array_equal(signs("minimize"), [-1.0])
    np.testing.assert_array_equal(signs(["maximize", "minimize"]), [1.0, -1.0])
    with pytest.raises(ValueError, match="direction"):
        signs("down")
