# blurb: Editing the template makes a new ControllerRevision; RollingUpdate replaces pods from the highest ordinal down, waiting for each.

# %% [markdown]
# # Rolling updates
#
# In this notebook you will:
#
# - change the pod template and see a new **ControllerRevision** appear;
# - watch `RollingUpdate` replace pods from the highest ordinal down, one at a time;
# - follow `status.currentRevision` and `status.updateRevision`, and `kubectl rollout status`.

# %% [markdown]
# Three Ready pods at image `nginx:1`:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(3))
cluster.settle("web")
[(r.name, r.revision) for r in cluster.revisions("web")]

# %% [markdown]
# Every distinct pod template is stored as a ControllerRevision named `<set>-<hash>`; each
# pod's `controller-revision-hash` label names the revision it was made from. Now change the
# image, like `kubectl set image statefulset/web nginx=nginx:2`.

# %%
cluster.set_image("web", "nginx:2")
r = cluster.sync("web")
stsedu.tables.decisions_frame(r)[["action", "pod", "reason", "target"]]

# %% [markdown]
# The sync created revision 2 and deleted `web-2`, the **highest ordinal**. **Predict:** once
# `web-2` is gone, what comes next, and when is `web-1` deleted?

# %%
for _ in range(4):
    print(cluster.sync("web").actions, "|", cluster.rollout_status("web"))
    print(cluster.kubelet.step())

# %% [markdown]
# `web-2` comes back at the **new** revision, and `web-1` is deleted only after it is Running
# and Ready. (kubectl speaks of a *partitioned* roll out because the API server filled in
# `rollingUpdate: {partition: 0}` when the set was created without an update strategy.) The update is `updateStatefulSet` in `stateful_set_control.go`; with the
# `MaxUnavailableStatefulSet` gate (on by default since 1.37) the same loop deletes up to
# `maxUnavailable` old pods at a time, 1 by default.
#
# Let it finish and look at the status:

# %%
cluster.settle("web")
s = cluster.statefulset("web").status
print(s.current_revision, s.update_revision, s.current_replicas, s.updated_replicas)
print(cluster.rollout_status("web"))

# %% [markdown]
# When every replica is updated and Ready, the controller **promotes** the update revision:
# `currentRevision` becomes `updateRevision` (`completeRollingUpdate`).
#
# ## Seeing it
#
# The revision map colours each pod by revision, sync by sync: the update sweeps down from
# the top ordinal.

# %%
# NBVAL_IGNORE_OUTPUT
stsedu.charts.enable_offline()
stsedu.charts.revision_map(cluster.trace)

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("04.1")
ex.show()
ex.check(None)

# %% [markdown]
# And in the middle of the rollout:

# %%
stsedu.exercises.get("04.2").check(None)

# %% [markdown]
# ## Summary
#
# - A template change creates a ControllerRevision; the set's status names the current and
#   update revisions.
# - `RollingUpdate` deletes the highest-ordinal old pod, waits for its replacement to be
#   Running, Ready and Available, then moves down.
# - `currentRevision` switches when all replicas are updated and Ready.
