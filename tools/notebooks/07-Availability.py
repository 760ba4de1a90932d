# blurb: minReadySeconds (Ready is not yet Available) and maxUnavailable (how many pods a rolling update may take down at once).

# %% [markdown]
# # Availability: minReadySeconds and maxUnavailable
#
# In this notebook you will:
#
# - see the difference between **Ready** and **Available** (`minReadySeconds`);
# - find the exact moment a pod becomes Available;
# - let a rolling update take down several pods at once with `maxUnavailable`.

# %% [markdown]
# A set with `minReadySeconds: 10`. `web-0` becomes Ready at t = 0.

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(2, minReadySeconds=10))
cluster.sync("web")
cluster.kubelet.start("web-0")
cluster.kubelet.set_ready("web-0")
cluster.sync("web").actions

# %% [markdown]
# Ready, but the controller waits: `web-0` is not yet **Available**. Upstream's
# `isRunningAndAvailable` requires the Ready condition to be at least `minReadySeconds` old
# (`lastTransitionTime + minReadySeconds <= now`). **Predict:** at t = 9, is it Available?
# At t = 10?

# %%
for t in (9, 10):
    cluster.advance(t - cluster.now)
    print(f"t={cluster.now:g}", cluster.pod("web-0").available, cluster.sync("web").actions)

# %% [markdown]
# In auto mode, `run` wakes the controller when a pod's `minReadySeconds` has passed (the
# real controller requeues the set `minReadySeconds` after a pod turns Ready, and after a
# sync at the earliest time a Ready pod becomes Available).
#
# ## maxUnavailable
#
# `rollingUpdate.maxUnavailable` (beta, on by default since 1.37 behind the
# `MaxUnavailableStatefulSet` gate) lets an update take down more than one pod at a time.
# Five Ready pods, `maxUnavailable: 2`:

# %%
strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(5, updateStrategy=strategy))
cluster.settle("web")
cluster.set_image("web", "nginx:2")
cluster.sync("web").actions

# %% [markdown]
# Two pods, top down. With `OrderedReady` they are recreated one at a time, and the next
# wave starts when all replicas are Available again. A percentage is rounded **down**
# against `replicas`, and the result is at least 1.

# %%
[(value, stsedu.controller.history.scaled_max_unavailable(value, 5)) for value in (1, 2, "50%", "10%", "100%")]

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("07.1")
ex.show()
ex.check(None)

# %% [markdown]
# And for `maxUnavailable`:

# %%
print(stsedu.exercises.get("07.2").check(None))
print(stsedu.exercises.get("07.3").check(None))

# %% [markdown]
# ## Summary
#
# - Ready is not Available: a pod is Available once it has been Ready for **more than**
#   `minReadySeconds`. OrderedReady waits for Available.
# - `maxUnavailable` (integer or percentage, rounded down, at least 1) bounds how many pods a
#   rolling update may take down at once.
