"""The core's options on both faces: forwarded to the core, with each face's default, and
checked by the one table (the errors name the face the user called)."""

from __future__ import annotations

import inspect
from typing import Any

import optuna
import pytest
from ray import tune

from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import TreeUCB
from ray_treeucb import TreeUCBSearch
from tests.core_tests.test_options import args_entries
from tests.invalid_values import invalid_values

FACE_OPTIONS = [o for o in OPTIONS.values() if not o.core_only and o.name != "seed"]
# values other than the wrappers' defaults; an option that applies under a condition comes
# with the option that meets it
OTHER: dict[str, dict[str, Any]] = {
    "rule": {"rule": "incremental"},
    "index": {"index": "soft_gp"},
    "C": {"C": 0.5},
    "M": {"M": 0.5},
    "n_startup_trials": {"n_startup_trials": 3},
    "pruned": {"pruned": "context"},
    "max_budget": {"max_budget": 27.0, "pruned": "context"},
    "sampling": {"sampling": "trust_region"},
    "discrete": {"discrete": "region"},
}


def _sampler_core(options: dict[str, Any]) -> TreeUCB:
    sampler = TreeUCBSampler(seed=0, **options)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0) ** 2, n_trials=4)
    return sampler.build_model(study)


def _searcher_core(options: dict[str, Any]) -> TreeUCB:
    searcher = TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, "loss", "min", seed=0, **options)
    searcher.suggest("t0")
    core = searcher.model
    assert core is not None
    return core


FACES = [_sampler_core, _searcher_core]


@pytest.mark.parametrize("face", [TreeUCBSampler, TreeUCBSearch])
def test_the_docstring_lists_every_option_with_the_faces_default(face: type) -> None:
    # rendered from OPTIONS at import, so help() and the API pages need no README
    entries = args_entries(face.__doc__)
    params = inspect.signature(face).parameters
    for option in FACE_OPTIONS + [OPTIONS["seed"]]:
        text = entries[option.name]
        assert text.startswith(" ".join(option.doc.replace("`", "``").split())), option.name
        default = option.default_of(True)
        assert f"default: ``{default!r}``." in text, option.name
        if option.name in params and params[option.name].default is not None:
            assert params[option.name].default == default, option.name
    # the former name is mentioned where it still works
    former = "``n_startup`` is its former name, deprecated."
    assert (former in entries["n_startup_trials"]) is (face is TreeUCBSearch)
    assert "default: ``'local_gp'``" in entries["sampling"]  # the faces optimise
    doc = face.__doc__ or ""
    assert "options table in the README" not in doc and "<the options" not in doc
    assert "python -m optuna_treeucb.core" in doc


def test_every_face_option_has_a_case() -> None:
    assert set(OTHER) == {o.name for o in FACE_OPTIONS}


@pytest.mark.parametrize("core_of", FACES)
@pytest.mark.parametrize("name", sorted(OTHER))
def test_an_option_given_to_a_face_reaches_the_core(core_of: Any, name: str) -> None:
    options = OTHER[name]
    core = core_of(options)
    for key, value in options.items():
        assert getattr(core, key) == value, key
        assert value != OPTIONS[key].default_of(True), key  # the case tests a real change


@pytest.mark.parametrize("core_of", FACES)
def test_a_face_builds_the_core_with_its_own_defaults(core_of: Any) -> None:
    core = core_of({})
    for name, option in OPTIONS.items():
        value = option.default_of(True)
        if not option.core_only and name != "seed":
            assert getattr(core, name) == value, name
    assert core.sampling == "local_gp" != TreeUCB(1).sampling  # the faces optimise


# every bad value the table implies, under each face's names (TreeUCBSearch takes the former
# names too, deprecated; its n_startup_trials=None is its own default, the core's)
BAD = [
    (face, name, value, error)
    for face in ("TreeUCBSampler", "TreeUCBSearch")
    for option in OPTIONS.values()
    if not option.core_only
    for name in (option.name, *(option.former_names if face == "TreeUCBSearch" else ()))
    for value, error in invalid_values(option)
    if (face, name, value) != ("TreeUCBSearch", "n_startup_trials", None)
]


def _make(face: str, **kwargs: Any) -> object:
    if face == "TreeUCBSampler":
        return TreeUCBSampler(**kwargs)
    return TreeUCBSearch({"x": tune.uniform(0.0, 1.0)}, "loss", "min", **kwargs)


@pytest.mark.parametrize(("face", "name", "value", "error"), BAD)
def test_every_bad_value_names_the_face(
    face: str, name: str, value: Any, error: type[Exception]
) -> None:
    with pytest.raises(error) as err:
        _make(face, **{name: value})
    message = str(err.value)
    assert message.startswith(f"The {name!r} parameter of {face} must be "), message
    assert f"Got {value!r}" in message, message


