# blurb: OrderedReady scaling one pod at a time, scale-down in reverse, and an unhealthy pod during a scale-down. Lab: replicas and an unhealthy pod.

# %% [markdown]
# # Ordered scaling: one pod at a time
#
# In this notebook you will:
#
# - step the controller by hand, say when it creates the next pod before you see it;
# - scale down and see pods go in reverse order;
# - say what an unhealthy pod does to a scale-down, then try it in a lab.
#
# A pod's *ordinal* is the number in its name: `web-0` has ordinal 0, `web-1` ordinal 1. With the
# default policy, `OrderedReady`, the controller creates pods in ordinal order; what it needs
# before it starts the next one is the first question you will answer. A Deployment creates all its
# pods at once, with random names.

# %% [markdown]
# Here you play the kubelet: in `manual` mode a pod moves only when you move it, and with
# `step_seconds = 1` each thing you do to a pod takes one simulated second (so AGE means
# something). The first sync creates `web-0`:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.kubelet.step_seconds = 1
cluster.apply(stsedu.examples.web(3))
stsedu.tables.decisions_frame(cluster.sync("web"), pod_actions=True)[["action", "pod", "message"]]

# %% [markdown]
# ## Predict, then see
#
# `web-0` exists now, and it is `Pending`.
#
# **Question 03.a.** A set whose ordinals start at 1 (`web-1`, `web-2`, ...) has 4 replicas.
# `web-1` is Running and Ready; `web-2` was just created and is `Pending`. What does the next
# sync do?

# %%
answer = None  # a pair (action, pod), e.g. ("create", "web-9"); ("wait", "web-9") means "waits for web-9"
stsedu.labs.reveal("03.a", answer)

# %% [markdown]
# The first sync's message, under the first code cell, names the *revision* the pod is made from: a saved copy of the pod template
# (notebook 05 is about revisions). `web-0` is `Pending`, and syncing again changes nothing yet.
# Now be the kubelet: start `web-0`, make it Ready, then sync.

# %%
cluster.kubelet.start("web-0")
cluster.kubelet.set_ready("web-0")
stsedu.tables.decisions_frame(cluster.sync("web"), pod_actions=True)[["action", "pod", "message"]]

# %% [markdown]
# `cluster.settle` plays the kubelet the same way, one pod one step per sync, until nothing is
# left to do. `kubectl get pods -w` would have printed this while it ran:

# %%
cluster.settle("web")
print("\n".join(stsedu.tables.watch_lines(cluster.trace, "web")))

# %% [markdown]
# ## Scaling down
#
# Scaling down removes the pods with the highest ordinals. The pods that are to go are called
# *condemned*.
#
# **Question 03.b.** Five Ready pods; `web-1` turns not Ready. You scale to 2. What does the
# next sync do?

# %%
answer = None  # a pair (action, pod), e.g. ("delete", "web-9"); ("wait", "web-9") means "waits for web-9"
stsedu.labs.reveal("03.b", answer)

# %% [markdown]
# ## The lab
#
# The concept page puts the rule of 03.b this way: *if `web-0` fails after `web-2` has been
# terminated, `web-1` is not terminated until `web-0` is Running and Ready again.*
# Move *replicas* up and down and watch the pod timeline: each bar is a pod, from Pending to
# Ready to gone. Then untick *web-0 healthy* and scale down: the table says who waits for whom.
# Tick it again to let the scale-down finish.

# %%
stsedu.labs.ScalingLab()

# %% [markdown]
# ## The tutorial's commands
#
# The same scaling with kubectl, as the tutorial does it: up to five, watched, then down to three.
# `--explain` adds the decisions of the syncs the last change (the scale-down) caused:

# %%
%%kubectl --reset --explain
apply -f https://k8s.io/examples/application/web/web.yaml
scale sts web --replicas=5
get pods -w -l app=nginx
patch sts web -p '{"spec":{"replicas":3}}'
get pods -w -l app=nginx

# %% [markdown]
# ## Under the hood
#
# The replica loop is `processReplica` in `pkg/controller/statefulset/stateful_set_control.go`:
# it walks the ordinals in order and, for `OrderedReady`, returns at the first pod that does not
# exist (after creating it) or is not Running and Ready (reason `not-running-ready`). Condemned
# pods are handled afterwards by `processCondemned`, highest ordinal first, one at a time
# (reason `scale-down`); it is never reached while a pod in range is unhealthy
# (`scale-down-blocked`). The rule of each decision the first cluster made:

# %%
stsedu.tables.decisions_frame(cluster.trace, pod_actions=True)[["sync", "action", "pod", "reason", "rule"]].head(6)

# %% [markdown]
# ## Summary
#
# - `OrderedReady` creates one pod per sync, and only when every lower ordinal is Running and
#   Ready (notebook 10 adds one more condition).
# - Scale-down removes the highest ordinal first and waits for it to be gone.
# - An unhealthy pod that stays blocks the scale-down: the condemned pods wait.
