# blurb: The first lesson run on a real etcd, kube-apiserver and kube-controller-manager beside the kit: the same charts, the real controller's writes, and where the two agree.

# %% [markdown]
# # The same lesson on a real control plane
#
# Everything so far ran on the kit's simulated cluster. Would a real cluster do the same? This
# notebook puts the first lesson — three `web` pods created one at a time — on a **real control
# plane**: etcd, kube-apiserver and kube-controller-manager built from the Kubernetes v1.37.2 Go
# modules, with the real StatefulSet controller and garbage collector. Only the kubelet is the
# kit's model, acting through the API (there is no machine to run containers on).
#
# In this notebook you will:
#
# - see the real run drawn with the same charts as the kit's;
# - read the real controller's writes, in the order the API server stored them;
# - check, stable point by stable point, where the kit and the real cluster agree.
#
# To run it yourself you need Go 1.26 and about ten minutes for the first build
# (`pip install -e '.[live]'`, `stsedu live build`, `stsedu live up`; see `docs/live.md`).
# From a notebook cell, run them with this kernel's own Python, which works even when JupyterLab
# was started as `.venv/bin/jupyter` without an activated venv (a bare `!stsedu` is then "command
# not found"): `!{sys.executable} -m stsedu live status` (after `import sys`).
# Without them, this notebook shows a run recorded on a real control plane that ships with the
# kit; the kit's side is computed now.

# %%
import stsedu
from stsedu.live import lesson

stsedu.charts.enable_offline()  # the charts drawn by the Vega shipped with the kit: no network

run = lesson.stored("first-statefulset")
print(f"the real run: {run.source} ({len(run.live_writes)} writes); the kit's: computed now")

# %% [markdown]
# ## Two runs, one chart
#
# The kit's pod timeline first:

# %%
stsedu.charts.pod_timeline(run.kit_trace, "web")

# %% [markdown]
# And the real cluster's, drawn by the same function from a trace built out of the API server's
# watch events:

# %%
stsedu.charts.pod_timeline(run.live_trace, "web")

# %% [markdown]
# The shapes match: `web-1` starts only once `web-0` is Running and Ready, then `web-2`. The
# times differ a little — the kit's clock is simulated, the real run's is this machine's, with
# the controller's reaction time in it.
#
# ## Writes, not decisions
#
# The kit can say *why* a sync created a pod. From outside a real cluster you only see what was
# *written*. The trace says so itself:

# %%
print(run.note)
run.writes_table()

# %% [markdown]
# Each `update Pod ... (status)` is the kit's kubelet reporting a start or Ready; each
# `update StatefulSet ... (status)` is the real controller writing the set's status after a sync
# that changed it.
#
# ## Where they agree
#
# The real controller runs on its own, so the runs are compared at **stable points**: after each
# change, both run until nothing moves. At each one the pods (revision, phase, Ready), the claims,
# the revisions and the set's status must be the same, and so must the order of pod creates and
# deletes in between:

# %%
run.agreement()

# %% [markdown]
# The test suite (`pytest -m live`) does this for every shipped scenario and fifty random
# histories, and compares the text of the real `kubectl get`, `rollout status`, `rollout
# history` and `describe` with the kit's. `docs/live.md` lists where the two still differ, and
# why.
#
# ## Run it yourself
#
# With a control plane running (`stsedu live up`), this plays the lesson again, live, and the
# cells above work on `run` unchanged. On your own cluster, name it:
# `LiveSession("/path/to/kubeconfig", context="kind-kind", kubelet=False)`.
#
# ```python
# from stsedu.live import daemon
# from stsedu.live.runner import LiveSession
# with LiveSession(daemon.status()["kubeconfig"]) as session:
#     run = lesson.run_both("first-statefulset", session)
# run.agreement()
# ```

# %% [markdown]
# ## Summary
#
# - `stsedu live` starts a real control plane beside the kit; the kubelet is the kit's model,
#   acting through the API.
# - A trace from a real cluster holds its writes in order, not its decisions; the kit's charts
#   draw it unchanged.
# - At every stable point the kit and the real controller agree on the pods, claims, revisions
#   and status of this lesson.
#
# This is the last notebook of the series; the index links them all.
