"""A local control plane: etcd, kube-apiserver and kube-controller-manager on loopback ports.

:class:`ControlPlane` starts the three real binaries (built by :mod:`.build`) in a temporary
folder, on free 127.0.0.1 ports, writes a kubeconfig, waits until the API server is ready
and the ``default`` ServiceAccount exists (without it every pod create is refused), and on
``stop()`` ends every process it started and removes the folder. Used as a context manager
it stops also after Ctrl-C or an exception; each child is started with ``PR_SET_PDEATHSIG``
(Linux), so it ends when the process that started it dies, even by ``kill -9``.

``kube-controller-manager`` runs only the ``statefulset``, ``garbagecollector``,
``serviceaccount`` (every pod create needs the ``default`` ServiceAccount), ``pvc-protection``
(a deleted claim goes once no pod uses it) and ``namespace`` controllers. There is no kubelet and no scheduler: :mod:`.kubelet` plays
the kit's kubelet through the API (or :mod:`.kwok` runs KWOK).
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import build as _build
from .build import LiveUnavailable

CONTROLLERS = "statefulset,garbagecollector,serviceaccount,pvc-protection,namespace"
SERVICE_CIDR = "10.96.0.0/24"
READY_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: a crash leaves no time for a graceful stop
    except OSError:
        pass
    os.setpgrp()  # the terminal's Ctrl-C reaches the parent only; it stops the children in order


def spawn_options() -> dict:
    """Popen's options for a process that ends with the one that started it (and gets no Ctrl-C of its own)."""
    return {"preexec_fn": _die_with_parent}


def write_kubeconfig(path: Path, server: str, token: str, ca_file: str | None, context: str = "stsedu-live") -> None:
    cluster = {"server": server}
    if ca_file:
        cluster["certificate-authority"] = ca_file
    else:
        cluster["insecure-skip-tls-verify"] = True
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": context,
        "clusters": [{"name": context, "cluster": cluster}],
        "users": [{"name": "stsedu-admin", "user": {"token": token}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": "stsedu-admin",
                                                   "namespace": "default"}}],
    }
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")  # JSON is YAML
    path.chmod(0o600)


