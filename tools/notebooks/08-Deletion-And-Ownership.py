# blurb: Owner references: adopt and release, orphan deletion and re-adoption, cascading deletion and the scale-to-0 path.

# %% [markdown]
# # Ownership: adopt, release, orphan, cascade
#
# In this notebook you will:
#
# - see how a pod belongs to a set (a controller **owner reference**);
# - relabel a pod and watch the controller **release** it;
# - delete a set with `cascade=orphan` and watch a new set **adopt** the running pods;
# - compare cascading deletion with the recommended *scale to 0 first*.

# %% [markdown]
# Three Ready pods; each names its owner:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(3))
cluster.settle("web")
[(p.name, p.owner) for p in cluster.pods()]

# %% [markdown]
# ## Release
#
# A pod is the set's only while its labels match the selector. Change `web-1`'s `app` label
# (like `kubectl label pod web-1 app=debug --overwrite`). **Predict:** what does the next
# sync do with `web-1`, and can it create a new `web-1`?

# %%
cluster.patch_pod("web-1", {"metadata": {"labels": {"app": "debug"}}})
r = cluster.sync("web")
stsedu.tables.decisions_frame(r)[["action", "pod", "reason", "message"]]

# %% [markdown]
# The controller released `web-1` (removed its owner reference). The pod keeps running, and
# keeps its name, so creating the replacement `web-1` fails with `AlreadyExists` until the
# orphan is gone. Delete it and the slot is filled:

# %%
cluster.delete_pod("web-1")
cluster.settle("web")
[(p.name, p.owner) for p in cluster.pods()]

# %% [markdown]
# ## Orphan deletion and adoption
#
# `kubectl delete statefulset web --cascade=orphan` removes the set but not its pods:

# %%
cluster.delete("web", cascade="orphan")
[(p.name, p.owner) for p in cluster.pods()]

# %% [markdown]
# **Predict:** apply the same set again. Are the pods restarted?

# %%
cluster.apply(stsedu.examples.web(3))
r = cluster.sync("web")
r.actions, [(p.name, p.owner, p.phase) for p in cluster.pods()]

# %% [markdown]
# They are **adopted**: same pods, same uids, no restart (the adoption decisions are in the
# full table, `stsedu.tables.decisions_frame(r)`).
#
# ## Deleting a set
#
# With the default `background` cascade, the garbage collector deletes every pod at once, in
# no order. The concept page recommends scaling to 0 first, which terminates pods in order:

# %%
cluster.scale("web", 0)
results = cluster.settle("web")
[a for r in results for a in r.actions if a[0] == "delete"]

# %% [markdown]
# ## Exercise

# %%
ex = stsedu.exercises.get("11.1")
ex.show()
ex.check(None)

# %% [markdown]
# ## Summary
#
# - A pod belongs to a set through a controller owner reference, claimed only while its
#   labels match the selector and its name matches the set.
# - A relabelled pod is released; its name stays taken until it goes.
# - `cascade=orphan` leaves pods running; a new set with the same selector adopts them.
# - Scale to 0 before deleting to get ordered termination.
