# blurb: A crash loop (the kubelet's business) and a Failed pod (the controller's); a rollout stuck on a broken image, and the way out. Lab: fault buttons.

# %% [markdown]
# # When things break
#
# In this notebook you will:
#
# - tell apart the two ways a pod breaks: its container crashes (the kubelet restarts it; the pod
#   stays `Running`) or the whole pod fails (phase `Failed`, for a named cause);
# - predict what the controller does with each, then see it;
# - get a rollout stuck on an image that never becomes Ready;
# - predict whether putting the old image back un-sticks it, then try the way out in a lab.
#
# A Deployment does not get stuck like this: it keeps old pods running beside new ones and simply
# scales the broken ReplicaSet down. The docs have a name for the way out of a stuck StatefulSet
# rollout: a *forced rollback*.
#
# ## Two ways a pod breaks
#
# A StatefulSet's pod template must have `restartPolicy: Always`. So when a container exits, the
# kubelet starts it again, and again: after each exit it waits a back-off delay of 10 s, doubling
# (20 s, 40 s, ...) up to 5 minutes, and forgets the delay once the container has run for 10
# minutes without trouble (the Pod lifecycle page, "Container restarts"). Meanwhile the pod stays
# in phase `Running`, not Ready; `kubectl get pods` shows `Error` (the container exited), then
# `CrashLoopBackOff` (the kubelet is waiting), and `RESTARTS` climbs.
#
# A pod reaches phase `Failed` only when the kubelet ends the whole pod, and it says why in the
# pod's `status.reason`: `Evicted` (the node ran low on memory or disk: node-pressure eviction),
# `Terminated` (the node shut down gracefully) or `DeadlineExceeded` (the pod's
# `activeDeadlineSeconds` passed).

# %%
import stsedu

# %% [markdown]
# ## A Failed pod
#
# **Question 11.a.** A `Parallel` set of 3 Ready pods; the kubelet evicts `web-0` (phase `Failed`,
# reason `Evicted`). What does the next sync do first?

# %%
answer = None  # a pair (action, pod), e.g. ("create", "web-9")
stsedu.labs.reveal("11.a", answer)

# %% [markdown]
# See it with the default policy: three Ready pods; the node runs low on memory and the kubelet
# evicts `web-1`. `kubectl get pods` and the message the kubelet wrote; then the pods once the
# controller has run (a new `web-1`, with the old one's name and claim); last, what the first sync
# after the eviction decided:

# %%
failed = stsedu.Cluster()
failed.apply(stsedu.examples.web(3))
failed.run("web")
failed.kubelet.evict("web-1")
print(stsedu.tables.get_pods_text(failed, "web"))
print("message:", repr(failed.pod("web-1").message), "\n")
first = failed.sync("web")
failed.run("web")
print(stsedu.tables.get_pods_text(failed, "web"))
stsedu.tables.decisions_frame(first, pod_actions=True)[["action", "pod", "message"]]

# %% [markdown]
# ## A crash loop
#
# **Question 11.b.** Three Ready pods (`OrderedReady`); `web-1`'s container exits with an error,
# and the kubelet will restart it after a back-off. What does the next sync do with `web-1`?

# %%
answer = None  # a pair (action, pod), e.g. ("delete", "web-9"); ("wait", "web-9") means "waits for web-9"
stsedu.labs.reveal("11.b", answer)

# %% [markdown]
# See it: from now on `web-1`'s container exits with an error one second after each start, before
# its readiness probe can pass. Five simulated minutes of `kubectl get pods -w`, `web-1`'s lines:

# %%
crash = stsedu.Cluster()
crash.apply(stsedu.examples.web(3))
crash.run("web")
t0 = crash.now
crash.kubelet.crash_loop(1, pod="web-1")
crash.kubelet.crash("web-1")
crash.run("web", until=t0 + 300)
crash.advance(t0 + 300 - crash.now)
print("\n".join(line for line in stsedu.tables.watch_lines(crash.trace, "web") if line.startswith("web-1")))

# %% [markdown]
# Each back-off, measured in the trace: from the container's exit to its restart.

