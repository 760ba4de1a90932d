"""Tables and kubectl-style text: DataFrames' columns and values, and text against kubectl's rules.

The known run is the docs' manifest rollout: the concept page's web set (3 replicas,
minReadySeconds 10), auto kubelet (start 1 s, ready 2 s, terminate 1 s), seed 0, run
until stable, then ``set_image`` and run again.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import stsedu
from stsedu import tables
from helpers import one_ready_pod, web

OLD, NEW = "registry.k8s.io/nginx-slim:0.24", "registry.k8s.io/nginx-slim:0.25"


def manifest_rollout() -> stsedu.Cluster:
    c = stsedu.Cluster(seed=0)
    c.apply((Path(stsedu.__file__).parent / "data" / "web.yaml").read_text())
    c.run("web")
    c.set_image("web", NEW)
    c.run("web")
    return c


@pytest.fixture(scope="module")
def rollout():
    return manifest_rollout()


def delete_syncs(trace) -> dict[str, int]:
    """pod -> the sync that deleted it for the update (the run's sync numbering is the controller's business)."""
    d = trace.decisions()
    d = d[(d.action == "delete") & (d.reason == "update")]
    return dict(zip(d.pod, d.sync.astype(int)))


# ------------------------------------------------------------------ durations


@pytest.mark.parametrize("seconds, text", [
    (-3, "<invalid>"), (-2, "<invalid>"), (-1.5, "0s"), (-0.5, "0s"), (0, "0s"), (0.9, "0s"), (59, "59s"),
    (119.9, "119s"), (120, "2m"), (123, "2m3s"), (599, "9m59s"), (600, "10m"), (10799, "179m"),
    (3 * 3600, "3h"), (3 * 3600 + 20 * 60 + 59, "3h20m"), (8 * 3600, "8h"), (47 * 3600 + 3599, "47h"),
    (48 * 3600, "2d"), (3 * 86400 + 4 * 3600, "3d4h"), (8 * 86400, "8d"), (729 * 86400, "729d"),
    (730 * 86400, "2y"), (735 * 86400, "2y5d"), (8 * 365 * 86400, "8y"),
])
def test_human_duration_follows_kubectl(seconds, text):
    """AGE is apimachinery's duration.HumanDuration: 2-3 significant figures, Go's truncation."""
    assert tables.human_duration(seconds) == text


def test_tab_writer_pads_like_kubectl_and_remembers_widths():
    """cli-runtime printers.GetNewTabWriter: cell + 3 spaces, at least 6; widths only grow across flushes."""
    tw = tables.KubectlTabWriter()
    assert tw.flush([["NAME", "AGE"], ["a", "1s"]]) == ["NAME   AGE", "a      1s"]
    assert tw.flush([["b", "2s"]]) == ["b      2s"]                      # remembered width 7, not 6
    assert tw.flush([["longer-name", "3s"]]) == ["longer-name   3s"]    # grows ...
    assert tw.flush([["c", "4s"]]) == ["c             4s"]              # ... and stays grown


# ------------------------------------------------------------------ kubectl text


def test_watch_lines_of_the_manifest_rollout(rollout):
    """kubectl get pods -w: one line per pod change, AGE as of the change, the DELETED event as a last line
    (containers stopped: 0/1); a new pod shows Pending (added), Pending (scheduled), ContainerCreating,
    as in the StatefulSet Basics tutorial's watch output."""
    lines = tables.watch_lines(rollout.trace)
    assert lines[:6] == [
        "NAME    READY   STATUS    RESTARTS   AGE",
        "web-0   0/1     Pending   0          0s",
        "web-0   0/1     Pending   0          0s",
        "web-0   0/1     ContainerCreating   0          0s",
        "web-0   0/1     Running             0          1s",
        "web-0   1/1     Running             0          3s",
    ]
    assert [ln.split()[2] for ln in lines[6:16]] == (["Pending", "Pending", "ContainerCreating", "Running", "Running"]
                                                     * 2)
    # the rolling update replaces web-2 first: terminating (13 s old: Ready at 3 s, Available
    # at 13 s, deleted by the sync at that instant), gone (14 s), recreated
    assert lines[16:20] == [
        "web-2   1/1     Terminating         0          13s",
        "web-2   0/1     Terminating         0          14s",
        "web-2   0/1     Pending             0          0s",
        "web-2   0/1     Pending             0          0s",
    ]
    created = (rollout.trace.pods()["event"] == "created").sum()
    assert len(lines) == 1 + len(rollout.trace.pods()) + 2 * created
    assert [ln.split()[0] for ln in lines if "Terminating" in ln] == ["web-2"] * 2 + ["web-1"] * 2 + ["web-0"] * 2


