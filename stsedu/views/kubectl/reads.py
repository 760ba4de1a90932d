"""The verbs that read: ``get`` (and ``get -w``), ``describe``, ``rollout status``, ``rollout history``."""

from __future__ import annotations

from . import get as G
from . import printers as P
from .flags import KubectlError, Parsed, go_duration
from .args import MISSING_RESOURCE, NO_RESOURCE, label_selector, one_statefulset, targets

GET_NO_TYPE = ('You must specify the type of resource to get. Use "kubectl api-resources" for a complete list '
               'of supported resources.\n\nerror: Required resource not specified.\nUse "kubectl explain '
               '<resource>" for a detailed description of that resource (e.g. kubectl explain pods).\n'
               "See 'kubectl get -h' for help and examples")


def duration(text: str, flag: str) -> float:
    """A Go duration (``30s``, ``1m30s``, ``500ms``; a bare number is seconds, as kubectl reads
    ``--request-timeout``) in seconds, at most Go's longest (:func:`~.flags.go_duration`)."""
    return go_duration(text, flag, bare_seconds=True)


# ====================================================================== get

def get(s, p: Parsed, stdin, res) -> str:
    c = s.cluster
    ns = p["namespace"]
    if not p.args:
        raise KubectlError(GET_NO_TYPE)
    fmt, template = P.output_kind(p["output"], p["template"])
    tg = targets(p.args, "get")
    if p["output-watch-events"]:
        raise KubectlError("error: stsedu does not print --output-watch-events; use kubectl get pods -w")
    if p["watch"] or p["watch-only"]:
        if any(t.kind != "Pod" for t, _ in tg) or fmt not in ("", "wide"):
            raise KubectlError("error: stsedu watches pods only, as a table: kubectl get pods -w [-o wide] "
                               "[-l SELECTOR] [-L KEY]")
        return _watch(s, p, [n for _, n in tg if n], res, wide=fmt == "wide")
    match = label_selector(p["selector"]) if p["selector"] else None
    if match is not None and any(n for _, n in tg):
        raise KubectlError("error: name cannot be provided when a selector is specified")
    found: list[tuple[P.RType, object]] = []
    errors = []
    for t, n in tg:
        if n is None:
            found += [(t, o) for o in s.objects(t, ns) if match is None or match(o.labels)]
        else:
            o = c.store.get(t.kind, ns, n)
            if o is None:
                if not p["ignore-not-found"]:
                    errors.append(f'Error from server (NotFound): {t.qualified} "{n}" not found')
            else:
                found.append((t, o))
    single = len(tg) == 1 and tg[0][1] is not None
    out = ""
    if fmt in ("", "wide"):
        types = list(dict.fromkeys(t for t, _ in tg))
        blocks = []
        for t in types:
            objs = [o for tt, o in found if tt is t]
            if not objs:
                continue
            rows = P.table(c, t, objs, wide=fmt == "wide", label_columns=p["label-columns"],
                           show_labels=p["show-labels"], no_headers=p["no-headers"], with_kind=len(types) > 1)
            blocks.append(P.lay_out(rows) + "\n")
        out = "\n".join(blocks)
        if not found and not errors:
            res.stderr += f"No resources found in {ns} namespace.\n"
    elif found or fmt in ("yaml", "json"):
        if found or not single:
            out = P.render(fmt, template, found, single, ips=P.ip_table(c))
    if errors:
        res.stdout += out
        raise KubectlError("\n".join(errors))
    return out


