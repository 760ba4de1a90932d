"""stsedu: watch the Kubernetes StatefulSet controller decide, one sync at a time.

The public names below mirror ``shared/API.md``; ``__all__`` is built from
the one list :data:`PUBLIC`.
"""

__version__ = "0.1.0"

from .cluster import Cluster
from .decisions import Decision, SyncPlan, SyncResult
from .errors import APIError, ValidationError
from .kubelet import StageProfile
from .model import (ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet,
                    StatefulSetStatus)
from .profiles import PROFILES, Profile
from .trace import Trace

PUBLIC = (
    "Cluster", "Decision", "SyncPlan", "SyncResult", "ValidationError", "APIError",
    "StageProfile", "Pod", "StatefulSet", "StatefulSetStatus", "PersistentVolumeClaim",
    "ControllerRevision", "Service", "Profile", "PROFILES", "Trace", "__version__",
)
__all__ = list(PUBLIC)


def __getattr__(name):  # ``stsedu.charts`` / ``stsedu.tables`` without importing Altair at ``import stsedu``
    if name in ("charts", "tables"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'stsedu' has no attribute {name!r}")
