# blurb: Names, ordinals, the start ordinal, hostnames, labels, DNS names and claim names: what makes web-1 web-1.

# %% [markdown]
# # Stable identity: names, ordinals and DNS
#
# In this notebook you will:
#
# - see how every pod of a StatefulSet gets a name made of the set's name and an **ordinal**;
# - read the hostname, subdomain and labels the controller gives each pod;
# - work out each pod's stable DNS name, and its claim's name;
# - move the first ordinal with `spec.ordinals.start`.

# %% [markdown]
# We bring up the docs' `web` example with the automatic kubelet and let it settle.

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="auto", seed=0)
cluster.apply(stsedu.examples.load("web"))
_ = cluster.run("web")
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# ## What the controller writes into each pod
#
# A pod's name is `<set>-<ordinal>`. When the controller creates it, it also sets the pod's
# `hostname` (the pod name) and `subdomain` (the set's `serviceName`), and three labels:
# `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` (the ordinal) and
# `controller-revision-hash` (the ControllerRevision the pod was made from).

# %%
for pod in cluster.pods("web"):
    print(pod.name, pod.spec["hostname"], pod.spec["subdomain"], dict(pod.labels))

# %% [markdown]
# ## Stable DNS names
#
# With the headless Service `nginx` (its `clusterIP` is `None`), each pod gets a DNS name
# `<pod>.<service>.<namespace>.svc.<cluster domain>` that follows it wherever it is
# rescheduled. The concept page shows it as a table; so does stsedu:

# %%
stsedu.identity.dns_table(cluster, "web")

# %% [markdown]
# The table for a different namespace or cluster domain changes only the suffix. Try
# `cluster_domain="kube.local"`:

# %%
stsedu.identity.dns_table(cluster, "web", cluster_domain="kube.local")

# %% [markdown]
# ## Stable storage names
#
# Each volume claim template gives every pod its own PersistentVolumeClaim, named
# `<template>-<set>-<ordinal>`. If `web-1` is deleted and comes back, it finds `www-web-1` again.

# %%
print(stsedu.tables.get_pvc_text(cluster, "web"))

# %% [markdown]
# ## Moving the first ordinal
#
# `spec.ordinals.start` (GA in Kubernetes 1.31) says where numbering starts. **Predict:** with
# `start: 1`, which pod is removed and which one is added?

# %%
cluster.patch("web", {"spec": {"ordinals": {"start": 1}}})
_ = cluster.run("web")
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# `web-0` is now outside the range `[1, 3]`, so it was *condemned* and deleted; `web-3` was
# created first, because the controller handles the pods in range before it scales down.

# %% [markdown]
# ## Exercises
#
# Replace `None` with your prediction and run the cell.

# %%
ex = stsedu.exercises.get("01.2")
ex.show()
ex.check(None)

# %% [markdown]
# What is the claim of `web-2` called?

# %%
stsedu.exercises.get("01.3").check(None)

# %% [markdown]
# ## Summary
#
# - Pod names are `<set>-<ordinal>`; ordinals run from `ordinals.start` (default 0) for
#   `replicas` pods.
# - The controller sets `hostname`, `subdomain` and the pod-name, pod-index and revision labels.
# - DNS name: `<pod>.<service>.<namespace>.svc.<cluster domain>`; claim name:
#   `<template>-<set>-<ordinal>`.