def _watch(s, p: Parsed, names: list[str], res, wide: bool) -> str:
    """``get pods -w``: the list now, then a line per change while the cluster catches up; stops when
    nothing more is scheduled, or after ``--request-timeout``."""
    c = s.cluster
    ns = p["namespace"]
    match = label_selector(p["selector"]) if p["selector"] else (lambda labels: True)
    wanted = (lambda name: name in names) if names else (lambda name: True)
    start = s.watch_start if s.watch_start and s.watch_start["namespace"] == ns else None
    if start is not None:  # the last command changed something: watch from just before it, as a watch
        frame0, at, listed = start["frame"], start["time"], start["pods"]  # opened in another terminal would
    else:
        frame0, at, listed = len(G.watch_frame(c.trace)), c.now, list(c.store.list("Pod", ns))
    labels = {o.name: dict(o.labels) for o in listed}
    now_pods = [o for o in sorted(listed, key=lambda o: o.name) if wanted(o.name) and match(o.labels)]
    for n in names:
        if c.store.get("Pod", ns, n) is None:
            raise P.BY_KIND["Pod"].not_found(n)
    timeout = duration(p["request-timeout"], "--request-timeout")
    until = c.now + timeout if timeout > 0 else None
    header_cols = list(G.WATCH_HEADER) + (list(G.WIDE_HEADER) if wide else [])
    header_cols += [k.rsplit("/", 1)[-1].upper() for k in p["label-columns"]]
    header_cols += ["LABELS"] if p["show-labels"] else []
    tw = G.KubectlTabWriter()
    lines: list[str] = []
    initial = []
    if not p["watch-only"]:
        initial = P.table(_At(c, at), P.BY_KIND["Pod"], now_pods, wide=wide, label_columns=p["label-columns"],
                          show_labels=p["show-labels"], no_headers=True)
    if initial:
        lines += tw.flush(([] if p["no-headers"] else [header_cols]) + initial)
    header_due = not initial and not p["no-headers"]
    res.settled = s.catch_up(until)
    for o in c.store.list("Pod", ns):
        labels[o.name] = dict(o.labels)
    templates = {st.name: dict((st.spec.template.get("metadata") or {}).get("labels") or {})
                 for st in c.store.list("StatefulSet", ns)}
    frame = G.watch_frame(c.trace).iloc[frame0:]
    for r in frame.itertuples(index=False):
        pod_labels = labels.get(r.pod)
        if pod_labels is None:
            pod_labels = templates.get(r.pod.rpartition("-")[0], {})
        if not wanted(r.pod) or not match(pod_labels):
            continue
        row = [r.pod, r.ready, r.status, r.restarts, r.age]
        if wide:
            row += [r.ip, r.node, "<none>", "<none>"]
        row += [pod_labels.get(k, "") for k in p["label-columns"]]
        if p["show-labels"]:
            row.append(",".join(f"{k}={v}" for k, v in sorted(pod_labels.items())) or "<none>")
        if header_due:
            lines += tw.flush([header_cols, row])
            header_due = False
        else:
            lines += tw.flush([row])
    return "".join(line + "\n" for line in lines)


class _At:
    """The cluster as seen at time *now* (a watch's first list, taken before the last command)."""

    def __init__(self, cluster, now: float) -> None:
        self._c, self.now = cluster, now

    def __getattr__(self, name):
        return getattr(self._c, name)


# ====================================================================== describe

def describe(s, p: Parsed, stdin, res) -> str:
    from .describe_objects import describe_object
    ns = p["namespace"]
    if not p.args:
        raise KubectlError(MISSING_RESOURCE)
    tg = targets(p.args, "describe")
    match = label_selector(p["selector"]) if p["selector"] else None
    found, errors = [], []
    for t, n in tg:
        if n is None:
            found += [(t, o) for o in s.objects(t, ns) if match is None or match(o.labels)]
        else:
            # kubectl describe TYPE PREFIX describes every object whose name starts with PREFIX
            o = s.cluster.store.get(t.kind, ns, n)
            if o is not None:
                found.append((t, o))
                continue
            more = [o for o in s.objects(t, ns) if o.name.startswith(n)]
            if not more:
                errors.append(f'Error from server (NotFound): {t.qualified} "{n}" not found')
            found += [(t, o) for o in more]
    texts = [describe_object(s.cluster, t, o) for t, o in found]
    out = "\n\n".join(x.rstrip("\n") for x in texts) + ("\n" if texts else "")
    if not found and not errors:
        res.stderr += f"No resources found in {ns} namespace.\n"
    if errors:
        res.stdout += out
        raise KubectlError("\n".join(errors))
    return out


