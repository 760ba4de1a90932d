"""The Kubernetes Python client (the official ``kubernetes`` package), loaded only when used.

``pip install 'stsedu[live]'`` installs it; without it :func:`api_client` raises
:class:`~stsedu.live.build.LiveUnavailable` with the command to run.
"""

from __future__ import annotations

from .build import LiveUnavailable


def kubernetes_module():
    try:
        import kubernetes  # noqa: F401
    except ImportError:
        raise LiveUnavailable("the Kubernetes Python client is not installed: pip install 'stsedu[live]'") from None
    return kubernetes


def api_client(kubeconfig: str | None = None, context: str | None = None):
    """An ``ApiClient`` for *kubeconfig* (default: ``$KUBECONFIG`` or ``~/.kube/config``) and *context*."""
    k = kubernetes_module()
    from kubernetes.config.config_exception import ConfigException
    try:
        cfg = k.client.Configuration()
        k.config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
        cfg.connection_pool_maxsize = 32  # several watches (recorder, kubelet) share one client
        return k.client.ApiClient(cfg)
    except ConfigException as e:
        raise LiveUnavailable(f"cannot use the kubeconfig {kubeconfig or '(default)'}: {e}") from None
    except FileNotFoundError as e:
        raise LiveUnavailable(f"cannot read the kubeconfig: {e}") from None
