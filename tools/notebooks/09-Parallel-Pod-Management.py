# blurb: podManagementPolicy Parallel: what it changes in scaling, and what it does not change. Lab: policy toggle and replicas.

# %% [markdown]
# # Parallel pod management
#
# In this notebook you will:
#
# - predict how many pods one `Parallel` sync creates or deletes;
# - compare `OrderedReady` with `Parallel` on the same scale-up;
# - switch the policy in a lab and watch the timeline change shape.
#
# `podManagementPolicy: Parallel` keeps the names, ordinals and storage of a StatefulSet; what it
# changes is how the controller paces creating and deleting pods. It is meant for pods that do not
# need each other to start (a cache, say).

# %%
import stsedu

# %% [markdown]
# ## Predict, then see
#
# **Question 09.a.** A `Parallel` set with 0 replicas is scaled to 4. How many pods does the
# first sync create?

# %%
answer = None  # a number
stsedu.labs.reveal("09.a", answer)

# %% [markdown]
# **Question 09.b.** A `Parallel` set of 4 Ready pods is scaled to 1. How many pods does the
# first sync delete?

# %%
answer = None  # a number
stsedu.labs.reveal("09.b", answer)

# %% [markdown]
# Now see it: the same set scaled from 0 to 4, under each policy. How many pods did each sync
# create?

# %%
for policy in ("OrderedReady", "Parallel"):
    cluster = stsedu.Cluster()
    cluster.apply(stsedu.examples.web(4, policy=policy))
    creates = [sum(d.action == "create" for d in r.decisions) for r in cluster.run("web")]
    print(f"{policy:<13}", [n for n in creates if n], f"stable at t={cluster.now:g}s")

# %% [markdown]
# ## The lab
#
# Flip the policy and move *replicas*. The pod timeline shows the difference at a glance: a
# staircase with `OrderedReady`, a block with `Parallel`. The policy cannot be edited in place,
# so the lab does what you would do: delete the set with `--cascade=orphan` and create it again.

# %%
stsedu.labs.PolicyLab()

# %% [markdown]
# `kubectl get pods -w` during the `Parallel` scale-up above, up to the first pod Running: all
# four pods are Pending before any of them runs.

# %%
lines = stsedu.tables.watch_lines(cluster.trace, "web")
first_running = next(i for i, line in enumerate(lines) if " Running " in line)
print("\n".join(lines[:first_running + 1]))

# %% [markdown]
# ## Under the hood
#
# In `processReplica`, `OrderedReady` makes the replica loop stop at the first pod that is not
# Running and Ready (`monotonic` in the upstream code); with `Parallel` the loop goes on to the
# next ordinal. `processCondemned` likewise waits for each condemned pod to be gone only when
# monotonic. Rolling updates are not affected: they stay one pod at a time, highest ordinal
# first (unless `maxUnavailable`, notebook 10). The rules of the last cluster's first sync:

# %%
stsedu.tables.decisions_frame(cluster.trace, sync=1, pod_actions=True)[["action", "pod", "rule"]]

# %% [markdown]
# ## Summary
#
# - `Parallel` creates every missing pod and deletes every condemned pod in one sync.
# - Names, ordinals, storage and the rolling update's order stay as with `OrderedReady`.
# - The policy is immutable: change it by re-creating the set (the pods are adopted).
