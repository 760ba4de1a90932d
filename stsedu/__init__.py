"""stsedu: watch the Kubernetes StatefulSet controller decide, one sync at a time.

The public names below mirror ``shared/API.md``; ``__all__`` is built from
the one list :data:`PUBLIC`.
"""

from .version import __version__

from .cluster import Cluster
from .controller.decisions import Decision, SyncPlan, SyncResult
from .api.errors import APIError, RolloutError, ValidationError
from .identity import claim_table, dns_table, pod_identity_table
from .sim.kubelet import StageProfile
from .api.objects import (ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet,
                    StatefulSetStatus)
from .controller.profiles import PROFILES, Profile
from .trace import Trace
from . import examples, tables  # noqa: E402  (submodules used as stsedu.examples, stsedu.tables)
from . import scenarios  # noqa: E402  (stsedu.scenarios.load / .library)
from . import compare  # noqa: E402  (stsedu.compare.compare: one scenario under two profiles)
from . import exercises  # noqa: E402  (stsedu.exercises.get(id).check(answer))

PUBLIC = (
    "Cluster", "Decision", "SyncPlan", "SyncResult", "ValidationError", "APIError",
    "StageProfile", "Pod", "StatefulSet", "StatefulSetStatus", "PersistentVolumeClaim",
    "ControllerRevision", "Service", "Profile", "PROFILES", "Trace", "examples", "tables", "scenarios", "compare", "exercises", "__version__",
    "RolloutError", "dns_table", "pod_identity_table", "claim_table",
    "widgets",
)
__all__ = list(PUBLIC)


def __getattr__(name):  # stsedu.charts and stsedu.widgets load on first use (Altair, ipywidgets)
    if name in ("charts", "widgets"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'stsedu' has no attribute {name!r}")
