"""kubectl's text on both sides of a live comparison: what is read at a stable point (the kit's
views, the real kubectl), how two clusters' texts are normalised (ages, uids, timestamps, the
namespace), and how ``describe``'s events are compared (counts, order within a second, the event
correlator's combined rows, deletes the real controller repeats from a stale cache).
"""

from __future__ import annotations

import re

TEXTS = ("get pods", "get sts", "get controllerrevisions", "get pvc", "rollout status", "rollout history",
         "describe sts", "describe sts: events")
"""The kubectl outputs compared at every stable point (AGE and uids normalised by :func:`normalise`)."""

TIMED_TEXTS = ("get pods",)
"""The kubectl output compared at a point in time (:func:`timed`): read at once, before its next change."""

_AGE = re.compile(r"^(<invalid>|\d+[smhdy](\d+[smhd])?)( \(x(\d+) over (\d+[smhdy](\d+[smhd])?)\))?$")
"""An age, or an event's ``26s (x2 over 65s)`` (the count is kept)."""
_AGO = re.compile(r" \((<invalid>|\d+[smhdy](\d+[smhd])?) ago\)")
"""RESTARTS' ``2 (5s ago)``: when the container last exited, which two clusters cannot share to the second."""
_UID = re.compile(r"pvc-[0-9a-f-]{36}")
_WHEN = re.compile(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}")


def _age(cell: str) -> str:
    m = _AGE.match(cell)
    if not m:
        return cell
    return "AGE" + (f" (x{m.group(4)} over AGE)" if m.group(3) else "")


def normalise(text: str, namespace: str = "default") -> list[tuple[str, ...]]:
    """*text* as rows of cells (split on runs of 2+ spaces or tabs), ages and uids replaced, the namespace
    named ``default``: the column widths an age changes and the names a cluster makes up no longer matter."""
    text = text.replace(f" {namespace} namespace", " default namespace")
    text = re.sub(rf"^(Namespace:\s+){re.escape(namespace)}$", r"\1default", text, flags=re.M)
    text = _WHEN.sub("TIME", _AGO.sub(" (AGO ago)", _UID.sub("pvc-UID", text)))
    rows = []
    for line in text.rstrip("\n").splitlines():
        cells = [c for c in re.split(r"\s{2,}|\t", line.strip())]
        rows.append(tuple(_age(c) for c in cells))
    return rows


def kit_texts(cluster, set_name: str) -> dict[str, str]:
    from ..views.kubectl import get as g
    from ..views.kubectl.describe_objects import describe_object
    from ..views.kubectl.printers import BY_KIND
    from ..views.kubectl.rollout import rollout_history_text, rollout_status_text
    out = {"get pods": g.get_pods_text(cluster), "get sts": g.get_sts_text(cluster),
           "get controllerrevisions": g.get_controllerrevisions_text(cluster), "get pvc": g.get_pvc_text(cluster)}
    try:
        sts = cluster.statefulset(set_name)
    except KeyError:
        return out
    out["rollout status"] = rollout_status_text(sts)
    out["rollout history"] = rollout_history_text(cluster, set_name)
    out.update(describe_parts(describe_object(cluster, BY_KIND["StatefulSet"], sts)))
    return out


def describe_parts(text: str) -> dict[str, str]:
    """``describe sts``: the object (up to ``Events:``) and its events (their ages normalised by :func:`normalise`)."""
    head, sep, events = text.partition("\nEvents:")
    return {"describe sts": head + "\n", "describe sts: events": ("Events:" + events) if sep else ""}


def live_texts(session, set_name: str, only: tuple[str, ...] = TEXTS) -> dict[str, str]:
    k = session.kubectl
    gets = {"get pods": ("pods",), "get sts": ("statefulsets",), "get controllerrevisions": ("controllerrevisions",),
            "get pvc": ("pvc",)}
    out = {}
    for n, what in gets.items():
        if n in only:
            p = k("get", *what, check=False)
            out[n] = p.stdout + p.stderr
    if not set(only) - set(gets):
        return out
    if k("get", f"statefulset/{set_name}", "-o", "name", check=False).returncode != 0:
        return out
    p = k("rollout", "status", f"statefulset/{set_name}", "--watch=false", check=False)
    out["rollout status"] = p.stdout + p.stderr
    out["rollout history"] = k("rollout", "history", f"statefulset/{set_name}", check=False).stdout
    out.update(describe_parts(k("describe", f"statefulset/{set_name}", check=False).stdout))
    return out


_COMBINED = "(combined from similar events): "


