# blurb: ControllerRevisions as history: rollout history, rollout undo and what it does to the revision numbers, revisionHistoryLimit. Lab: images, undo, limit.

# %% [markdown]
# # History and rollback
#
# In this notebook you will:
#
# - read a set's history with `kubectl rollout history`;
# - say what `kubectl rollout undo` does to the revision numbers, before you see it;
# - roll out, undo and trim the history in a lab.
#
# Each *revision* (a ControllerRevision object) keeps one pod template the set has had, with a
# number: 1, 2, 3 in the order they appeared. A Deployment keeps its history as old
# ReplicaSets scaled to zero; a StatefulSet keeps it as ControllerRevisions. `rollout undo`
# works on both.

# %% [markdown]
# Three versions in a row: `nginx:1`, `nginx:2`, `nginx:3`. The history and the revision objects:

# %%
import stsedu

cluster = stsedu.Cluster()
cluster.apply(stsedu.examples.web(2))
cluster.run("web")
for image in ("nginx:2", "nginx:3"):
    cluster.set_image("web", image)
    cluster.run("web")
print(stsedu.tables.rollout_history_text(cluster, "web"))
print(stsedu.tables.get_controllerrevisions_text(cluster))

# %% [markdown]
# Each revision keeps the template as the API server stored it, defaults included, which is why
# the names (`web-…`) are those a real cluster gives this template. `kubectl rollout history
# statefulset/web --revision=2` shows one:

# %%
print(stsedu.tables.rollout_history_text(cluster, "web", revision=2).expandtabs(8))

# %% [markdown]
# ## Predict, then see
#
# **Question 12.a.** Image `nginx:1` was rolled out, then `nginx:2`, then `nginx:3` (revisions
# 1, 2, 3). You run `kubectl rollout undo`. What is the highest revision number afterwards?

# %%
answer = None  # a number
stsedu.labs.reveal("12.a", answer)

# %% [markdown]
# ## The lab
#
# Pick images, press *rollout undo*, and lower `revisionHistoryLimit`. The history and the
# revisions on the right change with each step; the revision map shows which revision each pod
# runs over time.

# %%
stsedu.labs.HistoryLab()

# %% [markdown]
# You can also name a revision: `kubectl rollout undo sts/web --to-revision=1` on the first
# cluster, and its history afterwards:

# %%
print(cluster.rollout_undo("web", to_revision=1))
cluster.run("web")
print(stsedu.tables.rollout_history_text(cluster, "web"))

# %% [markdown]
# ## Under the hood
#
# `getStatefulSetRevisions` hashes the template; when an existing revision has an equal template
# it is *reused* and given the next number (`nextRevision`) instead of making a copy, so its name,
# and the pods' label, stay the same. `truncateHistory` runs at the end of each sync and deletes
# the oldest revisions beyond `revisionHistoryLimit` (default 10), but never the current or the
# update revision, nor one a pod still runs. With the limit at 1 on the first cluster:

# %%
cluster.patch("web", {"spec": {"revisionHistoryLimit": 1}})
syncs = cluster.run("web")
[(d.action, d.target, d.reason) for r in syncs for d in r.decisions if d.action.endswith("revision")]

# %% [markdown]
# ## Summary
#
# - Every template the set has had is a ControllerRevision with a number.
# - `rollout undo` reuses the old revision and gives it the next number: no copy is made.
# - `revisionHistoryLimit` trims old revisions that no pod runs.
