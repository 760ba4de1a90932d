"""What the API server accepts for ``updateStrategy.type: Recreate`` (k8s.io/kubernetes v1.37.2).

``ValidateStatefulSetSpec`` (pkg/apis/apps/validation/validation.go) takes Recreate only with
``AllowStatefulSetRecreateStrategy``, which pkg/registry/apps/statefulset/strategy.go sets from the
gate StatefulSetRecreateStrategy on create, and on update also when the stored set already uses
Recreate; Recreate, like OnDelete, allows no ``rollingUpdate`` block.  And what kubectl shows.
"""

from __future__ import annotations

import json
import re

import pytest
from helpers import web

import stsedu
from stsedu.api.errors import ValidationError
from stsedu.console.session import Session

ON = {"StatefulSetRecreateStrategy": True}
GATE_OFF_MSG = ("spec.updateStrategy", ('Invalid value: {"Type":"Recreate","RollingUpdate":null}: '
                                        "must be 'RollingUpdate' or 'OnDelete'"))


def errors_of(c, manifest) -> list[tuple[str, str]]:
    before = json.dumps(c.dump(), sort_keys=True, default=str)
    with pytest.raises(ValidationError) as e:
        c.apply(manifest)
    assert json.dumps(c.dump(), sort_keys=True, default=str) == before  # state unchanged
    return e.value.errors


@pytest.mark.parametrize("profile", ["current", "v1.36"])
def test_gate_off_refuses_recreate(profile):
    """ValidateStatefulSetSpec, default case: without AllowStatefulSetRecreateStrategy the valid
    values are RollingUpdate and OnDelete (v1.36.3 knows no Recreate at all)."""
    assert errors_of(stsedu.Cluster(profile=profile), web(2, strategy={"type": "Recreate"})) == [GATE_OFF_MSG]


def test_gate_on_accepts_recreate_and_names_it_among_the_valid_types():
    """With AllowStatefulSetRecreateStrategy: Recreate is accepted, and a bad type lists three."""
    c = stsedu.Cluster(feature_gates=ON)
    c.apply(web(2, strategy={"type": "Recreate"}))
    assert c.statefulset("web").spec.update_strategy == "Recreate"
    assert errors_of(c, web(2, strategy={"type": "Sometimes"})) == [
        ("spec.updateStrategy", ('Invalid value: {"Type":"Sometimes","RollingUpdate":null}: '
                                 "must be 'RollingUpdate', 'OnDelete', or 'Recreate'"))]


def test_recreate_allows_no_rolling_update_block():
    """The Recreate case: a rollingUpdate block is "only allowed for updateStrategy 'RollingUpdate'"
    (no partition is defaulted into it: SetDefaults_StatefulSet fills RollingUpdate sets only)."""
    c = stsedu.Cluster(feature_gates=ON)
    assert errors_of(c, web(2, strategy={"type": "Recreate", "rollingUpdate": {"partition": 1}})) == [
        ("spec.updateStrategy.rollingUpdate",
         'Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy \'RollingUpdate\'')]


def test_switching_to_recreate_needs_the_gate_but_a_stored_recreate_set_stays_editable():
    """strategy.go ValidateUpdate: AllowStatefulSetRecreateStrategy is the gate, or the stored set's
    type is Recreate. With the gate off, a RollingUpdate set cannot switch to Recreate, while a set
    stored as Recreate (made when the gate was on) can still be scaled."""
    c = stsedu.Cluster(feature_gates=ON)
    c.apply(web(2, strategy={"type": "Recreate"}))
    c.apply(web(2, name="other"))
    c.feature_gates["StatefulSetRecreateStrategy"] = False
    c.scale("web", 3)
    assert c.statefulset("web").spec.replicas == 3
    with pytest.raises(ValidationError) as e:
        c.patch("other", {"spec": {"updateStrategy": {"type": "Recreate", "rollingUpdate": None}}})
    assert e.value.errors == [GATE_OFF_MSG]


def test_kubectl_shows_the_strategy_and_the_condition():
    """kubectl describe prints "Update Strategy: Recreate" (describeStatefulSet has no conditions
    section); get -o yaml prints status.conditions with the Progressing condition."""
    s = Session(stsedu.Cluster(feature_gates=ON))
    s.run("apply -f -", json.dumps(web(2, strategy={"type": "Recreate"})))
    s.run("set image sts/web nginx=nginx:2")
    described = s.run("describe sts web").text
    assert re.search(r"\nUpdate Strategy: +Recreate\nPersistent Volume", described)
    text = s.run("get sts web -o yaml").text
    assert "  updateStrategy:\n    type: Recreate\n" in text
    assert re.search(r'  conditions:\n  - lastTransitionTime: "2026-01-01T00:00:\d\dZ"\n'
                     r"    message: All pods recreated successfully\n    reason: RecreateCompleted\n"
                     r'    status: "False"\n    type: Progressing\n', text)
    assert s.run("rollout status sts/web").text == \
        "error: rollout status is only available for RollingUpdate strategy type\n"


def test_get_yaml_shows_the_condition_while_in_progress():
    """Mid-rollout (manual kubelet: the old pods stay terminating) the condition is True,
    RecreateInProgress, "Deleting old revision pods"."""
    c = stsedu.Cluster(kubelet="manual", feature_gates=ON)
    c.apply(web(1, strategy={"type": "Recreate"}))
    c.sync("web")
    c.set_image("web", "nginx:2")
    c.sync("web")
    text = Session(c).run("get sts web -o yaml").text
    assert re.search(r'  conditions:\n  - lastTransitionTime: "2026-01-01T00:00:00Z"\n'
                     r"    message: Deleting old revision pods\n    reason: RecreateInProgress\n"
                     r'    status: "True"\n    type: Progressing\n', text)
