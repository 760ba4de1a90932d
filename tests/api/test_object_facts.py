"""Facts a frozen object works out once when it is built must follow the fields they come from.

A Pod keeps its ``revision`` label and controller reference as fields; a new
version of the object (``dataclasses.replace``, which every store write uses)
must recompute them, never carry the old ones over.  A StatefulSetSpec keeps no
derived facts: its revision data and selector are read from its fields each time.
"""

from dataclasses import replace

from stsedu.api.objects import REVISION_LABEL, OwnerReference, Pod, StatefulSetSpec, selector_matches
from stsedu.controller.stateful_set_utils import get_patch, new_revision
from stsedu.api.objects import StatefulSet


def test_a_pod_s_revision_and_controller_follow_its_labels_and_refs():
    ref = OwnerReference(kind="StatefulSet", name="web", uid="u1")
    pod = Pod(name="web-3", labels={REVISION_LABEL: "web-a"}, owner_references=(ref,))
    assert (pod.parent, pod.ordinal, pod.revision, pod.controller_ref) == ("web", 3, "web-a", ref)
    moved = replace(pod, labels={REVISION_LABEL: "web-b"}, owner_references=())
    assert (moved.revision, moved.controller_ref, moved.owner) == ("web-b", None, None)
    assert replace(pod, labels={}).revision == ""


def _spec(template_image: str, selector: dict) -> StatefulSetSpec:
    return StatefulSetSpec.from_manifest({
        "replicas": 1, "selector": selector,
        "template": {"metadata": {"labels": {"app": "web"}},
                     "spec": {"containers": [{"name": "c", "image": template_image}]}}})


def test_a_spec_s_revision_data_and_selector_follow_its_fields():
    spec = _spec("a:1", {"matchLabels": {"app": "web"}})
    sts = StatefulSet(name="web", spec=spec)
    assert new_revision(sts, 1, 0).data == get_patch(spec.template)
    other = replace(spec, template={"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "a:2"}]}})
    moved = replace(sts, spec=other)
    assert new_revision(moved, 1, 0).data == get_patch(other.template) != new_revision(sts, 1, 0).data
    for selector in ({"matchLabels": {"app": "web"}}, {"matchLabels": {"app": "db"}}, {},
                     {"matchLabels": {"app": "web"},
                      "matchExpressions": [{"key": "tier", "operator": "Exists"}]}):
        s = replace(spec, selector=selector)
        for labels in ({"app": "web"}, {"app": "web", "tier": "x"}, {}):
            assert s.selects(labels) == selector_matches(selector, labels), (selector, labels)
