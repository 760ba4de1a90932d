"""stsedu: watch the Kubernetes StatefulSet controller decide, one sync at a time.

The public names below are those of ``docs/api.md``; ``__all__`` is built from
the one list :data:`PUBLIC`.  The package is laid out in rooms that follow a
request: ``api/`` -> ``sim/`` -> ``client/`` -> ``controller/`` -> ``trace.py``
-> ``views/`` -> ``widgets/`` -> ``lessons/``; :data:`MODULES` is the one place
that maps the modules learners type (``stsedu.tables``, ``stsedu.charts`` ...)
onto those rooms.
"""

from .version import __version__
from .i18n import current_language, set_language

from .cluster import Cluster
from .controller.decisions import Decision, SyncPlan, SyncResult
from .api.errors import APIError, RolloutError, ValidationError
from .views.identity_tables import claim_table, dns_table, pod_identity_table
from .sim.kubelet import StageProfile
from .api.objects import (ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet,
                    StatefulSetStatus)
from .api.profiles import PROFILES, Profile
from .trace import Trace
# The public modules, as learners type them (stsedu.tables.decisions_frame(...)), and the room each
# lives in.  scenarios loads now; the others on first use (pandas, Altair, ipywidgets, the exercise
# library): `stsedu kubectl` and the other commands start without them.
MODULES = {
    "tables": "views.tables", "charts": "views.charts",
    "widgets": "widgets", "labs": "widgets.labs",
    "examples": "lessons.examples", "scenarios": "lessons.scenarios",
    "exercises": "lessons.exercises", "compare": "lessons.compare",
}
from .lessons import scenarios  # noqa: E402
from .views.projector import display  # noqa: E402  (projector mode: stsedu.display(scale=1.6))

PUBLIC = (
    "Cluster", "Decision", "SyncPlan", "SyncResult", "ValidationError", "APIError",
    "StageProfile", "Pod", "StatefulSet", "StatefulSetStatus", "PersistentVolumeClaim",
    "ControllerRevision", "Service", "Profile", "PROFILES", "Trace", "examples", "tables", "scenarios", "compare", "exercises", "__version__",
    "RolloutError", "dns_table", "pod_identity_table", "claim_table",
    "widgets", "labs", "display", "last", "set_language", "current_language",
)
__all__ = list(PUBLIC)


def last():
    """The decisions of the syncs that the last ``%kubectl`` command that changed something caused
    (a DataFrame: sync, time, action, pod, reason, rule, message); its ``attrs["command"]`` is that
    command line.  The cluster first catches up, as it would before your next command."""
    from .console.magic import session
    return session().last()


def load_ipython_extension(ip):
    """``%load_ext stsedu``: registers ``%kubectl`` and ``%%kubectl`` (stsedu.console.magic), shows
    the kit's tables with whole sentences (stsedu.frames; the user's pandas options are untouched)
    and a SyncResult as its decisions table."""
    from .console.magic import load_ipython_extension as load
    from .frames import register
    load(ip)
    register(ip)
    _register_formatters(ip)


def _register_formatters(ip) -> None:
    """A SyncResult shows its decisions as a table (IPython's HTML formatter for the type)."""
    from .views.tables import sync_result_html
    formatters = getattr(getattr(ip, "display_formatter", None), "formatters", {})
    if "text/html" in formatters:
        formatters["text/html"].for_type(SyncResult, sync_result_html)


def _register_magics() -> None:
    """Inside IPython, ``import stsedu`` registers ``%kubectl`` (IPython is not imported otherwise)."""
    ipython = _sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None:
        load_ipython_extension(shell)


import sys as _sys  # noqa: E402

_register_magics()


def __getattr__(name):  # the modules of MODULES load on first use
    if name in MODULES:
        import importlib
        module = importlib.import_module(f".{MODULES[name]}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'stsedu' has no attribute {name!r}")
