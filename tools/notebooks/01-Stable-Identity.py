# blurb: Names, ordinals and ordinals.start, hostnames, labels, DNS names and claim names: what makes web-1 web-1. Lab: ordinals.start and replicas.

# %% [markdown]
# # Stable identity: names, ordinals and DNS
#
# In this notebook you will:
#
# - see how every pod of a StatefulSet gets a name made of the set's name and an **ordinal**;
# - read the hostname, labels and stable DNS name the controller gives each pod;
# - answer a question first (which pods exist when the numbering starts elsewhere), then move it
#   in a lab.
#
# An *ordinal* is the number at the end of a pod's name: `web-0`, `web-1`, `web-2`. A Deployment's
# pods get random names (`web-7c9d8-xk2lp`) and any of them can replace any other; a StatefulSet's
# pod `web-1` is always `web-1`, with the same DNS name and the same volume, however often it is
# recreated.

# %% [markdown]
# We bring up the docs' `web` example (a headless Service `nginx` and 3 replicas) with the
# automatic kubelet, which starts pods by itself as simulated time passes:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="auto", seed=0)
cluster.apply(stsedu.examples.load("web"))
_ = cluster.run("web")
print(stsedu.tables.get_pods_text(cluster, "web"))

# %% [markdown]
# ## What the controller writes into each pod
#
# When it creates `web-1`, the controller sets the pod's `hostname` to its name and its
# `subdomain` to the Service's name, and labels it with its name and its ordinal:

# %%
stsedu.pod_identity_table(cluster, "web")[["pod", "hostname", "subdomain", "pod_name_label", "pod_index_label"]]

# %% [markdown]
# ## Stable DNS names
#
# Through the headless Service, each pod gets a DNS name
# `<pod>.<service>.<namespace>.svc.<cluster domain>` that follows it wherever it is rescheduled.
# The concept page shows it as a table; so does stsedu:

# %%
stsedu.dns_table(cluster, "web")

# %% [markdown]
# Each volume claim template gives every pod its own claim, named `<template>-<set>-<ordinal>`
# (notebook 02 is about storage):

# %%
print(stsedu.tables.get_pvc_text(cluster, "web"))

# %% [markdown]
# ## Predict, then see
#
# `spec.ordinals.start` (GA in Kubernetes 1.31) says where numbering starts; the default is 0.
#
# **Question 01.a.** A set `web` has `ordinals.start: 3` and 3 replicas. You scale it to 5.
# Which pods exist once it is stable?

# %%
answer = None  # a list of pod names, e.g. ["web-0", "web-1"]
stsedu.labs.reveal("01.a", answer)

# %% [markdown]
# ## The lab
#
# Move `ordinals.start` and `replicas`. The table on the right lists each pod's hostname, DNS name
# and ordinal label; the timeline shows which pods were created and removed, and when. Which pod
# goes first when you raise the start by one: the old lowest, or is the new highest created first?

# %%
stsedu.labs.IdentityLab()

# %% [markdown]
# Delete `web-1` on the first cluster: the new pod has the same name, hostname and DNS name,
# but it is a new pod (a new UID and, in a real cluster, a new IP).

# %%
uid = cluster.pod("web-1").uid
cluster.delete_pod("web-1")
cluster.run("web")
print(cluster.pod("web-1").spec["hostname"], uid != cluster.pod("web-1").uid)

# %% [markdown]
# ## The tutorial's commands
#
# The StatefulSet Basics tutorial checks the same identity with kubectl: each pod's hostname, and
# its DNS name looked up from a throw-away pod. Here they run against a fresh embedded cluster
# (notebook 16 runs the whole tutorial):

# %%
%%kubectl --reset
apply -f https://k8s.io/examples/application/web/web.yaml
get pods -l app=nginx
exec web-0 -- sh -c 'hostname'
exec web-1 -- cat /etc/hostname
run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-0.nginx
run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup nginx

# %% [markdown]
# ## Under the hood
#
# The name comes from `getPodName` (`<set>-<ordinal>`), the hostname, subdomain and labels from
# `initIdentity` and `updateIdentity` in `stateful_set_utils.go`. Each sync checks them with
# `identityMatches` and `storageMatches`, and repairs a pod whose labels were edited
# (decision `update`, reason `identity`). Ordinals outside `[start, start + replicas)` are
# *condemned*: the controller deletes them after it has handled the pods in range.

# %%
stsedu.pod_identity_table(cluster, "web")[["pod", "identity_matches", "storage_matches", "claims"]]

# %% [markdown]
# ## Summary
#
# - Pod names are `<set>-<ordinal>`; ordinals run from `ordinals.start` (default 0) for
#   `replicas` pods.
# - The controller sets `hostname`, `subdomain` and the pod-name and pod-index labels.
# - DNS name: `<pod>.<service>.<namespace>.svc.<cluster domain>`; claim name:
#   `<template>-<set>-<ordinal>`.
