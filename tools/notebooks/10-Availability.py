# blurb: minReadySeconds (when a Ready pod counts as Available) and maxUnavailable (how many pods a rollout may take down). Lab: both knobs and an image.

# %% [markdown]
# # Availability: minReadySeconds and maxUnavailable
#
# In this notebook you will:
#
# - see when a Ready pod counts as *Available*, with `minReadySeconds`;
# - see what `maxUnavailable` changes in a rolling update;
# - predict both, then turn the knobs in a lab and watch the status counters.
#
# Both fields exist on Deployments too and mean the same: `minReadySeconds` guards against pods
# that pass their probe and crash a moment later; `maxUnavailable` trades safety for speed.

# %%
import stsedu

# %% [markdown]
# ## Predict, then see
#
# **Question 10.a.** `minReadySeconds` is 10; `web-0` became Ready at t=0 and `web-1` does not
# exist yet. What does the sync at t=5 do?

# %%
answer = None  # a pair (action, pod), e.g. ("create", "web-9"); ("wait", "web-9") means "waits for web-9"
stsedu.labs.reveal("10.a", answer)

# %% [markdown]
# The docs' example has `minReadySeconds: 10`. When did each pod become Ready, and when Available?
# (`kubectl get sts` shows READY; the status also counts `availableReplicas`.)

# %%
cluster = stsedu.Cluster(seed=0)
cluster.apply(stsedu.examples.load("web"))
cluster.run("web")
stsedu.tables.pods_frame(cluster, "web")[["pod", "status", "ready", "available", "ready_since", "age"]]

# %% [markdown]
# **Question 10.b.** Six Ready pods, `maxUnavailable: 3`. You set image `nginx:2`. Which pods
# does the **first** sync delete?

# %%
answer = None  # a list of pod names
stsedu.labs.reveal("10.b", answer)

# %% [markdown]
# ## The lab
#
# Set `minReadySeconds` and `maxUnavailable`, then pick an image. The status counters chart
# shows, over time, how many pods the set counts as Ready, Available, current and updated:
# watch the gap between Ready and Available, and how deep the dip goes with a larger
# `maxUnavailable`.

# %%
stsedu.labs.AvailabilityLab()

# %% [markdown]
# `kubectl get sts` counts Ready pods; the status of the set also counts the Available ones.
# Back to the first cluster of this notebook (the docs' example: 3 replicas, `minReadySeconds: 10`),
# not the lab's:

# %%
s = cluster.statefulset("web").status
print(stsedu.tables.get_sts_text(cluster))
print("readyReplicas:", s.ready_replicas, "availableReplicas:", s.available_replicas)

# %% [markdown]
# ## Under the hood
#
# Availability is `isRunningAndAvailable` (Ready for at least `minReadySeconds`, checked against
# the condition's `lastTransitionTime`); a Ready pod that is not yet Available makes the replica
# loop wait (reason `not-available`) and the controller requeues itself for the moment it will
# be. `maxUnavailable` is used by the rolling update only when the `MaxUnavailableStatefulSet`
# feature gate is on (on by default in the current profile, v1.37; off in v1.36), in the
# rolling-update step of `updateStatefulSet`; it is resolved against `replicas` with percentages rounded
# down, and never below 1. The waits of the first cluster:

# %%
frame = stsedu.tables.decisions_frame(cluster.trace, pod_actions=True)
frame[frame.reason == "not-available"][["sync", "time", "pod", "reason", "rule"]].head(3)

# %% [markdown]
# ## Summary
#
# - Ready is not Available: with `minReadySeconds` the controller waits that long after Ready.
# - `maxUnavailable` lets a rolling update take down up to that many pods at once, still top down.
# - The status counts `readyReplicas` and `availableReplicas` separately.
