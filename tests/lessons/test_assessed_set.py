"""The ready-made assessed set (docs/assessed-set/, issue #42 item 2): at least eight exercises with
a variant per student, none in the practice sets, covering the series; every variant's answer, as
the simulator computes it, is what upstream's rule gives (each rule worked out by hand below)."""

from __future__ import annotations

from pathlib import Path

import pytest

import stsedu.lessons.exercises as E
from stsedu.lessons.exercises import kinds as K
from stsedu.lessons.exercises import variants as V
from stsedu.lessons.exercises.handout import is_shipped
from stsedu.lessons.exercises.modes import grading

SET = Path(__file__).resolve().parents[2] / "docs" / "assessed-set"


def pods(ordinals) -> list[str]:
    return [f"web-{i}" for i in ordinals]


# exercise id -> the upstream rule, as a function of the variant's values
RULES = {
    # getStartOrdinal / getEndOrdinal: ordinals run from ordinals.start, replicas of them
    "A.1": lambda v: pods(range(v["start"], v["start"] + v["replicas"])),
    # processCondemned, monotonic: the highest condemned ordinal is deleted, and waited on until gone
    "A.2": lambda v: [[a, f"web-{i}"] for i in range(v["replicas"] - 1, v["to"] - 1, -1) for a in ("delete", "wait")],
    # updateStatefulSet with MaxUnavailableStatefulSet: from the highest ordinal, up to maxUnavailable at once
    "A.3": lambda v: [["delete", f"web-{i}"] for i in range(v["replicas"] - 1, max(v["replicas"] - v["unavailable"], 0) - 1, -1)],
    # updateStatefulSet: ordinals >= partition move to the update revision
    "A.4": lambda v: pods(range(v["partition"], v["replicas"])),
    # OnDelete: only a deleted pod is re-created from the update revision
    "A.5": lambda v: [p for p in pods(range(v["replicas"])) if p != v["deleted"]],
    # Parallel (monotonic false): every missing ordinal is created in one sync, whatever the readiness
    "A.6": lambda v: v["to"] - v["replicas"],
    # processReplica with isRunningAndAvailable: Ready for minReadySeconds (<= now) before the next ordinal
    "A.7": lambda v: ([["create", f"web-{v['start'] + 1}"]] if v["after"] >= v["min_ready"]
                      else [["wait", f"web-{v['start']}"]]),
    # whenScaled Delete: condemned pods own their claims, the garbage collector removes them; Retain keeps them
    "A.8": lambda v: v["to"] if v["when_scaled"] == "Delete" else v["replicas"],
}
TOPICS = {"A.1": "ordinals", "A.2": "OrderedReady", "A.3": "maxUnavailable", "A.4": "partition",
          "A.5": "OnDelete", "A.6": "Parallel", "A.7": "minReadySeconds", "A.8": "whenScaled"}


@pytest.fixture(scope="module")
def assessed_set() -> list:
    return E.load(SET, register_them=False)


def test_eight_assessed_exercises_with_parameters_not_in_the_practice_sets(assessed_set):
    assert [e.id for e in assessed_set] == list(RULES)
    assert sum(e.points for e in assessed_set) == 10
    shipped_questions = {e.question for e in E.EXERCISES}
    for e in assessed_set:
        assert e.parameters and V.count(e.parameters) >= 6, e.id
        assert not is_shipped(e) and e.question not in shipped_questions
        assert TOPICS[e.id] in e.question or TOPICS[e.id] in e.text, e.id
        assert not e.situation_warning(), e.id            # the release never prints the answer


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", list(RULES))
def test_every_variant_answers_what_upstreams_rule_gives(assessed_set, exercise_id):
    (e,) = [x for x in assessed_set if x.id == exercise_id]
    answers = set()
    for values in V.every(e.parameters):
        with grading():
            got = K.jsonable(e.with_values(values).expected_answer())
        assert got == RULES[exercise_id](values), (exercise_id, values)
        answers.add(repr(got))
    assert len(answers) >= 5, exercise_id                 # neighbours rarely share an answer
