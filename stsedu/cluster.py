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
from typing import Any, Callable, Iterator, Mapping

from . import arguments
from . import controller as _controller
from .clock import LATE, Clock
from .decisions import SyncResult
from .errors import APIError, ValidationError
from .gc import FOREGROUND, ORPHAN, GarbageCollector
from .kubelet import Kubelet, StageProfile
from .model import (ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet,
                    StatefulSetStatus, selector_matches)
from .predicates import availability_times
from .profiles import GATE_ADDED_IN, Profile, get_profile
from .store import Store
from .trace import Trace

__all__ = ["Cluster"]

CASCADES = ("background", "foreground", "orphan")
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
                            "kubelet": kubelet, "feature_gates": dict(self.feature_gates)},
                           clock=self.clock)
        self.kubelet = Kubelet(self, kubelet, stages, seed)
        if gc_delay is None:
            gc_delay = 0.0 if kubelet == "manual" else 1.0
        self.gc = GarbageCollector(self, gc_delay)
        self._faults: list[_controller.Fault] = []
        self._seq = 0
        self._memo: dict = {}
        self.reuse_quiet_syncs = True
        """Let a sync of a set whose inputs are the very objects its previous sync read, when that sync
        changed nothing, repeat that outcome without planning again (same decisions, status and trace;
        docs/performance.md).  False plans every sync afresh."""
        self._requeues: set = set()
        self._planner: Callable = _planner_for(self.profile)
        self.store.listeners.append(self._on_write)
        self.last_warnings: list[str] = []
        """Warnings of the last successful apply or edit (unknown fields, fields the profile's release
        drops, skipped documents), as kubectl prints them."""
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
        """Claims, sorted by template then ordinal; of one set's volumeClaimTemplates if *set_name*.

        A set's claims are those named ``<template>-<set>-<ordinal>`` for one
        of its templates (claims outlive pods, so this includes claims of
        scaled-down pods).  If the set is gone, any ``<something>-<set>-<ordinal>``.
        """
        claims = self.store.list("PersistentVolumeClaim", namespace)
        if set_name is not None:
            sts = self.store.get("StatefulSet", namespace, set_name)
            templates = None if sts is None else [t.get("metadata", {}).get("name", "")
                                                  for t in sts.spec.volume_claim_templates]
            claims = [c for c in claims if _claim_of(c.name, set_name, templates)]
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

        A sync follows every change the controller made itself (its own status
        writes included, as the set's update event queues one); when a sync
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
        self.statefulset(name, namespace)  # KeyError before anything happens
        arguments.check("run", arguments.integer(max_syncs, "max_syncs", minimum=1)
                        + arguments.number(until, "until", minimum=None, allow_none=True))
        return list(self.iter_run(name, max_syncs, namespace, until))

    def iter_run(self, name: str, max_syncs: int = 1000, namespace: str = "default",
                 until: float | None = None) -> Iterator[SyncResult]:
        """:meth:`run`, one SyncResult at a time (for progress bars); stop iterating to stop the run."""
        self.statefulset(name, namespace)
        arguments.check("iter_run", arguments.integer(max_syncs, "max_syncs", minimum=1)
                        + arguments.number(until, "until", minimum=None, allow_none=True))
        n = 0
        failures = 0
        while n < max_syncs:
            self.clock.advance_to(self.now)
            if self.store.get("StatefulSet", namespace, name) is None:
                break  # deleted meanwhile (e.g. foreground deletion finished)
            result = self.sync(name, namespace)
            n += 1
            yield result
            if result.error:
                # The workqueue requeues a failed key with exponential backoff
                # (DefaultControllerRateLimiter: 5 ms doubling, at most 1000 s);
                # any event the controller watches syncs it earlier.
                failures += 1
                retry = self.now + min(0.005 * 2 ** (failures - 1), 1000.0)
                nxt = self.clock.peek()
                self.clock.advance_to(min(retry, nxt) if nxt is not None else retry)
                continue
            failures = 0
            # A status write is an update of the set: its informer event queues
            # another sync (which is when truncateHistory sees a promotion).
            if result.changed or any(d.action == "status" and d.applied for d in result.decisions):
                continue
            nxt = self.clock.peek()
            if nxt is None or (until is not None and nxt > until):
                break
            self.clock.advance_to(nxt)

    def settle(self, name: str, max_syncs: int = 1000, namespace: str = "default") -> list[SyncResult]:
        """Play the kubelet by hand until the set is stable (for manual mode).

        Like upstream's test harness: sync, then move ONE pod one stage (a
        terminating pod disappears, a Pending pod starts, a Running pod turns
        Ready), lowest ordinal first, and repeat.  When no pod can move and
        the sync changed nothing, the clock jumps to the next scheduled event
        (a minReadySeconds requeue, the garbage collector), as in :meth:`run`;
        it stops when nothing is scheduled.  Pods made never-ready stay as
        they are.  Returns the SyncResults.  Raise KeyError if the set does
        not exist and :class:`ValidationError` unless *max_syncs* is an
        integer >= 1.
        """
        self.statefulset(name, namespace)
        arguments.check("settle", arguments.integer(max_syncs, "max_syncs", minimum=1))
        results: list[SyncResult] = []
        while len(results) < max_syncs:
            result = self.sync(name, namespace)
            results.append(result)
            moved = self.kubelet.step(namespace) is not None
            if moved or result.changed or any(d.action == "status" and d.applied
                                              for d in result.decisions):
                continue
            nxt = self.clock.peek()
            if nxt is None:
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
                new = m._prune(new, m.SCHEMAS[kind])  # unknown fields: warned above, dropped here
                new, dropped = self._profile_prune(doc, new)
                doc_warnings += dropped
                errs += m.validate_statefulset_update(new, old) if old is not None else m.validate_statefulset(new)
                errs += self._profile_errors(new, old)
            else:
                new = m._prune(m.default_service(doc), m.SCHEMAS[kind])
                errs += m.validate_service(new)
            warnings += [(obj, w) for w in doc_warnings]
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
        created = []
        for kind, new in planned:
            if kind == "StatefulSet":
                meta = new["metadata"]
                old_sts = self.store.get("StatefulSet", meta.get("namespace") or "default", meta["name"])
                stored = last_sts = self._store_statefulset(new, old_sts, "user: apply")
                if old_sts is None:
                    created.append(stored)
            else:
                stored = self._store_service(new)
        for sts in created:  # after the whole batch: a Service may follow its set in the file
            self._warn_missing_service(sts)
        for kind, name, version in skipped:
            warnings.append((f"{kind.lower()}/{name}", f'skipped {kind} "{name}": no matches for kind "{kind}" '
                             f'in version "{version}" (stsedu simulates StatefulSet and Service objects only)'))
        self.last_skipped = [(kind, name) for kind, name, _ in skipped]
        self._warn(warnings)
        return last_sts if last_sts is not None else stored

    @property
    def _max_unavailable_gate(self) -> bool:
        return self.profile.max_unavailable_supported and self.profile.gate(
            self.feature_gates, "MaxUnavailableStatefulSet")

    def _defaulted(self, sts: StatefulSet) -> dict:
        m = sts.to_manifest()
        m.pop("status", None)
        return m

    def _profile_errors(self, new: dict, old: dict | None = None) -> list[tuple[str, str]]:
        hook = getattr(_manifests(), "profile_errors", None)
        return list(hook(new, self.profile, old)) if hook else []

    def _profile_prune(self, doc: dict, new: dict) -> tuple[dict, list[str]]:
        """Drop the spec fields the profile's API server does not know; warn for those *doc* wrote."""
        from .profile_rules import prune_fields
        return prune_fields(doc, new, self.profile)

    def _warn(self, warnings: list) -> None:
        """Keep *warnings* (texts, or ``(object, text)`` pairs) in :attr:`last_warnings` and the trace."""
        self.last_warnings = []
        for w in warnings:
            obj, text = w if isinstance(w, tuple) else ("manifest", w)
            self.last_warnings.append(text)
            self.trace.add_event("Warning", "Skipped" if text.startswith("skipped ") else "UnknownField",
                                 obj, text)

    def _store_statefulset(self, new: dict, old: StatefulSet | None, cause: str) -> StatefulSet:
        sts = StatefulSet.from_manifest(new)
        if old is None:
            stored = self.store.create("StatefulSet", sts)
            self.trace.add_event("Normal", "User", f"statefulset/{sts.name}", f"{cause}: created")
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
        """Warn when the governing Service (``spec.serviceName``) is missing or not headless.

        Not an upstream event: the controller never looks at the Service.  The
        concept page says the user must create the headless Service; without
        it the pods still get their hostname and subdomain, but no DNS records.
        """
        name = sts.spec.service_name
        if not name:
            return
        svc = self.store.get("Service", sts.namespace, name)
        if svc is None or not svc.headless:
            why = "does not exist" if svc is None else "is not headless (clusterIP: None)"
            self.trace.add_event("Warning", "ServiceMissing", f"statefulset/{sts.name}",
                                 f'the governing Service "{sts.namespace}/{name}" {why}: create a headless '
                                 "Service so each pod gets its DNS name")

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
        edited = new
        warnings = m.unknown_fields(edited)
        new = m.default_statefulset(new, max_unavailable_gate=self._max_unavailable_gate, old=current)
        new = m._prune(new, m.SCHEMAS["StatefulSet"])  # unknown fields: warned, then dropped
        new, dropped = self._profile_prune(edited, new)
        warnings += dropped
        errs = m.validate_statefulset_update(new, current) + self._profile_errors(new, current)
        if errs:
            raise ValidationError(errs, kind="StatefulSet.apps", name=name, warnings=warnings)
        stored = self._store_statefulset(new, old, cause)
        self._warn([(f"statefulset/{name}", w) for w in warnings])
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
        """Change a container image, like ``kubectl set image statefulset/<name> <container>=<image>``.

        *container* None (or ``"*"``) changes every container and init
        container, as kubectl's ``*=<image>`` does.  A changed image is a new
        pod template, so the next sync makes (or reuses) a revision.  Raise
        :class:`ValidationError` (and change nothing) if no container has that
        name or the image is empty; KeyError if the set is absent.
        """
        from .errors import RolloutError
        sts = self.statefulset(name, namespace)
        if container is not None and not isinstance(container, str):
            raise ValidationError(arguments.string(container, "container"), name=name)
        if not isinstance(image, str):
            raise ValidationError(arguments.string(image, "image"), name=name)
        if not image.strip():
            raise ValidationError([("spec.template.spec.containers[0].image", "Required value")], name=name)
        pod_spec = sts.spec.template.get("spec", {})
        names = [c.get("name") for key in ("initContainers", "containers")
                 for c in pod_spec.get(key, None) or ()]
        every = container in (None, "*")
        if not every and container not in names:
            raise RolloutError(f'unable to find container named "{container}"', name=name)

        def go(m):
            for key in ("initContainers", "containers"):
                for c in m["spec"]["template"]["spec"].get(key, None) or ():
                    if every or c.get("name") == container:
                        c["image"] = image
            return m
        return self._edit(name, namespace, go, f"user: set image {container or '*'}={image}")

    def delete_pod(self, name: str, namespace: str = "default") -> Pod:
        """Graceful delete (like ``kubectl delete pod``): the pod becomes terminating."""
        pod = self.pod(name, namespace)
        self.trace.add_event("Normal", "User", f"pod/{name}", "user: delete pod")
        return self._delete_pod(namespace, name, "user: delete_pod") or pod

    def patch_pod(self, name: str, patch: Mapping, namespace: str = "default") -> Pod:
        """JSON merge patch on a pod's ``metadata.labels`` / ``metadata.annotations`` (like ``kubectl patch --type merge``).

        ``None`` deletes a key (``{"metadata": {"labels": {"app": None}}}``).
        Edit the ``statefulset.kubernetes.io/pod-name`` label to see the
        controller restore it (``identityMatches``), or a selector label to see
        the pod released (``ClaimPods``).  Raise ValidationError, and change
        nothing, for any other field or an invalid label; KeyError if there is
        no such pod.
        """
        pod = self.pod(name, namespace)
        patch = arguments.load_patch(patch, kind="Pod", name=name)
        labels, annotations, errs = arguments.pod_metadata_patch(patch, pod.labels, pod.annotations)
        if errs:
            raise ValidationError(errs, kind="Pod", name=name)
        self.trace.add_event("Normal", "User", f"pod/{name}", f"user: patch pod {json.dumps(patch)}")
        return self._write_pod(replace(pod, labels=labels, annotations=annotations),
                               "user: patch_pod")

    def delete_pvc(self, name: str, namespace: str = "default") -> PersistentVolumeClaim | None:
        """Delete a claim (like ``kubectl delete pvc``).

        While a pod mounts it, the claim stays, marked deleting
        (``kubernetes.io/pvc-protection``); it goes once no pod uses it.
        Returns the claim if it is still there, None if it went at once.
        Raise KeyError if there is no such claim.
        """
        claim = self.store.get("PersistentVolumeClaim", namespace, name)
        if claim is None:
            raise KeyError(f'persistentvolumeclaims "{name}" not found')
        self.trace.add_event("Normal", "User", f"persistentvolumeclaim/{name}", "user: delete pvc")
        if claim.deletion_timestamp is None:
            self.store.update("PersistentVolumeClaim", replace(claim, deletion_timestamp=self.now))
            self.gc.trigger()
        return self.store.get("PersistentVolumeClaim", namespace, name)

    def delete(self, name: str, cascade: str = "background", namespace: str = "default") -> None:
        """Delete the set, like ``kubectl delete statefulset NAME --cascade=...``.

        * ``background`` (kubectl's default): the set goes now; the garbage
          collector then deletes its pods (all at once, in no order), its
          revisions, and the claims it owns (whenDeleted=Delete);
        * ``foreground``: the set stays, with a deletion timestamp, until the
          garbage collector has deleted every dependent that blocks it (its
          pods, and claims it owns); meanwhile its syncs only write status;
        * ``orphan``: the garbage collector removes the set's refs from its
          pods, revisions and claims, then the set goes; the pods keep running
          and a new set with the same name and selector adopts them.

        For an ordered shutdown, scale to 0 first and wait (the docs' advice).
        Raise ValidationError for another *cascade*, KeyError if there is no such set.
        """
        if cascade not in CASCADES:
            raise ValidationError([("propagationPolicy", f'Unsupported value: "{cascade}": supported values: '
                                    + ", ".join(f'"{c}"' for c in CASCADES))], name=name)
        sts = self.statefulset(name, namespace)
        self.trace.add_event("Normal", "User", f"statefulset/{name}",
                             f'user: delete --cascade={cascade}: statefulset.apps "{name}" deleted')
        if sts.deletion_timestamp is not None:  # already being deleted: nothing more to do
            return
        if cascade == "background":
            self.store.remove("StatefulSet", namespace, name)  # removal triggers the collector
            return
        finalizer = FOREGROUND if cascade == "foreground" else ORPHAN
        self.store.update("StatefulSet", replace(sts, deletion_timestamp=self.now,
                                                 finalizers=sts.finalizers + (finalizer,)))
        self.gc.trigger()

    def rollout_undo(self, name: str, to_revision: int | None = None, namespace: str = "default") -> str:
        """Put back an earlier pod template, like ``kubectl rollout undo statefulset/<name>``.

        Mirrors kubectl's ``StatefulSetRollbacker``: the history is the set's
        ControllerRevisions that match its selector and that it controls;
        *to_revision* None (or 0) means the revision before the newest (the
        second highest number), otherwise the revision with that number.  The
        set's ``spec.template`` is replaced by the revision's; the controller
        then finds that template equal to the old revision and renumbers it
        (no new revision).  Returns kubectl's line:
        ``statefulset.apps/<name> rolled back``, or ``statefulset.apps/<name>
        skipped rollback (current template already matches revision N)`` (N as
        given, so 0 when *to_revision* is None, as kubectl prints it).

        Raise :class:`~stsedu.errors.RolloutError` (and change nothing) with
        kubectl's message: ``unable to find specified revision N in history``
        or ``no last revision to roll back to``; KeyError if the set is absent.
        """
        from .errors import RolloutError
        from .revisions import controlled_history, find_history, revision_data
        sts = self.statefulset(name, namespace)
        if to_revision is None:
            to_revision = 0
        if isinstance(to_revision, bool) or not isinstance(to_revision, int):
            raise RolloutError(f'invalid argument "{to_revision}" for "--to-revision" flag: '
                               f'strconv.ParseInt: parsing "{to_revision}": invalid syntax', name=name)
        if to_revision < 0:
            raise RolloutError(f"unable to find specified revision {to_revision} in history", name=name)
        history = controlled_history(sts, self.store.list("ControllerRevision", namespace))
        if to_revision == 0 and len(history) <= 1:
            raise RolloutError("no last revision to roll back to", name=name)
        target = find_history(to_revision, history)
        if target is None:
            raise RolloutError(f"unable to find specified revision {to_revision} in history", name=name)
        if revision_data(sts.spec.template, self.profile.null_creation_timestamp) == target.data:
            return (f"statefulset.apps/{name} skipped rollback (current template already matches "
                    f"revision {to_revision})")
        template = target.template
        template.pop("$patch", None)

        def go(m):
            m["spec"]["template"] = template
            return m
        self._edit(name, namespace, go, f"user: rollout undo --to-revision={to_revision} "
                                        f"(revision {target.revision}, {target.name})")
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
        """Create *pod* as the API server would: with ``SetDefaults_Pod``'s pod-only defaults, Pending."""
        stored = self.store.create("Pod", replace(pod, spec=_manifests().default_pod(pod.spec), phase="Pending",
                                                  ready=False))
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

    def _requeue_for_availability(self, sts: StatefulSet, pods, now: float) -> None:
        """After a sync, requeue the set for the earliest pod that is Ready but not yet Available.

        Upstream's sync requeues a set with minReadySeconds > 0 whose pods are
        not all available; since v1.36 (#135428) at the earliest availability
        time.  stsedu wakes 1 s after it, like the pod handler's requeue.
        """
        times = availability_times(pods, sts.spec.min_ready_seconds if self.profile.min_ready_seconds else 0, now)
        if not times:
            return
        at = min(times) + 1
        key = (sts.namespace, sts.name, at)
        if key in self._requeues:
            return
        self._requeues.add(key)
        self.clock.schedule(at, lambda: self._requeues.discard(key), priority=LATE,
                            label=f"controller: requeue {sts.name} (minReadySeconds)")

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


def _claim_of(claim: str, set_name: str, templates: list[str] | None = None) -> bool:
    """True if *claim* is named ``<template>-<set_name>-<ordinal>`` (for one of *templates* if given)."""
    head, _, ordinal = claim.rpartition("-")
    if not ordinal.isdigit() or not head.endswith("-" + set_name):
        return False
    return templates is None or head[:-len(set_name) - 1] in templates


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
