# blurb: Which pods a set owns: adopt and release, deleting with --cascade=orphan and adopting the pods again, cascading deletion. Lab: orphan, cascade, re-create.

# %% [markdown]
# # Deletion and ownership: orphans and adoption
#
# In this notebook you will:
#
# - see how a set marks the pods it owns, and lets go of a pod that no longer matches it;
# - delete a set but keep its pods (`--cascade=orphan`), then create the set again;
# - say what the new set does with the orphans, then try it in a lab.
#
# Every pod a StatefulSet creates carries an *owner reference* naming the set. Deleting the set
# normally deletes its pods too (the garbage collector follows the references); with
# `--cascade=orphan` only the set goes and the pods keep running, owned by nobody. A
# ReplicaSet under a Deployment adopts and orphans pods in the same way.

# %% [markdown]
# Three Ready pods, each owned by `web`:

# %%
import stsedu

cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.web(3))
cluster.run("web")
[(p.name, p.owner) for p in cluster.pods()]

# %% [markdown]
# Edit `web-1`'s labels so that it no longer matches the set's selector (as when you take a pod
# out of service to debug it). Read what the next sync decides, and whether each request went
# through (`outcome`):

# %%
cluster.patch_pod("web-1", {"metadata": {"labels": {"app": "debug"}}})
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "message", "outcome"]]

# %% [markdown]
# ## Predict, then see
#
# **Question 08.a.** Three pods were orphaned: the set was deleted with `--cascade=orphan`. You
# create the set again, with `replicas: 2`. Which pods exist once it is stable?

# %%
answer = None  # a list of pod names, e.g. ["web-0"]
stsedu.labs.reveal("08.a", answer)

# %% [markdown]
# ## The lab
#
# Delete the set with `--cascade=orphan`, look at the owners, and create it again. Then delete it
# with the default cascade and watch the timeline: the pods end at the same moment.

# %%
stsedu.labs.OwnershipLab()

# %% [markdown]
# A plain `kubectl delete sts web` (cascade `background`) on the first cluster: the set goes, and
# the garbage collector deletes its pods, which turn Terminating. The debug pod, released
# earlier, is not the set's any more and stays.

# %%
cluster.delete("web")
cluster.advance(1)
print(stsedu.tables.get_pods_text(cluster))

# %% [markdown]
# ## The tutorial's commands
#
# The tutorial's deletions: `--cascade=orphan` leaves the pods, a new set adopts them, and a plain
# delete removes the pods but keeps the claims:

# %%
%%kubectl --reset
apply -f https://k8s.io/examples/application/web/web.yaml
delete statefulset web --cascade=orphan
get pods -l app=nginx
apply -f https://k8s.io/examples/application/web/web.yaml
get pods -w -l app=nginx
delete statefulset web
get pods -w -l app=nginx
get pvc

# %% [markdown]
# ## Under the hood
#
# Each sync starts with `ClaimPods` (from the `ControllerRefManager`): it adopts orphans that
# match the selector (decision `adopt`) and releases owned pods that no longer match (`release`).
# Only then does the replica loop look at the pods. Deletion is not the controller's job: the
# garbage collector removes dependents whose owner is gone, unless the deletion said `orphan`.
# The first cluster's claim step, after the label edit:

# %%
frame = stsedu.tables.decisions_frame(cluster.trace)
frame[frame.action.isin(["adopt", "release"])][["sync", "action", "pod", "reason", "rule"]]

# %% [markdown]
# ## Summary
#
# - A set owns its pods through owner references; a pod that stops matching is released.
# - `--cascade=orphan` deletes the set and leaves its pods running, owned by nobody.
# - A new set with a matching selector adopts them, then treats them as its own (scale-down included).
