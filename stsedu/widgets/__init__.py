"""ipywidgets panels that drive a simulated cluster and redraw its tables and charts.

* :class:`Playground` (:mod:`.playground`, laid out by :mod:`.layout`): the
  full panel.  It owns a :class:`~stsedu.Cluster` with one StatefulSet; its
  controls edit the set's spec the way ``kubectl`` would (scale, merge patch,
  set image, delete and re-create), its buttons sync the controller, move the
  clock and the kubelet, and its views redraw after every action.  Pick fewer
  controls, actions or views for a focused panel
  (``Playground(controls=["replicas"], actions=["sync"], views=["decisions"])``).
* :class:`SyncStepper` (:mod:`.stepper`): steps through the decisions of one
  sync and highlights the step of the upstream algorithm that made each.
* :class:`LoopLab` (:mod:`.loop_lab`): two sets through the whole controller loop, with an
  informer-delay slider and an API-error toggle (notebook 04).
* :class:`View` and its subclasses (:mod:`.views`): the pluggable views a
  Playground shows.
* the labs (:mod:`.labs`, also ``stsedu.labs``): one small panel per idea of
  the notebook series (``IdentityLab``, ``PartitionLab``, ...) and the
  predict-then-see questions (``stsedu.labs.reveal``).

Every action is a plain method (``pg.set_replicas(5)``, ``pg.sync_once()``)
that the widgets call; it never raises for a bad value: the API server's
error (field path and message) shows in the panel's error area, the
cluster is left exactly as it was, and the controls snap back to the
cluster's values.  ``pg.last_error`` holds the exception.
"""

from __future__ import annotations

from .loop_lab import LoopLab
from .playground import Playground
from .labs import (AvailabilityLab, FaultLab, HistoryLab, IdentityLab, Lab, OnDeleteLab, OwnershipLab,
                   PartitionLab, PolicyLab, ProfileLab, ScalingLab, StepLab, StorageLab, UpdateLab)
from .stepper import SyncStepper
from .panels import (ACTIONS, CONTROLS, DEFAULT_VIEWS, VIEWS, ChartView, DecisionsView, LogView, PodsView,
                    StatusView, View, default_manifest)

__all__ = ["LoopLab", "Playground", "SyncStepper", "View", "DecisionsView", "PodsView", "StatusView",
           "ChartView", "LogView", "CONTROLS", "ACTIONS", "VIEWS", "DEFAULT_VIEWS", "default_manifest",
           "Lab", "IdentityLab", "StorageLab", "ScalingLab", "UpdateLab", "PartitionLab", "OnDeleteLab",
           "OwnershipLab", "PolicyLab", "AvailabilityLab", "FaultLab", "HistoryLab", "StepLab", "ProfileLab"]
