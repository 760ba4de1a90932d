"""Example manifests shipped with the kit (``stsedu/data/*.yaml``)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parents[1] / "data"


def names() -> list[str]:
    """Names of the shipped examples (``web`` is the concept page's web/nginx example)."""
    return sorted(p.stem for p in DATA.glob("*.yaml"))


def load(name: str = "web") -> str:
    """The YAML text of a shipped example.  Raise KeyError naming the known ones otherwise."""
    path = DATA / f"{name}.yaml"
    if not path.is_file():
        raise KeyError(f"no example {name!r}; known: {', '.join(names())}")
    return path.read_text()


def web(replicas: int = 3, policy: str = "OrderedReady", image: str = "nginx:1", *,
        claims: bool = False, **spec) -> dict:
    """A small StatefulSet ``web`` like the concept page's (Service ``nginx``, label app=nginx).

    *claims* adds the ``www`` volumeClaimTemplate and its mount; other keyword
    arguments are merged into ``spec`` as written (camelCase), e.g.
    ``minReadySeconds=10`` or ``updateStrategy={"type": "OnDelete"}``.
    """
    m = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
         "spec": {"replicas": replicas, "serviceName": "nginx", "podManagementPolicy": policy,
                  "selector": {"matchLabels": {"app": "nginx"}},
                  "template": {"metadata": {"labels": {"app": "nginx"}},
                               "spec": {"containers": [{"name": "nginx", "image": image}]}}}}
    if claims:
        m["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "www"},
                                              "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "1Gi"}}}}]
        m["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [
            {"name": "www", "mountPath": "/usr/share/nginx/html"}]
    m["spec"].update(spec)
    return m
