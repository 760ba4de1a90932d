# blurb: A partition stages a rollout: which pods get the new revision, and which one a deleted pod comes back with. Lab: partition and image.

# %% [markdown]
# # Partitions: staged and canary rollouts
#
# In this notebook you will:
#
# - meet the *partition*: a number that decides which pods a rolling update may touch;
# - predict which pods get a new image, then move the partition yourself in a lab;
# - predict which version a pod comes back with when it is deleted during a staged rollout.
#
# **Two words first.** A *revision* is a saved copy of the pod template: every time you change
# the image (or anything else in the template) the StatefulSet gets a new revision, and every pod
# carries a label saying which revision it was made from. The *partition*
# (`spec.updateStrategy.rollingUpdate.partition`) is an ordinal that splits the set in two: a
# rolling update replaces the pods on one side of it and leaves the others on the old revision.
# Which side is which is your first prediction.
#
# A Deployment has nothing like it: to try a new version on a few pods you would run a second
# Deployment beside the first. Here it is one field of the same set.

# %%
import stsedu

# %% [markdown]
# ## Predict, then see
#
# **Question 06.a.** Five Ready pods, partition 3. You set image `nginx:2`. Which pods run
# `nginx:2` once the set is stable? Write your prediction in `answer`, then run the cell.

# %%
answer = None  # your prediction, a list of pod names, e.g. ["web-0"]
stsedu.labs.reveal("06.a", answer)

# %% [markdown]
# **Question 06.b.** Five Ready pods, partition 10, more than there are pods. You set image
# `nginx:2`. Which pods run it once the set is stable?

# %%
answer = None  # a list of pod names, or [] for none
stsedu.labs.reveal("06.b", answer)

# %% [markdown]
# Now see it: four pods, with partition 4. We set a new image and look at the pods (the last
# column is the revision label):

# %%
strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 4}}
cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.web(4, updateStrategy=strategy))
cluster.run("web")
cluster.set_image("web", "nginx:2")
cluster.run("web")
print(stsedu.tables.get_pods_text(cluster, "web", label_columns=["controller-revision-hash"]))

# %% [markdown]
# Every pod still has the first revision's hash: no ordinal is at least 4, so the rollout is
# paused before it starts. `kubectl rollout status` says so:

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# ## The lab
#
# Pick `nginx:2`, then lower the partition one step at a time. Each change shows the decisions
# of the syncs it caused and redraws the revision map: one row per pod, coloured by the revision
# it runs. Hover over a decision to see the controller's reason code.

# %%
stsedu.labs.PartitionLab()

# %% [markdown]
# ## What a deleted pod comes back with
#
# **Question 06.c.** Four pods, partition 2, image changed to `nginx:2`: `web-2` and `web-3` run
# it. Now `web-0` is deleted (a node drain, say). Which image does the new `web-0` run?

# %%
answer = None  # an image name, e.g. "nginx:1"
stsedu.labs.reveal("06.c", answer)

# %% [markdown]
# ## The tutorial's commands
#
# A staged update with kubectl, as the tutorial stages one: a partition of 2, a new image, and each
# pod's image once the rollout stops at the partition:

# %%
%%kubectl --reset
apply -f https://k8s.io/examples/application/web/web.yaml
scale sts web --replicas=3
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}'
set image sts/web nginx=registry.k8s.io/nginx-slim:0.24
rollout status sts/web
get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.spec.containers[0].image}{"\n"}{end}'

# %% [markdown]
# Try the same in the lab: set a partition of 2, roll out `nginx:2`, then lower the partition to
# 0 and watch the rollout carry on from where it stopped, top down.
#
# ## Under the hood
#
# When the controller creates a pod it picks its revision in `newVersionedStatefulSetPod`: an
# ordinal below the partition gets the set's *current* revision (`status.currentRevision`), the
# others the *update* revision (`status.updateRevision`). The rolling-update loop in
# `updateStatefulSet` walks from the highest ordinal down to the partition and stops there.
# Here are the decisions, with reason codes and upstream rules, of lowering the partition to 0 on
# the first cluster:

# %%
cluster.patch("web", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}})
syncs = cluster.run("web")
frame = stsedu.tables.decisions_frame([d for r in syncs for d in r.decisions], pod_actions=True)
frame[["action", "pod", "reason", "rule"]]

# %% [markdown]
# And `kubectl rollout status` once the partition is 0 and the rollout is over:

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# ## Summary
#
# - A rolling update replaces only pods whose ordinal is at least the partition.
# - A pod below the partition is recreated at the old (current) revision: a canary stays a canary.
# - A partition of `replicas` or more pauses the rollout; lowering it continues, top down.