@pytest.mark.parametrize("face", ["TreeUCB", "TreeUCBSampler", "TreeUCBSearch"])
@pytest.mark.parametrize(("name", "close"), [("c", "C"), ("n_startup_trial", "n_startup_trials")])
def test_an_unknown_option_names_itself_the_options_and_the_closest(
    face: str, name: str, close: str
) -> None:
    # issue #21: TreeUCBSampler(c=0.1) raised Python's bare TypeError
    with pytest.raises(TypeError) as err:
        TreeUCB(1, **{name: 0.1}) if face == "TreeUCB" else _make(face, **{name: 0.1})
    message = str(err.value)
    assert message.startswith(f"{face} got an unexpected option {name!r}."), message
    assert f"Did you mean {close!r}?" in message and "The options are [" in message


def test_the_sampler_says_its_argument_is_n_startup_trials() -> None:
    # it said "got both 'n_startup_trials' and 'n_startup'", though only one was given
    with pytest.raises(
        TypeError,
        match=r"TreeUCBSampler got an unexpected option 'n_startup'\. TreeUCBSampler takes it "
        r"as 'n_startup_trials'; 'n_startup' is its former name \(deprecated in TreeUCB and "
        r"TreeUCBSearch, never taken by TreeUCBSampler\)\.",
    ):
        TreeUCBSampler(n_startup=5)


@pytest.mark.parametrize("face", ["TreeUCB", "TreeUCBSearch"])
def test_the_former_name_still_works_where_it_did_with_a_future_warning(face: str) -> None:
    with pytest.warns(FutureWarning, match=rf"'n_startup' parameter of {face} is deprecated.*"):
        made = TreeUCB(1, n_startup=3) if face == "TreeUCB" else _make(face, n_startup=3)
    if isinstance(made, TreeUCBSearch):
        made.suggest("t0")
        made = made.model
    assert isinstance(made, TreeUCB) and made.n_startup_trials == 3
    with pytest.raises(TypeError, match=rf"{face} got both 'n_startup_trials' and 'n_startup'"):
        TreeUCB(1, n_startup=3, n_startup_trials=3) if face == "TreeUCB" else _make(
            face, n_startup=3, n_startup_trials=3
        )


@pytest.mark.parametrize("face", ["TreeUCBSampler", "TreeUCBSearch"])
def test_a_bad_choice_names_the_face_and_the_closest_value(face: str) -> None:
    with pytest.raises(
        ValueError,
        match=rf"The 'index' parameter of {face} must be one of \['hoeffding', 'soft_gp'\]\. "
        r"Got 'soft-gp' instead\. Did you mean 'soft_gp'\?",
    ):
        _make(face, index="soft-gp")


@pytest.mark.parametrize("face", ["TreeUCBSampler", "TreeUCBSearch"])
def test_a_deleted_option_is_unknown(face: str) -> None:
    with pytest.raises(TypeError, match=rf"{face} got an unexpected option 'bagging'"):
        _make(face, bagging=5)


@pytest.mark.parametrize("face", ["TreeUCBSampler", "TreeUCBSearch"])
def test_an_option_without_effect_warns_once_naming_the_face(face: str) -> None:
    import warnings

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        face_object = _make(face, seed=0, max_budget=27)
        if face == "TreeUCBSampler":  # it builds its core at the first trial
            study = optuna.create_study(sampler=face_object)  # type: ignore[arg-type]
            study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), n_trials=3)
    ignored = [w for w in record if "ignores max_budget=27" in str(w.message)]
    assert len(ignored) == 1 and face in str(ignored[0].message)
    assert 'pruned="context"' in str(ignored[0].message)


@pytest.mark.parametrize(
    ("face", "options", "category"),
    [
        ("TreeUCB", {"discrete": "region"}, UserWarning),
        ("TreeUCBSampler", {"max_budget": 27.0}, UserWarning),
        ("TreeUCBSearch", {"max_budget": 27.0}, UserWarning),
        ("TreeUCB", {"n_startup": 3}, FutureWarning),
        ("TreeUCBSearch", {"n_startup": 3}, FutureWarning),
    ],
)
def test_warnings_point_at_the_line_of_the_user_who_gave_the_option(
    face: str, options: dict[str, Any], category: type[Warning]
) -> None:
    # they pointed inside the package (the face's __init__ or the core's option intake), so
    # a user's warning filters by module and the printed location were of no use to them
    with pytest.warns(category) as record:
        TreeUCB(1, **options) if face == "TreeUCB" else _make(face, **options)
    assert [w.filename for w in record if issubclass(w.category, category)] == [__file__]


def test_the_deprecated_constraints_func_warning_points_at_the_users_line() -> None:
    with pytest.warns(FutureWarning, match="constraints_func") as record:
        TreeUCBSampler(constraints_func=lambda trial: (0.0,))
    assert [w.filename for w in record if w.category is FutureWarning] == [__file__]
