"""The pod control that writes nothing: it records each request as a decision.

Upstream's steps call the ``StatefulPodControl`` interface (``DeleteStatefulPod`` ...); its tests
pass a fake one that only counts the requests.  The kit's steps call the same interface
(:func:`~stsedu.controller.stateful_set_control.process_condemned` and the other deleting steps
call ``delete_stateful_pod`` today), and the planner and ``Cluster.preview()`` pass a
:class:`RecordingPodControl`: each request becomes a decision row in the sync's log, in the order
the steps make it, and succeeds.  The real pod control is
:class:`~stsedu.controller.stateful_pod_control.ClusterObjects` (its ``delete_stateful_pod``),
through which ``apply_plan`` still sends the recorded requests afterwards (issue 30: the steps
are to call it directly).
"""

from __future__ import annotations

from .decisions import Decision


class RecordingPodControl:
    """A pod control whose requests are appended to *log* (the sync's decision rows) and succeed."""

    def __init__(self, log: list[Decision]) -> None:
        self.log = log

    def delete_stateful_pod(self, d: Decision) -> None:
        """Record the request of ``DeleteStatefulPod`` that *d* describes (its pod is ``d.payload``)."""
        self.log.append(d)
