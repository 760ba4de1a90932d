"""``kubectl describe`` of a StatefulSet, a pod, a claim, a Service and a revision.

Follows kubectl's ``pkg/describe`` (``describeStatefulSet``, ``describePod``,
``describePersistentVolumeClaim``, ``describeService``, ``DescribeEvents``): each writes
``Title:\\tvalue`` lines that Go's ``text/tabwriter`` (minwidth 0, tabwidth 8, padding 2, space
padding: ``tabbedString``) aligns; :func:`go_tabwriter` is that algorithm (column blocks of
consecutive lines that have a cell in the column).  The StatefulSet's pod template is
:func:`~stsedu.views.kubectl.describe.describe_pod_template`.  Events are the controller's events of the
trace (``SuccessfulCreate``, ``SuccessfulDelete``, ``Failed...``, ``Recreating...``), aggregated by
reason and message as the API server counts them.

The pod's description is shorter than kubectl's: it has kubectl's header, container, condition,
volume and event sections for what the kit simulates, and no QoS, node-selector or toleration
lines beyond kubectl's defaults.
"""

from __future__ import annotations

import datetime as _dt

from . import get as G
from .describe import print_annotations, print_labels, PrefixWriter, describe_pod_template, format_label_selector
from .printers import EPOCH

__all__ = ["describe_object", "go_tabwriter"]


def go_tabwriter(text: str, padding: int = 2) -> str:
    """Go's ``text/tabwriter`` with ``Init(buf, 0, 8, padding, ' ', 0)`` over *text*."""
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    widths: list[int] = []

    def write_lines(a: int, b: int) -> None:
        for line in lines[a:b]:
            parts = []
            for j, cell in enumerate(line):
                if j < len(line) - 1 and j < len(widths):
                    parts.append(cell.ljust(widths[j]))
                else:
                    parts.append(cell)
            out.append("".join(parts))

    def fmt(line0: int, line1: int) -> None:
        column = len(widths)
        this = line0
        while this < line1:
            if column >= len(lines[this]) - 1:
                this += 1
                continue
            write_lines(line0, this)
            line0 = this
            width = 0
            while this < line1 and column < len(lines[this]) - 1:
                width = max(width, len(lines[this][column]) + padding)
                this += 1
            widths.append(width)
            fmt(line0, this)
            widths.pop()
            line0 = this
        write_lines(line0, line1)

    fmt(0, len(lines))
    return "\n".join(out)


def rfc1123z(seconds: float) -> str:
    """Go's ``time.RFC1123Z`` of a simulated time: ``Thu, 01 Jan 2026 00:00:05 +0000``."""
    return (EPOCH + _dt.timedelta(seconds=int(seconds))).strftime("%a, %d %b %Y %H:%M:%S +0000")


_CONTROLLER_REASONS = ("Successful", "Failed", "Recreating")


def events_text(cluster, obj_ref: str, source: str, since: float | None = None) -> str:
    """``DescribeEvents`` for the trace's controller events about *obj_ref* (``statefulset/web``).

    kubectl asks for the events of this object's uid, so an earlier object of the same name (a set
    deleted and made again, a pod replaced) has its own: only events from *since* (the object's
    creation) on are listed."""
    ev = cluster.trace.events()
    if not ev.empty:
        ev = ev[(ev["object"] == obj_ref) & ev["reason"].str.startswith(_CONTROLLER_REASONS)]
        if since is not None:
            ev = ev[ev["time"] >= since]
    if ev.empty:
        return "Events:\t<none>\n"
    groups: dict[tuple, list] = {}
    for r in ev.itertuples(index=False):
        key = (r.type, r.reason, r.message)
        g = groups.setdefault(key, [r.time, r.time, 0])
        g[1], g[2] = r.time, g[2] + 1
    rows = sorted(groups.items(), key=lambda kv: kv[1][1])
    now = cluster.now
    text = "Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n"
    for (typ, reason, message), (first, last, count) in rows:
        age = G.human_duration(now - first)
        if count > 1:
            age = f"{G.human_duration(now - last)} (x{count} over {age})"
        text += f"  {typ}\t{reason}\t{age}\t{source}\t{message.strip()}\n"
    return text


