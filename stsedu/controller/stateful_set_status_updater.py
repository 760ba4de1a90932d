"""Writing a StatefulSet's status (≈ upstream ``stateful_set_status_updater.go``).

Upstream's ``realStatefulSetStatusUpdater.UpdateStatefulSetStatus`` sends the
status with ``retry.RetryOnConflict(retry.DefaultRetry, ...)``, re-reading the
set from its lister after each Conflict.  The kit's API server refuses a status
that ``ValidateStatefulSetStatusUpdate`` rejects, as the real one does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..api.errors import APIError, ValidationError, WrappedError, is_conflict
from ..api.objects import StatefulSet, StatefulSetStatus
from ..api.validation.statefulset import validate_stateful_set_status_update

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.writes import Writes

DEFAULT_RETRY_STEPS = 5
"""Attempts of ``retry.RetryOnConflict(retry.DefaultRetry, ...)``."""


def retry_on_conflict(steps: int, attempt) -> int:
    """``retry.RetryOnConflict``: call *attempt* until it does not fail with Conflict, at most
    *steps* times.  Return how many times it was sent again; the error that ends it (Conflict
    after the last attempt, or any other; an API answer or an error wrapping one) is raised with
    that count as ``retries``."""
    for n in range(steps):
        try:
            attempt()
            return n
        except (APIError, WrappedError) as e:
            if not is_conflict(e) or n == steps - 1:
                e.retries = n
                raise
    return steps - 1  # pragma: no cover - the loop returns or raises


class RealStatefulSetStatusUpdater:
    """The status updater of a controller (``realStatefulSetStatusUpdater``): it writes through the
    cluster's :class:`~stsedu.sim.writes.Writes` (upstream: the clientset, the set lister)."""

    def __init__(self, writes: "Writes") -> None:
        self.writes = writes

    def update_stateful_set_status(self, sts: StatefulSet, status: StatefulSetStatus) -> int:
        """Write *status* to the stored set, sent again on Conflict (``UpdateStatefulSetStatus``).

        The API server refuses a status ``ValidateStatefulSetStatusUpdate`` rejects (a
        rolling-update delete of a pod at a third revision can take currentReplicas to -1).
        Returns the number of retries; raises :class:`~stsedu.api.errors.APIError` when it fails.
        """
        writes = self.writes

        def attempt():
            writes.check_fault("update", "StatefulSet", sts.name)
            stored = writes.store.get("StatefulSet", sts.namespace, sts.name)
            if stored is None:
                raise APIError("update", "StatefulSet", sts.name, reason="NotFound")
            errors = validate_stateful_set_status_update(status, stored.status)
            if errors:
                raise APIError("update", "StatefulSet", sts.name, reason="Invalid",
                               message=str(ValidationError(errors, name=sts.name)))
            writes.store.update("StatefulSet", replace(stored, status=status))
        return retry_on_conflict(DEFAULT_RETRY_STEPS, attempt)


def new_real_stateful_set_status_updater(writes: "Writes") -> RealStatefulSetStatusUpdater:
    """The status updater a controller is built with (``NewRealStatefulSetStatusUpdater``, called by
    :func:`~stsedu.controller.stateful_set.new_stateful_set_controller`)."""
    return RealStatefulSetStatusUpdater(writes)
