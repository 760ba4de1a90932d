# blurb: PersistentVolumeClaims per pod, kept across scale down and up; retention policies whenScaled and whenDeleted.

# %% [markdown]
# # Storage: claims that outlive their pods
#
# In this notebook you will:
#
# - see a claim created for each pod **before** the pod;
# - scale down and up again and find the same claims;
# - use `persistentVolumeClaimRetentionPolicy` to delete claims on scale-down or deletion.

# %% [markdown]
# The docs' example has one claim template, `www`. Claims are created first, then the pod:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.load("web"))
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "reason", "target"]]

# %% [markdown]
# **Predict:** scale to 1, then back to 3. Which claims exist at the end? Are they new?

# %%
cluster.settle("web")
cluster.scale("web", 1)
cluster.settle("web")
print(stsedu.tables.get_pvc_text(cluster, "web"))

# %% [markdown]
# Scale-down keeps the claims (the default policy is `Retain`). Scaling up again reuses them,
# so `web-2` finds its data:

# %%
cluster.scale("web", 3)
cluster.settle("web")
print(stsedu.tables.get_pvc_text(cluster, "web"))

# %% [markdown]
# ## Retention policies
#
# `whenScaled: Delete` makes each **condemned** pod the owner of its claims; when the pod is
# gone, the garbage collector removes them. `whenDeleted: Delete` makes the **set** the owner
# of every claim, so deleting the set removes them.

# %%
policy = {"whenScaled": "Delete", "whenDeleted": "Delete"}
c2 = stsedu.Cluster(kubelet="manual")
c2.apply(stsedu.examples.web(3, claims=True, persistentVolumeClaimRetentionPolicy=policy))
c2.settle("web")
c2.scale("web", 1)
c2.settle("web")
[claim.name for claim in c2.pvcs("web")]

# %% [markdown]
# And deleting the set (with the default `background` cascade): the garbage collector deletes
# the pods, and the claims once the pods using them are gone.

# %%
c2.delete("web")
while c2.kubelet.step():  # the kubelet finishes the terminating pods
    pass
[claim.name for claim in c2.pvcs()]

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("10.1")
ex.show()
ex.check(None)

# %% [markdown]
# With `whenScaled: Delete`:

# %%
stsedu.exercises.get("10.2").check(None)

# %% [markdown]
# ## Summary
#
# - Each pod gets `<template>-<set>-<ordinal>` claims, created before the pod.
# - By default claims are never deleted: scale down and up again keeps the data.
# - `whenScaled: Delete` removes a condemned pod's claims after the pod is gone;
#   `whenDeleted: Delete` removes all claims after the set is deleted.