def test_watch_lines_wide_and_revision_columns_grow_like_kubectl(rollout):
    """-o wide adds IP NODE NOMINATED NODE READINESS GATES; a wider IP widens the column from then on."""
    lines = tables.watch_lines(rollout.trace, wide=True, revision=True)
    first = rollout.revisions("web")[0].name
    assert lines[0] == ("NAME    READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   "
                        "READINESS GATES   CONTROLLER-REVISION-HASH")
    assert lines[1].split() == ["web-0", "0/1", "Pending", "0", "0s", "<none>", "<none>", "<none>", "<none>", first]
    assert lines[2].split()[6] == "node-1"  # bound by the scheduler
    assert lines[3].split() == ["web-0", "0/1", "ContainerCreating", "0", "0s", "<none>", "node-1", "<none>",
                                "<none>", first]
    assert lines[4] == ("web-0   0/1     Running             0          1s    10.244.0.1   node-1   <none>"
                        "           <none>            " + first)
    # a recreated pod gets a new address: IPs are not part of a StatefulSet pod's identity
    assert lines[-1].split()[0] == "web-0" and lines[-1].split()[5] == "10.244.0.6"


def test_get_pods_sts_pvc_text_after_the_rollout(rollout):
    """kubectl get pods / sts / pvc: the columns current kubectl prints, values as of the end of the run."""
    assert tables.get_pods_text(rollout) == (
        "NAME    READY   STATUS    RESTARTS   AGE\n"
        "web-0   1/1     Running   0          13s\n"
        "web-1   1/1     Running   0          27s\n"
        "web-2   1/1     Running   0          41s")
    assert tables.get_sts_text(rollout) == "NAME   READY   AGE\nweb    3/3     81s"
    assert tables.get_sts_text(rollout, wide=True).splitlines()[1].split() == ["web", "3/3", "81s", "nginx", NEW]
    uid0 = next(c.uid for c in rollout.pvcs() if c.name == "www-web-0")
    assert tables.get_pvc_text(rollout).splitlines()[:2] == [
        "NAME        STATUS   VOLUME                                     CAPACITY   ACCESS MODES   STORAGECLASS"
        "       VOLUMEATTRIBUTESCLASS   AGE",
        f"www-web-0   Bound    pvc-{uid0}   1Gi        RWO            my-storage-class   <unset>"
        "                 81s"]
    assert tables.get_pvc_text(rollout, wide=True).splitlines()[1].endswith("Filesystem")


