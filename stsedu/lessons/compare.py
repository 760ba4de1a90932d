"""Run the same scenario under two behaviour profiles and compare them sync by sync.

::

    from stsedu.compare import compare
    cmp = compare(lambda c: c.run("web"), manifest, profiles=("current", "v1.16"))
    cmp.first_divergence        # the first sync where the two controllers differ, and how
    cmp.table()                 # both traces side by side, one row per sync
    cmp.sync(3)                 # the decisions of sync 3 under each profile, with messages
    cmp.chart()                 # an Altair chart of both traces aligned by sync

A *scenario* is the manifest to apply plus *steps*: a callable ``steps(cluster)``
(or a list of them, run in order) that drives the cluster -- ``cluster.run``,
``cluster.scale``, ``cluster.kubelet.fail(...)``, ``cluster.sync`` ... The same
steps run on a fresh cluster per profile, with the same seed, so every
difference in the traces comes from the controllers.

Syncs are aligned by number: sync *n* of one run beside sync *n* of the other.
By default (``align="repeats"``) a sync that only repeats the sync before it
(same decisions, same outcomes, nothing changed, no error) is folded into it
first: how often a controller wakes up to find nothing new (after its own
status write, say) depends on the release and on timing, not on its rules, so
such echoes would shift the alignment.  ``align="sync"`` keeps every sync;
either way each row names the trace syncs it stands for.
Two syncs *decide differently* when their decisions differ (action, pod or
object, reason), else when the same decisions had different outcomes (carried
out / failed), else when one sync failed and the other did not,
or when one run has no sync *n* at all: ``first_divergence`` is the first such
sync.  Separately, ``first_status_divergence`` is the first sync after which
the set shows a different status (``availableReplicas`` is only compared when
both releases have it): the status arithmetic changed between releases, so the
status often differs long before any decision does.  *status_fields* narrows
the status comparison to some fields (e.g. only the revisions).

Revisions are compared by the order each run created them (``rev1``, ``rev2``,
... in decisions and status), not by name: releases serialise the template
differently (up to v1.33 with ``creationTimestamp: null``), so the same
template gets another hash, and another name, under v1.16 than today.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..api.arguments import as_list
from ..cluster import Cluster
from ..api.profiles import Profile, get_profile
from ..frames import kit_frame
from ..i18n import N_, _

__all__ = ["Comparison", "Divergence", "Run", "compare", "KINDS", "STATUS_FIELDS", "ALIGNMENTS"]

Steps = Callable[[Cluster], Any] | Sequence[Callable[[Cluster], Any]]

KINDS = ("decisions", "outcome", "error", "status", "length")
"""The ways two aligned syncs can differ, in the order they are checked."""

STATUS_FIELDS = ("replicas", "ready_replicas", "available_replicas", "current_replicas",
                 "updated_replicas", "current_revision", "update_revision")
"""The status fields a comparison looks at (snake_case, as in ``StatefulSetStatus``)."""

ALIGNMENTS = ("repeats", "sync")
"""How syncs are lined up: fold repeated no-op syncs first, or one row per sync."""

_OUTCOME = {True: "done", False: "failed", None: "-"}


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first sync where two runs differ: *kind* (one of :data:`KINDS`) and what each run shows."""

    sync: int
    kind: str
    profiles: tuple[str, str]
    a: str
    b: str
    trace_syncs: tuple[int | None, int | None] = (None, None)
    """The number, in each run's own trace, of the (first) sync in the aligned row."""

    def __str__(self) -> str:
        what = _({"decisions": N_("decide differently"),
                  "outcome": N_("make the same decisions with different outcomes"),
                  "error": N_("differ in whether the sync failed"), "status": N_("show a different status"),
                  "length": N_("ran a different number of syncs")}[self.kind])
        pa, pb = self.profiles
        where = _("sync {n}").format(n=self.sync)
        if any(t is not None and t != self.sync for t in self.trace_syncs):
            where += " (" + ", ".join(_("{profile} sync {n}").format(profile=p, n=t)
                                      for p, t in zip(self.profiles, self.trace_syncs) if t is not None) + ")"
        return _("{where}: the two controllers {what}. {pa}: {a}. {pb}: {b}.").format(
            where=where, what=what, pa=pa, a=self.a, pb=pb, b=self.b)