def _sts(cluster, sts) -> str:
    w = PrefixWriter()
    spec = sts.to_manifest()["spec"]
    w.write(0, f"Name:\t{sts.name}\n")
    w.write(0, f"Namespace:\t{sts.namespace}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(sts.creation_timestamp)}\n")
    w.write(0, f"Selector:\t{format_label_selector(spec.get('selector'))}\n")
    print_labels(w, "Labels", sts.labels)
    print_annotations(w, "Annotations", sts.annotations)
    if spec.get("serviceName"):
        w.write(0, f"Service Name:\t{spec['serviceName']}\n")
    if spec.get("podManagementPolicy"):
        w.write(0, f"Pod Management Policy:\t{spec['podManagementPolicy']}\n")
    w.write(0, f"Replicas:\t{spec.get('replicas', 1)} desired | {sts.status.replicas} total\n")
    strategy = spec.get("updateStrategy") or {}
    w.write(0, f"Update Strategy:\t{strategy.get('type', '')}\n")
    ru = strategy.get("rollingUpdate")
    if isinstance(ru, dict) and ru.get("partition") is not None:
        w.write(1, f"Partition:\t{ru['partition']}\n")
        if ru.get("maxUnavailable") is not None:
            w.write(1, f"MaxUnavailable:\t{ru['maxUnavailable']}\n")
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if policy:
        w.write(0, "Persistent Volume Claim Retention Policy:\n")
        w.write(1, f"WhenDeleted:\t{policy.get('whenDeleted', '')}\n")
        w.write(1, f"WhenScaled:\t{policy.get('whenScaled', '')}\n")
    pods = [p for p in cluster.pods(sts.name, namespace=sts.namespace)]
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for p in pods:
        if p.phase in counts:
            counts[p.phase] += 1
    w.write(0, f"Pods Status:\t{counts['Running']} Running / {counts['Pending']} Waiting / "
               f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed\n")
    head = w.text() + describe_pod_template(spec.get("template"))
    claims = spec.get("volumeClaimTemplates") or []
    if not claims:
        head += "Volume Claims:\t<none>\n"
    else:
        head += "Volume Claims:\n"
        for c in claims:
            meta, cspec = c.get("metadata") or {}, c.get("spec") or {}
            cls = (meta.get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class",
                                                      cspec.get("storageClassName") or "")
            head += f"  Name:\t{meta.get('name', '')}\n  StorageClass:\t{cls}\n"
            for title in ("Labels", "Annotations"):
                pairs = meta.get(title.lower()) or {}
                if not pairs:
                    head += f"  {title}:\t<none>\n"
                for i, k in enumerate(sorted(pairs)):
                    head += (f"  {title}:\t" if i == 0 else "  \t") + f"{k}={pairs[k]}\n"
            cap = ((cspec.get("resources") or {}).get("requests") or {}).get("storage", "<default>")
            head += f"  Capacity:\t{cap}\n  Access Modes:\t[{' '.join(cspec.get('accessModes') or [])}]\n"
    return go_tabwriter(head.rstrip("\n")) + "\n" + go_tabwriter(
        events_text(cluster, f"statefulset/{sts.name}", "statefulset-controller", sts.creation_timestamp).rstrip("\n")) + "\n"


def _pod(cluster, pod) -> str:
    from .printers import ip_table
    m = pod.to_manifest()
    spec = m["spec"]
    w = PrefixWriter()
    w.write(0, f"Name:\t{pod.name}\n")
    w.write(0, f"Namespace:\t{pod.namespace}\n")
    w.write(0, "Priority:\t0\n")
    w.write(0, f"Service Account:\t{spec.get('serviceAccountName') or 'default'}\n")
    w.write(0, f"Node:\t{G.SIM_NODE}/172.18.0.2\n")
    if pod.started_at is not None:
        w.write(0, f"Start Time:\t{rfc1123z(pod.started_at)}\n")
    print_labels(w, "Labels", pod.labels)
    print_annotations(w, "Annotations", pod.annotations)
    if pod.terminating:
        w.write(0, f"Status:\tTerminating (lasts {G.human_duration(cluster.now - pod.deletion_timestamp)})\n")
        w.write(0, f"Termination Grace Period:\t{int(pod.grace_period_seconds)}s\n")
    else:
        w.write(0, f"Status:\t{pod.phase}\n")
    ip = ip_table(cluster).get(pod.name) if pod.phase != "Pending" else None
    w.write(0, f"IP:\t{ip or ''}\n")
    if ip:
        w.write(0, "IPs:\n")
        w.write(0, f"  IP:\t{ip}\n")
    else:
        w.write(0, "IPs:\t<none>\n")
    if pod.owner:
        w.write(0, f"Controlled By:\tStatefulSet/{pod.owner}\n")
    w.write(0, "Containers:\n")
    for c in spec.get("containers") or []:
        w.write(1, f"{c.get('name')}:\n")
        w.write(2, f"Image:\t{c.get('image')}\n")
        ports = c.get("ports") or []
        w.write(2, "Port:\t" + (", ".join(f"{p.get('containerPort')}/{p.get('protocol', 'TCP')}"
                                          + (f" ({p['name']})" if p.get("name") else "") for p in ports)
                               or "<none>") + "\n")
        w.write(2, "Host Port:\t" + (", ".join(f"0/{p.get('protocol', 'TCP')}"
                                               + (f" ({p['name']})" if p.get("name") else "") for p in ports)
                                    or "<none>") + "\n")
        if pod.phase == "Running" or pod.phase == "":
            w.write(2, "State:\tRunning\n")
            if pod.started_at is not None:
                w.write(3, f"Started:\t{rfc1123z(pod.started_at)}\n")
        else:
            w.write(2, "State:\tWaiting\n")
            w.write(3, "Reason:\tContainerCreating\n")
        w.write(2, f"Ready:\t{'True' if pod.ready else 'False'}\n")
        w.write(2, f"Restart Count:\t{pod.restarts}\n")
        w.write(2, "Environment:\t<none>\n")
        w.write(2, "Mounts:\n")
        for vm in c.get("volumeMounts") or []:
            w.write(3, f"{vm.get('mountPath')} from {vm.get('name')} ({'ro' if vm.get('readOnly') else 'rw'})\n")
    w.write(0, "Conditions:\n")
    w.write(1, "Type\tStatus\n")
    started = pod.phase not in ("", "Pending")
    for typ, ok in (("PodReadyToStartContainers", started), ("Initialized", True), ("Ready", pod.ready),
                    ("ContainersReady", pod.ready), ("PodScheduled", True)):
        w.write(1, f"{typ} \t{'True' if ok else 'False'} \n")
    w.write(0, "Volumes:\n")
    for v in spec.get("volumes") or []:
        w.write(1, f"{v.get('name')}:\n")
        claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
        if claim:
            w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n")
            w.write(2, f"ClaimName:\t{claim}\n")
            w.write(2, "ReadOnly:\tfalse\n")
    w.write(0, "QoS Class:\tBestEffort\n")
    w.write(0, "Node-Selectors:\t<none>\n")
    w.write(0, "Tolerations:\tnode.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n")
    w.write(0, "\tnode.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n")
    return go_tabwriter(w.text().rstrip("\n")) + "\n" + go_tabwriter(
        events_text(cluster, f"pod/{pod.name}", "kubelet", pod.creation_timestamp).rstrip("\n")) + "\n"


def _pvc(cluster, c) -> str:
    w = PrefixWriter()
    spec = c.spec
    w.write(0, f"Name:\t{c.name}\n")
    w.write(0, f"Namespace:\t{c.namespace}\n")
    w.write(0, f"StorageClass:\t{spec.get('storageClassName') or ''}\n")
    w.write(0, f"Status:\t{'Terminating (lasts ' + G.human_duration(cluster.now - c.deletion_timestamp) + ')' if c.deleting else c.phase}\n")
    w.write(0, f"Volume:\tpvc-{c.uid}\n")
    print_labels(w, "Labels", c.labels)
    print_annotations(w, "Annotations", c.annotations)
    w.write(0, "Finalizers:\t[kubernetes.io/pvc-protection]\n")
    w.write(0, f"Capacity:\t{c.storage}\n")
    w.write(0, f"Access Modes:\t{G.access_modes(spec.get('accessModes'))}\n")
    w.write(0, f"VolumeMode:\t{spec.get('volumeMode') or 'Filesystem'}\n")
    users = [p.name for p in cluster.pods(namespace=c.namespace)
             if any((v.get("persistentVolumeClaim") or {}).get("claimName") == c.name
                    for v in p.spec.get("volumes") or ())]
    w.write(0, f"Used By:\t{users[0] if users else '<none>'}\n")
    for u in users[1:]:
        w.write(0, f"\t{u}\n")
    return go_tabwriter(w.text().rstrip("\n")) + "\nEvents:  <none>\n"


def _svc(cluster, s) -> str:
    w = PrefixWriter()
    spec = s.spec
    w.write(0, f"Name:\t{s.name}\n")
    w.write(0, f"Namespace:\t{s.namespace}\n")
    print_labels(w, "Labels", s.labels)
    print_annotations(w, "Annotations", {})
    sel = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>"
    w.write(0, f"Selector:\t{sel}\n")
    w.write(0, f"Type:\t{spec.get('type', 'ClusterIP')}\n")
    w.write(0, "IP Family Policy:\tSingleStack\n")
    w.write(0, "IP Families:\tIPv4\n")
    w.write(0, f"IP:\t{spec.get('clusterIP') or ''}\n")
    w.write(0, f"IPs:\t{spec.get('clusterIP') or ''}\n")
    from .printers import ip_table
    from .args import label_selector
    ips = ip_table(cluster)
    match = label_selector(sel) if sel != "<none>" else (lambda labels: False)
    for port in spec.get("ports") or []:
        name = port.get("name") or "<unset>"
        w.write(0, f"Port:\t{name}\t{port.get('port')}/{port.get('protocol', 'TCP')}\n")
        target = port.get("targetPort", port.get("port"))
        w.write(0, f"TargetPort:\t{target}/{port.get('protocol', 'TCP')}\n")
        eps = [f"{ips[p.name]}:{target}" for p in cluster.pods(namespace=s.namespace)
               if match(p.labels) and p.ready and not p.terminating and p.name in ips]
        w.write(0, f"Endpoints:\t{','.join(eps)}\n")
    w.write(0, "Session Affinity:\tNone\n")
    w.write(0, "Internal Traffic Policy:\tCluster\n")
    return go_tabwriter(w.text().rstrip("\n")) + "\nEvents:  <none>\n"


def _revision(cluster, r) -> str:
    from .printers import api_object, to_yaml
    m = api_object(r)
    w = PrefixWriter()
    w.write(0, f"Name:\t{r.name}\n")
    w.write(0, f"Namespace:\t{r.namespace}\n")
    print_labels(w, "Labels", r.labels)
    print_annotations(w, "Annotations", r.annotations)
    w.write(0, "API Version:\tapps/v1\n")
    body = to_yaml({"Data": m["data"], "Revision": m["revision"]})
    return go_tabwriter(w.text().rstrip("\n")) + "\nKind:         ControllerRevision\n" + body + "Events:       <none>\n"


def describe_object(cluster, rtype, obj) -> str:
    """What ``kubectl describe TYPE NAME`` prints for *obj*."""
    return {"StatefulSet": _sts, "Pod": _pod, "PersistentVolumeClaim": _pvc, "Service": _svc,
            "ControllerRevision": _revision}[rtype.kind](cluster, obj)
