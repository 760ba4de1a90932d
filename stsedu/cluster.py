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
from typing import Callable, Iterator, Mapping

from .api import arguments
from .api.admission import admit, validation_error
from .api.errors import ValidationError
from .api.field_errors import invalid
from .api.load import load_documents
from .api.merge_patch import merge_patch
from .api.objects import ControllerRevision, PersistentVolumeClaim, Pod, Service, StatefulSet, detached
from .controller.decisions import SyncResult
from .api.profiles import Profile, get_profile
from .client.informers import Informers
from .controller.stateful_set import ControllerLoop, new_stateful_set_controller
from .controller.history import sort_revisions
from .controller.stateful_set_control import list_revisions
from .sim.clock import Clock
from .sim.gc import FOREGROUND, ORPHAN, GarbageCollector
from .sim.kubelet import Kubelet, StageProfile
from .sim.store import Store
from .sim.writes import Fault, Writes
from .trace import Trace
from .frames import kit_frame

__all__ = ["Cluster"]

CASCADES = ("background", "foreground", "orphan")
WAIT_TIMEOUT = 7 * 24 * 3600.0
"""How long a delete waits at most, in simulated seconds (kubectl's ``--timeout=0``: a week)."""
FAULT_VERBS = ("create", "update", "delete")
FAULT_KINDS = ("Pod", "PersistentVolumeClaim", "ControllerRevision", "StatefulSet")


