# blurb: The v1.16 controller that most source walkthroughs describe, run beside today's: where they part ways, and why.

# %% [markdown]
# # Then and now: the v1.16 controller beside today's
#
# Most articles that walk through the StatefulSet controller's Go source describe
# Kubernetes **v1.16** or earlier. The controller has changed since, so what you read there
# and what a cluster does today do not always agree.
#
# In this notebook you will:
#
# - run the same scenario under the `current` and the `v1.16` profile and find the first sync
#   where their decisions differ;
# - see why v1.16 reports a different status even when it decides the same thing;
# - watch v1.16 replace a Failed pod in one pass, and fail doing it;
# - find out what happens to fields v1.16 never had (`minReadySeconds`, `maxUnavailable`, ...).

# %% [markdown]
# ## Same scenario, two releases
#
# `stsedu.compare.compare(steps, manifest)` makes one fresh cluster per profile, applies the
# manifest, runs the same *steps* on each, and lines the two traces up sync by sync. Here the
# step is `settle`: sync, move one pod one stage by hand, repeat until nothing changes.

# %%
import stsedu

settle = lambda c: c.settle("web")
cmp = stsedu.compare.compare(settle, stsedu.examples.web(3), kubelet="manual")
print(cmp.summary())

# %% [markdown]
# Scaling up from nothing: **the decisions are identical** in every sync (create `web-0`, wait
# for it, create `web-1`, ...). Only the status differs. Look at the status each release shows
# after each sync (replicas / ready / available / current / updated):

# %%
cmp.table()[["sync", "current decisions", "current status", "v1.16 status"]]

# %% [markdown]
# Two things to notice:
#
# - In v1.16 the pod a sync *creates* is already counted in that sync's `replicas` (the old
#   code added 1 for each create). Today the status is recounted from the pods the sync started
#   with, so the new pod shows up one sync later.
# - v1.16 has no `availableReplicas` (`–`): that field came with `minReadySeconds` in v1.22.
#
# ## A Failed pod
#
# Three Ready pods; then `web-1` fails. Today's controller deletes the Failed pod and waits until
# it is gone before creating a new one. The first sync where v1.16 differs:

# %%
steps = [settle, lambda c: c.kubelet.fail("web-1"), settle]
cmp = stsedu.compare.compare(steps, stsedu.examples.web(3), kubelet="manual")
print(cmp.first_divergence)

# %% [markdown]
# v1.16 deletes the Failed pod **and creates its replacement in the same pass** of its loop.
# But deletion is graceful: the old `web-1` still exists (terminating), so the API server
# answers *AlreadyExists*. The decisions of that sync, with the controller's reasons:

# %%
for d in cmp.sync(cmp.first_divergence.sync).itertuples():
    print(f"{d.profile:8} {d.action} {d.object} [{d.outcome}]\n         {d.message}")

# %% [markdown]
# The failed create ends the v1.16 sync with an error, and an old sync that fails **writes no
# status at all**. The rows from the failure on:

# %%
n = cmp.first_divergence.sync
cmp.table().query("sync >= @n")[["sync", "current decisions", "current status",
                                  "v1.16 decisions", "v1.16 status", "v1.16 error"]]

# %% [markdown]
# While `web-1` was Failed, v1.16 still showed **3 ready** (`3/3/–/3/3`): the status of the
# sync before. Today's controller writes the status even when a sync fails, and counts the
# Failed pod as not ready. Once the old pod is gone, both create `web-1` again.
#
# In auto mode the v1.16 controller retries with the work queue's backoff (5 ms, 10 ms, 20 ms,
# ...) until the old pod disappears, each retry another delete and another AlreadyExists:

# %%
old = stsedu.Cluster(profile="v1.16", seed=0)
old.apply(stsedu.examples.web(3))
old.run("web")
old.kubelet.fail("web-1")
[(round(r.time, 3), r.error) for r in old.run("web")][:5]

# %% [markdown]
# ## Fields v1.16 never had
#
# Today's manifests may use fields added after v1.16, such as `minReadySeconds` (v1.22).
#
# **Question 15.a.** Under the v1.16 controller, a set with `minReadySeconds: 30` is scaled from
# 0 to 3. Which pods exist 20 seconds later?

