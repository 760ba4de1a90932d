"""Checks that what a learner sees is true of the cluster it draws (issue #26).

* :func:`chart_problems`: a chart has data rows, names only pods that exist or existed in its
  cluster, its time axis reaches the cluster's now (a sync axis: the last sync), and each pod that
  exists now is drawn, at the right edge, in the state it is in now;
* :func:`status_problems`: a lab's status line says "stable" only when the set is stable
  (:func:`stsedu.widgets.settled.unsettled` is empty), and says "not stable" otherwise;
* :func:`control_problems`: every control of a lab shows the value the cluster has.

Each returns a list of problems in words (``[]``: none), so that a failing test says what is wrong.
"""

from __future__ import annotations

import re

import ipywidgets as W

from stsedu.widgets.settled import unsettled


def encoded(spec):
    """Every dict in a Vega-Lite spec that has an ``encoding``."""
    if isinstance(spec, dict):
        if "encoding" in spec:
            yield spec
        for v in spec.values():
            yield from encoded(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from encoded(v)


def leaves(w):
    """Every widget without children inside widget *w* (the controls of a lab's control box), in order."""
    kids = getattr(w, "children", None)
    if kids:
        for k in kids:
            yield from leaves(k)
    else:
        yield w


def _state_now(p) -> set[str]:
    """The timeline states that may stand for pod *p* now."""
    if p.terminating:
        return {"Terminating"}
    if p.phase in ("Failed", "Succeeded", "Pending"):
        return {p.phase}
    if p.ready:
        return {"Ready", "Available"}
    if p.container_state:  # a crash-looping container: the kubelet's waiting or terminated state
        return {"CrashLoopBackOff", p.container_state}
    return {"Running"}


def chart_problems(chart, cluster, set_name: str = "web") -> list[str]:
    """What is untrue in *chart* of *cluster* (see the module docstring)."""
    if chart is None:
        return ["no chart"]
    spec = chart.to_dict()
    rows = [r for d in spec.get("datasets", {}).values() for r in d]
    for node in encoded(spec):  # inline data, if any
        rows += list((node.get("data") or {}).get("values", []) or [])
    out = []
    if not rows:
        out.append("the chart has no data rows")
    trace = cluster.trace
    existed = set(trace.pods()["pod"]) if not trace.pods().empty else set()
    named = {r["pod"] for r in rows if isinstance(r.get("pod"), str)}
    if named - existed:
        out.append(f"the chart names pods that never existed: {sorted(named - existed)}")
    ordinals = {int(p.rsplit("-", 1)[1]) for p in existed if p.startswith(set_name + "-")}
    for node in encoded(spec):
        enc = node["encoding"]
        y = enc.get("y", {})
        dom = (y.get("scale") or {}).get("domain")
        label = (y.get("axis") or {}).get("labelExpr", "")
        if dom and f"'{set_name}-'" in str(label):
            lo, hi = dom[0] + 0.5, dom[1] - 0.5
            if ordinals and (lo not in ordinals or hi not in ordinals):
                out.append(f"the ordinal axis runs {set_name}-{lo:g}..{set_name}-{hi:g}, "
                           f"but the pods that existed are {sorted(ordinals)}")
            if not ordinals:
                out.append(f"the ordinal axis labels {set_name}-{lo:g}, and no pod of {set_name} ever existed")
        x = enc.get("x", {})
        xdom = (x.get("scale") or {}).get("domain")
        title = (x.get("axis") or {}).get("title")
        if xdom and title == "time (s)" and xdom[1] < cluster.now - 1e-9:
            out.append(f"the time axis ends at {xdom[1]:g}s, the cluster's now is {cluster.now:g}s")
        if xdom and title == "time (s)" and "pod" in str(enc.get("tooltip", "")) and rows:
            out += _last_states(rows, cluster, set_name, xdom[1])
    return sorted(set(out))


def _last_states(rows, cluster, set_name, right) -> list[str]:
    out = []
    try:
        pods = cluster.pods(set_name)
    except KeyError:
        pods = []
    for p in pods:
        mine = [r for r in rows if r.get("pod") == p.name and "x1" in r and "state" in r]
        if not mine:
            out.append(f"{p.name} exists but the chart does not draw it")
            continue
        last = max(mine, key=lambda r: r["x1"])
        if abs(last["x1"] - right) > 1e-9:
            out.append(f"{p.name}'s last bar ends at {last['x1']:g}s, before the axis's end {right:g}s")
        elif last["state"] not in _state_now(p):
            out.append(f"{p.name} is drawn {last['state']!r} at the end, but it is {sorted(_state_now(p))} now")
    return out


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def waiting_for_a_delete(cluster, set_name: str = "web") -> list[str]:
    """Under OnDelete, the names of the set's pods that run another revision than ``status.updateRevision``
    (the controller leaves them: each is replaced only once someone deletes it)."""
    try:
        sts = cluster.statefulset(set_name)
    except KeyError:
        return []
    if sts.spec.update_strategy != "OnDelete" or not sts.status.update_revision:
        return []
    lo, hi = sts.spec.start_ordinal, sts.spec.start_ordinal + sts.spec.replicas
    return [p.name for p in sorted(cluster.pods(set_name), key=lambda p: p.ordinal)
            if lo <= p.ordinal < hi and not p.terminating and p.revision != sts.status.update_revision]


def on_delete_problems(line: str, cluster, set_name: str = "web") -> list[str]:
    """A line that calls the set stable (or its pods Ready) under OnDelete must say what is left: how many
    pods wait for a delete, and which (the first few by name)."""
    left = waiting_for_a_delete(cluster, set_name)
    if not left:
        return []
    n = len(left)
    count = f"{n} pod{'s' * (n != 1)} wait"
    if count not in line or left[0] not in line:
        return [f"{n} pods wait for a delete under OnDelete ({left[:4]}...), the line does not say so: {line!r}"]
    return []


def status_problems(lab) -> list[str]:
    """What is untrue in *lab*'s status line about whether the set is stable, and (under OnDelete) what
    is left for the learner to do."""
    line = _text(lab.did_area.value)
    if lab.last_error is not None or not lab._ran or not lab._exists():
        return [] if "stable at" not in line else [f"says stable with no run: {line}"]
    reasons = unsettled(lab.cluster, lab.name)
    if "stable at" in line and "not stable" not in line and reasons:
        return [f"says {line!r} but the set is not stable: {reasons}"]
    if "not stable" in line and not reasons and not lab._cancelled:
        return [f"says not stable, but the set is: {line!r}"]
    if "stable at" in line:
        return on_delete_problems(line, lab.cluster, lab.name)
    return []


def control_values(lab) -> dict[str, object]:
    """The value each control of *lab* should show, read from the cluster."""
    if not lab._exists():
        return {}
    s = lab._sts().spec
    ru = s.rolling_update
    return {"w_replicas": s.replicas, "w_start": s.start_ordinal, "w_mrs": s.min_ready_seconds,
            "w_limit": s.revision_history_limit, "w_image": s.template["spec"]["containers"][0]["image"],
            "w_partition": ru.partition if ru is not None else None,
            "w_mu": ru.max_unavailable if ru is not None else None,
            "w_strategy": s.update_strategy, "w_policy": s.pod_management_policy,
            "w_scaled": s.when_scaled, "w_deleted": s.when_deleted, "w_profile": lab.cluster.profile.name}


def control_problems(lab) -> list[str]:
    """Controls of *lab* that show a value the cluster does not have."""
    out = []
    for attr, want in control_values(lab).items():
        w = getattr(lab, attr, None)
        if w is None or want is None or not isinstance(w, W.ValueWidget):
            continue
        if isinstance(w, W.ToggleButtons) and want not in w.options:
            continue  # e.g. an image typed in code that the lab offers no button for
        if w.value != want:
            out.append(f"{attr} shows {w.value!r}, the cluster has {want!r}")
    return out


def lesson17_problems(run) -> list[str]:
    """What notebook 17 says of its run that *run* (a :class:`stsedu.live.lesson.Lesson`, stored or live) does
    not show: in both traces, "three `web` pods created one at a time", each "only once" the one before "is
    Running and Ready"; and, at every stable point, the kit and the real cluster agree."""
    out = []
    for side, trace in (("the kit's", run.kit_trace), ("the real", run.live_trace)):
        pods = trace.pods()
        pods = pods[pods["set"] == "web"]
        names = sorted(set(pods["pod"]), key=lambda n: int(n.rsplit("-", 1)[1]))
        if names != ["web-0", "web-1", "web-2"]:
            out.append(f"{side} run has pods {names}, not the three web pods the notebook names")
            continue
        created = {n: pods[pods["pod"] == n]["time"].min() for n in names}
        ready = {n: pods[(pods["pod"] == n) & (pods["phase"] == "Running") & pods["ready"]]["time"].min()
                 for n in names}
        for before, after in zip(names, names[1:]):
            if not created[after] >= ready[before]:
                out.append(f"in {side} run {after} was created at {created[after]:g}s, before {before} was "
                           f"Running and Ready ({ready[before]:g}s)")
    table = run.agreement()
    if table.empty:
        out.append("no stable point to compare")
    for col in ("pods, claims, revisions, status", "creates/deletes in order"):
        if col in table and set(table[col]) != {"✓"}:
            out.append(f"the kit and the real cluster differ ({col}): {table[col].tolist()}")
    return out
