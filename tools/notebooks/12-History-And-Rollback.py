# blurb: ControllerRevisions as history: rollout history, rollout undo reusing an old revision, and revisionHistoryLimit.

# %% [markdown]
# # History and rollback
#
# In this notebook you will:
#
# - read the set's ControllerRevisions like `kubectl rollout history`;
# - undo a rollout and see the **old revision reused** with a new number;
# - trim the history with `revisionHistoryLimit`.

# %% [markdown]
# Three versions in a row: `nginx:1`, `nginx:2`, `nginx:3`.

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(2))
cluster.settle("web")
for image in ("nginx:2", "nginx:3"):
    cluster.set_image("web", image)
    cluster.settle("web")
cluster.rollout_history("web")

# %% [markdown]
# The revisions are objects of their own, owned by the set (`kubectl get controllerrevisions`):

# %%
print(stsedu.tables.get_controllerrevisions_text(cluster))

# %% [markdown]
# Each revision keeps the pod template it was made from, as the API server stored it: with the
# defaults it filled in (`imagePullPolicy`, `terminationMessagePath`, ...). Those defaults are
# hashed too, which is why the names (`web-…`) are the ones a real cluster gives this template.
# `kubectl rollout history statefulset/web --revision=2` shows one (kubectl writes tabs, so
# the columns are those of your terminal):

# %%
print(stsedu.tables.rollout_history_text(cluster, "web", revision=2).expandtabs(8))

# %% [markdown]
# **Predict:** `kubectl rollout undo` goes back to the previous template (`nginx:2`). Does that
# create a fourth revision?

# %%
print(cluster.rollout_undo("web"))
cluster.settle("web")
cluster.rollout_history("web")

# %% [markdown]
# No: the controller finds that the template equals an existing revision and **reuses** it,
# bumping its number to 4 (`getStatefulSetRevisions`). Its name, and so the pods' label, stay
# the same. You can also name a revision number:

# %%
print(cluster.rollout_undo("web", to_revision=1))
cluster.settle("web")
cluster.rollout_history("web")

# %% [markdown]
# ## revisionHistoryLimit
#
# Old revisions are deleted beyond `revisionHistoryLimit` (default 10), oldest first, but
# never a *live* one (the current or update revision, or one a pod still uses). With a limit
# of 1:

# %%
cluster.patch("web", {"spec": {"revisionHistoryLimit": 1}})
cluster.settle("web")
cluster.rollout_history("web")

# %% [markdown]
# ## Exercises

# %%
ex = stsedu.exercises.get("09.1")
ex.show()
ex.check(None)

# %% [markdown]
# And the number the reused revision gets:

# %%
stsedu.exercises.get("09.2").check(None)

# %% [markdown]
# ## Summary
#
# - Each distinct template is a ControllerRevision; `rollout history` lists them by number.
# - Going back to an earlier template reuses its revision and renumbers it.
# - `revisionHistoryLimit` trims old, non-live revisions.
