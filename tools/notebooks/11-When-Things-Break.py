# blurb: A Failed pod; a rollout stuck on a broken image, and the way out (the docs' forced rollback). Lab: fault buttons.

# %% [markdown]
# # When things break
#
# In this notebook you will:
#
# - predict what the controller does with a pod whose container exits for good, then see it;
# - get a rollout stuck on an image that never becomes Ready;
# - predict whether putting the old image back un-sticks it, then try the way out in a lab.
#
# A Deployment does not get stuck like this: it keeps old pods running beside new ones and simply
# scales the broken ReplicaSet down. The docs have a name for the way out of a stuck StatefulSet
# rollout: a *forced rollback*.

# %%
import stsedu

# %% [markdown]
# ## Predict, then see
#
# **Question 11.a.** A `Parallel` set of 3 Ready pods; `web-0`'s container exits for good. What
# does the next sync do first?

# %%
answer = None  # a pair (action, pod), e.g. ("create", "web-9")
stsedu.labs.reveal("11.a", answer)

# %% [markdown]
# See it with the default policy: three Ready pods; `web-1`'s container exits for good
# (phase `Failed`). What the controller does:

# %%
cluster = stsedu.Cluster()
cluster.kubelet.never_ready(image="nginx:broken")
cluster.apply(stsedu.examples.web(3))
cluster.run("web")
cluster.kubelet.fail("web-1")
stsedu.tables.decisions_frame(cluster.sync("web"), pod_actions=True)[["action", "pod", "message"]]

# %% [markdown]
# Now a rollout to `nginx:broken`, whose pods start but never pass their readiness probe. We let
# two simulated minutes pass (the controller stops syncing long before: nothing changes once the
# new pod is stuck), then `kubectl rollout status` and the pods:

# %%
cluster.run("web")
cluster.set_image("web", "nginx:broken")
start = cluster.now
cluster.run("web", until=start + 120)
cluster.advance(start + 120 - cluster.now)  # the rest of the two minutes: nothing is due
print(f"t={start:g}s to t={cluster.now:g}s")
print(cluster.rollout_status("web"))
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# The stuck pod in `kubectl get pods -w`: Running, but READY stays `0/1`.

# %%
print("\n".join(stsedu.tables.watch_lines(cluster.trace, "web")[-4:]))

# %% [markdown]
# **Question 11.b.** A rollout to a broken image is stuck: `web-3` runs it and never becomes
# Ready. You set the image back to `nginx:1` and wait two minutes. Which pods still run the
# broken image?

# %%
answer = None  # a list of pod names, or []
stsedu.labs.reveal("11.b", answer)

# %% [markdown]
# ## The lab
#
# Make `web-1` fail; roll out the broken image; put `nginx:1` back; delete the stuck `web-2`.
# The timeline shows each pod's life, the table each decision: which step un-sticks the set?

# %%
stsedu.labs.FaultLab()

# %% [markdown]
# ## Under the hood
#
# A Failed (or Succeeded) pod is deleted by `processReplica` (reason `failed`) and created again
# on a later sync. The stuck rollout: with `OrderedReady` the replica loop (`processReplica`) stops
# at the broken pod, which is not Running and Ready (reason `not-running-ready`), so the
# rolling-update step of `updateStatefulSet`, which would replace it, is never reached (and it
# would wait too, `update-unavailable`, while any pod is unhealthy). Reverting the template alone
# changes nothing for that pod; hence the docs' *forced rollback*: "if you revert the template to
# a good configuration, you may have to delete Pods that the StatefulSet has already attempted to
# run with the bad configuration". The last wait on each pod of the stuck cluster:

# %%
frame = stsedu.tables.decisions_frame(cluster.trace, pod_actions=True)
frame[frame.action == "wait"][["sync", "pod", "reason", "rule"]].drop_duplicates(["pod", "reason"], keep="last")

# %% [markdown]
# ## Summary
#
# - A Failed pod is deleted and created again with the same name (and claims).
# - A rollout to an image that never becomes Ready stops at the first broken pod.
# - Reverting the template is not enough: delete the stuck pod (the forced rollback).
