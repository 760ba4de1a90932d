# blurb: A new image rolls out: in which order the pods are replaced, and what the controller waits for; ControllerRevisions. Lab: image and strategy.

# %% [markdown]
# # Rolling updates: replacing pods at a new revision
#
# In this notebook you will:
#
# - change the image and see the set get a new *revision*;
# - say which pod goes first and what the controller waits for, before you see it;
# - roll images out yourself in a lab and watch the revision map.
#
# A *revision* is a saved copy of the pod template (a ControllerRevision object). Changing the
# image makes a new one; every pod is labelled with the revision it was made from. A Deployment
# rolls out by starting new pods beside the old ones (`maxSurge`) in no particular order; a
# StatefulSet never has two `web-2`s, so it must delete an old pod before it can create its
# replacement at the new revision. Which pods, in which order, is the question below.

# %% [markdown]
# Three Ready pods at `nginx:1`; we set `nginx:2`, as `kubectl set image` would. The revisions
# and which pod runs which, as `kubectl` shows them. There is one revision so far, and every pod
# carries its hash: the controller makes the new revision at its next sync, which is the question
# below.

# %%
import stsedu

cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.web(3))
cluster.run("web")
cluster.set_image("web", "nginx:2")
print(stsedu.tables.get_controllerrevisions_text(cluster))
print(stsedu.tables.get_pods_text(cluster, "web", label_columns=("controller-revision-hash",)))

# %% [markdown]
# ## Predict, then see
#
# **Question 05.a.** Five Ready pods at `nginx:1`. You set `nginx:2` (RollingUpdate, no
# partition). Which pods does the **first** sync delete?

# %%
answer = None  # a list of pod names, e.g. ["web-0"]
stsedu.labs.reveal("05.a", answer)

# %% [markdown]
# **Question 05.b.** Three pods are being updated. `web-2` has been replaced: its new pod is
# Running but not Ready yet. What does the next sync do?

# %%
answer = None  # a pair (action, pod), e.g. ("delete", "web-9"); ("wait", "web-9") means "waits for web-9"
stsedu.labs.reveal("05.b", answer)

# %% [markdown]
# ## The lab
#
# Pick an image to start a rollout and watch the revision map: one row per pod, its colour the
# revision it runs, and the shade whether it is Ready. Then switch the strategy to `OnDelete` and
# pick another image: what is replaced now? (Notebook 07 is about `OnDelete`.)

# %%
stsedu.labs.UpdateLab()

# %% [markdown]
# The first cluster, once the rollout is over, as `kubectl rollout status` prints it. It says
# *partitioned* although we set no partition: the API server fills in the default
# `rollingUpdate: {partition: 0}`, and kubectl's status check for StatefulSets takes its
# partition branch whenever `rollingUpdate` is there, so a real cluster prints the same line.

# %%
cluster.run("web")
print(cluster.rollout_status("web"))

# %% [markdown]
# What `kubectl get pods -w -L controller-revision-hash` printed during that rollout, from the
# first pod going Terminating: each pod goes Terminating, comes back Pending, then Running, then
# Ready, at the new hash, highest ordinal first.

# %%
lines = stsedu.tables.watch_lines(cluster.trace, "web", revision=True)
start = next(i for i, line in enumerate(lines) if " Terminating " in line)
print("\n".join(lines[start:]))

# %% [markdown]
# ## The tutorial's commands
#
# The tutorial's rolling update: a JSON patch of the image, watched, then `rollout status` and the
# history. `--explain` adds the decisions of the syncs the patch caused:

# %%
%%kubectl --reset --explain
apply -f https://k8s.io/examples/application/web/web.yaml
scale sts web --replicas=3
patch statefulset web --type='json' -p='[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value":"registry.k8s.io/nginx-slim:0.24"}]'
get pod -l app=nginx -w
rollout status sts/web
rollout history sts/web

# %% [markdown]
# ## Under the hood
#
# `getStatefulSetRevisions` finds or creates the ControllerRevision of the current template
# (`status.updateRevision`); `status.currentRevision` stays on the old one until every pod is
# updated. The update step of `updateStatefulSet` walks from the highest ordinal down and deletes
# the first pod not at the update revision (reason `update`), but only if every pod is Running
# and Ready; otherwise it waits (`update-unavailable`). The replica loop then recreates the pod
# with `newVersionedStatefulSetPod`. The decisions of the whole rollout:

# %%
frame = stsedu.tables.decisions_frame(cluster.trace, pod_actions=True)
frame[frame.action != "wait"][["sync", "action", "pod", "reason", "rule"]].tail(6)

# %% [markdown]
# ## Summary
#
# - A template change makes a new revision; pods are labelled with the revision they run.
# - RollingUpdate deletes one pod at a time, highest ordinal first, and waits until its
#   replacement is Running and Ready before the next.
# - The set's status names the current and the update revision; they meet when the rollout is done.
