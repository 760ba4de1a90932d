"""The Kubernetes Python client (the official ``kubernetes`` package), loaded only when used.

``pip install 'stsedu[live]'`` installs it; without it :func:`api_client` raises
:class:`~stsedu.live.build.LiveUnavailable` with the command to run.

A kubeconfig named by the user is read through the kit's bounded reader first
(:data:`KUBECONFIG`: a regular file -- not a folder, a pipe or ``/dev/zero`` -- of at most 1 MiB,
holding one YAML mapping), so a bad one is one line, never a hang or a traceback.  Every request of
the client made here has a connect and a read timeout (:data:`CONNECT_TIMEOUT`,
:data:`READ_TIMEOUT`, no retries): a server that accepts the connection and never answers is
reported, naming the timeout that fired, instead of waited on for ever.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..files import FileReadError, Limits, load_yaml, read_text
from .build import LiveUnavailable

KUBECONFIG = Limits("kubeconfig", 1 << 20)
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the API server to accept a connection."""
READ_TIMEOUT = 30.0
"""Seconds to wait for an answer once connected (a request that names its own timeout keeps it:
the watches ask for 10 s)."""


def kubernetes_module():
    try:
        import kubernetes  # noqa: F401
    except ImportError:
        raise LiveUnavailable("the Kubernetes Python client is not installed: pip install 'stsedu[live]'") from None
    return kubernetes


def check_kubeconfig(path: str | os.PathLike) -> None:
    """Refuse a kubeconfig that is not a regular file of at most 1 MiB holding a YAML mapping,
    before the client (or kubectl) opens it: :class:`LiveUnavailable` naming the path."""
    try:
        data = load_yaml(read_text(path, KUBECONFIG), KUBECONFIG)
    except FileReadError as e:
        raise LiveUnavailable(f"cannot read the kubeconfig {path}: {e}") from None
    if not isinstance(data, dict):
        raise LiveUnavailable(f"cannot read the kubeconfig {path}: not a kubeconfig (a YAML mapping with "
                              f"clusters, contexts and users), but {type(data).__name__ if data is not None else 'empty'}")


def default_kubeconfig() -> Path | None:
    """The kubeconfig the client reads when none is named: ``$KUBECONFIG`` (one path) or
    ``~/.kube/config``; None for a list of paths (the client merges them itself)."""
    env = os.environ.get("KUBECONFIG")
    if env:
        return Path(env) if os.pathsep not in env else None
    return Path.home() / ".kube" / "config"


def timeout_message(host: str, exc: BaseException) -> str | None:
    """The one line for a timeout of urllib3 inside *exc*, naming which one fired; None if it is none."""
    import urllib3
    reason = getattr(exc, "reason", None) or exc
    if isinstance(reason, urllib3.exceptions.ConnectTimeoutError) or isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        return f"the API server at {host} did not accept a connection within the connect timeout of {CONNECT_TIMEOUT:g} s"
    if isinstance(reason, urllib3.exceptions.ReadTimeoutError) or isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        return f"the API server at {host} did not answer within the read timeout of {READ_TIMEOUT:g} s"
    return None


def api_client(kubeconfig: str | None = None, context: str | None = None):
    """An ``ApiClient`` for *kubeconfig* (default: ``$KUBECONFIG`` or ``~/.kube/config``) and *context*,
    whose requests time out (:data:`CONNECT_TIMEOUT`, :data:`READ_TIMEOUT`)."""
    k = kubernetes_module()
    from kubernetes.config.config_exception import ConfigException
    path = Path(kubeconfig) if kubeconfig is not None else default_kubeconfig()
    if path is not None and (kubeconfig is not None or path.exists()):
        check_kubeconfig(path)

    class TimedApiClient(k.client.ApiClient):
        """Every request with a connect and a read timeout unless it names its own."""

        def call_api(self, method, url, header_params=None, body=None, post_params=None, _request_timeout=None):
            import urllib3
            if _request_timeout is not None:
                return super().call_api(method, url, header_params, body, post_params, _request_timeout)
            try:
                return super().call_api(method, url, header_params, body, post_params,
                                        (CONNECT_TIMEOUT, READ_TIMEOUT))
            except (urllib3.exceptions.HTTPError, OSError) as e:
                why = timeout_message(self.configuration.host, e)
                if why is None:
                    raise
                raise LiveUnavailable(why) from None

    try:
        cfg = k.client.Configuration()
        k.config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
        cfg.connection_pool_maxsize = 32  # several watches (recorder, kubelet) share one client
        cfg.retries = 0  # a timeout is reported at once, not tried again in silence
        return TimedApiClient(cfg)
    except ConfigException as e:
        raise LiveUnavailable(f"cannot use the kubeconfig {kubeconfig or '(default)'}: {e}") from None
    except FileNotFoundError as e:
        raise LiveUnavailable(f"cannot read the kubeconfig: {e}") from None