class ControlPlane:
    """A running (or startable) local control plane; ``with ControlPlane() as cp: ...``.

    After :meth:`start`: :attr:`kubeconfig` (a file path), :attr:`server` (``https://127.0.0.1:PORT``),
    :attr:`workdir` (the temp folder, removed by :meth:`stop`), :attr:`pids`.
    *feature_gates* (``{"StatefulSetRecreateStrategy": True}``) are passed to the API server and the
    controller manager as ``--feature-gates``; the others keep v1.37's defaults.
    Raise :class:`LiveUnavailable` (one line) when the binaries are not built or it does not start.
    """

    def __init__(self, workdir: str | Path | None = None, log=None, feature_gates: dict[str, bool] | None = None) -> None:
        self._given_dir = Path(workdir) if workdir else None
        self.feature_gates = dict(feature_gates or {})
        self.workdir: Path | None = None
        self.kubeconfig: Path | None = None
        self.server: str | None = None
        self.procs: dict[str, subprocess.Popen] = {}
        self._log = log or (lambda msg: None)

    @property
    def pids(self) -> dict[str, int]:
        return {n: p.pid for n, p in self.procs.items()}

    # ---------------------------------------------------------------- start
    def start(self) -> "ControlPlane":
        reason = _build.missing_reason()
        if reason:
            raise LiveUnavailable(reason)
        if shutil.which("openssl") is None:
            raise LiveUnavailable("openssl is needed to make the service-account key pair (apt-get install openssl)")
        if self._given_dir:
            self._given_dir.mkdir(parents=True, exist_ok=True)
            self.workdir = self._given_dir
        else:
            self.workdir = Path(tempfile.mkdtemp(prefix="stsedu-live-"))
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        d = self.workdir
        for sub in ("etcd", "certs", "logs"):
            (d / sub).mkdir(exist_ok=True)
        subprocess.run(["openssl", "genrsa", "-out", str(d / "sa.key"), "2048"], check=True,
                       capture_output=True)
        subprocess.run(["openssl", "rsa", "-in", str(d / "sa.key"), "-pubout", "-out", str(d / "sa.pub")],
                       check=True, capture_output=True)
        token = secrets.token_hex(16)
        (d / "tokens.csv").write_text(f'{token},stsedu-admin,stsedu-admin,"system:masters"\n')
        etcd_port, peer_port, api_port = free_port(), free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{etcd_port}"
        self._spawn("etcd", [
            str(_build.binary("etcd")), "--data-dir", str(d / "etcd"), "--name", "stsedu",
            "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
            "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
            "--initial-cluster", f"stsedu=http://127.0.0.1:{peer_port}",
            "--unsafe-no-fsync", "--quota-backend-bytes", str(1 << 30)])
        self.server = f"https://127.0.0.1:{api_port}"
        self._spawn("kube-apiserver", [
            str(_build.binary("kube-apiserver")), f"--etcd-servers={etcd_url}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={d / 'sa.pub'}",
            f"--service-account-signing-key-file={d / 'sa.key'}",
            f"--cert-dir={d / 'certs'}", f"--secure-port={api_port}", "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
            f"--token-auth-file={d / 'tokens.csv'}", "--authorization-mode=AlwaysAllow",
            f"--service-cluster-ip-range={SERVICE_CIDR}", *self._gates()])
        self._wait_ready(token)
        ca = d / "certs" / "apiserver.crt"
        self.kubeconfig = d / "kubeconfig"
        write_kubeconfig(self.kubeconfig, self.server, token, str(ca) if ca.exists() else None)
        self._spawn("kube-controller-manager", [
            str(_build.binary("kube-controller-manager")), f"--kubeconfig={self.kubeconfig}",
            f"--controllers={CONTROLLERS}", "--leader-elect=false", "--secure-port=0",
            f"--service-cluster-ip-range={SERVICE_CIDR}", *self._gates()])
        self._wait_service_account()
        (d / "state.json").write_text(json.dumps(self.state()))

    def _gates(self) -> list[str]:
        if not self.feature_gates:
            return []
        return ["--feature-gates=" + ",".join(f"{g}={str(v).lower()}" for g, v in sorted(self.feature_gates.items()))]

    def state(self) -> dict:
        return {"workdir": str(self.workdir), "kubeconfig": str(self.kubeconfig), "server": self.server,
                "pids": self.pids, "supervisor": os.getpid()}

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.workdir / "logs" / f"{name}.log", "wb")
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, cwd=self.workdir,
                                                preexec_fn=_die_with_parent)
        finally:
            log.close()
        self._log(f"started {name} (pid {self.procs[name].pid})")

    def _check_alive(self) -> None:
        for name, p in self.procs.items():
            if p.poll() is not None:
                tail = (self.workdir / "logs" / f"{name}.log").read_text(errors="replace").strip().splitlines()[-3:]
                raise LiveUnavailable(f"{name} exited with status {p.returncode}: " + " | ".join(tail))

    def _wait_ready(self, token: str) -> None:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # only for the readiness probe, before the CA file exists
        req = urllib.request.Request(self.server + "/readyz", headers={"Authorization": f"Bearer {token}"})
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            self._check_alive()
            try:
                with urllib.request.urlopen(req, context=ctx, timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise LiveUnavailable(f"kube-apiserver was not ready after {READY_TIMEOUT:.0f} s "
                                      f"(logs in {self.workdir / 'logs'})")
            time.sleep(0.25)

    def _wait_service_account(self) -> None:
        core = self.core()
        deadline = time.monotonic() + READY_TIMEOUT
        from kubernetes.client.exceptions import ApiException
        while True:
            self._check_alive()
            try:
                core.read_namespaced_service_account("default", "default")
                return
            except ApiException as e:
                if e.status != 404:
                    raise
            if time.monotonic() > deadline:
                raise LiveUnavailable("the default ServiceAccount did not appear "
                                      f"(kube-controller-manager log in {self.workdir / 'logs'})")
            time.sleep(0.25)

    # ---------------------------------------------------------------- clients
    def api_client(self):
        from .client import api_client
        return api_client(str(self.kubeconfig))

    def core(self):
        from kubernetes import client
        return client.CoreV1Api(self.api_client())

    # ---------------------------------------------------------------- stop
    def stop(self) -> None:
        """End every process (controller manager, API server, etcd, in that order) and remove the folder."""
        for name in ("kube-controller-manager", "kube-apiserver", "etcd"):
            p = self.procs.get(name)
            if p is None:
                continue
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=10)
        self.procs.clear()
        if self.workdir is not None and self.workdir.exists():
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir = None

    def __enter__(self) -> "ControlPlane":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