# ====================================================================== rollout status / history

def rollout_status(s, p: Parsed, stdin, res) -> str:
    """``rollout status``: with ``--watch`` (the default) a line each time the set's object changes, until
    the rollout is done (``StatefulSetStatusViewer``); kubectl's error for an OnDelete set."""
    from .rollout import OBSERVING, rollout_status_text
    if not p.args:
        raise KubectlError(NO_RESOURCE)
    items = one_statefulset(s, p, p.args)
    c = s.cluster
    timeout = duration(p["timeout"], "--timeout")
    t, o = items[0]
    out = []
    rv = None
    wait = min(timeout, MAX_ROLLOUT_WAIT) if timeout > 0 else ROLLOUT_WAIT
    started = c.now
    deadline = started + wait
    done = False
    for _ in range(MAX_ROLLOUT_STEPS):
        sts = c.store.get("StatefulSet", o.namespace, o.name)
        if sts is None:
            raise t.not_found(o.name)
        if sts.spec.update_strategy != "RollingUpdate":
            res.stdout += "".join(out)
            raise KubectlError("error: rollout status is only available for RollingUpdate strategy type")
        if sts.resource_version != rv:
            rv = sts.resource_version
            text = rollout_status_text(sts)
            if not out and p["watch"] and text == OBSERVING:
                # a real controller observes a change within milliseconds, before kubectl has
                # started: the line shows only while the kit's controller cannot observe it now
                now = c.now
                if _step(c) and c.now == now:
                    rv = None
                    continue
            out.append(text + "\n")
            if text.startswith(("statefulset rolling update complete", "partitioned roll out complete")):
                done = True
                break
        if not p["watch"]:
            done = True
            break
        if c.now >= deadline or not _step(c, deadline):
            break
    if not done:  # kubectl waits until --timeout, then says why; the kit cannot wait for ever
        res.stdout += "".join(out)
        why = "" if timeout > 0 and timeout <= MAX_ROLLOUT_WAIT else (
            f" (stsedu waited {_span(c.now - started)} of simulated "
            "time and the rollout made no more progress; --timeout sets how long to wait)")
        raise KubectlError("error: timed out waiting for the condition" + why)
    return "".join(out)


ROLLOUT_WAIT = 600.0
"""How long ``rollout status`` without ``--timeout`` waits for a rollout that does not finish (simulated
seconds): kubectl would wait until interrupted, the kit stops and says so."""
MAX_ROLLOUT_WAIT = 86_400.0
"""The longest ``--timeout`` of ``rollout status`` the kit waits out (one simulated day)."""
MAX_ROLLOUT_STEPS = 100_000
"""Syncs ``rollout status`` may run (a bound on real time whatever the simulated wait)."""


def _span(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + f"{s}s"


def _step(c, until: float | None = None) -> bool:
    """One sync of the whole controller (time jumps to the next scheduled event when nothing is queued,
    never past *until*); False once nothing is queued or scheduled."""
    before = (len(c.trace), c.now)
    c.run(max_syncs=1, until=until)
    if (len(c.trace), c.now) != before:
        return True
    if until is not None and c.now < until and c.clock.peek() is not None:
        c.advance(until - c.now)  # the next event is past *until*: wait until then
        return True
    return False


def rollout_history(s, p: Parsed, stdin, res) -> str:
    from ...api.errors import RolloutError
    from .rollout import rollout_history_text
    if not p.args:
        raise KubectlError(NO_RESOURCE)
    items = one_statefulset(s, p, p.args)
    out = []
    for t, o in items:
        try:
            out.append(rollout_history_text(s.cluster, o.name, o.namespace, revision=p["revision"] or None))
        except RolloutError as e:
            raise KubectlError(f"error: {e}") from None
    return "".join(out)
