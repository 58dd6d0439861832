from __future__ import annotations

import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.trial import TrialState

from optuna_treeucb._grouping import _SpaceTracker

X = FloatDistribution(0.0, 1.0)
Y = IntDistribution(0, 5)
B = CategoricalDistribution(["l", "r"])


def _trial(
    number: int, dists: dict, state: TrialState = TrialState.COMPLETE
) -> optuna.trial.FrozenTrial:
    params = {}
    for name, dist in dists.items():
        if isinstance(dist, CategoricalDistribution):
            params[name] = dist.choices[0]
        else:
            params[name] = dist.low
    trial = optuna.create_trial(
        params=params,
        distributions=dists,
        value=0.0 if state == TrialState.COMPLETE else None,
        state=state,
    )
    trial.number = number
    return trial


def test_groups_of_a_conditional_space() -> None:
    tracker = _SpaceTracker()
    tracker.update(
        "s",
        [
            _trial(0, {"b": B, "x": X, "left": X}),
            _trial(1, {"b": B, "x": X, "left": X}),
            _trial(2, {"b": B, "x": X, "right": Y}),
        ],
    )
    groups = tracker.groups(["left", "right", "x", "b"])
    # most frequent first; each group lists the names present in all trials containing it
    assert groups == [
        (["b", "x"], {"b", "x"}),
        (["left"], {"b", "x", "left"}),
        (["right"], {"b", "x", "right"}),
    ]
    assert list(tracker.search_space(group=True)) == ["b", "left", "right", "x"]
    assert list(tracker.search_space(group=False)) == ["b", "x"]


def test_unfolded_names_form_their_own_group() -> None:
    tracker = _SpaceTracker()
    tracker.update("s", [_trial(0, {"x": X})])
    assert tracker.groups(["x", "new"]) == [(["x"], {"x"}), (["new"], set())]


def test_each_trial_is_folded_once_and_unfinished_trials_are_skipped() -> None:
    tracker = _SpaceTracker()
    t0 = _trial(0, {"x": X})
    tracker.update("s", [t0, _trial(1, {"y": Y}, TrialState.FAIL)])
    tracker.update("s", [t0])
    assert tracker.groups(["x"]) == [(["x"], {"x"})]
    assert tracker.search_space(group=True) == {"x": X}  # the failed trial's "y" is ignored


def test_a_changed_range_keeps_the_parameter_with_its_last_range() -> None:
    # issue 31, item 4: a range widened on resume used to drop the parameter for good
    wide = FloatDistribution(0.0, 2.0)
    tracker = _SpaceTracker()
    tracker.update("s", [_trial(0, {"x": X, "y": Y}), _trial(1, {"x": wide, "y": Y})])
    assert tracker.search_space(group=True) == {"x": wide, "y": Y}
    assert tracker.distributions("x") == [wide, X]  # the last used first
    tracker.update("s", [_trial(2, {"x": X, "y": Y})])  # e.g. one range per branch
    assert tracker.distributions("x") == [X, wide]
    assert not tracker.inconsistent("x")


@pytest.mark.parametrize(
    "changed",
    [
        FloatDistribution(0.01, 1.0, log=True),  # another scale
        IntDistribution(0, 1),  # another kind
    ],
)
def test_another_kind_or_scale_is_inconsistent_and_excluded(changed: object) -> None:
    # Optuna refuses a relative value whose kind or log scale differs from the trial's
    tracker = _SpaceTracker()
    tracker.update("s", [_trial(0, {"x": X, "y": Y}), _trial(1, {"x": changed, "y": Y})])
    assert tracker.search_space(group=True) == {"y": Y}
    assert tracker.distribution("x") is None and tracker.inconsistent("x")


def test_other_choices_and_single_distributions_are_excluded() -> None:
    tracker = _SpaceTracker()
    b2 = CategoricalDistribution(["l", "r", "c"])
    tracker.update(
        "s",
        [
            _trial(0, {"b": B, "y": Y, "one": IntDistribution(1, 1)}),
            _trial(1, {"b": b2, "y": Y, "one": IntDistribution(1, 1)}),
        ],
    )
    assert tracker.search_space(group=True) == {"y": Y}
    assert tracker.distribution("b") is None
    assert tracker.distribution("one") is None


def test_a_new_study_resets_the_summary() -> None:
    tracker = _SpaceTracker()
    tracker.update("a", [_trial(0, {"x": X})])
    tracker.update("b", [_trial(0, {"y": Y})])
    assert tracker.search_space(group=True) == {"y": Y}


def test_intersection_matches_optuna() -> None:
    study = optuna.create_study()
    for i in range(12):
        trial = study.ask()
        trial.suggest_float("x", 0, 1)
        trial.suggest_int("one", 3, 3)
        if i % 3:
            trial.suggest_categorical("b", ["l", "r"])
        if i == 7:
            trial.suggest_float("x2", 0, 1)
        if i % 4 == 0:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, 1.0)
    study.ask()  # a running trial takes no part
    expected = {
        name: dist
        for name, dist in optuna.search_space.IntersectionSearchSpace(include_pruned=True)
        .calculate(study)
        .items()
        if not dist.single()
    }
    tracker = _SpaceTracker()
    tracker.update(study.study_name, study.get_trials(deepcopy=False))
    assert tracker.search_space(group=False) == expected == {"x": FloatDistribution(0, 1)}


@pytest.mark.parametrize("names", [[], ["x"]])
def test_empty_tracker(names: list[str]) -> None:
    tracker = _SpaceTracker()
    assert tracker.search_space(group=False) == {}
    assert tracker.search_space(group=True) == {}
    assert tracker.groups(names) == ([([n], set()) for n in names])