# %%
pods = crash.trace.pods()
mine = pods[pods["pod"] == "web-1"]
exits = mine[mine["cause"].str.startswith("kubelet: container exited")]["time"].tolist()
restarts = mine[mine["cause"] == "kubelet: container restarted"]["time"].tolist()
[f"exit at {e:g} s, restart at {r:g} s: back-off {r - e:g} s" for e, r in zip(exits, restarts)]

# %% [markdown]
# The same pod all along: phase `Running`, never `Failed`, never deleted. What the controller
# decided about `web-1` in those five minutes (each kind of decision once): only waits. And
# whatever comes after `web-1` waits too: scale to 4 and give it two simulated minutes.

# %%
frame = stsedu.tables.decisions_frame(crash.trace, pod_actions=True)
print(frame[(frame.pod == "web-1") & (frame.time > t0)][["action", "pod", "reason"]].drop_duplicates(), "\n")
crash.scale("web", 4)
t1 = crash.now
crash.run("web", until=t1 + 120)
crash.advance(t1 + 120 - crash.now)
print(crash.rollout_status("web"))
print(stsedu.tables.get_pods_text(crash, "web"))

# %% [markdown]
# ## A rollout stuck on a broken image
#
# Now a rollout to `nginx:broken`, whose pods start but never pass their readiness probe. Two
# simulated minutes later, `kubectl rollout status`, the pods, and the stuck pod's last lines in
# `kubectl get pods -w` (Running, but READY stays `0/1`):

# %%
cluster = stsedu.Cluster()
cluster.kubelet.never_ready(image="nginx:broken")
cluster.apply(stsedu.examples.web(3))
cluster.run("web")
cluster.set_image("web", "nginx:broken")
t2 = cluster.now
cluster.run("web", until=t2 + 120)
cluster.advance(t2 + 120 - cluster.now)
print(f"t = {t2:g} s to {cluster.now:g} s", cluster.rollout_status("web"), stsedu.tables.get_pods_text(
    cluster, "web"), "", *stsedu.tables.watch_lines(cluster.trace, "web")[-4:], sep="\n")

# %% [markdown]
# **Question 11.c.** Four pods, `web-0` to `web-3`. A rollout to a broken image is stuck: `web-3`
# runs it and never becomes Ready. You set the image back to `nginx:1` and wait two minutes. Which
# pods still run the broken image?

# %%
answer = None  # a list of pod names, or []
stsedu.labs.reveal("11.c", answer)

# %% [markdown]
# ## The lab
#
# Make `web-1` crash-loop, then fix its container; evict it, shut its node down, or give it an
# `activeDeadlineSeconds`; roll out the broken image; put `nginx:1` back; delete the stuck `web-2`.
# The timeline shows each pod's life (yellow: its container crashed), the table each decision:
# which faults does the controller repair, which does it only wait out, and which step un-sticks
# the set?

# %%
stsedu.labs.FaultLab()

# %% [markdown]
# ## Under the hood
#
# A Failed (or Succeeded) pod is deleted by `processReplica` (`isFailed`, reason `failed`) and
# created again on a later sync. A crash-looping pod is neither: its phase is `Running`, so to the
# controller it is only a pod that is not Running and Ready (`isRunningAndReady`), and with
# `OrderedReady` the replica loop stops there (reason `not-running-ready`). Restarting it is the
# kubelet's work (its back-off lives in the kubelet's container runtime manager); the eviction
# manager, the node shutdown manager and the active deadline handler are the kubelet's parts that
# write phase `Failed` with their reasons.
#
# The stuck rollout: the replica loop stops at the broken pod, which is not Running and Ready, so
# the rolling-update step of `updateStatefulSet`, which would replace it, is never reached (and it
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
# - A container that exits is restarted by the kubelet with back-off (10 s, 20 s, 40 s, ... at most
#   5 minutes): `Error`, `CrashLoopBackOff`, RESTARTS climbing, phase `Running`. The controller only
#   waits on it; scale-ups and rollouts stall behind it.
# - A pod is `Failed` only for a named cause (`Evicted`, `Terminated`, `DeadlineExceeded`); the
#   controller deletes it and creates it again with the same name (and claims).
# - A rollout to an image that never becomes Ready stops at the first broken pod.
# - Reverting the template is not enough: delete the stuck pod (the forced rollback).
