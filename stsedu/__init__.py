"""stsedu: watch the Kubernetes StatefulSet controller decide, one sync at a time.

The public names below are those of ``docs/api.md``; ``__all__`` is built from
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
from .projector import display  # noqa: E402  (projector mode: stsedu.display(scale=1.6))

PUBLIC = (
    "Cluster", "Decision", "SyncPlan", "SyncResult", "ValidationError", "APIError",
    "StageProfile", "Pod", "StatefulSet", "StatefulSetStatus", "PersistentVolumeClaim",
    "ControllerRevision", "Service", "Profile", "PROFILES", "Trace", "examples", "tables", "scenarios", "compare", "exercises", "__version__",
    "RolloutError", "dns_table", "pod_identity_table", "claim_table",
    "widgets", "labs", "display", "last",
)
__all__ = list(PUBLIC)


def last():
    """The decisions of the syncs that the last ``%kubectl`` command that changed something caused
    (a DataFrame: sync, time, action, pod, reason, rule, message); its ``attrs["command"]`` is that
    command line.  The cluster first catches up, as it would before your next command."""
    from .kubectl.magic import session
    return session().last()


def load_ipython_extension(ip):
    """``%load_ext stsedu``: registers ``%kubectl`` and ``%%kubectl`` (stsedu.kubectl.magic), and shows
    the kit's tables with whole sentences (stsedu.frames; the user's pandas options are untouched)."""
    from .kubectl.magic import load_ipython_extension as load
    from .frames import register
    load(ip)
    register(ip)


def _register_magics() -> None:
    """Inside IPython, ``import stsedu`` registers ``%kubectl`` (IPython is not imported otherwise)."""
    ipython = _sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None:
        load_ipython_extension(shell)


import sys as _sys  # noqa: E402

_register_magics()


def __getattr__(name):  # stsedu.charts, stsedu.widgets and stsedu.labs load on first use (Altair, ipywidgets)
    if name in ("charts", "widgets", "labs"):
        import importlib
        return importlib.import_module(".widgets.labs" if name == "labs" else f".{name}", __name__)
    raise AttributeError(f"module 'stsedu' has no attribute {name!r}")
