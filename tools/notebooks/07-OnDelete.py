# blurb: updateStrategy OnDelete: the controller never replaces pods for an update; a pod you delete comes back updated.

# %% [markdown]
# # OnDelete: updates only when you delete
#
# In this notebook you will:
#
# - use `updateStrategy: OnDelete` and see a template change replace nothing;
# - delete a pod yourself and see it come back at the new revision;
# - compare what the status says with what runs.

# %% [markdown]
# Three Ready pods with `OnDelete`:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(3, updateStrategy={"type": "OnDelete"}))
cluster.settle("web")
cluster.set_image("web", "nginx:2")

# %% [markdown]
# **Predict:** what does the next sync do?

# %%
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "reason", "target"]]

# %% [markdown]
# It records the new revision and writes the status, but deletes nothing: with `OnDelete`
# the sync returns right after scaling (`updateStatefulSet`: "for the OnDelete strategy we
# short circuit"). The status shows the pods are not updated:

# %%
s = cluster.statefulset("web").status
print(s.updated_replicas, "of", s.replicas, "updated;", s.current_revision, "->", s.update_revision)

# %% [markdown]
# Now delete `web-1` yourself, like `kubectl delete pod web-1`:

# %%
cluster.delete_pod("web-1")
cluster.settle("web")
revision = {r.name: r.revision for r in cluster.revisions("web")}
{p.name: revision[p.revision] for p in cluster.pods("web")}

# %% [markdown]
# `web-1` came back at revision 2. `kubectl rollout status` does not follow `OnDelete` sets:

# %%
print(cluster.rollout_status("web"))

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("06.1")
ex.show()
ex.check(None)

# %% [markdown]
# Which revision does a deleted pod come back at?

# %%
stsedu.exercises.get("06.2").check(None)

# %% [markdown]
# ## Summary
#
# - `OnDelete`: the controller never deletes a pod because of a template change.
# - A pod you delete is recreated at the update revision.
# - Status `updatedReplicas` tells you how many pods already run the new template.