def test_get_pods_text_label_columns_and_name_order():
    """-L key adds a column named after the key; pods are listed in name order (web-10 before web-2), as the API lists them."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(11, "Parallel"))
    c.sync("web")
    text = tables.get_pods_text(c, label_columns=["controller-revision-hash"])
    rows = text.splitlines()
    assert rows[0].split()[-1] == "CONTROLLER-REVISION-HASH"
    assert [r.split()[0] for r in rows[1:4]] == ["web-0", "web-1", "web-10"]
    assert all(r.split()[2] == "ContainerCreating" for r in rows[1:])


def test_empty_cluster_says_no_resources_found():
    c = stsedu.Cluster(kubelet="manual")
    for text in (tables.get_pods_text(c), tables.get_sts_text(c), tables.get_pvc_text(c)):
        assert text == "No resources found in default namespace."
    assert tables.watch_lines(c.trace) == []


def test_restarts_show_how_long_ago():
    """RESTARTS reads "1 (5s ago)" once a container restarted (printPod's lastRestartDate)."""
    c = one_ready_pod()
    c.advance(10)
    c.kubelet.crash("web-0")
    c.advance(2)
    c.kubelet.restart("web-0")
    c.advance(5)
    # lastState.terminated.finishedAt: the crash, 7 s before
    assert tables.get_pods_text(c).splitlines()[1].split()[:6] == ["web-0", "0/1", "Running", "1", "(7s", "ago)"]
    assert tables.watch_lines(c.trace)[-1].split()[3:6] == ["1", "(2s", "ago)"]


def test_deleting_a_failed_pod_shows_its_failure_not_terminating():
    """printPod: Terminating only while the phase is not terminal; a Failed pod shows its status.reason."""
    c = one_ready_pod()
    c.kubelet.fail("web-0")
    c.sync("web")  # the controller deletes the Failed pod
    assert c.pod("web-0").terminating
    assert tables.get_pods_text(c).splitlines()[1].split()[:3] == ["web-0", "0/1", "Evicted"]
    assert tables.pod_status_text("Running", True) == "Terminating"


# ------------------------------------------------------------------ decisions


def test_decisions_frame_of_one_sync_from_trace_result_and_list(rollout):
    """The same decisions whether given the trace, a SyncResult or a list of Decision."""
    first = delete_syncs(rollout.trace)["web-2"]
    df = tables.decisions_frame(rollout.trace, sync=first)
    assert list(df.columns) == list(tables.DECISION_TABLE_COLUMNS)
    assert list(zip(df.action, df.pod, df.reason)) == [
        ("create-revision", None, "new-template"), ("delete", "web-2", "update"), ("status", None, "changed")]
    assert set(df.sync) == {first} and set(df.time) == {39.0}
    assert df.rule[1].startswith("updateStatefulSet") and df.message[1].startswith("web-2 is at revision")
    assert list(df.outcome) == ["done"] * 3

    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    result = c.sync("web")
    from_result = tables.decisions_frame(result)
    from_list = tables.decisions_frame(list(result.decisions), sync=result.sync, time=result.time)
    from_trace = tables.decisions_frame(c.trace, sync=result.sync)
    pd.testing.assert_frame_equal(from_result, from_trace, check_dtype=False)
    pd.testing.assert_frame_equal(from_list, from_trace, check_dtype=False)


def test_decisions_frame_of_a_run_and_pod_actions_only(rollout):
    all_rows = tables.decisions_frame(rollout.trace)
    pods = tables.decisions_frame(rollout.trace, pod_actions=True)
    assert len(all_rows) == len(rollout.trace.decisions())
    assert set(pods.action) == {"create", "delete", "wait"}
    assert list(pods[pods.action != "wait"].itertuples(index=False, name=None))[0][:7] == (
        1, 0.0, "create", "web-0", None, "missing", "processReplica: create missing pod")
    claims = all_rows[all_rows.action == "create-pvc"]
    assert list(claims.target[:1]) == ["www-web-0"] and list(claims.pod[:1]) == ["web-0"]
    assert (pods.outcome[pods.action == "wait"] == "").all()


def test_decisions_frame_outcome_names_api_errors():
    """A failed create says so, with the API server's words; the sync stops there (web-1 after a failed
    web-0, OrderedReady: no row), the done ones say done."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    c.inject_error("create", "Pod")
    df = tables.decisions_frame(c.sync("web"), pod_actions=True)
    assert list(df.pod) == ["web-0"]
    assert df.outcome[0].startswith("failed: InternalError")
    df = tables.decisions_frame(c.sync("web"), pod_actions=True)
    assert list(df.outcome) == ["done"]


def test_decisions_table_colours_each_action_and_is_deterministic(rollout):
    """Styler: one class per action, translucent tints (readable in light and dark themes), stable HTML."""
    first = delete_syncs(rollout.trace)["web-2"]
    styler = tables.decisions_table(rollout.trace, sync=first)
    html = styler.to_html()
    assert "act-delete" in html and "act-other" in html
    from stsedu.views.palette import ACTION_COLORS
    assert "rgba(213, 94, 0, 0.22)" in html                   # delete tint (#D55E00)
    assert f"border-left: 6px solid {ACTION_COLORS['delete']}" in html
    assert f"Sync {first}: 3 decisions" in html
    assert html == tables.decisions_table(rollout.trace, sync=first).to_html()
    whole = tables.decisions_table(rollout.trace, pod_actions=True).to_html()
    last = int(tables.decisions_frame(rollout.trace, pod_actions=True).sync.max())
    assert f"Syncs 1–{last}" in whole and "act-wait" in whole and "act-create" in whole


# ------------------------------------------------------------------ frames


def test_pods_frame_now(rollout):
    df = tables.pods_frame(rollout)
    assert list(df.pod) == ["web-0", "web-1", "web-2"]
    assert list(df.columns) == ["pod", "set", "ordinal", "status", "phase", "ready", "available", "terminating",
                                "revision", "restarts", "age", "created", "ready_since"]
    assert df.available.all() and set(df.revision) == {rollout.statefulset("web").status.update_revision}
    assert list(df.age) == ["13s", "27s", "41s"] and list(df.created) == [68.0, 54.0, 40.0]


def test_status_frame(rollout):
    st = tables.status_frame(rollout.trace)
    assert list(st.columns) == list(tables.STATUS_FRAME_COLUMNS)
    row = st[st.sync == delete_syncs(rollout.trace)["web-2"]].iloc[0]
    assert (row.replicas, row.ready, row.available, row.current, row.updated) == (3, 3, 3, 2, 0)
    assert row.current_revision != row.update_revision
    assert (row.min_ready_seconds, row.partition) == (10, 0)


def test_pod_intervals_follow_web_2_through_the_rollout(rollout):
    """States with clock times; Available starts minReadySeconds (10 s) after Ready; causes name the decision.

    The first web-2 turns Available at 39 s and the sync at that instant deletes it for the
    update, so it has no Available interval (zero long)."""
    iv = tables.pod_intervals(rollout.trace)
    assert list(iv.columns) == list(tables.INTERVAL_COLUMNS)
    w2 = iv[iv.pod == "web-2"]
    assert list(zip(w2.incarnation, w2.state, w2.start, w2.end)) == [
        (0, "Pending", 26.0, 27.0), (0, "Running", 27.0, 29.0), (0, "Ready", 29.0, 39.0),
        (0, "Terminating", 39.0, 40.0),
        (1, "Pending", 40.0, 41.0), (1, "Running", 41.0, 43.0), (1, "Ready", 43.0, 53.0),
        (1, "Available", 53.0, 81.0)]
    old, new = w2.revision.iloc[0], w2.revision.iloc[-1]
    assert old != new and list(w2.revision) == [old] * 4 + [new] * 4
    first = delete_syncs(rollout.trace)["web-2"]
    term = w2[w2.state == "Terminating"].iloc[0]
    assert (term.cause, term.action, term.first_sync) == (f"sync {first}: delete (update)", "delete", first)
    assert term.decision.startswith("web-2 is at revision") and term.rule.startswith("updateStatefulSet")
    avail = w2[w2.state == "Available"].iloc[0]
    syncs = rollout.trace.syncs()
    assert avail.cause == "minReadySeconds (10 s) passed"
    assert avail.first_sync == syncs[syncs.time >= 53.0].sync.min()  # the first sync at or after t=53
    assert w2.ongoing.tolist() == [False] * 7 + [True]


def test_pod_intervals_without_min_ready_seconds_go_straight_to_available():
    """With minReadySeconds 0 a Ready pod is Available at once (isRunningAndAvailable)."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.sync("web")                 # sync 1 creates web-0
    c.kubelet.start("web-0")      # after sync 1: shows from sync 2
    c.sync("web")
    c.kubelet.set_ready("web-0")
    c.sync("web")
    iv = tables.pod_intervals(c.trace)
    assert list(zip(iv.state, iv.first_sync, iv.last_sync)) == [("Pending", 1, 1), ("Running", 2, 2),
                                                                 ("Available", 3, 3)]
    assert "Ready" not in set(iv.state)


def test_decisions_table_marks_only_real_failures():
    """An API error outlines the failed decision; decisions that went through still read "done"."""
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(1))
    c.inject_error("create", "Pod")
    result = c.sync("web")
    df = tables.decisions_frame(result)
    assert dict(zip(df.action, df.outcome))["create"].startswith("failed: ")
    assert dict(zip(df.action, df.outcome))["create-revision"] == "done"
    assert tables.decisions_table(result).to_html().count(" failed") >= len(df.columns) - 1