@dataclass(frozen=True, slots=True)
class Run:
    """One profile's run of the scenario: its cluster (with the trace) and the error the steps raised, if any."""

    profile: str
    cluster: Cluster
    error: str | None = None


def _profile_and_options(spec) -> tuple[Profile, dict]:
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Mapping):
        return get_profile(spec[0]), dict(spec[1])
    return get_profile(spec), {}


def _run(profile: Profile, options: dict, steps: Steps, manifest, kubelet: str, seed: int) -> Run:
    cluster = Cluster(kubelet=kubelet, seed=seed, profile=profile, **options)
    error = None
    try:
        if manifest is not None:
            cluster.apply(manifest)
        for step in ([steps] if callable(steps) else list(steps)):
            step(cluster)
    except Exception as e:  # a step that makes sense under one release may fail under the other
        error = f"{type(e).__name__}: {e}"
    return Run(profile.name, cluster, error)


def compare(steps: Steps, manifest: str | Mapping | list | None = None,
            profiles: Sequence = ("current", "v1.16"), *, kubelet: str = "auto", seed: int = 0,
            set_name: str | None = None, options: Mapping[str, Any] | None = None,
            status_fields: Sequence[str] = STATUS_FIELDS, align: str = "repeats") -> "Comparison":
    """Run *manifest* + *steps* once per profile and compare the two traces sync by sync.

    *profiles* holds two profile names (or :class:`~stsedu.api.profiles.Profile`
    objects, or ``(name, {cluster options})`` pairs for options of one run
    only, such as ``feature_gates``).  *kubelet*, *seed* and *options* (more
    :class:`~stsedu.cluster.Cluster` keyword arguments, e.g. ``stages``) apply
    to both runs.  *set_name* is the StatefulSet to compare (default: the one
    the manifest defines, else the first one synced).  *status_fields* are the
    fields of :data:`STATUS_FIELDS` whose difference counts as a status divergence.
    *align* is ``"repeats"`` (fold syncs that only repeat the one before) or
    ``"sync"`` (every sync its own row).

    If a step raises under one profile, that run stops there and the error is
    kept in ``Run.error`` (and reported by :meth:`Comparison.summary`).
    Raise ValueError unless exactly two profiles are given, for an unknown
    profile, an unknown status field or *align* value.
    """
    if align not in ALIGNMENTS:
        raise ValueError(f"align must be one of {', '.join(ALIGNMENTS)}, not {align!r}")
    status_fields = as_list(status_fields, "status_fields", "status field names")   # "replicas": one field
    unknown = [f for f in status_fields if f not in STATUS_FIELDS]
    if unknown:
        raise ValueError(f"unknown status field(s) {unknown}; known: {', '.join(STATUS_FIELDS)}")
    specs = as_list(profiles, "profiles", "profiles")
    if len(specs) != 2:
        raise ValueError(f"compare needs exactly two profiles, not {len(specs)}")
    runs = []
    for spec in specs:
        profile, own = _profile_and_options(spec)
        runs.append(_run(profile, {**dict(options or {}), **own}, steps, manifest, kubelet, seed))
    return Comparison(runs[0], runs[1], set_name, status_fields, align)


def _revision_labels(decisions) -> dict[str, str]:
    """``{revision name: "rev<k>"}`` for the revisions a run created, k counting in creation order."""
    made = decisions[(decisions.action == "create-revision") & (decisions.applied == True)]  # noqa: E712
    labels: dict[str, str] = {}
    for name in made.target:
        labels.setdefault(name, f"rev{len(labels) + 1}")
    return labels


def _decision_text(row) -> str:
    obj = row.pod if isinstance(row.pod, str) else (row.target if isinstance(row.target, str) else "")
    text = f"{row.action} {obj} ({row.reason})".replace("  ", " ")
    if row.applied is False:
        text += " ✗ " + str(row.error)
    return text


def _status_text(row, has_available: bool) -> str:
    avail = str(row.available_replicas) if has_available else "–"
    return f"{row.replicas}/{row.ready_replicas}/{avail}/{row.current_replicas}/{row.updated_replicas}"


