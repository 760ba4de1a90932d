# blurb: Welcome: what a StatefulSet guarantees, how the kit works, and the concept page's web example coming up.

# %% [markdown]
# # Welcome to stsedu: watch the StatefulSet controller decide
#
# In this notebook you will:
#
# - recall what a StatefulSet guarantees, in the words of the Kubernetes docs;
# - meet the kit: a small simulated cluster whose controller behaves like the real one;
# - apply the concept page's `web` example and watch it come up, one sync at a time;
# - find the notebook for each idea.

# %% [markdown]
# ## What a StatefulSet promises
#
# The official StatefulSet concept page lists four guarantees. A StatefulSet is for
# applications that need one or more of:
#
# - **stable, unique network identifiers** (`web-0`, `web-1`, ... and a DNS name each);
# - **stable, persistent storage** (each pod gets its own PersistentVolumeClaim, kept across restarts);
# - **ordered, graceful deployment and scaling**;
# - **ordered, automated rolling updates**.
#
# The *StatefulSet controller* keeps these promises. Each time something changes it runs a
# **sync**: it compares the pods it finds with the spec and decides what to create, delete,
# or wait for. stsedu runs a faithful copy of that decision logic (Kubernetes
# `pkg/controller/statefulset`, newest release) against an in-memory cluster, and records
# every decision so you can read it.

# %% [markdown]
# ## The example from the docs
#
# This is the manifest from the concept page: a headless Service `nginx` and a StatefulSet
# `web` with 3 replicas, `minReadySeconds: 10` and one volume claim template `www`.

# %%
import stsedu

manifest = stsedu.examples.load("web")
print(manifest)

# %% [markdown]
# We make a cluster whose simulated kubelet starts pods by itself as time passes (`auto`
# mode, with a seed so every run is the same) and apply the manifest, as `kubectl apply`
# would.

# %%
cluster = stsedu.Cluster(kubelet="auto", seed=0)
cluster.apply(manifest)
cluster.statefulset("web").spec.replicas

# %% [markdown]
# `cluster.run` syncs the controller and lets simulated time pass until nothing is left to do.
# Here is every pod it created, with the sync that decided it and the time (in seconds):

# %%
results = cluster.run("web")
decisions = cluster.trace.decisions()
decisions[decisions.action == "create"][["sync", "time", "action", "pod"]]

# %% [markdown]
# Read it top to bottom: `web-0` at once, `web-1` 13 seconds later, `web-2` 13 seconds after
# that, with syncs in between that created nothing. The controller held back each time: what it
# waits for, and why 13 seconds here, are questions for notebooks 03 and 10.
#
# The final state, as `kubectl get pods` and `kubectl rollout status` print it:

# %%
print(stsedu.tables.get_pods_text(cluster, "web"))
print(cluster.rollout_status("web"))

# %% [markdown]
# ## The notebooks
#
# Each notebook takes one idea and first asks you what the controller will do (you write
# your answer in a cell; running it shows what the simulator did, with ✓ or ✗ and the rule), and
# gives you a **lab**: a small panel with that idea's knobs, a table of the decisions each change
# caused and a chart of the run. Each notebook ends with an *Under the hood* part that names the
# upstream Go functions. The classroom exercises are in notebook 13.
#
# <!-- index -->

# %% [markdown]
# ## The Playground
#
# The **Playground** is the full panel: every knob (replicas, partition, maxUnavailable,
# minReadySeconds, policy, strategy, image, kubelet mode) and every view (decisions, pods, status,
# charts, the sync log) in one place. It is in the next cell; open it in any notebook with
# `stsedu.widgets.Playground()`.

# %%
stsedu.widgets.Playground()

# %% [markdown]
# ## At 500 pods
#
# The charts stay readable at any size. Once a set has more ordinals than rows fit in a chart,
# the pod timeline draws *bands* of ordinals: each cell is the commonest state of the band's pods
# in that stretch of time, and its tooltip says how many of them were in it (the subtitle says how
# the chart was aggregated). Here is `web` at 500 replicas, OrderedReady, so one pod at a time:
# the green front climbs the bands as the set comes up. `Playground(replicas=500, settle=True)`
# shows the same run as a panel.

# %%
big = stsedu.Cluster(seed=0)
big.apply(stsedu.examples.web(500))
big.run("web", max_syncs=10_000)
stsedu.charts.ChartWidget(stsedu.charts.pod_timeline(big.trace, "web"))

# %% [markdown]
# ## Summary
#
# - A StatefulSet gives each pod a stable name, stable storage, and ordered deployment,
#   scaling and updates.
# - The controller works in **syncs**; each sync makes decisions you can read in
#   `cluster.trace.decisions()`.
# - The pods came up one after another, 13 seconds apart: notebooks 03 and 10 show what the
#   controller waits for.
#
# Next: stable identity — names, ordinals, hostnames and DNS.
