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
# Every stsedu decision records its step and rule. Two Ready pods, and a change to the pod template:

# %%
import stsedu

cluster = stsedu.Cluster(kubelet="manual")
cluster.kubelet.step_seconds = 1  # each kubelet step takes one simulated second
cluster.apply(stsedu.examples.web(2))
cluster.settle("web")
cluster.patch("web", {"spec": {"template": {"metadata": {"labels": {"tier": "web"}}}}})

# %% [markdown]
# The template changed (a new label), so there is a new revision. `cluster.preview` shows what
# the next sync would do, step by step, without acting:

# %%
plan = cluster.preview("web")
[(d.step, d.action, d.pod or d.target, d.rule_text) for d in plan.decisions]

# %% [markdown]
# ## Predict, then see
#
# **Question 14.a.** Two Ready pods; in one edit you change the image *and* scale to 3. What does
# the next sync do first?

# %%
answer = None  # a pair (action, pod), e.g. ("delete", "web-9") or ("create", "web-9")
stsedu.labs.reveal("14.a", answer)

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
# The stepper is this notebook's lab. Press *Sync* to run the next sync, then *Next* to walk
# through its decisions: the step of the algorithm that made each one is highlighted, with the
# upstream function beside it. Scale the cluster first to have something to step through.

# %%
cluster.scale("web", 6)
stsedu.widgets.SyncStepper(cluster, "web")

# %% [markdown]
# ## The lab
#
# Be the controller's clock and the kubelet at once: press *Sync once* and *Kubelet: one step*
# in any order (each press takes one simulated second), change replicas or the image between
# syncs, and watch the decision strip grow one column per sync.

# %%
stsedu.labs.StepLab()

# %% [markdown]
# ## Summary
#
# - One sync: claim → revisions → replicas → condemned → update → status → history.
# - Scaling always comes before updating; OrderedReady stops at the first blocking pod.
# - A failed request stops the sync where upstream stops; the next sync retries.
