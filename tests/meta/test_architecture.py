"""The package's shape: rooms in the order of the flow with no cycle between them or between modules,
no private name used across modules, no module too long to read, and objects handed to callers that do not alias the cluster's stored state."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stsedu
from helpers import web

PACKAGE = Path(stsedu.__file__).parent
MAX_LINES = 800
LONGER = {
    "stsedu.cluster": (850, "the Cluster facade, one idea: one method per thing a learner does (read, sync and run, "
                            "apply and edit, delete, roll back, inject faults), each the entry to the room that "
                            "does the work; split, a learner's verbs would sit in two classes"),
}
"""Modules that are one idea longer than MAX_LINES: their cap, and why they are not split (issue 40:
no split or packing made only for the cap)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules *path* imports anywhere in its code: top level, inside functions,
    under ``if TYPE_CHECKING`` too (an import is an import)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the module pkg.mod
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules and t != name)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the list of modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_walker_sees_function_level_imports():
    """The walker counts an import inside a function (the kind that hid the old cluster cycle)."""
    graph = _graph()
    assert "stsedu.controller.stateful_set_control_v116" in graph["stsedu.controller.stateful_set"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_import_cycle():
    assert _cycle(_graph()) is None


ROOMS = (
    # plain helpers any room may use
    "stsedu.version", "stsedu.limits", "stsedu.files", "stsedu.frames",
    # the kit's words in the learner's language (gettext), used by views, lessons and widgets
    "stsedu.i18n",
    # the flow of a request, each room importing only rooms listed before it
    "stsedu.api", "stsedu.sim", "stsedu.client", "stsedu.controller", "stsedu.trace", "stsedu.views",
    # the facade that wires the cluster together, then what learners and teachers touch
    "stsedu.cluster", "stsedu.lessons", "stsedu.console", "stsedu.widgets", "stsedu.live",
    # the front door (import stsedu), the stsedu command's parts (run, trace file, teachers') and the command
    "stsedu", "stsedu.cli", "stsedu.__main__",
)
"""The package's rooms in the order of the flow (README: "How it is built")."""


def _room(module: str) -> str:
    """The room a module lives in: its top-level package under stsedu, or the top-level module itself."""
    return ".".join(module.split(".")[:2])


def _room_graph() -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, deps in _graph().items():
        rooms.setdefault(_room(module), set()).update(_room(d) for d in deps if _room(d) != _room(module))
    return rooms


def test_every_room_is_in_the_flow():
    assert sorted(_room_graph()) == sorted(ROOMS)


def test_no_import_cycle_between_rooms():
    """Package level, imports inside functions and under TYPE_CHECKING counted (issue 30 found
    api -> controller -> sim -> controller, which the module graph could not see)."""
    graph = _room_graph()
    assert "stsedu.views" in graph["stsedu.cluster"]  # Cluster.rollout_status imports kubectl's printer in a function
    assert _cycle(graph) is None


def test_each_room_imports_only_rooms_before_it():
    """A newcomer reads the flow from the folders: no room reaches forward (the facade is imported
    only by what learners touch, never by the API server, the simulation, the controller or the views)."""
    back = sorted(f"{a} -> {b}" for a, deps in _room_graph().items() for b in deps
                  if ROOMS.index(b) > ROOMS.index(a))
    assert back == []


# ------------------------------------------------------------------ private names

PROTOCOL = frozenset({"_repr_html_", "_repr_mimebundle_", "_ipython_display_", "_repr_latex_",
                      "_asdict", "_replace", "_fields", "_make", "_missing_", "_value_", "_name_"})
"""Names that look private but are other libraries' public protocols (IPython's display hooks,
namedtuple's and enum's API); reading them is fine, setting them on another object is not."""


def _private(name: str) -> bool:
    """A name with a leading underscore, but not a dunder nor gettext's ``_`` (stsedu.i18n's
    translation function, public by the convention every gettext program follows)."""
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def _own_attributes(tree: ast.AST) -> set[str]:
    """Attributes the module's own classes define: methods and fields in a class body, and
    ``self.x = ...`` / ``cls.x = ...`` anywhere."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(item.name)
                elif isinstance(item, ast.Assign):
                    names.update(t.id for t in item.targets if isinstance(t, ast.Name))
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            names.add(node.attr)
    return names


def private_uses(name: str, source: str) -> list[str]:
    """Where module *name* uses another module's private name: ``from m import _x`` of a kit module,
    ``anything._x`` read where no class of this module defines ``_x`` (whatever the variable is
    called), and ``anything._x = ...`` on an object other than ``self``/``cls`` or a class of this
    module (patching another module's object)."""
    tree = ast.parse(source)
    own = _own_attributes(tree)
    classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "stsedu"):
            out += [f"{name}:{node.lineno} imports {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if isinstance(node.ctx, ast.Store):
                if not (isinstance(node.value, ast.Name) and node.value.id in classes):
                    out.append(f"{name}:{node.lineno} sets {ast.unparse(node)}")
            elif node.attr not in own and node.attr not in PROTOCOL:
                out.append(f"{name}:{node.lineno} reads {ast.unparse(node)}")
    return sorted(out, key=lambda s: int(s.split(":")[1].split()[0]))


def test_the_private_name_check_sees_any_variable():
    found = private_uses("m", "from .x import _a\nimport y\ny._b()\nwhatever._c\nK._d = 1\n"
                              "class C:\n    _e = 1\n    def f(self, other):\n        return other._e, self._g\n"
                              "C._h = 2\n")
    assert found == ["m:1 imports _a", "m:3 reads y._b", "m:4 reads whatever._c", "m:5 sets K._d"]


def test_no_private_name_is_used_across_modules():
    """A helper two modules share has a public name in the module it belongs to (issue 30)."""
    offenders = []
    for name, path in _modules().items():
        offenders += private_uses(name, path.read_text())
    assert offenders == []


def test_no_module_is_over_800_lines():
    """MAX_LINES for every module, or the cap LONGER gives the few that are one longer idea."""
    over = {name: n for name, path in sorted(_modules().items())
            if (n := len(path.read_text().splitlines())) > LONGER.get(name, (MAX_LINES,))[0]}
    assert len(_modules()) > 50  # the walker found the package
    assert set(LONGER) <= set(_modules())  # each exception names a module that exists
    assert over == {}, f"modules over their cap ({MAX_LINES} lines unless LONGER says): {over}"


# ------------------------------------------------------------ returned objects


@pytest.fixture
def cluster():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    c.settle("web")
    return c


def test_changing_a_returned_pod_changes_nothing_in_the_cluster(cluster):
    before = cluster.dump()
    pod = cluster.pod("web-1")
    pod.labels["statefulset.kubernetes.io/pod-name"] = "x"
    pod.annotations["note"] = "x"
    pod.spec["containers"][0]["image"] = "x"
    for p in cluster.pods("web"):
        p.labels.clear()
    assert cluster.dump() == before
    assert cluster.pod("web-1").labels["statefulset.kubernetes.io/pod-name"] == "web-1"
    # and the controller, planning afresh, has nothing to repair
    assert cluster.sync("web").decisions == ()


def test_changing_a_returned_set_claim_or_revision_changes_nothing(cluster):
    before = cluster.dump()
    sts = cluster.statefulset("web")
    sts.labels["x"] = "y"
    sts.spec.template["spec"]["containers"][0]["image"] = "x"
    sts.spec.selector.clear()
    cluster.statefulsets()[0].annotations["x"] = "y"
    for claim in cluster.pvcs("web"):
        claim.labels["x"] = "y"
    for rev in cluster.revisions("web"):
        rev.labels["x"] = "y"
        rev.template.clear()
    for svc in cluster.services():
        svc.spec.clear()
    assert cluster.dump() == before


def test_changing_what_a_write_returns_changes_nothing(cluster):
    before = cluster.dump()
    cluster.scale("web", 2).spec.template["metadata"]["labels"]["app"] = "other"
    cluster.patch_pod("web-0", {"metadata": {"labels": {"tier": "a"}}}).labels["tier"] = "b"
    assert cluster.pod("web-0").labels["tier"] == "a"
    del before  # the patch above changed the pod on purpose; the returned objects changed nothing else
    assert cluster.statefulset("web").spec.template["metadata"]["labels"]["app"] == "nginx"


def test_a_pod_the_kubelet_hands_back_is_the_callers_copy():
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")
    before = None
    for verb in ("start", "set_ready", "set_unready", "crash", "fail"):
        pod = getattr(c.kubelet, verb)("web-0")
        before = c.dump()
        pod.labels["app"] = "other"
        pod.spec["containers"][0]["image"] = "x"
        assert c.dump() == before, verb


def test_changing_what_a_sync_or_preview_returns_changes_nothing():
    """The pods (and claims, revisions) a decision carries are the caller's copies."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2, claims=True))
    r = c.sync("web")
    created = [d for d in r.decisions if d.payload is not None and d.action in ("create", "create-pvc",
                                                                                 "create-revision")]
    assert {d.action for d in created} == {"create", "create-pvc", "create-revision"}
    before = c.dump()
    for d in created:
        d.payload.labels["app"] = "other"
    assert c.dump() == before
    c.settle("web")
    c.scale("web", 1)
    for record in (c.preview("web"), c.sync("web")):
        (delete,) = [d for d in record.decisions if d.action == "delete"]
        assert delete.pod == "web-1"
        delete.payload.labels.clear()
        assert c.pod("web-1").labels["app"] == "nginx"


def test_no_module_defines_a_top_level_name_twice():
    """A second `def` of a name silently replaces the first (a merge of two branches did that to a test
    helper once, and six tests called the wrong one): every module of the package and of the tests
    defines each top-level function and class once."""
    twice = []
    root = Path(__file__).resolve().parents[2]
    for path in sorted([*(root / "stsedu").rglob("*.py"), *(root / "tests").rglob("*.py")]):
        seen: set[str] = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name in seen:
                    twice.append(f"{path.relative_to(root)}: {node.name} (line {node.lineno})")
                seen.add(node.name)
    assert twice == []
