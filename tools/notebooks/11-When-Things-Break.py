# blurb: Failed pods, a rollout stuck on a broken image, and the forced rollback the docs describe.

# %% [markdown]
# # When things break
#
# In this notebook you will:
#
# - see a Failed pod deleted and then recreated, in two different syncs;
# - roll out an image that never becomes Ready, and watch the rollout stall;
# - find out why reverting the template is not enough (the docs' *forced rollback*).

# %% [markdown]
# ## A failed pod
#
# Three Ready pods; `web-1` fails (its node died, say). **Predict:** what do the next
# three syncs do?

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(3))
cluster.settle("web")
cluster.kubelet.fail("web-1")
print(cluster.sync("web").actions)
print(cluster.sync("web").actions)
cluster.kubelet.finish_termination("web-1")
print(cluster.sync("web").actions)

# %% [markdown]
# The controller deletes the Failed pod, waits until it is gone, and only then creates a new
# `web-1` with the same name and claims. (Kubernetes v1.16 tried to create the replacement in
# the same sync; notebook 14 compares the two.)
#
# ## A broken rollout
#
# Now an image whose pods never pass their readiness probe:

# %%
cluster.settle("web")
cluster.kubelet.never_ready(image="nginx:broken")
cluster.set_image("web", "nginx:broken")
results = cluster.settle("web")
results[-1].actions

# %% [markdown]
# `web-2` was replaced by a broken pod, and the controller waits on it forever: the rollout
# is stuck.

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# **Predict:** you put the old image back. Does the controller fix `web-2`?

# %%
cluster.set_image("web", "nginx:1")
results = cluster.settle("web")
results[-1].actions

# %% [markdown]
# No. The update revision is the old one again, but `web-2` is still not Ready, and with
# `OrderedReady` the replica loop stops at it before any update step runs. The concept page
# says: after reverting the template, you must also **delete the pods** that the bad
# configuration created. Then:

# %%
cluster.delete_pod("web-2")
cluster.settle("web")
print(cluster.rollout_status("web"))

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("08.2")
ex.show()
ex.check(None)

# %% [markdown]
# And the failed pod:

# %%
stsedu.exercises.get("08.1").check(None)

# %% [markdown]
# ## Summary
#
# - A Failed (or Succeeded) pod is deleted; the replacement is created once it is gone.
# - A template that never becomes Ready stalls a RollingUpdate on the top pod.
# - Reverting the template is not enough with `OrderedReady`: delete the broken pod too.
