"""The ``sequence`` answer source: the controller's pod decisions, in order, across several syncs.

``answer: {kind: decisions, from: sequence}`` asks "which pods are created, deleted or waited on,
in order, until the set is stable"; ``syncs: 4`` stops after four syncs instead, and ``action:``
keeps only some actions.  The syncs run as the scenario's cluster runs them: with the manual
kubelet as ``settle`` does (after each sync one pod moves one stage), with the auto kubelet as
``run`` does (time passes to the next kubelet stage).  A decision that repeats the one just
before it (the same pod waited on over several syncs) counts once.

Graded with partial credit: the share of the right sequence that the answer's correct prefix
covers (:func:`prefix_score`).
"""

from __future__ import annotations

from typing import Any, Mapping

SEQUENCE_KEYS = ("syncs",)
POD_ACTIONS = ("create", "delete", "update", "wait")


def measure_sequence(c, set_name: str, spec: Mapping[str, Any]) -> list[list]:
    """The pod decisions of the syncs from now until the set is stable (or ``spec["syncs"]`` syncs)."""
    limit = spec.get("syncs") or 1000
    if c.kubelet.mode == "manual":
        results = c.settle(set_name, max_syncs=limit)
    else:
        results = c.run(set_name, max_syncs=limit)
    actions = spec.get("action")
    if actions is not None:
        actions = [actions] if isinstance(actions, str) else list(actions)
    out: list[list] = []
    for r in results:
        for d in r.decisions:
            if d.action not in POD_ACTIONS or (actions is not None and d.action not in actions):
                continue
            item = [d.action, d.pod]
            if not out or out[-1] != item:
                out.append(item)
    return out


def prefix_score(given: list, expected: list) -> float:
    """The share (0..1) of *expected* that *given*'s correct prefix covers; extra steps after it
    count against the answer (the share is of the longer of the two)."""
    if given == expected:
        return 1.0
    k = 0
    for a, b in zip(given, expected):
        if a != b:
            break
        k += 1
    return k / max(len(given), len(expected), 1)
