# blurb: OrderedReady one pod at a time, step by step by hand; scale-down in reverse; what blocks it (the web-0 example).

# %% [markdown]
# # Ordered scaling: one pod at a time
#
# In this notebook you will:
#
# - play the kubelet yourself and step the controller one sync at a time;
# - see why `OrderedReady` creates `web-1` only after `web-0` is Running and Ready;
# - scale down and watch pods go in reverse ordinal order;
# - find out what blocks a scale-down (the concept page's `web-0` example).

# %% [markdown]
# In **manual** mode nothing happens to a pod unless you do it: `start` moves a Pending pod to
# Running, `set_ready` makes it Ready. We use a small set without claims.

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(3))
r = cluster.sync("web")
r.actions

# %% [markdown]
# The first sync created `web-0`. It is `Pending`. **Predict:** what does the next sync do?

# %%
cluster.sync("web").actions

# %% [markdown]
# It waits. Each decision carries the upstream step that made it and a sentence:

# %%
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "reason", "rule", "message"]]

# %% [markdown]
# Now be the kubelet: start `web-0` and make it Ready, then sync again.

# %%
cluster.kubelet.start("web-0")
cluster.kubelet.set_ready("web-0")
cluster.sync("web").actions

# %% [markdown]
# Only now is `web-1` created. This is `processReplica` in
# `pkg/controller/statefulset/stateful_set_control.go`: it walks the ordinals in order and,
# for `OrderedReady`, stops at the first pod that does not exist yet (and creates it) or is
# not Running and Ready (and waits). At most one pod is created per sync.
#
# Let the rest come up (`cluster.settle` plays the kubelet the same way, one pod one step per sync, until nothing is left to do):

# %%
cluster.settle("web")
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# ## Scaling down, in reverse
#
# **Predict:** scaling from 3 to 1, which pod goes first? Does the second go in the same sync?

# %%
cluster.scale("web", 1)
print(cluster.sync("web").actions, cluster.sync("web").actions)

# %% [markdown]
# `web-2` is deleted, and the next sync *waits* for it to terminate before it touches `web-1`
# (`processCondemned`, highest ordinal first, one at a time).
#
# ## What blocks a scale-down
#
# The concept page: *if `web-0` fails after `web-2` has been terminated, `web-1` is not
# terminated until `web-0` is Running and Ready again.* Let us do exactly that.

# %%
cluster.kubelet.finish_termination("web-2")
cluster.kubelet.set_unready("web-0")
print(cluster.sync("web").actions)
cluster.kubelet.set_ready("web-0")
print(cluster.sync("web").actions)

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("02.1")
ex.show()
ex.check(None)

# %% [markdown]
# Three Ready pods, scaled to 1: which pod is deleted first? And in the blocked case?

# %%
print(stsedu.exercises.get("02.2").check(None))
print(stsedu.exercises.get("02.3").check(None))

# %% [markdown]
# ## Try it
#
# The Playground gives you the same controls as buttons and sliders: move *replicas*, press
# *Sync once*, and move pods with the kubelet buttons.

# %%
# NBVAL_IGNORE_OUTPUT
stsedu.widgets.Playground(kubelet="manual", replicas=3)

# %% [markdown]
# ## Summary
#
# - `OrderedReady` creates one pod per sync, and only when every lower ordinal is Running and
#   Ready (and Available, with `minReadySeconds`).
# - Scale-down deletes the highest ordinal first and waits for it to be gone.
# - An unhealthy pod in range blocks scale-down: the replica loop stops before condemned pods
#   are looked at.