class Comparison:
    """Two runs of one scenario, aligned by sync (see :func:`compare`).

    * ``runs``: the two :class:`Run` records; ``profiles``: their names;
    * ``first_divergence``: the first sync whose decisions (or their outcomes, or the
      sync's success) differ, as a :class:`Divergence`, or None;
    * ``first_status_divergence``: the first sync after which the status differs, or None;
    * :meth:`table`, :meth:`sync`, :meth:`chart`, :meth:`summary`.
    """

    def __init__(self, a: Run, b: Run, set_name: str | None = None,
                 status_fields: Sequence[str] = STATUS_FIELDS, align: str = "repeats") -> None:
        self.runs = (a, b)
        self.align = align
        self.status_fields = tuple(f for f in status_fields if f != "available_replicas"
                                   or all(r.cluster.profile.min_ready_seconds for r in (a, b)))
        self.profiles = (a.profile, b.profile)
        if self.profiles[0] == self.profiles[1]:
            self.profiles = (f"{a.profile} (1)", f"{b.profile} (2)")
        self.set_name = set_name or self._guess_set()
        self._syncs = [self._per_sync(r) for r in self.runs]
        self.first_divergence = self._diverge(("decisions", "outcome", "error", "length"))
        self.first_status_divergence = self._diverge(("status",))

    # ------------------------------------------------------------ gathering
    def _guess_set(self) -> str:
        for run in self.runs:
            sets = run.cluster.statefulsets()
            if len(sets) == 1:
                return sets[0].name
            syncs = run.cluster.trace.syncs()
            if len(syncs):
                return str(syncs.set.iloc[0])
        return "web"

    def _per_sync(self, run: Run) -> dict[int, dict]:
        """Aligned rows of one run: trace syncs, time, decisions, error, and the status shown after."""
        trace = run.cluster.trace
        has_available = run.cluster.profile.min_ready_seconds
        syncs = trace.syncs()
        syncs = syncs[syncs.set == self.set_name]
        decisions = trace.decisions()
        decisions = decisions[(decisions.set == self.set_name) & (decisions.action != "status")]
        labels = _revision_labels(decisions)
        decisions = decisions.assign(target=[labels.get(t, t) for t in decisions.target])
        by_sync = {s: g for s, g in decisions.groupby("sync")}
        status = trace.status()
        status = status[status.set == self.set_name].set_index("sync")
        for col in ("current_revision", "update_revision"):
            status[col] = [labels.get(v, v) for v in status[col]]
        out: dict[int, dict] = {}
        shown = None
        for row in syncs.itertuples(index=False):
            if row.sync in status.index:
                srow = status.loc[row.sync]
                shown = (_status_text(srow, has_available),
                         f"{srow.current_revision} -> {srow.update_revision}",
                         {f: srow[f] for f in STATUS_FIELDS})
            rows = list(by_sync[row.sync].itertuples(index=False)) if row.sync in by_sync else []
            error = row.error if isinstance(row.error, str) else None
            after = {"status": shown[0] if shown else "", "revisions": shown[1] if shown else "",
                     "fields": shown[2] if shown else {}}
            last = out.get(len(out))
            if (self.align == "repeats" and last is not None and error is None and last["error"] is None
                    and not row.changed and self._key(rows) == self._key(last["decisions"])
                    and self._outcomes(rows) == self._outcomes(last["decisions"])):
                last["syncs"].append(int(row.sync))
                last.update(after)  # the status shown after the last sync of the row
                continue
            out[len(out) + 1] = {"syncs": [int(row.sync)], "time": float(row.time), "decisions": rows,
                                 "error": error, **after}
        return out

    # ----------------------------------------------------------- comparing
    @staticmethod
    def _key(rows) -> list[tuple]:
        return [(r.action, r.pod if isinstance(r.pod, str) else r.target, r.reason) for r in rows]

    @staticmethod
    def _outcomes(rows) -> list[str]:
        return [_OUTCOME[r.applied] if r.applied in _OUTCOME else str(r.applied) for r in rows]

    def differences(self, n: int) -> list[str]:
        """The ways sync *n* differs between the runs (words of :data:`KINDS`; empty if it does not)."""
        sa, sb = self._syncs[0].get(n), self._syncs[1].get(n)
        if sa is None or sb is None:
            return [] if sa is sb else ["length"]
        out = []
        if self._key(sa["decisions"]) != self._key(sb["decisions"]):
            out.append("decisions")
        elif self._outcomes(sa["decisions"]) != self._outcomes(sb["decisions"]):
            out.append("outcome")
        if (sa["error"] is None) != (sb["error"] is None):
            out.append("error")
        if self._status_key(sa) != self._status_key(sb):
            out.append("status")
        return out

    def _status_key(self, s: dict) -> tuple:
        return tuple(s["fields"].get(f) for f in self.status_fields)

    def _describe(self, n: int, kind: str, i: int) -> str:
        s = self._syncs[i].get(n)
        if s is None:
            return f"no sync {n} (the run ended after {len(self._syncs[i])} rows)"
        if kind in ("decisions", "outcome"):
            return "; ".join(_decision_text(r) for r in s["decisions"]) or "nothing to do"
        if kind == "error":
            return f"sync failed ({s['error']}), no status written" if s["error"] else "sync succeeded"
        other = self._syncs[1 - i].get(n) or {}
        revisions = f", revisions {s['revisions']}" if other.get("revisions") != s["revisions"] else ""
        if not s["status"]:
            return "no status written yet"
        return f"status {s['status']} (replicas/ready/available/current/updated){revisions}"

    def _diverge(self, kinds: tuple[str, ...]) -> Divergence | None:
        last = max(len(self._syncs[0]), len(self._syncs[1]))
        for n in range(1, last + 1):
            found = [k for k in self.differences(n) if k in kinds]
            if found:
                kind = found[0]
                trace = tuple(s[n]["syncs"][0] if n in s else None for s in self._syncs)
                return Divergence(n, kind, self.profiles, self._describe(n, kind, 0),
                                  self._describe(n, kind, 1), trace)
        return None

    # ------------------------------------------------------------- viewing
    def table(self, only_differences: bool = False):
        """Both traces side by side, one row per sync (a DataFrame).

        Columns: ``sync`` (the aligned row), then per profile ``<profile> syncs``
        (the trace syncs the row stands for, ``4-6`` when repeats were folded),
        ``<profile> time`` (of the first), ``<profile>
        decisions`` (``;``-separated, ``✗`` marks a request that failed), ``<profile> status`` (replicas/ready/available/current/
        updated after the sync; ``–`` where the release has no
        availableReplicas) and ``<profile> error``; and ``differs`` (words of
        :data:`KINDS` joined by ``+``, or "").
        """
        rows = []
        last = max(len(self._syncs[0]), len(self._syncs[1]))
        for n in range(1, last + 1):
            row: dict[str, Any] = {"sync": n}
            for p, syncs in zip(self.profiles, self._syncs):
                s = syncs.get(n)
                row[f"{p} syncs"] = _span(s["syncs"]) if s else ""
                row[f"{p} time"] = round(s["time"], 3) if s else None
                row[f"{p} decisions"] = ("; ".join(_decision_text(r) for r in s["decisions"])
                                         if s else "")
                row[f"{p} status"] = s["status"] if s else ""
                row[f"{p} error"] = (s["error"] or "") if s else ""
            row["differs"] = "+".join(self.differences(n))
            rows.append(row)
        frame = kit_frame(rows)
        if only_differences and len(frame):
            frame = frame[frame.differs != ""]
        return frame

    def sync(self, n: int):
        """The decisions of aligned sync *n* under each profile, with their messages (a DataFrame)."""
        rows = []
        for p, syncs in zip(self.profiles, self._syncs):
            s = syncs.get(n)
            for r in (s["decisions"] if s else []):
                rows.append({"profile": p, "action": r.action,
                             "object": r.pod if isinstance(r.pod, str) else r.target,
                             "reason": r.reason, "outcome": _OUTCOME.get(r.applied, r.applied),
                             "message": r.message})
        return kit_frame(rows, columns=["profile", "action", "object", "reason", "outcome", "message"])

    def summary(self) -> str:
        """One paragraph: how many syncs each run made and where they first differ."""
        a, b = self.runs
        parts = [_("{profile}: {n} syncs").format(profile=p, n=sum(len(r['syncs']) for r in s.values()))
                 for p, s in zip(self.profiles, self._syncs)]
        text = _("Scenario on StatefulSet {name}: {parts}. ").format(name=repr(self.set_name), parts=", ".join(parts))
        text += (str(self.first_divergence) if self.first_divergence is not None
                 else _("The two controllers made the same decisions in every sync."))
        if self.first_status_divergence is not None and (
                self.first_divergence is None
                or self.first_status_divergence.sync < self.first_divergence.sync):
            text += _(" The status already differs after sync {n}: {pa} {a}; {pb} {b}.").format(
                n=self.first_status_divergence.sync, pa=self.profiles[0], a=self.first_status_divergence.a,
                pb=self.profiles[1], b=self.first_status_divergence.b)
        for p, run in zip(self.profiles, self.runs):
            if run.error:
                text += _(" The steps stopped with an error under {profile}: {error}.").format(profile=p, error=run.error)
        return text

    def chart_data(self):
        """The rows :meth:`chart` draws: one per decision (profile, sync, object, action, outcome, reason)."""
        rows = []
        for p, syncs in zip(self.profiles, self._syncs):
            for n, s in syncs.items():
                for r in s["decisions"]:
                    if r.action == "create-revision" and r.reason == "collision":
                        continue
                    rows.append({"profile": p, "sync": n, "time": s["time"],
                                 "object": r.pod if isinstance(r.pod, str) else (r.target or "set"),
                                 "action": r.action, "reason": r.reason,
                                 "outcome": _OUTCOME.get(r.applied, str(r.applied)),
                                 "status": s["status"]})
        return kit_frame(rows, columns=["profile", "sync", "time", "object", "action", "reason",
                                           "outcome", "status"])

    def chart(self):
        """An Altair chart of both traces aligned by sync: one panel per profile, one mark per
        decision (x: sync, y: pod or object, colour: action, shape: outcome), and a red rule at
        the first divergence."""
        import altair as alt
        data = self.chart_data()
        last = max(len(self._syncs[0]), len(self._syncs[1]), 1)
        x = alt.X("sync:Q", scale=alt.Scale(domain=[0.5, last + 0.5]), axis=alt.Axis(tickMinStep=1),
                  title="sync")
        objects = sorted(set(data.object), key=_object_order)
        panels = []
        for p in self.profiles:
            points = alt.Chart(data[data.profile == p]).mark_point(filled=True, size=90).encode(
                x=x, y=alt.Y("object:N", sort=objects, title=None),
                color=alt.Color("action:N", scale=alt.Scale(domain=_ACTIONS)),
                shape=alt.Shape("outcome:N", scale=alt.Scale(domain=["done", "failed", "-"])),
                tooltip=["sync:Q", "time:Q", "action:N", "object:N", "reason:N", "outcome:N",
                         "status:N"])
            layers = [points]
            if self.first_divergence is not None:
                rule = alt.Chart(alt.Data(values=[{"sync": self.first_divergence.sync}])).mark_rule(
                    color="red", strokeDash=[4, 3]).encode(x="sync:Q")
                layers.append(rule)
            panels.append(alt.layer(*layers).properties(title=f"profile {p}", width=520,
                                                        height=max(60, 18 * len(objects))))
        return alt.vconcat(*panels).resolve_scale(x="shared")

    def _repr_html_(self) -> str:  # pragma: no cover - display helper
        return f"<p>{self.summary()}</p>" + self.table().to_html(index=False)


def _span(syncs: list[int]) -> str:
    return str(syncs[0]) if len(syncs) == 1 else f"{syncs[0]}-{syncs[-1]}"


_ACTIONS = ["create", "delete", "update", "wait", "create-pvc", "update-pvc", "create-revision",
            "update-revision", "delete-revision", "adopt", "release", "error"]


def _object_order(name: str):
    head, _, tail = name.rpartition("-")
    return (head, int(tail)) if tail.isdigit() else (name, -1)