# %%
answer = None  # a list of pod names
stsedu.labs.reveal("15.a", answer)

# %% [markdown]
# Why: a v1.16 API server decodes the object into its own, older types: **an unknown field is
# silently dropped** and the object is stored without it. (`kubectl` of that era checked the
# schema first and refused the manifest unless run with `--validate=false`.) stsedu stores what
# the old API server would, and warns, here once for each field v1.16 does not know
# (`minReadySeconds` and `ordinals`):

# %%
old = stsedu.Cluster(kubelet="manual", profile="v1.16")
old.apply(stsedu.examples.web(3, minReadySeconds=10, ordinals={"start": 1}))
for warning in old.last_warnings:
    print(warning, end="\n\n")

# %% [markdown]
# So under v1.16 a `minReadySeconds` in your manifest does nothing. The same kind of scale-up
# under both profiles, with `minReadySeconds: 10`; where they part ways:

# %%
cmp = stsedu.compare.compare(lambda c: c.run("web"), stsedu.examples.web(3, minReadySeconds=10))
print(cmp.first_divergence)

# %% [markdown]
# Today's controller waits until `web-0` has been Ready for more than 10 seconds; v1.16 never
# heard of the field and creates `web-1` as soon as `web-0` is Running and Ready. (In auto mode
# a controller also wakes up after its own status writes and finds nothing new; the comparison
# folds such repeated syncs into one row, and the brackets give each run's own sync numbers.)
#
# The same goes for `maxUnavailable` (v1.24). With `maxUnavailable: 2`, a template change:

# %%
strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}
steps = [settle, lambda c: c.set_image("web", "nginx:2"), settle]
cmp = stsedu.compare.compare(steps, stsedu.examples.web(3, updateStrategy=strategy), kubelet="manual")
print(cmp.first_divergence)

# %% [markdown]
# Today two old pods go at once (the gate `MaxUnavailableStatefulSet` is on in the newest
# release); v1.16 always replaces one pod at a time, highest ordinal first.
#
# ## What else changed
#
# Every difference listed in the kit's `docs/behaviour.md` (section 2) is built into the `v1.16`
# profile; `docs/profiles.md` explains each one. The ones a learner meets most:
#
# | v1.16 | today |
# |---|---|
# | Failed pod deleted and recreated in one pass (AlreadyExists, retry) | deleted, recreated after it is gone |
# | Succeeded pods are not replaced: OrderedReady waits on them for ever | replaced like Failed pods (v1.29) |
# | `Parallel` works slot by slot and stops at the first failed request | creates in batches of 1, 2, 4, ... (slow start), stopping after a batch with a failed request |
# | status counts pods created in the sync; no status written after an error | recounted from the snapshot; written anyway |
# | no `minReadySeconds`, `ordinals`, PVC retention policy, `maxUnavailable`, pod-index label | all present |
# | `revisionHistoryLimit` cannot be changed after creation | can be changed |
#
# ## The lab
#
# Scale and roll out an image, then flip the profile: the lab replays everything you did under
# the other controller, and the decision strip (one column per sync, one mark per decision)
# shows where the two runs differ.

# %%
stsedu.labs.ProfileLab()

# %% [markdown]
# ## Summary
#
# - `stsedu.Cluster(profile="v1.16")` runs the controller most source walkthroughs describe;
#   `stsedu.compare.compare(steps, manifest)` runs a scenario under two profiles and finds the
#   first sync where they differ.
# - The status arithmetic changed: v1.16 counts a pod in the sync that creates it, has no
#   `availableReplicas`, and writes nothing after a failed sync.
# - v1.16 recreates a Failed pod in the same pass; the create fails while the old pod
#   terminates, and the sync is retried with backoff.
# - Fields added later are dropped by a v1.16 API server, so they have no effect there: check
#   the release before trusting a feature a walkthrough never mentions.
#
# Next: the official tutorial, command for command, with `%kubectl`.