def _event_rows(text: str, namespace: str = "default") -> list[tuple[str, tuple[str, ...]]]:
    """``describe``'s event rows in the order listed, each as (its raw last-seen age, (type, reason,
    count, from, message)); the count is ``""`` or ``"x7"``."""
    raw = [[c for c in re.split(r"\s{2,}|\t", line.strip())] for line in text.rstrip("\n").splitlines()][3:]
    out = []
    for r, n in zip(raw, normalise(text, namespace)[3:]):
        if len(n) < 5:
            continue
        m = _AGE.match(r[2])
        count = f"x{m.group(4)}" if m and m.group(3) else ""
        out.append((r[2].split(" ")[0], (n[0], n[1], count, *n[3:-1], n[-1].removeprefix(_COMBINED))))
    return out


def describe_events(text: str, namespace: str = "default") -> list[tuple[str, ...]]:
    """The events ``describe`` lists, in its order, as (type, reason, count, from, message): the count
    (``x7`` for ``(x7 over 2m)``, ``""`` for one) is kept; the event correlator's prefix
    ``(combined from similar events): `` is dropped."""
    return [e for _, e in _event_rows(text, namespace)]


def _inversions_outside_a_second(a: list, b: list) -> list[tuple]:
    """Pairs of events that *b* lists in the other order than *a* although neither side lists them within
    one second (the same age). kubectl sorts by ``lastTimestamp``, which has whole seconds, with an unstable
    sort: only events of the same second may come in either order. *a*, *b*: ``_event_rows``, the same
    events; the k-th of identical events on one side is matched with the k-th on the other."""
    def keyed(rows):
        seen: dict = {}
        out = []
        for age, e in rows:
            seen[e] = seen.get(e, 0) + 1
            out.append(((e, seen[e]), age))
        return out
    ka, kb = keyed(a), keyed(b)
    pos = {k: i for i, (k, _) in enumerate(ka)}
    age_a = dict(ka)
    bad = []
    for i in range(len(kb)):
        for j in range(i + 1, len(kb)):
            (x, ax), (y, ay) = kb[i], kb[j]
            if pos[x] > pos[y] and ax != ay and age_a[x] != age_a[y]:
                bad.append((x[0], y[0]))
    return bad


def same_events(kit: str, live: str, namespace: str) -> bool:
    """The same events with the same counts, listed in the same order but where kubectl's order is not
    defined (events of one second, :func:`_inversions_outside_a_second`). Where the real event correlator
    combined similar events (the kit does not model it: more than ten of one reason about one object within
    ten minutes), the same distinct events with every combined one among the kit's, posted as many times."""
    a = _event_rows(kit)
    b = _without_repeated_deletes(a, _event_rows(live, namespace))
    if sorted(e for _, e in a) == sorted(e for _, e in b):
        return not _inversions_outside_a_second(a, b)
    if _COMBINED not in live:
        return False
    def uncounted(rows):
        return {e[:2] + e[3:] for _, e in rows}
    return uncounted(b) <= uncounted(a) and _posts(a) == _posts(b)


def _without_repeated_deletes(kit: list, live: list) -> list:
    """*live*'s rows with a ``SuccessfulDelete`` counted more often than the kit's lowered to the kit's count.

    Upstream's StatefulSet controller keeps no expectations: when its pod cache lags behind its set cache (two
    watches), a sync can delete a pod that is already terminating, or gone, once more; the API server
    changes nothing (or answers NotFound) and ``DeleteStatefulPod`` records ``SuccessfulDelete`` again, so the
    real ``describe`` says ``(x3 ...)`` where two deletes took effect. The deletes that took effect are
    compared from the pods' own watch (``differences``: creates and deletes, terminating pods); the kit's
    cache is never stale. A live count *below* the kit's, or any other reason, is not touched."""
    counts = {(e[0], e[1]) + e[3:]: e[2] for _, e in kit if e[1] == "SuccessfulDelete"}
    out = []
    for age, e in live:
        mine = counts.get((e[0], e[1]) + e[3:])
        if mine is not None and _times(e[2]) > _times(mine):
            e = e[:2] + (mine,) + e[3:]
        out.append((age, e))
    return out


def _posts(rows) -> dict[str, int]:
    """How many times events of each type were posted (a row is one post, or N with ``(xN over ...)``):
    where the correlator combined events, their number still shows, and client-go's spam filter (25 per
    object and type, docs/live.md) with it."""
    out: dict[str, int] = {}
    for _, e in rows:
        out[e[0]] = out.get(e[0], 0) + _times(e[2])
    return out


def _times(count: str) -> int:
    """How many posts a row's count stands for: ``"x7"`` 7, ``""`` one."""
    return int(count[1:]) if count else 1


def text_differences(kit: dict[str, str], live: dict[str, str], namespace: str) -> list[str]:
    out = []
    for name in TEXTS:
        a, b = kit.get(name), live.get(name)
        if a is None and b is None:
            continue
        same = (lambda x, y: same_events(x, y, namespace)) if name == "describe sts: events" else \
            (lambda x, y: normalise(x) == normalise(y, namespace))
        if a is None or b is None or not same(a, b):
            out.append(f"kubectl {name}:\n--- kit\n{a}\n--- live\n{b}")
    return out
