"""A real control plane beside the kit (docs/live.md).

* :mod:`.build`: the pinned Go modules (``controlplane/go.mod``, ``kwok/go.mod``) and the binary
  caches; :func:`kubectl_path` returns the built kubectl or None;
* :mod:`.controlplane`: :class:`ControlPlane`, etcd + kube-apiserver + kube-controller-manager
  on loopback ports (a context manager);
* :mod:`.daemon`: ``stsedu live up|down|status``;
* :mod:`.kubelet`: the kit's kubelet model acting through the API;
* :mod:`.kwok`: KWOK as the kubelet instead, one the kit did not write (``live run --kubelet kwok``);
* :mod:`.recorder`: watch events as the kit's trace rows;
* :mod:`.runner`: a scenario's steps on a real cluster, and the comparison with the kit.

Importing this package is light: the Kubernetes client loads only when it is used.
"""

from .build import LiveUnavailable, kubectl_path

__all__ = ["LiveUnavailable", "kubectl_path", "ControlPlane"]


def __getattr__(name):
    if name == "ControlPlane":
        from .controlplane import ControlPlane
        return ControlPlane
    raise AttributeError(f"module 'stsedu.live' has no attribute {name!r}")
