"""KWOK as the kubelet: pods run by a kubelet stand-in the kit did not write (``--kubelet kwok``).

KWOK (``sigs.k8s.io/kwok`` v0.8.0, built by :mod:`.build` from ``stsedu/live/kwok/go.mod``) is a
controller that plays the kubelet of the nodes it manages through *stages*: each stage selects pods by
their fields, waits its delay and writes a status (or deletes the pod). :func:`stages` writes the four
stages of the kit's lifecycle with the scenario's :class:`~stsedu.sim.kubelet.StageProfile` delays:

* ``stsedu-pod-create`` (at once): a bound pod's containers are ``ContainerCreating`` (phase Pending);
* ``stsedu-pod-start`` (after ``stages.start``): phase Running, the container running, not Ready;
* ``stsedu-pod-ready`` (after ``stages.ready``): Ready and ContainersReady True;
* ``stsedu-pod-delete`` (after ``stages.terminate``): a pod marked for deletion is deleted for good.

KWOK's own stages (``kustomize/stage/pod/general``) turn a pod Running and Ready in one write; these
split it in two, as a kubelet whose readiness probe passes after a while does. What KWOK has not is
every other part of a kubelet the kit models: no readiness probe failing, no crash loop, no eviction,
no node shutdown, no active deadline (docs/live.md lists the scenarios that need them).

KWOK does not schedule and does not provision volumes: :class:`KwokKubelet` runs KWOK for one node
of its own (``kwok-<namespace>``, registered Ready, as :func:`~.kubelet.register_node` does) and the
kit's :class:`~.kubelet.APIKubelet` in ``schedule`` mode binds the namespace's pods to that node and its
claims to volumes, as the scheduler and a provisioner would. One KWOK per namespace, so each run has
its own stage delays.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from . import build as _build
from .build import LiveUnavailable

KUBELET = f"KWOK {_build.KWOK_VERSION} (sigs.k8s.io/kwok)"
START_TIMEOUT = 30.0

_NOT_DELETED = {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"}


def _conditions(ready: bool) -> str:
    """The pod's conditions in a status template, in the order a kubelet reports them."""
    value = '"True"' if ready else '"False"'
    return "".join(f"- type: {t}\n  status: {v}\n  lastTransitionTime: {{{{ $now | Quote }}}}\n" for t, v in (
        ("PodReadyToStartContainers", '"True"'), ("Initialized", '"True"'), ("Ready", value),
        ("ContainersReady", value), ("PodScheduled", '"True"')))


def _containers(state: str, ready: bool) -> str:
    return ("{{ range .spec.containers }}\n"
            "- name: {{ .name | Quote }}\n  image: {{ .image | Quote }}\n  imageID: \"\"\n"
            f"  ready: {str(ready).lower()}\n  started: {str(state == 'running').lower()}\n  restartCount: 0\n"
            f"  state:\n{_state_block(state)}"
            "{{ end }}\n")


def _state_block(state: str) -> str:
    if state == "running":
        return "    running:\n      startedAt: {{ $now | Quote }}\n"
    return "    waiting:\n      reason: ContainerCreating\n"


def _stage(name: str, selector: list[dict], seconds: float, status: str | None, kind: str = "Pod") -> dict:
    nxt = {"delete": True} if status is None else {"statusTemplate": "{{ $now := Now }}\n" + status}
    return {"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Stage", "metadata": {"name": name},
            "spec": {"resourceRef": {"apiGroup": "v1", "kind": kind}, "selector": {"matchExpressions": selector},
                     "delay": {"durationMilliseconds": int(round(seconds * 1000))}, "next": nxt}}


