"""The differential comparison itself (tests/upstream_oracle.py), without Go: a stand-in oracle
answers what the real controller could answer, and ``checked_sync`` must accept exactly that.

A failed run of revision adoptions (``AdoptOrphanRevisions`` in stateful_set_control.go stops at
the first failed patch; the orphans come from the revision lister's index, a Go map, so their
order is random upstream): upstream may have adopted any of the orphans before the failure, as
many as it tried less one. The comparison accepts the other order and nothing looser.
"""

from __future__ import annotations

import copy

import pytest

import stsedu
import test_upstream_rules as rules
import upstream_oracle as uo


def two_orphan_revisions_second_adoption_fails(c):
    """A set orphaned with two revisions and applied again; the second adoption patch answered NotFound."""
    c.apply(rules.web(0))
    c.sync("web")
    c.set_image("web", "nginx:2")
    c.sync("web")
    c.delete("web", cascade="orphan")
    c.advance(0)
    c.apply(rules.web(0))
    c.inject_error("update", "ControllerRevision", reason="NotFound", after=1)


class StandIn:
    """Answers a sync as upstream could have: the kit's objects after the sync with the revisions'
    owners given by *adopted* (the names upstream adopted), and two adoption patches, *tried* in
    that order, the second answered NotFound."""

    def __init__(self, cluster, tried, adopted):
        self.cluster, self.tried, self.adopted = cluster, tried, set(adopted)

    def sync(self, name, objects, now, faults, gates, namespace="default", conflicts=False, pod_order=()):
        after = copy.deepcopy(self.cluster.dump()["objects"])
        revisions = after["ControllerRevision"]
        owners = next(r["metadata"]["ownerReferences"] for r in revisions.values()
                      if r["metadata"].get("ownerReferences"))
        for rev in revisions.values():
            rev["metadata"]["ownerReferences"] = copy.deepcopy(owners) if rev["metadata"]["name"] in self.adopted else []
        first, second = self.tried
        writes = [{"verb": "patch", "kind": "ControllerRevision", "name": first, "error": None},
                  {"verb": "patch", "kind": "ControllerRevision", "name": second, "error": "not found",
                   "reason": "NotFound"}]
        return {"ok": True, "writes": writes, "objects": after, "events": [], "requeue_after": None,
                "error": f'controllerrevisions.apps "{second}" not found'}


def _cluster():
    c = stsedu.Cluster(kubelet="manual")
    two_orphan_revisions_second_adoption_fails(c)
    return c


def _names(c):
    return sorted(r.name for r in c.store.list("ControllerRevision", "default"))


def _kit_order():
    """The revisions in the order the kit tries them (from a throwaway copy of the history)."""
    c = _cluster()
    result = c.sync("web")
    return [d.target for d in result.decisions if d.action == "adopt"]


def test_the_other_adoption_order_is_accepted():
    """Upstream tried the kit's second orphan first: adopted it, failed on the kit's first one.
    (Compared by name before, this was reported as two owner differences.)"""
    first, second = _kit_order()
    c = _cluster()
    log: list = []
    uo.checked_sync(c, StandIn(c, (second, first), {second}), "web", conflicts=True, log=log)
    assert log[0]["problems"] == []


def test_the_kit_s_own_order_is_accepted():
    first, second = _kit_order()
    c = _cluster()
    log: list = []
    uo.checked_sync(c, StandIn(c, (first, second), {first}), "web", conflicts=True, log=log)
    assert log[0]["problems"] == []


@pytest.mark.parametrize("outcome", ["none adopted", "both adopted"])
def test_a_different_number_of_adoptions_is_a_difference(outcome):
    """Not looser than upstream: it adopts as many orphans as it patched before the failure, so an
    outcome with another number of adopted revisions still fails the comparison."""
    first, second = _kit_order()
    c = _cluster()
    # the writes agree (two patches, the second failed); only the objects say otherwise
    adopted = {"none adopted": (), "both adopted": (first, second)}[outcome]
    stand_in = StandIn(c, (second, first), adopted)
    with pytest.raises(uo.Mismatch, match="orphan revisions adopted before the failure"):
        uo.checked_sync(c, stand_in, "web", conflicts=True)


def test_a_revision_that_is_no_orphan_is_not_folded():
    """Only the set's orphan revisions (selector matching, no controller) are compared as a set:
    a revision another set controls keeps being compared by name."""
    c = _cluster()
    before = c.dump()["objects"]
    orphans = uo.orphan_revisions(before, "web")
    assert orphans == {("ControllerRevision", n) for n in _names(c)}
    rev = next(iter(before["ControllerRevision"].values()))
    rev["metadata"]["ownerReferences"] = [{"kind": "StatefulSet", "name": "other", "uid": "x", "controller": True}]
    assert ("ControllerRevision", rev["metadata"]["name"]) not in uo.orphan_revisions(before, "web")
    rev["metadata"]["ownerReferences"] = []
    rev["metadata"]["labels"] = {"app": "other"}
    assert ("ControllerRevision", rev["metadata"]["name"]) not in uo.orphan_revisions(before, "web")


def test_an_adoption_with_other_owner_refs_is_a_difference():
    """The orphan upstream adopted carries the same owner refs as the kit's, or they differ."""
    first, second = _kit_order()
    c = _cluster()
    stand_in = StandIn(c, (second, first), {second})
    answer_of = stand_in.sync

    def sync(*args, **kwargs):
        answer = answer_of(*args, **kwargs)
        rev = answer["objects"]["ControllerRevision"][f"default/{second}"]
        rev["metadata"]["ownerReferences"][0]["name"] = "other"
        return answer

    stand_in.sync = sync
    with pytest.raises(uo.Mismatch, match="orphan revisions adopted before the failure"):
        uo.checked_sync(c, stand_in, "web", conflicts=True)
