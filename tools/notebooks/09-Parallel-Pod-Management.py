# blurb: podManagementPolicy Parallel: pods created and deleted without waiting; what does not change (updates).

# %% [markdown]
# # Parallel pod management
#
# In this notebook you will:
#
# - switch `podManagementPolicy` to `Parallel` and see every missing pod created in one sync;
# - see scale-down delete every condemned pod at once;
# - learn what `Parallel` does **not** change: identity, storage, and rolling updates.

# %% [markdown]
# `podManagementPolicy` is fixed when the set is created (the API server rejects a change).
# We make a `Parallel` set of 4 and sync once.

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(4, "Parallel"))
cluster.sync("web").actions

# %% [markdown]
# All four pods in one sync. Upstream runs `processReplica` for every ordinal in
# *slow-start batches* (1, then 2, then 4, ... pods at a time) and does not stop at a pod
# that is not Ready. **Predict:** what does the next sync do while all four are Pending?

# %%
cluster.sync("web").actions

# %% [markdown]
# Nothing: `Parallel` never waits for a pod to become Ready. The status counts what exists:

# %%
cluster.statefulset("web").status

# %% [markdown]
# ## Scaling down at once
#
# Let the pods come up, then scale to 1. **Predict:** how many pods does one sync delete?

# %%
cluster.settle("web")
cluster.scale("web", 1)
cluster.sync("web").actions

# %% [markdown]
# ## Trying to change the policy
#
# The field is immutable; the error is the API server's, and nothing changes:

# %%
try:
    cluster.patch("web", {"spec": {"podManagementPolicy": "OrderedReady"}})
except stsedu.ValidationError as error:
    print(error)
cluster.statefulset("web").spec.pod_management_policy

# %% [markdown]
# ## What Parallel does not change
#
# Names, DNS and claims work as with `OrderedReady`, and **rolling updates still replace
# pods one at a time** (more precisely, `maxUnavailable` at a time; 1 by default). The policy
# only governs scaling.

# %%
ex = stsedu.exercises.get("03.2")
ex.show()
ex.check(None)

# %% [markdown]
# And the first exercise of this notebook:

# %%
stsedu.exercises.get("03.1").check(None)

# %% [markdown]
# ## Summary
#
# - `Parallel` creates and deletes pods without waiting for others to be Ready, in
#   slow-start batches (1, 2, 4, ... up to 500).
# - It is immutable once the set exists.
# - It does not change identity, storage or rolling updates.
