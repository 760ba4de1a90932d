# blurb: A PersistentVolumeClaim per pod, kept across scale down and up; the retention policy (whenScaled, whenDeleted). Lab: scale, retention, delete and re-create.

# %% [markdown]
# # Storage: claims that outlive their pods
#
# In this notebook you will:
#
# - see a claim created for each pod **before** the pod;
# - scale down and up again and find the same claims, and so the same data;
# - answer a question first (what `persistentVolumeClaimRetentionPolicy` deletes), then try it in
#   a lab.
#
# The official tutorial writes a file into `web-0`'s volume, deletes the pod, and finds the file
# again in the new `web-0`. That works because each pod has **its own** PersistentVolumeClaim
# named after it (`www-web-0`), made from the set's `volumeClaimTemplates`. The pods of a
# Deployment all share the claims in their template, or have none of their own.

# %% [markdown]
# The docs' example has one claim template, `www`. The first sync creates the claim, then the pod:

# %%
import stsedu

cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.load("web"))
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "target", "message"]]

# %% [markdown]
# Once the set is up, scale it to 1 and back to 3. The claims of `web-1` and `web-2` are kept
# (the default policy is `Retain`), and when the pods come back they mount the same claims:
# look at the AGE column, older than the pods.

# %%
cluster.run("web")
for n in (1, 3):
    cluster.scale("web", n)
    cluster.run("web")
print(stsedu.tables.get_pvc_text(cluster, "web"))
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# The tutorial's test: delete `web-1`. The controller creates it again, and the new pod mounts
# the same claim `www-web-1` (so the same volume, and the file written there):

# %%
cluster.delete_pod("web-1")
cluster.run("web")
stsedu.pod_identity_table(cluster, "web")[["pod", "claims"]]

# %% [markdown]
# ## Predict, then see
#
# `persistentVolumeClaimRetentionPolicy` has two fields, each `Retain` (the default) or `Delete`:
# `whenScaled` (claims of pods removed by a scale-down) and `whenDeleted` (claims of all pods
# when the set is deleted).
#
# **Question 02.a.** Four pods `web-0`..`web-3`, each with its claim `www-web-N`; `whenScaled`
# is `Delete`. You scale to 2. Which claims are left once the scale-down is over?

# %%
answer = None  # a list of claim names, e.g. ["www-web-0"]
stsedu.labs.reveal("02.a", answer)

# %% [markdown]
# ## The lab
#
# Scale down and up with each policy, delete the set and create it again. `kubectl get pvc` on
# the right shows which claims survive, and their AGE shows whether a claim is new or kept.

# %%
stsedu.labs.StorageLab()

# %% [markdown]
# ## The tutorial's commands
#
# The tutorial writes each pod's hostname into the nginx page on its claim, deletes the pod, and
# reads the page again from the pod the controller brought back (notebook 16 runs the whole tutorial):

# %%
%%kubectl --reset
apply -f https://k8s.io/examples/application/web/web.yaml
get pvc -l app=nginx
exec web-0 -- sh -c 'echo "$(hostname)" > /usr/share/nginx/html/index.html'
delete pod web-0
get pod -w -l app=nginx
exec -i -t web-0 -- curl http://localhost/

# %% [markdown]
# ## Under the hood
#
# Claims are created in `createPersistentVolumeClaims`, before the pod, by the replica loop.
# The retention policy works through owner references: with `whenScaled: Delete` the
# controller makes the condemned pod the owner of its claim (`updateClaimOwnerRefs`,
# decision `update`, reason `claim-owner`), and the garbage collector deletes the claim once
# the pod is gone; with `whenDeleted: Delete` the set owns the claims. Each claim, its owners,
# and what will happen to it:

# %%
stsedu.claim_table(cluster, "web")[["claim", "pod", "owners", "fate"]]

# %% [markdown]
# ## Summary
#
# - Each pod gets its own claim `<template>-<set>-<ordinal>`, created before the pod.
# - By default claims are kept on scale-down and on deletion; a pod that comes back finds its data.
# - `whenScaled: Delete` and `whenDeleted: Delete` hand the claims to the garbage collector.
