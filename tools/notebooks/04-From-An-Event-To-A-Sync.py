# blurb: What wakes the controller: events, one shared work queue, a worker, a sync, new events. Two sets, orphans whose set comes back, a failing call retried. Lab: informer delay and API errors.

# %% [markdown]
# # From an event to a sync
#
# In this notebook you will:
#
# - see what makes the controller act: not a timer, but *news* about objects;
# - watch two StatefulSets share one queue and one worker;
# - say what happens to orphaned pods when their set comes back, then see it;
# - say how a failing API call is retried, then see the pauses;
# - in a lab, slow down the news and break the API, and watch the loop cope.
#
# So far we called `cluster.run("web")`: sync one set until it settles. A real controller is
# never told "sync web now". It **watches** the cluster. Every change to a pod or a set is news.
# The news says which set it concerns, that set's name goes into a **queue**, and a **worker**
# takes names from the queue one by one and syncs that set. The sync changes objects; those
# changes are news again. That circle is the controller's outer loop.

# %% [markdown]
# Two sets, `web` (3 pods) and `db` (2 pods), in one cluster. Applying them is news already: each
# name is now waiting in the queue, written `namespace/name`.

# %%
import stsedu
from stsedu.widgets import loop_lab

cluster = stsedu.Cluster(seed=1)
cluster.apply(loop_lab.set_manifest("web", 3))
cluster.apply(loop_lab.set_manifest("db", 2))
cluster.trace.queue()

# %% [markdown]
# `cluster.run()` with no name runs the whole controller: it takes names from the queue and syncs
# them until the queue is empty and nothing else is due. The queue's first steps:

# %%
results = cluster.run()
cluster.trace.queue().head(12)[["time", "key", "event", "cause"]]

# %% [markdown]
# Read it row by row. `web` is handed to the worker; while its sync runs, it creates `web-0`, and
# the news of that pod arrives for `web` again. A name being worked on is never handed out twice,
# so it is only marked (`added (while processing)`) and goes back in the queue when the sync is
# `done`. Meanwhile `db` had its turn. The same story as a picture, one line per set:

# %%
stsedu.charts.enable_offline()
stsedu.charts.queue_flow(cluster.trace, limit=60)

# %% [markdown]
# ## Two sets, one queue
#
# The worker alternates: a sync of `web`, a sync of `db`, whichever name waited longest. Neither
# set waits for the other to finish. When was each set Ready (every pod Ready), when would `web`
# have been Ready alone (same seed), and the first syncs:

# %%
ready_at = loop_lab.ready_at  # the first time a set's status counted every replica Ready
alone = stsedu.Cluster(seed=1)
alone.apply(loop_lab.set_manifest("web", 3))
alone.run()
print(f"web Ready at t={ready_at(cluster, 'web'):g}s (alone: t={ready_at(alone, 'web'):g}s); "
      f"db Ready at t={ready_at(cluster, 'db'):g}s")
cluster.trace.syncs()[["sync", "time", "set", "changed"]].head(8)

# %% [markdown]
# ## Predict, then see: pods without an owner
#
# **Question 04.a.** `web` is deleted with `--cascade=orphan`: the set goes, its pods keep
# running with no owner. Then you apply `web` again. Does the new set create new pods, or adopt
# the old ones? Put your answer in `answer` and run the cell.

# %%
answer = None  # "create" or "adopt"
stsedu.labs.reveal("04.a", answer)

# %% [markdown]
# Now see it. The set's return is news (`StatefulSet web added`); its sync finds pods that match
# its selector and have no owner, and adopts each one.

# %%
cluster.delete("web", cascade="orphan")
cluster.run()
cluster.apply(loop_lab.set_manifest("web", 3))
cluster.run()
decisions = cluster.trace.decisions()
decisions[decisions["action"].eq("adopt") & decisions["pod"].notna()][["sync", "set", "pod", "message"]]

# %% [markdown]
# ## Predict, then see: a failing API call
#
# A sync that fails does not give up and does not retry at once in a tight loop: its name goes
# back in the queue **after a pause**. The pause after the first failure is 5 ms (client-go's
# default rate limiter for controllers).
#
# **Question 04.b.** `web` is alone and creating its first pod fails three times in a row. How long
# a pause does the queue give its name after the 1st, the 2nd and the 3rd failure?