class Cluster:
    """An object store, the StatefulSet controller, a simulated kubelet and a clock.

    *kubelet* is ``"auto"`` (pods move as time passes, after the delays of
    *stages*, a :class:`~stsedu.sim.kubelet.StageProfile` or a dict) or
    ``"manual"`` (nothing moves unless you move it).  *seed* makes the auto
    kubelet's jitter repeatable.  *profile* picks the controller release
    (``"current"``, ``"v1.36"``, ``"v1.16"``); *feature_gates* override its
    gate defaults.  *gc_delay* is how long the garbage collector takes to
    notice a gone owner (default: 0 in manual mode, 1 s in auto mode).
    *informer_delay* holds pod events back that many seconds before the
    controller's cache and handlers see them, and *concurrent_syncs* is the
    number of workers of ``run()`` with no name (docs/loop.md).

    Raise :class:`ValidationError` (a ValueError) listing every bad argument
    (docs/validation.md, "Calls").
    """

    def __init__(self, kubelet: str = "auto", seed: int = 0, profile: str | Profile = "current",
                 feature_gates: Mapping[str, bool] | None = None,
                 stages: StageProfile | Mapping[str, float] | None = None,
                 cluster_domain: str = "cluster.local", gc_delay: float | None = None,
                 informer_delay: float = 0.0, concurrent_syncs: int = 1) -> None:
        arguments.check("", arguments.cluster_options(
            kubelet=kubelet, seed=seed, profile=profile, feature_gates=feature_gates, stages=stages,
            cluster_domain=cluster_domain, gc_delay=gc_delay)
            + arguments.number(informer_delay, "informer_delay")
            + arguments.integer(concurrent_syncs, "concurrent_syncs", minimum=1))
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
        from .version import __version__
        self.trace = Trace({"version": __version__, "profile": self.profile.name, "seed": seed,
                            "kubelet": kubelet, "feature_gates": dict(self.feature_gates)},
                           clock=self.clock)
        self._writes = Writes(self.store, self.clock, self.trace, self.profile)
        self.kubelet = Kubelet(self._writes, kubelet, stages, seed)
        if gc_delay is None:
            gc_delay = 0.0 if kubelet == "manual" else 1.0
        self.gc = GarbageCollector(self._writes, gc_delay)
        self._writes.kubelet, self._writes.gc = self.kubelet, self.gc
        self.controller = new_stateful_set_controller(self._writes, self.profile, self.feature_gates,
                                                      Informers(self.store, self.clock, informer_delay),
                                                      arguments.as_integer(concurrent_syncs),
                                                      sync=self._loop_sync)
        """The StatefulSet controller (``cluster.sync`` calls its ``sync``)."""
        self.loop: ControllerLoop = self.controller.loop
        """Informers, handlers, work queue and workers around the controller (``run()`` with no name)."""
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def statefulset(self, name: str, namespace: str = "default") -> StatefulSet:
        """The stored StatefulSet.  Raise KeyError if there is none."""
        sts = self.store.get("StatefulSet", namespace, name)
        if sts is None:
            raise KeyError(f'statefulsets.apps "{name}" not found')
        return _detached(sts)

    @arguments.checked("Cluster", namespace=arguments.optional(arguments.name))
    def statefulsets(self, namespace: str | None = None) -> list[StatefulSet]:
        return [_detached(s) for s in self.store.list("StatefulSet", namespace)]

    @arguments.checked("Cluster", set_name=arguments.optional(arguments.name), namespace=arguments.name)
    def pods(self, set_name: str | None = None, namespace: str = "default") -> list[Pod]:
        """Pods (of one set if *set_name*: those it owns, terminating ones included), by ordinal."""
        pods = self.store.list("Pod", namespace)
        if set_name is not None:
            pods = [p for p in pods if p.owner == set_name]
        return sorted((_detached(self._writes.with_availability(p)) for p in pods),
                      key=lambda p: (p.parent, p.ordinal, p.name))

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def pod(self, name: str, namespace: str = "default") -> Pod:
        """One pod.  Raise KeyError if there is none."""
        return _detached(self._writes.pod(name, namespace))

    @arguments.checked("Cluster", set_name=arguments.optional(arguments.name), namespace=arguments.name)
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
        return sorted((_detached(c) for c in claims), key=lambda c: _claim_sort_key(c.name))

    @arguments.checked("Cluster", set_name=arguments.name, namespace=arguments.name)
    def revisions(self, set_name: str, namespace: str = "default") -> list[ControllerRevision]:
        """The set's ControllerRevisions, oldest (lowest number) first."""
        sts = self.store.get("StatefulSet", namespace, set_name)
        revs = self.store.list("ControllerRevision", namespace)
        if sts is not None:
            return [_detached(r) for r in sort_revisions(list_revisions(sts, revs))]
        return sorted((_detached(r) for r in revs if r.name.rsplit("-", 1)[0] == set_name),
                      key=lambda r: (r.revision, r.seq))

    @arguments.checked("Cluster", namespace=arguments.name)
    def services(self, namespace: str = "default") -> list[Service]:
        return [_detached(s) for s in self.store.list("Service", namespace)]

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def service(self, name: str, namespace: str = "default") -> Service:
        svc = self.store.get("Service", namespace, name)
        if svc is None:
            raise KeyError(f'services "{name}" not found')
        return _detached(svc)

    def dump(self) -> dict:
        """Every stored object's manifest plus the clock and trace sizes (to compare states); the whole
        cluster, to carry on from later: ``stsedu.sim.snapshot.dump(cluster, key)`` and ``load``."""
        return {"objects": self.store.dump(), "now": self.now,
                "trace": {k: len(v) for k, v in self.trace.rows().items()}}

    # ============================================================ the controller
    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def sync(self, name: str, namespace: str = "default") -> SyncResult:
        """Exactly one reconcile of one StatefulSet.  Raise KeyError if it does not exist."""
        return _with_detached_payloads(self.controller.sync(name, namespace))

    def _loop_sync(self, name: str, namespace: str) -> SyncResult:
        """The loop's workers sync through :meth:`sync`, looked up at each call (a sync patched on
        later is the one they call); a bound method, so a cluster's snapshot pickles it."""
        return self.sync(name, namespace)

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def preview(self, name: str, namespace: str = "default"):
        """What the next sync would do if every request succeeded, without doing anything (its
        steps run against a pod control that writes nothing)."""
        self.statefulset(name, namespace)  # KeyError if absent
        return _with_detached_payloads(self.controller.preview(self.store.get("StatefulSet", namespace, name),
                                                               namespace))

    def advance(self, seconds: float) -> float:
        """Move the clock forward; the auto kubelet and the garbage collector act.  Returns the new time.

        Raise :class:`ValidationError` (a ValueError; nothing moves) unless
        *seconds* is a finite number >= 0.
        """
        arguments.check("advance", arguments.number(seconds, "seconds"))
        seconds = arguments.real(seconds)
        if self.now + seconds > arguments.MAX_TIME:   # the clock stays finite (and exact enough)
            arguments.check("advance", [arguments.invalid(
                "seconds", seconds, f"must keep the clock at or before {arguments.MAX_TIME:g} s of simulated"
                f" time (it is at {self.now:g} s)")])
        self.clock.advance_to(self.now + seconds)
        return self.now

    @arguments.checked("Cluster", name=arguments.optional(arguments.name), namespace=arguments.name)
    def run(self, name: str | None = None, max_syncs: int = 1000, namespace: str = "default",
            until: float | None = None) -> list[SyncResult]:
        """Sync, and let time pass while the controller only waits, until the set is stable.

        With no *name*, run the whole controller as upstream's does
        (docs/loop.md): informer events queue the keys of the sets they
        concern, workers take keys from the queue and sync them, a failed
        sync is requeued with rate limiting; it stops when nothing is queued
        or scheduled, after *max_syncs* syncs, or at time *until*.  Every set
        of every namespace takes part; ``trace.queue()`` shows the queue.

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
        if name is not None:
            self.statefulset(name, namespace)  # KeyError before anything happens
        arguments.check("run", arguments.max_syncs(max_syncs)
                        + arguments.number(until, "until", minimum=None, allow_none=True,
                                           maximum=arguments.MAX_TIME))
        until = arguments.real(until)
        if name is None:
            return self.loop.run(arguments.as_integer(max_syncs), until)
        return list(self.iter_run(name, max_syncs, namespace, until))

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def iter_run(self, name: str, max_syncs: int = 1000, namespace: str = "default",
                 until: float | None = None) -> Iterator[SyncResult]:
        """:meth:`run`, one SyncResult at a time (for progress bars); stop iterating to stop the run."""
        self.statefulset(name, namespace)
        arguments.check("iter_run", arguments.max_syncs(max_syncs)
                        + arguments.number(until, "until", minimum=None, allow_none=True,
                                           maximum=arguments.MAX_TIME))
        until, max_syncs = arguments.real(until), arguments.as_integer(max_syncs)
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
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
        arguments.check("settle", arguments.max_syncs(max_syncs))
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
        docs = load_documents(manifest)
        if not docs:
            raise ValidationError([("", "no objects passed to apply")], kind="manifest")
        planned: list[tuple[str, dict]] = []
        pending: dict[tuple[str, str, str], dict] = {}
        warnings: list[tuple[str, str]] = []
        skipped: list[tuple[str, str, str]] = []
        rejected: list[ValidationError] = []
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
            key = (kind, ns, name)
            old = pending.get(key)
            if old is None:
                stored = self.store.get(kind, ns, name)
                if stored is not None:
                    old = self._defaulted(stored) if kind == "StatefulSet" else stored.to_manifest()
            new, errs, doc_warnings = admit(doc, old, profile=self.profile, **self._admission_gates)
            warnings += [(obj, w) for w in doc_warnings]
            if errs:
                rejected.append(validation_error(kind, name, errs, doc_warnings))
                continue
            pending[key] = new
            planned.append((kind, new))
        if rejected:
            first = rejected[0]
            raise ValidationError(first.errors, kind=first.kind, name=first.name,
                                  warnings=[w for _, w in warnings], others=rejected[1:])
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
        return _detached(last_sts if last_sts is not None else stored)

    @property
    def _admission_gates(self) -> dict:
        """The gates the API server's defaulting and validation read (:func:`admit`'s)."""
        return {"max_unavailable_gate": self.profile.max_unavailable_supported and self.profile.gate(
                    self.feature_gates, "MaxUnavailableStatefulSet"),
                "recreate_gate": self.profile.gate(self.feature_gates, "StatefulSetRecreateStrategy")}

    def _defaulted(self, sts: StatefulSet) -> dict:
        m = sts.to_manifest()
        m.pop("status", None)
        return m

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
        old = self.store.get("StatefulSet", namespace, name)
        if old is None:
            raise KeyError(f'statefulsets.apps "{name}" not found')
        current = self._defaulted(old)
        new = fn(copy.deepcopy(current))
        if not isinstance(new, Mapping):
            raise ValidationError([("", "patch must be a JSON object")], name=name)
        meta = new.get("metadata") if isinstance(new.get("metadata"), Mapping) else {}
        errs = [invalid(key, new.get(key) or "", "field is immutable")
                for key in ("apiVersion", "kind") if new.get(key) != current[key]]
        if meta.get("name") != name:
            errs.append(invalid("metadata.name", meta.get("name") or "", "field is immutable"))
        if errs:
            raise ValidationError(errs, kind="StatefulSet.apps", name=name)
        new, errs, warnings = admit(new, current, profile=self.profile, **self._admission_gates)
        if errs:
            raise ValidationError(errs, kind="StatefulSet.apps", name=name, warnings=warnings)
        stored = self._store_statefulset(new, old, cause)
        self._warn([(f"statefulset/{name}", w) for w in warnings])
        return _detached(stored)

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def set_image(self, name: str, image: str, container: str | None = None,
                  namespace: str = "default") -> StatefulSet:
        """Change a container image, like ``kubectl set image statefulset/<name> <container>=<image>``.

        *container* None (or ``"*"``) changes every container and init
        container, as kubectl's ``*=<image>`` does.  A changed image is a new
        pod template, so the next sync makes (or reuses) a revision.  Raise
        :class:`ValidationError` (and change nothing) if no container has that
        name or the image is empty; KeyError if the set is absent.
        """
        from .api.errors import RolloutError
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name, wait=arguments.boolean)
    def delete_pod(self, name: str, namespace: str = "default", wait: bool = True) -> Pod:
        """Graceful delete (like ``kubectl delete pod --wait=false``): the pod becomes terminating.

        ``wait=True`` is kubectl's default ``--wait=true``: the clock then moves on (the
        kubelet finishes the pod) until that pod is gone; see :meth:`delete`.
        """
        pod = self.pod(name, namespace)
        self.trace.add_event("Normal", "User", f"pod/{name}", "user: delete pod")
        out = _detached(self._writes.delete_pod(namespace, name, "user: delete_pod") or pod)
        if wait:
            self._wait_gone("Pod", namespace, name, pod.uid, f'pod "{name}"')
        return out

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def patch_pod(self, name: str, patch: Mapping, namespace: str = "default") -> Pod:
        """JSON merge patch on a pod's labels, annotations or ``spec.activeDeadlineSeconds`` (like ``kubectl patch --type merge``).

        ``None`` deletes a key (``{"metadata": {"labels": {"app": None}}}``).
        Edit the ``statefulset.kubernetes.io/pod-name`` label to see the
        controller restore it (``identityMatches``), or a selector label to see
        the pod released (``ClaimPods``); set ``{"spec": {"activeDeadlineSeconds": 30}}``
        and the kubelet fails the pod (``DeadlineExceeded``) 30 s after it started.
        Raise ValidationError, and change nothing, for any other field or an
        invalid value; KeyError if there is no such pod.
        """
        pod = self.pod(name, namespace)
        patch = arguments.load_patch(patch, kind="Pod", name=name)
        labels, annotations, errs = arguments.pod_metadata_patch(patch, pod.labels, pod.annotations)
        spec, spec_errs = arguments.pod_spec_patch(patch, pod.spec)
        if errs or spec_errs:
            raise ValidationError(errs + spec_errs, kind="Pod", name=name)
        self.trace.add_event("Normal", "User", f"pod/{name}", f"user: patch pod {json.dumps(patch)}")
        pod = self._writes.write_pod(replace(pod, labels=labels, annotations=annotations, spec=spec),
                                     "user: patch_pod")
        self.kubelet.on_patched(pod)
        return _detached(pod)

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name, wait=arguments.boolean)
    def delete_pvc(self, name: str, namespace: str = "default", wait: bool = True) -> PersistentVolumeClaim | None:
        """Delete a claim (like ``kubectl delete pvc``).

        While a pod mounts it, the claim stays, marked deleting
        (``kubernetes.io/pvc-protection``); it goes once no pod uses it.
        Like kubectl, waits (the clock moves on) until it is gone, or until nothing
        more is scheduled; ``wait=False`` is ``--wait=false``.
        Returns the claim if it is still there, None if it is gone.
        Raise KeyError if there is no such claim.
        """
        claim = self.store.get("PersistentVolumeClaim", namespace, name)
        if claim is None:
            raise KeyError(f'persistentvolumeclaims "{name}" not found')
        self.trace.add_event("Normal", "User", f"persistentvolumeclaim/{name}", "user: delete pvc")
        if claim.deletion_timestamp is None:
            self.store.update("PersistentVolumeClaim", replace(claim, deletion_timestamp=self.now))
            self.gc.trigger()
        if wait:
            self._wait_gone("PersistentVolumeClaim", namespace, name, claim.uid,
                            f'persistentvolumeclaim "{name}"')
        claim = self.store.get("PersistentVolumeClaim", namespace, name)
        return None if claim is None else _detached(claim)

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name, wait=arguments.boolean)
    def delete(self, name: str, cascade: str = "background", namespace: str = "default",
               wait: bool = True) -> None:
        """Delete the set, like ``kubectl delete statefulset NAME --cascade=...``, and wait.

        Like kubectl (``--wait=true`` is its default), the call returns once the set is
        gone: the clock moves on through the garbage collector's work (and, for
        ``foreground``, the kubelet's) until then, and ``trace.events()`` shows how long
        it took.  ``wait=False`` is ``--wait=false``: it returns at once, the set still
        there while the collector works.  A wait ends early, the set still there, when
        nothing more is scheduled (a manual kubelet that has pods to finish) or after a
        simulated week (kubectl's default timeout); the trace says so.

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
        if sts.deletion_timestamp is None:  # else already being deleted: only wait
            if cascade == "background":
                self.store.remove("StatefulSet", namespace, name)  # removal triggers the collector
            else:
                finalizer = FOREGROUND if cascade == "foreground" else ORPHAN
                self.store.update("StatefulSet", replace(sts, deletion_timestamp=self.now,
                                                         finalizers=sts.finalizers + (finalizer,)))
                self.gc.trigger()
        if wait:
            self._wait_gone("StatefulSet", namespace, name, sts.uid, f'statefulset.apps "{name}"')

    def _wait_gone(self, kind: str, namespace: str, name: str, uid: str, what: str) -> bool:
        """kubectl's ``--wait``: move the clock from event to event until the object with *uid*
        is gone; say in the trace how it ended.  True if it is gone."""
        start = self.now
        while True:
            obj = self.store.get(kind, namespace, name)
            if obj is None or obj.uid != uid:
                self.trace.add_event("Normal", "User", f"{kind.lower()}/{name}",
                                     f"user: wait: {what} is gone after {self.now - start:g}s")
                return True
            nxt = self.clock.peek()
            if nxt is None or nxt > start + WAIT_TIMEOUT:
                why = "nothing more is scheduled" if nxt is None else "timed out"
                self.trace.add_event("Warning", "User", f"{kind.lower()}/{name}",
                                     f"user: wait: {what} is still there after {self.now - start:g}s: {why}")
                return False
            self.clock.advance_to(nxt)

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
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

        Raise :class:`~stsedu.api.errors.RolloutError` (and change nothing) with
        kubectl's message: ``unable to find specified revision N in history``
        or ``no last revision to roll back to``; KeyError if the set is absent.
        """
        from .api.errors import RolloutError
        from .controller.history import controlled_history, find_history
        from .controller.stateful_set_utils import get_patch
        sts = self.statefulset(name, namespace)
        revision = arguments.as_integer(0 if to_revision is None else to_revision)
        if revision is None:
            shown = arguments.shown(to_revision)
            raise RolloutError(f'invalid argument "{shown}" for "--to-revision" flag: '
                               f'strconv.ParseInt: parsing "{shown}": invalid syntax', name=name)
        to_revision = revision
        if to_revision < 0:
            raise RolloutError(f"unable to find specified revision {to_revision} in history", name=name)
        history = controlled_history(sts, self.store.list("ControllerRevision", namespace))
        if to_revision == 0 and len(history) <= 1:
            raise RolloutError("no last revision to roll back to", name=name)
        target = find_history(to_revision, history)
        if target is None:
            raise RolloutError(f"unable to find specified revision {to_revision} in history", name=name)
        if get_patch(sts.spec.template, self.profile.null_creation_timestamp) == target.data:
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

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def rollout_status(self, name: str, namespace: str = "default") -> str:
        """What ``kubectl rollout status statefulset/<name>`` prints now (one line)."""
        from .views.kubectl.rollout import rollout_status_text
        return rollout_status_text(self.statefulset(name, namespace))

    @arguments.checked("Cluster", name=arguments.name, namespace=arguments.name)
    def rollout_history(self, name: str, namespace: str = "default"):
        """The set's revisions as a DataFrame: revision number, name, and which is current/update."""
        sts = self.store.get("StatefulSet", namespace, name)
        rows = []
        for r in self.revisions(name, namespace):
            rows.append({"revision": r.revision, "name": r.name,
                         "current": sts is not None and r.name == sts.status.current_revision,
                         "update": sts is not None and r.name == sts.status.update_revision,
                         "images": ", ".join(c.get("image", "") for c in
                                             r.template.get("spec", {}).get("containers", []))})
        return kit_frame(rows, columns=["revision", "name", "current", "update", "images"])

    @property
    def informer_delay(self) -> float:
        """Seconds between a pod write and its event reaching the controller's cache and handlers."""
        return self.loop.informers.delay

    @informer_delay.setter
    def informer_delay(self, value: float) -> None:
        arguments.check("informer_delay", arguments.number(value, "informer_delay"))
        self.loop.informers.delay = float(value)

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
        self._writes.faults.append(Fault(verb, kind, arguments.as_integer(count), reason,
                                         after=arguments.as_integer(after)))

    def pending_errors(self) -> list[tuple[str, str, int, int, str]]:
        """``(verb, kind, after, count, reason)`` of the injected errors not yet used up."""
        return [(f.verb, f.kind, f.after, f.count, f.reason) for f in self._writes.faults]

    def clear_errors(self) -> None:
        """Forget every injected error that has not fired yet."""
        self._writes.faults.clear()


def _claim_of(claim: str, set_name: str, templates: list[str] | None = None) -> bool:
    """True if *claim* is named ``<template>-<set_name>-<ordinal>`` (for one of *templates* if given)."""
    head, _, ordinal = claim.rpartition("-")
    if not ordinal.isdigit() or not head.endswith("-" + set_name):
        return False
    return templates is None or head[:-len(set_name) - 1] in templates


def _claim_sort_key(name: str):
    head, _, ordinal = name.rpartition("-")
    return (head, int(ordinal) if ordinal.isdigit() else -1, name)


_detached = detached


def _with_detached_payloads(record):
    """*record* (a SyncResult or SyncPlan) with the caller's copies of its decisions' payloads (the pods,
    claims and revisions acted on), so that changing them changes nothing stored."""
    if all(d.payload is None for d in record.decisions):
        return record
    return replace(record, decisions=tuple(d if d.payload is None else replace(d, payload=detached(d.payload))
                                           for d in record.decisions))
