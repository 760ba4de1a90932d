# blurb: OnDelete: a new template waits until you delete a pod; which revision the replacement gets. Lab: image and delete buttons.

# %% [markdown]
# # OnDelete: updates when you say so
#
# In this notebook you will:
#
# - set `updateStrategy: OnDelete` and see that a new image replaces no pod by itself;
# - say which version a deleted pod comes back with, before you see it;
# - delete pods one by one in a lab and watch the revision map.
#
# With `OnDelete` the controller never deletes a pod to update it: you do, when it suits you
# (after draining a database replica, say), and the controller creates it again. This was the
# only strategy before Kubernetes 1.7; a Deployment has nothing like it.

# %% [markdown]
# Three Ready pods with `OnDelete`; we set `nginx:2` and let the controller run. Which pods did
# it delete?

# %%
import stsedu

cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.web(3, updateStrategy={"type": "OnDelete"}))
cluster.run("web")
cluster.set_image("web", "nginx:2")
syncs = cluster.run("web")
[(d.action, d.pod) for r in syncs for d in r.decisions if d.action in ("create", "delete")]

# %% [markdown]
# None. The status knows a newer revision exists (`updateRevision`) but no pod runs it:

# %%
s = cluster.statefulset("web").status
print("current:", s.current_revision, "update:", s.update_revision, "updated pods:", s.updated_replicas)

# %% [markdown]
# ## Predict, then see
#
# **Question 07.a.** An `OnDelete` set of 3 pods at `nginx:1`. You set `nginx:2`, then `nginx:3`,
# without deleting anything. Then you delete `web-0`. Which image does the new `web-0` run?

# %%
answer = None  # an image name, e.g. "nginx:1"
stsedu.labs.reveal("07.a", answer)

# %% [markdown]
# ## The lab
#
# Pick an image, then press the delete buttons. Each deleted pod comes back at the newest
# revision; the others keep theirs as long as you leave them alone.

# %%
stsedu.labs.OnDeleteLab()

# %% [markdown]
# On the first cluster, the pods still run the first revision: `kubectl get pods` with the
# revision label shows the set half-updated for as long as you like.

# %%
print(stsedu.tables.get_pods_text(cluster, "web", label_columns=["controller-revision-hash"]))

# %% [markdown]
# ## The tutorial's commands
#
# `OnDelete` with kubectl: the new image waits until you delete a pod yourself:

# %%
%%kubectl --reset
apply -f https://k8s.io/examples/application/web/web.yaml
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'
set image sts/web nginx=registry.k8s.io/nginx-slim:0.24
get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.spec.containers[0].image}{"\n"}{end}'
delete pod web-1
get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.spec.containers[0].image}{"\n"}{end}'

# %% [markdown]
# ## Under the hood
#
# In `updateStatefulSet` the rolling-update step starts with
# `if set.Spec.UpdateStrategy.Type == OnDeleteStatefulSetStrategyType { return }`: nothing is
# deleted for an update. The replica loop still recreates a missing pod, and
# `newVersionedStatefulSetPod` gives it the update revision. On the first cluster, delete
# `web-1` and read the decisions:

# %%
cluster.delete_pod("web-1")
syncs = cluster.run("web")
stsedu.tables.decisions_frame([d for r in syncs for d in r.decisions], pod_actions=True)[["action", "pod", "reason", "rule"]].head(3)

# %% [markdown]
# ## Summary
#
# - With `OnDelete`, a template change creates a new revision but replaces no pod.
# - A pod you delete comes back at the newest (update) revision.
# - The status counts how many pods are updated; the rollout is done when you have deleted them all.
