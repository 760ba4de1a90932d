# blurb: The official StatefulSet Basics tutorial, command for command, typed as %kubectl lines against the embedded cluster: the same lines work on a real one.

# %% [markdown]
# # StatefulSet Basics with kubectl
#
# In this notebook you will:
#
# - type the official **StatefulSet Basics** tutorial's commands, in its order, as `%kubectl` lines:
#   create, watch, identity, storage, scaling, updates, deletion, Parallel;
# - see each output as kubectl prints it, from the embedded cluster (no real cluster needed);
# - ask for the controller's decisions behind a command with `%kubectl --explain`.
#
# Every line here works unchanged in a terminal against a real cluster (without the `%`).
# Time: a command that changes something returns at once, as kubectl does; before your next
# command the simulated cluster runs until nothing more happens. `kubectl get pods -w` shows that
# run from just before your last change, as a watch open in a second terminal would, and stops
# when the set is stable. Ages, IPs and claim names are the simulation's.

# %% [markdown]
# ## Creating a StatefulSet
#
# `import stsedu` adds the `%kubectl` magic. The tutorial's manifest (a headless Service `nginx`
# and a StatefulSet `web` with two replicas) is served from a copy in the kit. Watch the pods come
# up one at a time, each Running and Ready before the next is created:

# %%
import stsedu

%kubectl apply -f https://k8s.io/examples/application/web/web.yaml
%kubectl get pods -w -l app=nginx
%kubectl get service nginx
%kubectl get statefulset web

# %% [markdown]
# ## Pods in a StatefulSet: identity
#
# Each pod's hostname is its name, and the headless Service gives it a DNS name. Delete both pods:
# the controller brings back pods with the **same names**, hostnames and DNS names (the IPs change):

# %%
%%kubectl
exec web-0 -- sh -c 'hostname'
exec web-1 -- sh -c 'hostname'
run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-0.nginx
delete pod -l app=nginx
get pod -w -l app=nginx
exec web-0 -- sh -c 'hostname'
run -i --tty --image busybox:1.28 dns-test --restart=Never --rm -- nslookup web-0.nginx

# %% [markdown]
# ## Stable storage
#
# Each pod has its claim, `www-web-0` and `www-web-1`. Write each pod's hostname into its nginx
# page, delete the pods, and read the pages again: the data is on the claims, which outlive pods.

# %%
%%kubectl
get pvc -l app=nginx
exec web-0 -- sh -c 'echo "$(hostname)" > /usr/share/nginx/html/index.html'
exec web-1 -- sh -c 'echo "$(hostname)" > /usr/share/nginx/html/index.html'
exec -i -t web-0 -- curl http://localhost/
delete pod -l app=nginx
exec -i -t web-0 -- curl http://localhost/
exec -i -t web-1 -- curl http://localhost/

# %% [markdown]
# ## Scaling up and down
#
# Scale to five replicas: pods are created in order, each after the one before is Ready. Then
# scale down to three with a patch: the highest ordinals go first, and their claims stay.
# `--explain` shows the decisions of the syncs the scale-down caused:

# %%
%kubectl scale sts web --replicas=5
%kubectl get pods -w -l app=nginx
%kubectl --explain patch sts web -p '{"spec":{"replicas":3}}'
%kubectl get pvc -l app=nginx

# %% [markdown]
# ## Rolling update
#
# The default update strategy is RollingUpdate. Change the image with a JSON patch: the
# controller replaces the pods from the highest ordinal down, one at a time, each after its
# successor is Ready. `--template` prints each pod's image:

# %%
%%kubectl
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}'
patch statefulset web --type='json' -p='[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value":"registry.k8s.io/nginx-slim:0.24"}]'
get pod -l app=nginx -w
rollout status sts/web
get pod web-0 --template '{{range $i, $c := .spec.containers}}{{$c.image}}{{"\n"}}{{end}}'

# %% [markdown]
# ## Staging an update with a partition, then rolling it out
#
# With `partition: 3` nothing changes; deleting `web-2` brings it back at the **old** revision
# (it is below the partition). Lowering the partition to 2 updates `web-2` only (a canary);
# partition 0 rolls out the rest:

# %%
%%kubectl
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}}}}'
patch statefulset web --type='json' -p='[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value":"registry.k8s.io/nginx-slim:0.21"}]'
delete pod web-2
get pod web-2 --template '{{range $i, $c := .spec.containers}}{{$c.image}}{{"\n"}}{{end}}'
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}'
get pod web-2 --template '{{range $i, $c := .spec.containers}}{{$c.image}}{{"\n"}}{{end}}'
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}}}}'
rollout status sts/web

# %% [markdown]
# ## OnDelete
#
# With the `OnDelete` strategy the controller never replaces a pod for an update: a pod takes the
# new template only when you delete it. `rollout status` does not follow such a set:

# %%
%%kubectl
patch statefulset web -p '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}'
set image statefulset/web nginx=registry.k8s.io/nginx-slim:0.24
get pod web-1 --template '{{range $i, $c := .spec.containers}}{{$c.image}}{{"\n"}}{{end}}'
delete pod web-1
get pod web-1 --template '{{range $i, $c := .spec.containers}}{{$c.image}}{{"\n"}}{{end}}'
rollout status sts/web

# %% [markdown]
# ## Non-cascading delete
#
# `--cascade=orphan` deletes the StatefulSet and leaves its pods running, without an owner:
# deleting one is not repaired. Applying the manifest again adopts the survivors, re-creates the
# missing `web-0` and removes `web-2` (the manifest says two replicas). It also replaces `web-1`:
# the OnDelete step left it on `nginx-slim:0.24`, the manifest says `0.21`, and the new set rolls
# its pods to the manifest's template:

# %%
%%kubectl
delete statefulset web --cascade=orphan
get pods -l app=nginx
delete pod web-0
get pods -l app=nginx
apply -f https://k8s.io/examples/application/web/web.yaml
get pods -w -l app=nginx
exec -i -t web-0 -- curl http://localhost/

# %% [markdown]
# ## Cascading delete
#
# A plain delete removes the set and lets the garbage collector delete its pods. The claims stay
# (the default retention policy), so a new `web` would find its data again:

# %%
%%kubectl
delete statefulset web
get pods -w -l app=nginx
delete service nginx
get pvc

# %% [markdown]
# ## Parallel pod management
#
# With `podManagementPolicy: Parallel` the controller creates (and deletes) pods without waiting
# for each to be Ready. Then clean up, as the tutorial does:

# %%
%%kubectl
apply -f https://k8s.io/examples/application/web/web-parallel.yaml
get pod -l app=nginx -w
scale statefulset/web --replicas=5
get pod -l app=nginx -w
delete sts web
delete service nginx
delete pvc www-web-0 www-web-1 www-web-2 www-web-3 www-web-4

# %% [markdown]
# ## Summary
#
# - The tutorial's lines run unchanged against the embedded cluster; the notebooks 01-09 explain
#   what each one showed, and their labs print the line a change corresponds to.
# - Any `%kubectl` line with `--explain` (or `stsedu.last()` after it) shows the controller's
#   decisions behind it; `stsedu kubectl ...` does the same in a terminal, keeping its cluster
#   between calls (`stsedu kubectl reset` starts over).
# - A refused line prints kubectl's message and changes nothing: try `%kubectl scale sts web
#   --replica=3`.
#
# Next: the same lesson on a real control plane, beside the kit.
