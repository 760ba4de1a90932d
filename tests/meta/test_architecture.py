"""The package's shape: no import cycle, no module too long to read, no reaching into the facade,
and objects handed to callers that do not alias the cluster's stored state."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stsedu
from helpers import web

PACKAGE = Path(stsedu.__file__).parent
MAX_LINES = 800


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


def test_nothing_below_the_facade_imports_it():
    """Only what sits above the cluster (what learners touch, and the package's front door) imports
    ``stsedu.cluster``: the API server, the simulation, the controller and the trace never do."""
    below = ("stsedu.api", "stsedu.sim", "stsedu.controller", "stsedu.views.kubectl", "stsedu.trace")
    # kubectl's command line (issue 29) is what learners touch: a session makes its cluster; kubectl's
    # printers (get, describe, rollout...) stay below the facade
    above = ("stsedu.views.kubectl.session", "stsedu.views.kubectl.magic", "stsedu.views.kubectl.cli")
    importers = sorted(m for m, deps in _graph().items() if "stsedu.cluster" in deps)
    assert [m for m in importers if m.startswith(below) and m not in above] == []


def test_no_module_calls_private_methods_of_the_facade():
    """No module reaches into a Cluster's private attributes (``cluster._x``, ``c._x``)."""
    offenders = []
    for name, path in _modules().items():
        if name == "stsedu.cluster":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id in ("cluster", "c")):
                offenders.append(f"{name}:{node.lineno} {node.value.id}.{node.attr}")
    assert offenders == []


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_is_over_800_lines(name):
    lines = len(_modules()[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines"


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
