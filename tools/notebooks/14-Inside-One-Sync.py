# blurb: The algorithm of one sync, step by step, with each decision mapped to its upstream function (for source readers).

# %% [markdown]
# # Inside one sync
#
# In this notebook you will:
#
# - follow the steps of one sync of `pkg/controller/statefulset` in order;
# - map every decision to the upstream function that makes it;
# - preview a sync without carrying it out;
# - see what happens when the API server refuses a request.

# %% [markdown]
# ## The steps
#
# `StatefulSetController.sync` → `UpdateStatefulSet` → `performUpdate`:
#
# 1. **claim**: adopt orphan revisions; claim pods (adopt matching orphans, release pods that
#    stopped matching) — `ClaimPods`;
# 2. **revisions**: find or create the current and update ControllerRevisions —
#    `getStatefulSetRevisions`;
# 3. **replicas**: for each ordinal in range, `processReplica`: replace Failed pods, create
#    missing ones (claims first), wait (OrderedReady) for Running, Ready, Available, repair
#    identity and storage;
# 4. **fix-claims** and **condemned**: claim owner refs of pods out of range, then
#    `processCondemned`, highest ordinal first;
# 5. **update**: the rolling update (`updateStatefulSet`, or within `maxUnavailable`);
# 6. **status**: `updateStatefulSetStatus` writes it if it changed; **history**:
#    `truncateHistory`.
#
# Every stsedu decision records its step and rule. A scale-up with a template change at once:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.apply(stsedu.examples.web(2))
cluster.settle("web")
cluster.patch("web", {"spec": {"replicas": 3, "template": {"metadata": {"labels": {"tier": "web"}}}}})

# %% [markdown]
# **Predict:** the template changed *and* a replica is missing. Does this sync update a pod,
# create `web-2`, or both? Preview it first, without acting:

# %%
plan = cluster.preview("web")
[(d.step, d.action, d.pod or d.target, d.rule) for d in plan.decisions]

# %% [markdown]
# Scaling comes first: the replica loop creates `web-2` and stops (OrderedReady), so the
# update step is not reached in this sync. Now run it for real and read the table:

# %%
stsedu.tables.decisions_frame(cluster.sync("web"))[["action", "pod", "target", "reason", "rule"]]

# %% [markdown]
# ## A request that fails
#
# Real API servers refuse requests now and then. Make the next pod creation fail: the sync
# stops there, records the error, and the next sync retries.

# %%
cluster.settle("web")
cluster.scale("web", 4)
cluster.inject_error("create", "Pod")
[(d.action, d.pod, d.applied, d.error) for d in cluster.sync("web").decisions if d.pod]

# %% [markdown]
# The retry:

# %%
cluster.sync("web").actions

# %% [markdown]
# ## Step through it yourself
#
# The stepper shows one sync at a time, with the step of the algorithm that produced each
# decision highlighted.

# %%
# NBVAL_IGNORE_OUTPUT
stsedu.widgets.SyncStepper(cluster, "web")

# %% [markdown]
# ## Exercise

# %%
ex = stsedu.exercises.get("12.1")
ex.show()
ex.check(None)

# %% [markdown]
# ## Summary
#
# - One sync: claim → revisions → replicas → condemned → update → status → history.
# - Scaling always comes before updating; OrderedReady stops at the first blocking pod.
# - A failed request stops the sync where upstream stops; the next sync retries.