def stages(profile) -> list[dict]:
    """KWOK's Stage objects for the kit's lifecycle with *profile*'s delays (see the module's docstring).

    A pod marked for deletion goes after ``stages.terminate`` whatever its grace period (the kit: the
    shorter of the two); no shipped scenario has a grace period shorter than its ``terminate``."""
    pending = {"key": ".status.phase", "operator": "In", "values": ["Pending"]}
    return [
        _stage("stsedu-pod-create", [_NOT_DELETED, {"key": ".status.containerStatuses", "operator": "DoesNotExist"}],
               0, "phase: Pending\nhostIP: \"127.0.0.1\"\nconditions:\n"
                  "- type: PodScheduled\n  status: \"True\"\n  lastTransitionTime: {{ $now | Quote }}\n"
                  "containerStatuses:\n" + _containers("waiting", False)),
        _stage("stsedu-pod-start", [_NOT_DELETED, pending, {
            "key": ".status.containerStatuses.[].state.waiting.reason", "operator": "In",
            "values": ["ContainerCreating"]}],
               profile.start, "phase: Running\nstartTime: {{ $now | Quote }}\nhostIP: \"127.0.0.1\"\n"
                              "podIP: \"127.0.0.1\"\nconditions:\n" + _conditions(False)
                              + "containerStatuses:\n" + _containers("running", False)),
        _stage("stsedu-pod-ready", [_NOT_DELETED, {"key": ".status.phase", "operator": "In", "values": ["Running"]},
                                    {"key": '.status.conditions.[] | select( .type == "Ready" ) | .status',
                                     "operator": "In", "values": ["False"]}],
               profile.ready, "conditions:\n" + _conditions(True)
                              + "containerStatuses:\n{{ range .status.containerStatuses }}\n"
                                "- name: {{ .name | Quote }}\n  image: {{ .image | Quote }}\n  imageID: \"\"\n"
                                "  ready: true\n  started: true\n  restartCount: 0\n"
                                "  state:\n    running:\n      startedAt: {{ .state.running.startedAt | Quote }}\n"
                                "{{ end }}\n"),
        _stage("stsedu-pod-delete", [{"key": ".metadata.deletionTimestamp", "operator": "Exists"},
                                     {"key": ".metadata.finalizers", "operator": "DoesNotExist"}],
               profile.terminate, None),
        # KWOK manages a node (and so its pods) only with a node stage: the node is Ready already
        # (register_node); this one would make it Ready again if anything said otherwise
        _stage("stsedu-node-ready", [{"key": '.status.conditions.[] | select( .type == "Ready" ) | .status',
                                      "operator": "NotIn", "values": ["True"]}], 0,
               "conditions:\n- type: Ready\n  status: \"True\"\n  reason: KubeletReady\n"
               "  lastTransitionTime: {{ $now | Quote }}\n  lastHeartbeatTime: {{ $now | Quote }}\n", kind="Node"),
    ]


def node_name(namespace: str) -> str:
    return f"kwok-{namespace}"


class KwokKubelet:
    """KWOK for the one node :func:`node_name` names, with :func:`stages` for *profile*; :meth:`stop` ends it.

    Raise :class:`LiveUnavailable` (one line) when KWOK is not built or exits at start."""

    def __init__(self, api_client, kubeconfig: str, namespace: str | None, profile, context: str | None = None,
                 node: str | None = None) -> None:
        self.api, self.kubeconfig, self.context = api_client, kubeconfig, context
        self.node = node or node_name(namespace)
        self.profile = profile
        self.proc: subprocess.Popen | None = None
        self.workdir: Path | None = None

    def start(self) -> "KwokKubelet":
        why = _build.kwok_missing_reason()
        if why:
            raise LiveUnavailable(why)
        from .kubelet import register_node
        register_node(self.api, self.node, kubelet=KUBELET, version=f"kwok-{_build.KWOK_VERSION}")
        self.workdir = Path(tempfile.mkdtemp(prefix="stsedu-kwok-"))
        config = self.workdir / "stages.yaml"
        config.write_text("\n---\n".join(json.dumps(s) for s in stages(self.profile)))  # JSON is YAML
        kubeconfig = self.kubeconfig
        if self.context:  # KWOK reads the current context only: give it a kubeconfig of the named one
            kubeconfig = self.workdir / "kubeconfig"
            view = subprocess.run([_build.find_kubectl(), "config", "view", "--raw", "--minify", "--flatten",
                                   f"--kubeconfig={self.kubeconfig}", f"--context={self.context}"],
                                  capture_output=True, text=True, timeout=60)
            if view.returncode != 0:
                raise LiveUnavailable(f"kubectl config view --context={self.context}: {view.stderr.strip()[:200]}")
            kubeconfig.write_text(view.stdout)
            kubeconfig.chmod(0o600)
        argv = [_build.kwok_path(), f"--kubeconfig={kubeconfig}", f"--config={config}",
                f"--manage-single-node={self.node}"]
        log = open(self.workdir / "kwok.log", "wb")
        try:
            from .controlplane import spawn_options
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         **spawn_options())
        finally:
            log.close()
        time.sleep(0.5)
        if self.proc.poll() is not None:
            tail = self.log().strip().splitlines()[-3:]
            self.stop()
            raise LiveUnavailable(f"kwok exited with status {self.proc.returncode}: " + " | ".join(tail))
        return self

    def log(self) -> str:
        try:
            return (self.workdir / "kwok.log").read_text(errors="replace")
        except (OSError, TypeError):
            return ""

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """End KWOK, delete its node and remove its folder."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        try:
            from kubernetes import client
            client.CoreV1Api(self.api).delete_node(self.node, _request_timeout=10)
        except Exception:  # noqa: BLE001 - best effort: the node holds nothing but this run's pods
            pass
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