# %%
answer = None  # a tuple of three numbers of seconds, e.g. (0.005, 0.005, 0.005)
stsedu.labs.reveal("04.b", answer)

# %% [markdown]
# See it: the rows of the queue that mention a rate limit, and the moment the name is forgotten
# (its pause is reset) after the first sync that works. Look at the times: the 2nd sync ran at
# once, not 5 ms later. The failed sync had still written the set's status, and that news put
# the name back in the queue at once: news never waits for a pause.

# %%
broken = stsedu.Cluster(seed=1)
broken.apply(loop_lab.set_manifest("web", 3))
broken.inject_error("create", "Pod", count=3)
broken.run()
queue = broken.trace.queue()
queue[queue["event"].str.contains("rate|forgotten")][["time", "event", "cause"]]

# %% [markdown]
# ## The lab: late news and a broken API
#
# The controller reads a **cache** of the cluster that the news keeps up to date. If the news is
# late, the cache is stale.
#
# **Question 04.c.** Pod news reaches the controller 0.5 s late; news of the sets arrives at
# once. Does the controller ever try to create a pod that already exists?

# %%
answer = None  # True or False
stsedu.labs.reveal("04.c", answer)

# %% [markdown]
# Move *informer delay* and watch the decisions, the counters and the chart: failed calls, pauses,
# and when both sets were Ready. Turn on *API error on pod create*: three creates fail. Try two
# *workers*: `web` and `db` are then synced side by side. *first step* scrolls the chart along
# the run. Every change re-runs the same two sets.

# %%
stsedu.widgets.LoopLab()

# %% [markdown]
# ## Under the hood
#
# Upstream, `NewStatefulSetController` (`pkg/controller/statefulset/stateful_set.go`) registers
# handlers on the Pod and StatefulSet **informers** (the revision and claim informers are only read
# through their listers). `addPod` enqueues the pod's controller (`resolveControllerRef` checks the
# uid) or, for an orphan, every set whose selector matches (`getStatefulSetsForPod`); `updatePod`
# also enqueues the old owner when the controllerRef changed, and enqueues again after
# `minReadySeconds` when a pod turns Ready (`enqueueSSAfter`); `deletePod` unwraps a
# `DeletedFinalStateUnknown` tombstone. The queue is client-go's: `Add`, `Get`, `Done`,
# `AddAfter`, and `processNextWorkItem` calls `AddRateLimited` on error and `Forget` on success,
# with `DefaultControllerRateLimiter`: per key 5 ms doubling up to 1000 s, and one bucket of
# 10 per second (bursts of 100) for all keys. `--concurrent-statefulset-syncs` sets the number of
# workers (default 1 here). With `StaleControllerConsistencyStatefulSet` (beta, on by default
# since v1.36) `sync` first asks the consistency store (`pkg/controller/util/consistency`):
# the controller recorded the resource version of each pod, claim and status it wrote
# (`WroteAt`), and while an informer has not synced that far `EnsureReady` returns an error and
# the key goes back with `AddRateLimited` (the lab's "caches behind the set's own writes"). The
# per-key pauses:

# %%
from stsedu.client.workqueue import default_controller_rate_limiter

limiter = default_controller_rate_limiter()
[limiter.when("default/web", 0.0) for _ in range(8)]

# %% [markdown]
# ## Summary
#
# - The controller acts on news: every write to a pod or a set queues the name of the set it
#   concerns (a pod's owner, or for an orphan every set that selects it).
# - One queue serves every set: a name waits at most once, is never worked on twice at the same
#   time, and comes back after its sync if news arrived meanwhile.
# - A failed sync comes back after a pause that doubles (5 ms, 10 ms, 20 ms, ...), reset by a
#   sync that works.
# - Late news means a stale cache. Today's controller does not sync while its cache is behind its
#   own writes (the consistency store): the key waits, rate-limited, for the news. Older releases
#   acted on the old view and the API server refused (`already exists`); either way a sync starts
#   from what it sees each time instead of remembering what it did.