def test_get_controllerrevisions_text_like_kubectl():
    """printControllerRevision: NAME CONTROLLER REVISION AGE, the controller as group-qualified
    kind/name (statefulset.apps/web), <none> once the set is deleted with --cascade=orphan."""
    c = stsedu.Cluster(seed=0)
    c.apply(stsedu.examples.web(2, image="nginx:1"))
    c.run("web")
    c.set_image("web", "nginx:2")
    c.run("web")
    first, second = c.revisions("web")
    lines = tables.get_controllerrevisions_text(c).splitlines()
    assert lines[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    rows = sorted([first, second], key=lambda r: r.name)
    assert [ln.split()[:3] for ln in lines[1:]] == [[r.name, "statefulset.apps/web", str(r.revision)] for r in rows]
    assert [ln.split()[3] for ln in lines[1:]] == [tables.human_duration(c.now - r.creation_timestamp) for r in rows]
    assert lines[0].index("CONTROLLER") == lines[1].index("statefulset.apps/web")
    assert tables.get_controllerrevisions_text(c, "other") == "No resources found in default namespace."
    c.delete("web", cascade="orphan")
    c.advance(5)
    assert {ln.split()[1] for ln in tables.get_controllerrevisions_text(c).splitlines()[1:]} == {"<none>"}


def test_a_sync_result_shows_its_decisions_in_jupyter():
    """IPython's HTML formatter shows a SyncResult as its decisions table; ``import stsedu`` registers
    it in a kernel (the view is registered with IPython, not patched onto the controller's record)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    stsedu.load_ipython_extension(shell)
    c = stsedu.Cluster(kubelet="manual")
    c.apply(web(2))
    data, _ = shell.display_formatter.format(c.sync("web"))
    assert "<table" in data["text/html"] and "web-0" in data["text/html"] and "missing" in data["text/html"]
