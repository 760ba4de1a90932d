# blurb: rollingUpdate.partition: staged and canary rollouts; a pod below the partition comes back at the old revision.

# %% [markdown]
# # Partitions: staged and canary rollouts
#
# In this notebook you will:
#
# - set `updateStrategy.rollingUpdate.partition` and update only the pods at or above it;
# - see that a pod **below** the partition, when deleted, comes back at the **old** revision;
# - finish a staged rollout by lowering the partition to 0.

# %% [markdown]
# Four Ready pods, partition 2:

# %%
import stsedu

strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(4, updateStrategy=strategy))
cluster.settle("web")
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# **Predict:** after `set_image`, which pods end up on the new image?

# %%
cluster.set_image("web", "nginx:2")
cluster.settle("web")
revision = {r.name: r.revision for r in cluster.revisions("web")}
{p.name: revision[p.revision] for p in cluster.pods("web")}

# %% [markdown]
# Only `web-2` and `web-3`: the update loop runs from the top ordinal **down to the
# partition** and stops. `kubectl rollout status` calls this a partitioned roll out:

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# ## A pod below the partition
#
# Delete `web-0`. **Predict:** which revision does the new `web-0` get?

# %%
cluster.delete_pod("web-0")
cluster.settle("web")
revision[cluster.pod("web-0").revision]

# %% [markdown]
# The old one. When the controller creates a pod it picks the revision with the rule of
# `newVersionedStatefulSetPod`: ordinals below the partition get the **current** revision,
# the others the **update** revision. So a canary stays a canary even through restarts.
#
# ## Finishing the rollout
#
# Lower the partition to 0; the remaining pods are replaced, top down.

# %%
cluster.patch("web", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}})
results = cluster.settle("web")
[a for r in results for a in r.actions if a[0] == "delete"]

# %% [markdown]
# `web-1`, then `web-0`: the rollout carried on from where the partition had stopped it.

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("05.1")
ex.show()
ex.check(None)

# %% [markdown]
# Two more: the deleted pod below the partition, and a partition above `replicas`.

# %%
print(stsedu.exercises.get("05.2").check(None))
print(stsedu.exercises.get("05.3").check(None))

# %% [markdown]
# ## Summary
#
# - Pods with ordinal ≥ `partition` are updated; the others stay at the current revision.
# - A deleted pod below the partition is recreated at the current (old) revision.
# - A partition ≥ `replicas` updates nothing; lowering it continues the rollout.
