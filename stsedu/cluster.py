"""The Cluster facade: the embedded, in-memory stand-in for a Kubernetes cluster.

Everything a learner does goes through :class:`Cluster`: apply manifests,
scale, patch, delete pods, step the controller (``sync``), let time pass
(``advance``) or do both until the set settles (``run``).  Every user call
validates first and changes nothing when it raises.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any, Callable, Mapping

from . import arguments
from . import controller as _controller
from .clock import LATE, Clock
from .decisions import SyncResult
from .errors import APIError, ValidationError
from .gc import FOREGROUND, GarbageCollector
from .kubelet import Kubelet, StageProfile
from .model import (ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet,
                    StatefulSetStatus, selector_matches)
from .profiles import KNOWN_GATES, Profile, get_profile
from .store import Store
from .trace import Trace

__all__ = ["Cluster"]

CASCADES = ("background", "foreground", "orphan")
REQUEUE_BASE = 0.005
"""First retry delay after a failed sync, in seconds (workqueue's exponential failure rate limiter)."""
REQUEUE_MAX = 1000.0
"""Longest retry delay after repeated failures, in seconds."""
FAULT_VERBS = ("create", "update", "delete")
FAULT_KINDS = ("Pod", "PersistentVolumeClaim", "ControllerRevision", "StatefulSet")


def _manifests():
    from . import manifests
    return manifests


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: dicts merge, ``None`` deletes, anything else replaces."""
    if not isinstance(patch, Mapping):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, Mapping) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


class Cluster:
    """An object store, the StatefulSet controller, a simulated kubelet and a clock.

    *kubelet* is ``"auto"`` (pods move as time passes, after the delays of
    *stages*, a :class:`~stsedu.kubelet.StageProfile` or a dict) or
    ``"manual"`` (nothing moves unless you move it).  *seed* makes the auto
    kubelet's jitter repeatable.  *profile* picks the controller release
    (``"current"``, ``"v1.36"``, ``"v1.16"``); *feature_gates* override its
    gate defaults.  *gc_delay* is how long the garbage collector takes to
    notice a gone owner (default: 0 in manual mode, 1 s in auto mode).

    Raise :class:`ValidationError` (a ValueError) listing every bad argument
    (docs/validation.md, "Calls").
    """

    def __init__(self, kubelet: str = "auto", seed: int = 0, profile: str | Profile = "current",
                 feature_gates: Mapping[str, bool] | None = None,
                 stages: StageProfile | Mapping[str, float] | None = None,
                 cluster_domain: str = "cluster.local", gc_delay: float | None = None) -> None:
        arguments.check("", arguments.cluster_options(
            kubelet=kubelet, seed=seed, profile=profile, feature_gates=feature_gates, stages=stages,
            cluster_domain=cluster_domain, gc_delay=gc_delay))
        seed = arguments.as_integer(seed)
        self.profile = get_profile(profile)
        gates = dict(feature_gates or {})
        self.feature_gates = {**self.profile.gates, **gates}
        if not isinstance(stages, StageProfile):
            stages = StageProfile.from_dict(dict(stages) if stages else None)
        self.seed = seed
        self.cluster_domain = cluster_domain
        self.clock = Clock()
        self.store = Store(self.clock)
        from . import __version__
        self.trace = Trace({"version": __version__, "profile": self.profile.name, "seed": seed,
                            "kubelet": kubelet, "feature_gates": dict(self.feature_gates)})
        self.kubelet = Kubelet(self, kubelet, stages, seed)
        if gc_delay is None:
            gc_delay = 0.0 if kubelet == "manual" else 1.0
        self.gc = GarbageCollector(self, gc_delay)
        self._faults: list[_controller.Fault] = []
        self._seq = 0
        self._memo: dict = {}
        self._planner: Callable = _planner_for(self.profile)
        self.store.listeners.append(self._on_write)
        self.last_warnings: list[str] = []
        """Warnings of the last successful ``apply``/``patch`` (unknown fields, skipped documents)."""
        self.last_skipped: list[tuple[str, str]] = []
        """``(kind, name)`` of the documents the last ``apply`` did not apply (kinds stsedu does not simulate)."""

    # ================================================================ reads
    @property
    def now(self) -> float:
        """The clock, in seconds since the cluster was made."""
        return self.clock.now

    def statefulset(self, name: str, namespace: str = "default") -> StatefulSet:
        """The stored StatefulSet.  Raise KeyError if there is none."""
        sts = self.store.get("StatefulSet", namespace, name)
        if sts is None:
            raise KeyError(f'statefulsets.apps "{name}" not found')
        return sts

    def statefulsets(self, namespace: str | None = None) -> list[StatefulSet]:
        return self.store.list("StatefulSet", namespace)

    def _with_availability(self, pod: Pod) -> Pod:
        from .predicates import is_running_and_available
        mrs = 0
        owner = pod.owner
        if owner is not None and self.profile.min_ready_seconds:
            sts = self.store.get("StatefulSet", pod.namespace, owner)
            if sts is not None:
                mrs = sts.spec.min_ready_seconds
        avail = pod.phase == "Running" and is_running_and_available(pod, mrs, self.now)
        return pod if avail == pod.available else replace(pod, available=avail)

    def pods(self, set_name: str | None = None, namespace: str = "default") -> list[Pod]:
        """Pods (of one set if *set_name*: those it owns, terminating ones included), by ordinal."""
        pods = self.store.list("Pod", namespace)
        if set_name is not None:
            pods = [p for p in pods if p.owner == set_name]
        return sorted((self._with_availability(p) for p in pods), key=lambda p: (p.parent, p.ordinal, p.name))

    def pod(self, name: str, namespace: str = "default") -> Pod:
        """One pod.  Raise KeyError if there is none."""
        pod = self.store.get("Pod", namespace, name)
        if pod is None:
            raise KeyError(f'pods "{name}" not found')
        return self._with_availability(pod)

    def pvcs(self, set_name: str | None = None, namespace: str = "default") -> list[PersistentVolumeClaim]:
        """Claims (of one set's volumeClaimTemplates if *set_name*), sorted by name."""
        claims = self.store.list("PersistentVolumeClaim", namespace)
        if set_name is not None:
            claims = [c for c in claims if _claim_of(c.name, set_name)]
        return sorted(claims, key=lambda c: _claim_sort_key(c.name))

    def revisions(self, set_name: str, namespace: str = "default") -> list[ControllerRevision]:
        """The set's ControllerRevisions, oldest (lowest number) first."""
        sts = self.store.get("StatefulSet", namespace, set_name)
        revs = self.store.list("ControllerRevision", namespace)
        if sts is not None:
            return _controller.set_revisions(sts, revs)
        return sorted((r for r in revs if r.name.rsplit("-", 1)[0] == set_name),
                      key=lambda r: (r.revision, r.seq))

    def services(self, namespace: str = "default") -> list[Service]:
        return self.store.list("Service", namespace)

    def service(self, name: str, namespace: str = "default") -> Service:
        svc = self.store.get("Service", namespace, name)
        if svc is None:
            raise KeyError(f'services "{name}" not found')
        return svc

    def dump(self) -> dict:
        """Every stored object's manifest plus the clock and trace sizes (to compare states)."""
        return {"objects": self.store.dump(), "now": self.now,
                "trace": {k: len(v) for k, v in self.trace.rows().items()}}

    # ============================================================ the controller
    def sync(self, name: str, namespace: str = "default") -> SyncResult:
        """Exactly one reconcile of one StatefulSet.  Raise KeyError if it does not exist."""
        return _controller.sync(self, name, namespace)

    def preview(self, name: str, namespace: str = "default"):
        """The plan the next sync would carry out, without doing anything."""
        from . import control
        sts = self.statefulset(name, namespace)
        snap = control.Snapshot(
            sts=sts, pods=tuple(_controller.claimed_pods(sts, self.store.list("Pod", namespace))),
            claims=self.store.view("PersistentVolumeClaim", namespace),
            revisions=tuple(_controller.set_revisions(sts, self.store.list("ControllerRevision", namespace))),
            namespace_revisions=self.store.view("ControllerRevision", namespace), now=self.now)
        return self._planner(snap, self.profile, self.feature_gates)

    def advance(self, seconds: float) -> float:
        """Move the clock forward; the auto kubelet and the garbage collector act.  Returns the new time.

        Raise :class:`ValidationError` (a ValueError; nothing moves) unless
        *seconds* is a finite number >= 0.
        """
        arguments.check("advance", arguments.number(seconds, "seconds"))
        self.clock.advance_to(self.now + seconds)
        return self.now

    def run(self, name: str, max_syncs: int = 1000, namespace: str = "default",
            until: float | None = None) -> list[SyncResult]:
        """Sync, and let time pass while the controller only waits, until the set is stable.

        A sync follows every change the controller made itself; when a sync
        only waits, the clock jumps to the next scheduled event (a kubelet
        stage, the garbage collector, an availability requeue).  A sync that
        failed (an API error) is retried after the controller's rate-limited
        requeue delay: 5 ms, then 10 ms, 20 ms, ... (at most 1000 s), reset by
        a sync that succeeds (``DefaultControllerRateLimiter``).  Stops when a
        sync changes nothing and nothing is scheduled (stable, or stuck with
        nothing left to happen), after *max_syncs* syncs, or at time *until*.

        Raise KeyError if the set does not exist and :class:`ValidationError`
        (a ValueError) unless *max_syncs* is an integer >= 1 and *until* None
        or a finite number; either way before anything happens.
        """
        self.statefulset(name, namespace)
        arguments.check("run", arguments.integer(max_syncs, "max_syncs", minimum=1)
                        + arguments.number(until, "until", minimum=None, allow_none=True))
        results: list[SyncResult] = []
        failures = 0
        while len(results) < max_syncs:
            self.clock.advance_to(self.now)
            result = self.sync(name, namespace)
            results.append(result)
            if result.error:
                # requeue with rate limiting: the workqueue's per-item exponential backoff
                delay = min(REQUEUE_BASE * 2 ** failures, REQUEUE_MAX)
                failures += 1
                if until is not None and self.now + delay > until:
                    break
                self.clock.advance_to(self.now + delay)
                continue
            failures = 0
            if result.changed:
                continue
            nxt = self.clock.peek()
            if nxt is None or (until is not None and nxt > until):
                break
            self.clock.advance_to(nxt)
        return results

    # ============================================================== user actions
    def apply(self, manifest: str | Mapping | list) -> StatefulSet | Service:
        """Create or update objects from YAML text, a dict or a list of dicts (like ``kubectl apply``).

        Every document is defaulted and validated first; only if all the
        StatefulSet and Service documents are valid is any of them stored, in
        order (a later document with the same name updates the earlier one).
        Documents of other kinds are skipped and reported, as kubectl reports a
        kind the server does not serve: their ``(kind, name)`` go to
        :attr:`last_skipped`, a note to :attr:`last_warnings` and a Warning
        event to the trace.  Unknown fields are accepted with a warning
        (``unknown field "spec.replica"``), in :attr:`last_warnings` and the
        trace, as ``kubectl apply`` prints them.

        Returns the stored StatefulSet (the last one, if several), else the
        last object stored.  Raise :class:`ValidationError` (and change
        nothing) if the text cannot be read, if a document is invalid (the
        error lists every problem of the first invalid document; ``.others``
        holds one error per further invalid document; ``.warnings`` the
        unknown-field warnings), or if no document is a StatefulSet or a Service.
        Raise TypeError if *manifest* is not text, a dict or a list of dicts.
        """
        m = _manifests()
        docs = m.load_documents(manifest)
        if not docs:
            raise ValidationError([("", "no objects passed to apply")], kind="manifest")
        planned: list[tuple[str, dict]] = []
        pending: dict[tuple[str, str, str], dict] = {}
        warnings: list[tuple[str, str]] = []
        skipped: list[tuple[str, str, str]] = []
        invalid: list[ValidationError] = []
        for doc in docs:
            kind = doc.get("kind")
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
            name = meta.get("name") if isinstance(meta.get("name"), str) else ""
            ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") \
                else "default"
            if kind not in ("StatefulSet", "Service"):
                skipped.append((str(kind), name, str(doc.get("apiVersion"))))
                continue
            obj = f"{kind.lower()}/{name}"
            doc_warnings = m.unknown_fields(doc)
            warnings += [(obj, w) for w in doc_warnings]
            errs = m._api_version_errors(doc)
            key = (kind, ns, name)
            if errs:  # the API server has no such resource: nothing else is looked at
                new = None
            elif kind == "StatefulSet":
                old = pending.get(key)
                if old is None:
                    stored = self.store.get("StatefulSet", ns, name)
                    old = self._defaulted(stored) if stored is not None else None
                new = m.default_statefulset(doc, max_unavailable_gate=self._max_unavailable_gate, old=old)
                errs += m.validate_statefulset_update(new, old) if old is not None else m.validate_statefulset(new)
                errs += self._profile_errors(new)
            else:
                new = m.default_service(doc)
                errs += m.validate_service(new)
            if errs:
                invalid.append(m.validation_error(kind, name, errs, doc_warnings))
                continue
            pending[key] = new
            planned.append((kind, new))
        if invalid:
            first = invalid[0]
            raise ValidationError(first.errors, kind=first.kind, name=first.name,
                                  warnings=[w for _, w in warnings], others=invalid[1:])
        if not planned:
            kind, name, _ = skipped[0]
            raise ValidationError([("kind", f'Unsupported value: "{kind}": stsedu simulates '
                                    'StatefulSet and Service objects only')], kind=kind or "object", name=name)
        stored = last_sts = None
        for kind, new in planned:
            if kind == "StatefulSet":
                meta = new["metadata"]
                old_sts = self.store.get("StatefulSet", meta.get("namespace") or "default", meta["name"])
                stored = last_sts = self._store_statefulset(new, old_sts, "user: apply")
            else:
                stored = self._store_service(new)
        notes = [(obj, w) for obj, w in warnings]
        for kind, name, version in skipped:
            notes.append((f"{kind.lower()}/{name}", f'skipped {kind} "{name}": no matches for kind "{kind}" in '
                          f'version "{version}" (stsedu simulates StatefulSet and Service objects only)'))
        self.last_warnings = [w for _, w in notes]
        self.last_skipped = [(kind, name) for kind, name, _ in skipped]
        for obj, w in notes:
            self.trace.add_event("Warning", "UnknownField" if w.startswith("unknown field") else "Skipped", obj, w)
        return last_sts if last_sts is not None else stored

    @property
    def _max_unavailable_gate(self) -> bool:
        return self.profile.max_unavailable_supported and self.profile.gate(
            self.feature_gates, "MaxUnavailableStatefulSet")

    def _defaulted(self, sts: StatefulSet) -> dict:
        m = sts.to_manifest()
        m.pop("status", None)
        return m

    def _profile_errors(self, new: dict) -> list[tuple[str, str]]:
        hook = getattr(_manifests(), "profile_errors", None)
        return list(hook(new, self.profile)) if hook else []

    def _store_statefulset(self, new: dict, old: StatefulSet | None, cause: str) -> StatefulSet:
        sts = StatefulSet.from_manifest(new)
        if old is None:
            stored = self.store.create("StatefulSet", sts)
            self.trace.add_event("Normal", "User", f"statefulset/{sts.name}", f"{cause}: created")
            self._warn_missing_service(stored)
            return stored
        spec_changed = dict(old.spec.raw) != dict(sts.spec.raw)
        stored = self.store.update("StatefulSet", replace(
            old, spec=sts.spec, labels=sts.labels, annotations=sts.annotations,
            generation=old.generation + (1 if spec_changed else 0)))
        self.trace.add_event("Normal", "User", f"statefulset/{sts.name}",
                             f"{cause}: " + ("spec changed, generation " + str(stored.generation)
                                             if spec_changed else "unchanged"))
        return stored

    def _warn_missing_service(self, sts: StatefulSet) -> None:
        name = sts.spec.service_name
        if not name:
            return
        svc = self.store.get("Service", sts.namespace, name)
        if svc is None or not svc.headless:
            why = "does not exist" if svc is None else "is not headless (clusterIP: None)"
            self.trace.add_event("Warning", "ServiceMissing", f"statefulset/{sts.name}",
                                 f'the governing Service "{name}" {why}: create a headless Service '
                                 "so each pod gets its DNS name")

    def _store_service(self, new: dict) -> Service:
        meta = new["metadata"]
        svc = Service(name=meta["name"], namespace=meta.get("namespace", "default"),
                      labels=dict(meta.get("labels") or {}), spec=copy.deepcopy(new.get("spec") or {}))
        old = self.store.get("Service", svc.namespace, svc.name)
        if old is None:
            return self.store.create("Service", svc)
        return self.store.update("Service", replace(old, spec=svc.spec, labels=svc.labels))

    def _edit(self, name: str, namespace: str, fn: Callable[[dict], dict], cause: str) -> StatefulSet:
        m = _manifests()
        old = self.statefulset(name, namespace)
        current = self._defaulted(old)
        new = fn(copy.deepcopy(current))
        if not isinstance(new, Mapping):
            raise ValidationError([("", "patch must be a JSON object")], name=name)
        meta = new.get("metadata") if isinstance(new.get("metadata"), Mapping) else {}
        errs = [m.invalid(key, new.get(key) or "", "field is immutable")
                for key in ("apiVersion", "kind") if new.get(key) != current[key]]
        if meta.get("name") != name:
            errs.append(m.invalid("metadata.name", meta.get("name") or "", "field is immutable"))
        if errs:
            raise ValidationError(errs, kind="StatefulSet.apps", name=name)
        warnings = m.unknown_fields(new)
        new = m.default_statefulset(new, max_unavailable_gate=self._max_unavailable_gate, old=current)
        errs = m.validate_statefulset_update(new, current) + self._profile_errors(new)
        if errs:
            raise ValidationError(errs, kind="StatefulSet.apps", name=name, warnings=warnings)
        stored = self._store_statefulset(new, old, cause)
        self.last_warnings = list(warnings)
        for w in warnings:
            self.trace.add_event("Warning", "UnknownField", f"statefulset/{name}", w)
        return stored

    def patch(self, name: str, patch: Mapping, namespace: str = "default") -> StatefulSet:
        """JSON merge patch on the set's manifest (like ``kubectl patch --type merge``).

        *patch* is a dict or YAML/JSON text; ``None`` (``null``) deletes a key.
        The result is validated as an update (only replicas, ordinals, template,
        updateStrategy, revisionHistoryLimit, persistentVolumeClaimRetentionPolicy
        and minReadySeconds may change); unknown fields are kept out with a
        warning in :attr:`last_warnings`.  Raise KeyError if the set does not
        exist, :class:`ValidationError` (changing nothing) if the patch or its
        result is invalid.
        """
        self.statefulset(name, namespace)
        patch = arguments.load_patch(patch, kind="StatefulSet.apps", name=name)
        return self._edit(name, namespace, lambda m: merge_patch(m, patch), f"user: patch {json.dumps(patch)}")

    def scale(self, name: str, replicas: int, namespace: str = "default") -> StatefulSet:
        """Set ``spec.replicas`` (like ``kubectl scale --replicas``).

        Raise KeyError if the set does not exist; :class:`ValidationError`
        (changing nothing) if *replicas* is not an int32 (the API server's
        decode error for the scale subresource) or is negative.
        """
        self.statefulset(name, namespace)
        replicas = arguments.replicas(replicas, name)

        def go(m):
            m["spec"]["replicas"] = replicas
            return m
        return self._edit(name, namespace, go, f"user: scale --replicas={replicas}")

    def set_image(self, name: str, image: str, container: str | None = None,
                  namespace: str = "default") -> StatefulSet:
        """Change a container image (all containers if *container* is None), like ``kubectl set image``."""
        sts = self.statefulset(name, namespace)
        names = [c.get("name") for c in sts.spec.template.get("spec", {}).get("containers", [])]
        if container is not None and not isinstance(container, str):
            raise ValidationError(arguments.string(container, "container"), name=name)
        if container is not None and container not in names:
            raise ValidationError([("spec.template.spec.containers",
                                    f'Not found: "{container}": containers are {", ".join(map(str, names))}')],
                                  name=name)

        def go(m):
            for c in m["spec"]["template"]["spec"]["containers"]:
                if container is None or c.get("name") == container:
                    c["image"] = image
            return m
        return self._edit(name, namespace, go, f"user: set image {container or '*'}={image}")

    def delete_pod(self, name: str, namespace: str = "default") -> Pod:
        """Graceful delete (like ``kubectl delete pod``): the pod becomes terminating."""
        pod = self.pod(name, namespace)
        self.trace.add_event("Normal", "User", f"pod/{name}", "user: delete pod")
        return self._delete_pod(namespace, name, "user: delete_pod") or pod

    def patch_pod(self, name: str, patch: Mapping, namespace: str = "default") -> Pod:
        """JSON merge patch on a pod's labels or annotations (other fields are immutable here)."""
        pod = self.pod(name, namespace)
        patch = arguments.load_patch(patch, kind="Pod", name=name)
        labels, annotations, errs = arguments.pod_metadata_patch(patch, pod.labels, pod.annotations)
        if errs:
            raise ValidationError(errs, kind="Pod", name=name)
        self.trace.add_event("Normal", "User", f"pod/{name}", f"user: patch pod {json.dumps(patch)}")
        return self._write_pod(replace(pod, labels=labels, annotations=annotations), "user: patch_pod")

    def delete(self, name: str, cascade: str = "background", namespace: str = "default") -> None:
        """Delete the set (like ``kubectl delete sts --cascade=...``).

        * ``background``: the set goes now; the garbage collector then deletes its pods
          (all at once, in no order) and the claims it owns;
        * ``foreground``: the set stays, marked deleting, until its pods are gone;
        * ``orphan``: the set goes; its pods keep running without an owner.
        """
        if cascade not in CASCADES:
            raise ValidationError([("propagationPolicy", f'Unsupported value: "{cascade}": supported values: '
                                    + ", ".join(f'"{c}"' for c in CASCADES))], name=name)
        sts = self.statefulset(name, namespace)
        self.trace.add_event("Normal", "User", f"statefulset/{name}", f"user: delete --cascade={cascade}")
        if cascade == "orphan":
            for kind in ("Pod", "PersistentVolumeClaim", "ControllerRevision"):
                for obj in self.store.list(kind, namespace):
                    if any(r.uid == sts.uid for r in obj.owner_references):
                        kept = tuple(r for r in obj.owner_references if r.uid != sts.uid)
                        if kind == "Pod":
                            self._write_pod(replace(obj, owner_references=kept), "garbage collector: orphan")
                        else:
                            self.store.update(kind, replace(obj, owner_references=kept))
            self.store.remove("StatefulSet", namespace, name)
        elif cascade == "foreground":
            if sts.deletion_timestamp is None or FOREGROUND not in sts.finalizers:  # deleting twice changes nothing
                self.store.update("StatefulSet", replace(
                    sts, deletion_timestamp=self.now if sts.deletion_timestamp is None else sts.deletion_timestamp,
                    finalizers=sts.finalizers + (FOREGROUND,)))
            self.gc.collect()
        else:
            self.store.remove("StatefulSet", namespace, name)
            self.gc.trigger()

    def rollout_undo(self, name: str, to_revision: int | None = None, namespace: str = "default") -> str:
        """Put back an earlier template (like ``kubectl rollout undo``); returns kubectl's message.

        *to_revision* None (or 0) means the revision before the newest.  Raise
        KeyError if the set does not exist; ValidationError (changing nothing)
        with kubectl's message if *to_revision* is not an integer, if there is
        no earlier revision, or if that revision is not in the history.
        """
        sts = self.statefulset(name, namespace)
        if to_revision is not None:
            errs = arguments.integer(to_revision, "to_revision")
            if errs:
                raise ValidationError(errs, name=name)
            to_revision = arguments.as_integer(to_revision)
        revs = self.revisions(name, namespace)
        if to_revision in (None, 0):
            if len(revs) < 2:
                raise ValidationError([("", "no last revision to roll back to")], name=name)
            target = revs[-2]
        else:
            found = [r for r in revs if r.revision == to_revision]
            if not found:
                raise ValidationError([("", f"unable to find specified revision {to_revision} in history")],
                                      name=name)
            target = found[-1]
        template = target.template
        template.pop("$patch", None)
        if json.dumps(template, sort_keys=True) == json.dumps(dict(sts.spec.template), sort_keys=True):
            return f"statefulset.apps/{name} skipped rollback (current template already matches revision {target.revision})"

        def go(m):
            m["spec"]["template"] = template
            return m
        self._edit(name, namespace, go, f"user: rollout undo --to-revision={target.revision}")
        return f"statefulset.apps/{name} rolled back"

    def rollout_status(self, name: str, namespace: str = "default") -> str:
        """What ``kubectl rollout status statefulset/<name>`` prints now (one line)."""
        from .tables import rollout_status_text
        return rollout_status_text(self.statefulset(name, namespace))

    def rollout_history(self, name: str, namespace: str = "default"):
        """The set's revisions as a DataFrame: revision number, name, and which is current/update."""
        import pandas as pd
        sts = self.store.get("StatefulSet", namespace, name)
        rows = []
        for r in self.revisions(name, namespace):
            rows.append({"revision": r.revision, "name": r.name,
                         "current": sts is not None and r.name == sts.status.current_revision,
                         "update": sts is not None and r.name == sts.status.update_revision,
                         "images": ", ".join(c.get("image", "") for c in
                                             r.template.get("spec", {}).get("containers", []))})
        return pd.DataFrame(rows, columns=["revision", "name", "current", "update", "images"])

    def inject_error(self, verb: str, kind: str = "Pod", count: int = 1, reason: str = "InternalError",
                     after: int = 0) -> None:
        """Make *count* requests to *verb* (create, update, delete) a *kind* fail, after *after* succeed.

        As upstream's tests inject them (``SetCreateStatefulPodError(err, after)``):
        the controller's requests of that verb and kind succeed *after* times,
        then the next *count* fail with an :class:`APIError` of *reason*; the
        sync stops where upstream's would, records the failure (a Warning event
        ``FailedCreate``/``FailedDelete``/``FailedUpdate`` for pods and claims)
        and the set is retried on the next sync (``run`` retries at once).
        ``update`` of ``StatefulSet`` is the status write.  Only the
        controller's requests are affected, never the user's own calls.

        Raise :class:`ValidationError` (a ValueError) for an unknown verb or
        kind, or a *count* < 1 or *after* < 0.
        """
        arguments.check("inject_error", arguments.one_of(verb, "verb", FAULT_VERBS)
                        + arguments.one_of(kind, "kind", FAULT_KINDS)
                        + arguments.integer(count, "count", minimum=1)
                        + arguments.string(reason, "reason")
                        + arguments.integer(after, "after", minimum=0))
        self._faults.append(_controller.Fault(verb, kind, arguments.as_integer(count), reason,
                                              after=arguments.as_integer(after)))

    def pending_errors(self) -> list[tuple[str, str, int, int, str]]:
        """``(verb, kind, after, count, reason)`` of the injected errors not yet used up."""
        return [(f.verb, f.kind, f.after, f.count, f.reason) for f in self._faults]

    def clear_errors(self) -> None:
        """Forget every injected error that has not fired yet."""
        self._faults.clear()

    def _check_fault(self, verb: str, kind: str, name: str) -> None:
        hit = None
        for f in self._faults:
            if f.verb == verb and f.kind == kind:
                if f.after > 0:  # this fault lets this request through and fails later ones
                    f.after -= 1
                elif hit is None:
                    hit = f
        if hit is not None:
            hit.count -= 1
            if hit.count <= 0:
                self._faults.remove(hit)
            raise APIError(verb, kind, name, reason=hit.reason)

    # ========================================================= internal writes
    def _on_write(self, kind: str, verb: str, old, new) -> None:
        if kind != "Pod":
            if verb == "remove":
                self.gc.trigger()
            return

    def _write_pod(self, pod: Pod, cause: str) -> Pod:
        old = self.store.get("Pod", pod.namespace, pod.name)
        stored = self.store.update("Pod", pod)
        self.trace.add_pod(stored, "updated", cause)
        if stored.ready and (old is None or not old.ready):
            self._schedule_availability(stored)
        return stored

    def _create_pod(self, pod: Pod, cause: str) -> Pod:
        stored = self.store.create("Pod", replace(pod, phase="Pending", ready=False))
        self.trace.add_pod(stored, "created", cause)
        self.kubelet.on_created(stored)
        return stored

    def _update_pod_from(self, pod: Pod, cause: str) -> Pod:
        """Write the controller's repaired labels/volumes onto the stored pod."""
        stored = self.store.get("Pod", pod.namespace, pod.name)
        if stored is None or stored.uid != pod.uid:
            raise APIError("update", "Pod", pod.name, reason="NotFound")
        return self._write_pod(replace(stored, labels=pod.labels, spec=pod.spec), cause)

    def _delete_pod(self, namespace: str, name: str, cause: str) -> Pod | None:
        pod = self.store.get("Pod", namespace, name)
        if pod is None:
            raise APIError("delete", "Pod", name, reason="NotFound")
        if pod.deletion_timestamp is not None:
            return pod
        if pod.grace_period_seconds <= 0:
            self._remove_pod(pod, cause)
            return None
        stored = self.store.update("Pod", replace(pod, deletion_timestamp=self.now))
        self.trace.add_pod(stored, "updated", cause)
        self.kubelet.on_deleted(stored)
        return stored

    def _remove_pod(self, pod: Pod, cause: str) -> None:
        self.store.remove("Pod", pod.namespace, pod.name)
        self.trace.add_pod(pod, "deleted", cause)
        self.gc.trigger()

    def _schedule_availability(self, pod: Pod) -> None:
        """Requeue the owner when the pod becomes Available (the pod handler's minReadySeconds + 1 s)."""
        owner = pod.owner
        if owner is None or not self.profile.min_ready_seconds:
            return
        sts = self.store.get("StatefulSet", pod.namespace, owner)
        if sts is None or sts.spec.min_ready_seconds <= 0:
            return
        self.clock.schedule(self.now + sts.spec.min_ready_seconds + 1, lambda: None, priority=LATE,
                            label=f"controller: requeue {owner} ({pod.name} Available)")


def _claim_of(claim: str, set_name: str) -> bool:
    head, _, ordinal = claim.rpartition("-")
    return ordinal.isdigit() and head.endswith("-" + set_name)


def _claim_sort_key(name: str):
    head, _, ordinal = name.rpartition("-")
    return (head, int(ordinal) if ordinal.isdigit() else -1, name)


def _planner_for(profile: Profile):
    if profile.name == "v1.16":
        try:
            from .control_v116 import plan_sync as plan_v116
            return plan_v116
        except ImportError:  # pragma: no cover - until the v1.16 planner lands
            pass
    from .control import plan_sync
    return plan_sync
