"""The verbs: each reads a parsed line, checks it as kubectl does, then changes the embedded
cluster through :class:`~stsedu.Cluster`'s own calls (so its validation, events and trace are
the ones the rest of the kit sees) and returns what kubectl prints on stdout.

Every check that can refuse a line runs before the first write: a refused line changes
nothing.  kubectl's messages are cited from its sources (``k8s.io/kubectl`` and
``k8s.io/cli-runtime``, v0.37): ``DeleteOptions.PrintObj``'s ``"web" deleted from default
namespace``, ``parseCascadingFlag``'s ``invalid cascade value``, the builder's ``the path "x" does
not exist`` and ``resource(s) were provided, but no name was specified``...
"""

from __future__ import annotations

import copy

from ...api.errors import ValidationError
from . import printers as P
from .flags import KubectlError, Parsed, UsageError
from .args import MISSING_RESOURCE, NO_NAME, NO_RESOURCE, ONE_OR_MORE, call, collect, one_statefulset, targets
from ...files import FileReadError, read_text
from .objects_io import FILE, invalid_text, load_patch, merge_diff, read_files, strategic_merge

# ====================================================================== apply / create

def _doc_key(doc: dict) -> tuple[str, str, str]:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    return (str(doc.get("kind")), meta.get("namespace") or "default", str(meta.get("name") or ""))


def _comparable(obj) -> dict | None:
    if obj is None:
        return None
    m = obj.to_manifest()
    m.pop("status", None)
    m.get("metadata", {}).pop("resourceVersion", None)
    return m


def _files_docs(s, p: Parsed, stdin):
    if not p["filename"]:
        raise KubectlError("error: must specify one of -f and -k")
    return read_files(p["filename"], stdin, bool(p["recursive"]), s.files_read)


def apply(s, p: Parsed, stdin, res) -> str:
    if p.args:
        raise UsageError(f"Unexpected args: {p.args}", "kubectl apply")
    docs = _files_docs(s, p, stdin)
    return _apply_docs(s, p, docs, res, verb="apply")


def _apply_docs(s, p: Parsed, docs: list[tuple[str, dict]], res, verb: str) -> str:
    c = s.cluster
    kinds = {"StatefulSet": P.BY_KIND["StatefulSet"], "Service": P.BY_KIND["Service"]}
    before = {}
    for _, d in docs:
        k = _doc_key(d)
        if k[0] in kinds:
            before[k] = _comparable(c.store.get(*k))
    if not docs:
        raise KubectlError("error: no objects passed to " + verb)
    other = [(src, d) for src, d in docs if _doc_key(d)[0] not in kinds]
    docs = [(src, d) for src, d in docs if _doc_key(d)[0] in kinds]
    refused = [f'error: stsedu simulates StatefulSets and Services only: {_doc_key(d)[0]} "{_doc_key(d)[2]}" '
               f'from "{src}" was not {"applied" if verb == "apply" else "created"}' for src, d in other]
    if not docs:
        raise KubectlError("\n".join(refused))
    try:
        c.apply([d for _, d in docs])
    except ValidationError as e:
        raise KubectlError(invalid_text(e)) from None
    s.changed(p)
    for w in c.last_warnings:
        res.stderr += f"Warning: {w}\n"
    out, seen = [], set()
    for _, d in docs:
        k = _doc_key(d)
        if k[0] not in kinds or k in seen:
            continue
        seen.add(k)
        after = _comparable(c.store.get(*k))
        word = "created" if before[k] is None else "unchanged" if before[k] == after else "configured"
        out.append(f"{kinds[k[0]].name_prefix}/{k[2]} {word}\n")
    if refused:  # kubectl applies what it can and reports the rest
        res.stdout += "".join(out)
        raise KubectlError("\n".join(refused))
    return "".join(out)


def create(s, p: Parsed, stdin, res) -> str:
    if p.args:
        raise KubectlError("error: Unexpected args: " + str(p.args) + "\nSee 'kubectl create -h' for help and examples")
    docs = _files_docs(s, p, stdin)
    errors, fresh = [], []
    for src, d in docs:
        k = _doc_key(d)
        t = P.BY_KIND.get(k[0])
        if t is not None and s.cluster.store.get(*k) is not None:
            errors.append(f'Error from server (AlreadyExists): error when creating "{src}": '
                          f'{t.qualified} "{k[2]}" already exists')
        else:
            fresh.append((src, d))
    out = _apply_docs(s, p, fresh, res, "create") if fresh else ""
    if errors:
        res.stdout += out
        raise KubectlError("\n".join(errors))
    return out


# ====================================================================== delete

def delete(s, p: Parsed, stdin, res) -> str:
    c = s.cluster
    ns = p["namespace"]
    try:
        cascade = {"true": "background", "false": "orphan"}.get(str(p["cascade"]).lower(), p["cascade"])
    except AttributeError:
        cascade = "background"
    if cascade not in ("background", "foreground", "orphan"):
        raise KubectlError(f'error: invalid cascade value ({p["cascade"]}). Must be "background", '
                           '"foreground", or "orphan"')
    grace = p["grace-period"]
    if p["now"]:
        if grace != -1:
            raise KubectlError("error: --now and --grace-period cannot be specified together")
        grace = 1
    if grace == 0 and not p["force"]:
        grace = 1
    if p["force"] and grace < 0:
        grace = 0
    if p["force"] and grace > 0:
        raise KubectlError("error: --force and --grace-period greater than 0 cannot be specified together")
    if p["filename"]:
        if p.args:
            raise KubectlError("error: there is no need to specify a resource type as a separate argument "
                               "when passing arguments in resource/name form")
        items = []
        for _, d in read_files(p["filename"], stdin, bool(p["recursive"]), s.files_read):
            kind, dns, name = _doc_key(d)
            t = P.BY_KIND.get(kind)
            if t is None:
                raise KubectlError(f'error: resource mapping not found for kind "{kind}"')
            items.append((t, s.cluster.store.get(kind, dns, name), name))
    else:
        if not p.args:
            raise KubectlError(MISSING_RESOURCE)
        tg = targets(p.args, p.command)
        if all(n is None for _, n in tg) and not p["selector"] and not p["all"]:
            raise KubectlError(NO_NAME)
        if p["selector"] or p["all"]:
            items = [(t, o, o.name) for t, o in collect(s, p, p.args, need_name=False)]
        else:
            items = [(t, c.store.get(t.kind, ns, n), n) for t, n in tg]
    errors, out = [], []
    if grace == 0 and p["force"]:
        res.stderr += ("Warning: Immediate deletion does not wait for confirmation that the running resource "
                       "has been terminated. The resource may continue to run on the cluster indefinitely.\n")
        res.warned_first = True  # kubectl prints it before anything is deleted
    gone = []
    for t, obj, name in items:
        if obj is None:
            if not p["ignore-not-found"]:
                errors.append(f'Error from server (NotFound): {t.qualified} "{name}" not found')
            continue
        if t.kind == "StatefulSet":
            c.delete(name, cascade=cascade, namespace=ns, wait=False)  # the session waits below (--wait)
        elif t.kind == "Pod":
            _delete_pod(c, obj, grace)
        elif t.kind == "PersistentVolumeClaim":
            c.delete_pvc(name, namespace=ns, wait=False)  # the session waits below (--wait)
        else:
            c.store.remove(t.kind, ns, name)
            c.trace.add_event("Normal", "User", f"{t.kind.lower()}/{name}", f"user: delete {t.resource}")
        s.changed(p)
        gone.append((t, obj))
        word = "force deleted" if grace == 0 else "deleted"
        out.append(f"{t.name_prefix}/{name}\n" if p["output"] == "name"
                   else f'{t.name_prefix} "{name}" {word} from {ns} namespace\n')
    if not items and not errors:
        res.stderr += f"No resources found in {ns} namespace.\n" if ns else "No resources found\n"
    res.stdout += "".join(out)
    if p["wait"]:
        for t, obj in gone:
            s.wait_gone(t.kind, ns, obj.name, obj.uid)
    if errors:
        raise KubectlError("\n".join(errors))
    return ""


def _delete_pod(c, pod, grace: int) -> None:
    """A pod delete with kubectl's ``--grace-period`` (-1: the pod's own; 0 with ``--force``: at once)."""
    from dataclasses import replace
    if grace >= 0 and pod.deletion_timestamp is None:
        c.store.update("Pod", replace(pod, grace_period_seconds=float(grace)))
    c.delete_pod(pod.name, namespace=pod.namespace, wait=False)  # the session waits (--wait)


# ====================================================================== scale / set image / patch / edit

def scale(s, p: Parsed, stdin, res) -> str:
    if "replicas" not in p.set:  # cobra's check of a flag marked required, before the command runs
        raise KubectlError('error: required flag(s) "replicas" not set')
    if p["replicas"] < 0:
        raise KubectlError("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
    if not p.args:
        raise KubectlError(MISSING_RESOURCE)
    items = one_statefulset(s, p, p.args)
    cur = p["current-replicas"]
    for _, o in items:
        if cur >= 0 and o.spec.replicas != cur:
            raise KubectlError(f"error: Expected replicas to be {cur}, was {o.spec.replicas}")
    out = []
    for t, o in items:
        call(lambda: s.cluster.scale(o.name, p["replicas"], namespace=o.namespace), t, o.name)
        s.changed(p)
        out.append(f"{t.name_prefix}/{o.name} scaled\n")
    return "".join(out)


MISSING_RESOURCE_OR_FILE = """error: You must provide one or more resources by argument or filename.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'
   '<resource> <name>'
   '<resource>'"""
"""cli-runtime's resource builder, given no resource (``missingResourceError``)."""


def set_image(s, p: Parsed, stdin, res) -> str:
    pairs = [a for a in p.args if "=" in a]
    rest = [a for a in p.args if "=" not in a]
    if not rest:  # Complete runs the resource builder first: its error comes before Validate's
        raise KubectlError(MISSING_RESOURCE_OR_FILE)
    errors = ["at least one image update is required"] if not pairs else []
    if errors:  # SetImageOptions.Validate aggregates its errors
        raise KubectlError("error: " + errors[0] if len(errors) == 1 else "\n".join(errors))  # MultipleErrors
    items = one_statefulset(s, p, rest)
    updates = []
    for pair in pairs:
        name, _, image = pair.partition("=")
        if not image:
            raise KubectlError(f"error: invalid image update: {pair}")
        updates.append((name, image))
    for t, o in items:
        names = [c.get("name") for key in ("initContainers", "containers")
                 for c in o.spec.template.get("spec", {}).get(key) or ()]
        for name, _ in updates:
            if name != "*" and name not in names:
                raise KubectlError(f'error: unable to find container named "{name}"')
    out = []
    for t, o in items:
        containers = [c for key in ("initContainers", "containers")
                      for c in o.spec.template.get("spec", {}).get(key) or ()]
        if all(c.get("image") == image for name, image in updates for c in containers
               if name in ("*", c.get("name"))):
            continue  # an empty patch: kubectl sends nothing and prints nothing
        for name, image in updates:
            call(lambda: s.cluster.set_image(o.name, image, None if name == "*" else name,
                                              namespace=o.namespace), t, o.name)
        s.changed(p)
        out.append(f"{t.name_prefix}/{o.name} image updated\n")
    return "".join(out)


def _patch_sts(s, p: Parsed, t, o, new: dict) -> str:
    """Store *new* (the whole manifest) through ``Cluster.patch`` as the merge patch from the current one."""
    current = o.to_manifest()
    current.pop("status", None)
    diff = merge_diff(current, new)
    if not diff:
        return f"{t.name_prefix}/{o.name} patched (no change)\n"
    if t.kind == "Pod":
        call(lambda: s.cluster.patch_pod(o.name, diff, namespace=o.namespace), t, o.name)
    else:
        call(lambda: s.cluster.patch(o.name, diff, namespace=o.namespace), t, o.name)
    s.changed(p)
    return f"{t.name_prefix}/{o.name} patched\n"


def patch(s, p: Parsed, stdin, res) -> str:
    text = p["patch"]
    if p["patch-file"]:
        if text:
            raise KubectlError("error: cannot specify --patch and --patch-file together")
        try:
            text = read_text(p["patch-file"], FILE)
        except FileReadError as e:
            problem = "no such file or directory" if e.problem == "no such file" else e.problem
            raise KubectlError(f"error: unable to read patch file: open {p['patch-file']}: {problem}") from None
    if not text:
        raise KubectlError("error: must specify --patch or --patch-file containing the contents of the patch")
    kind = p["type"]
    if kind not in ("json", "merge", "strategic"):
        raise KubectlError(f'error: --type must be one of [json merge strategic], not "{kind}"')
    doc = load_patch(text)
    if not p.args:
        raise KubectlError(MISSING_RESOURCE)
    items = collect(s, p, p.args, need_name=True)
    out = []
    for t, o in items:
        if t.kind not in ("StatefulSet", "Pod"):
            raise KubectlError(f"error: stsedu patches statefulsets and pods only, not {t.resource}")
        current = o.to_manifest()
        current.pop("status", None)
        if kind == "json":
            import jsonpatch
            if not isinstance(doc, list):
                raise KubectlError("Error from server (BadRequest): json: cannot unmarshal object into Go "
                                   "value of type jsonpatch.Patch")
            try:
                new = jsonpatch.JsonPatch(doc).apply(copy.deepcopy(current))
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, KeyError, TypeError,
                    IndexError, ValueError):
                raise KubectlError("The request is invalid: the server rejected our request due to an error "
                                   "in our request") from None
        else:
            if not isinstance(doc, dict):
                raise KubectlError("Error from server (BadRequest): json: cannot unmarshal array into Go "
                                   "value of type map[string]interface {}")
            if kind == "merge":
                from ...api.merge_patch import merge_patch
                new = merge_patch(current, doc)
            else:
                new = strategic_merge(current, doc)
        if not isinstance(new, dict):
            raise KubectlError("The request is invalid: the server rejected our request due to an error in our request")
        out.append(_patch_sts(s, p, t, o, new))
    return "".join(out)


def edit(s, p: Parsed, stdin, res) -> str:
    raise KubectlError("error: kubectl edit opens an editor and waits for you to save, which a notebook cell or "
                       "this terminal command cannot do; make the same change with kubectl patch "
                       "(e.g. kubectl patch sts web -p '{\"spec\":{\"replicas\":3}}') or kubectl apply -f FILE")


# ====================================================================== label / annotate

def _meta_edit(s, p: Parsed, res, field: str, word: str) -> str:
    changes = {}
    resource_args = []
    for a in p.args:
        if "=" in a:
            k, _, v = a.partition("=")
            changes[k] = v
        elif a.endswith("-") and not a.startswith("-") and len(resource_args) >= 1 and (
                len(resource_args) >= 2 or "/" in resource_args[0]):
            changes[a[:-1]] = None
        else:
            resource_args.append(a)
    if not resource_args:  # LabelOptions.Validate / annotate's Complete
        raise KubectlError(ONE_OR_MORE)
    if not changes and not p["list"]:
        raise KubectlError(f"error: at least one {'label' if field == 'labels' else 'annotation'} update is required")
    items = collect(s, p, resource_args, need_name=True)
    for t, o in items:
        if t.kind not in ("StatefulSet", "Pod"):
            raise KubectlError(f"error: stsedu changes the {field} of statefulsets and pods only")
        current = dict(getattr(o, field) or {})
        if not p["overwrite"]:
            for k, v in changes.items():
                if v is not None and k in current and current[k] != v:
                    if field == "labels":
                        raise KubectlError(f"error: '{k}' already has a value ({current[k]}), and --overwrite is false")
                    raise KubectlError(f"error: --overwrite is false but found the following declared "
                                       f"annotation(s): '{k}' already has a value ({current[k]})")
    out = []
    for t, o in items:
        current = dict(getattr(o, field) or {})
        new = dict(current)
        for k, v in changes.items():
            if v is None:
                new.pop(k, None)
            else:
                new[k] = v
        added = any(v is not None and current.get(k) != v for k, v in changes.items())
        removed = any(v is None and k in current for k, v in changes.items())
        if field == "labels":  # label's updateDataChangeMsg; annotate always prints "annotated"
            word = "modified" if added and removed else "labeled" if added else "unlabeled" if removed \
                else "not labeled"
        if new != current:
            diff = {"metadata": {field: {k: new.get(k) for k in set(current) | set(new)
                                         if current.get(k) != new.get(k)}}}
            if t.kind == "Pod":
                call(lambda: s.cluster.patch_pod(o.name, diff, namespace=o.namespace), t, o.name)
            else:
                call(lambda: s.cluster.patch(o.name, diff, namespace=o.namespace), t, o.name)
            s.changed(p)
        out.append(f"{t.name_prefix}/{o.name} {word}\n")
    return "".join(out)


def label(s, p: Parsed, stdin, res) -> str:
    return _meta_edit(s, p, res, "labels", "labeled")


def annotate(s, p: Parsed, stdin, res) -> str:
    return _meta_edit(s, p, res, "annotations", "annotated")


# ====================================================================== rollout undo / restart / pause

def rollout_undo(s, p: Parsed, stdin, res) -> str:
    if not p.args:
        raise KubectlError(NO_RESOURCE)
    items = one_statefulset(s, p, p.args)
    out = []
    for t, o in items:
        text = call(lambda: s.cluster.rollout_undo(o.name, p["to-revision"] or None, namespace=o.namespace),
                     t, o.name)
        if "skipped" not in text:
            s.changed(p)
        out.append(text + "\n")
    return "".join(out)


def rollout_restart(s, p: Parsed, stdin, res) -> str:
    if not p.args:
        raise KubectlError(NO_RESOURCE)
    items = one_statefulset(s, p, p.args)
    out = []
    for t, o in items:
        stamp = P.timestamp(s.cluster.now)
        diff = {"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": stamp}}}}}
        call(lambda: s.cluster.patch(o.name, diff, namespace=o.namespace), t, o.name)
        s.changed(p)
        out.append(f"{t.name_prefix}/{o.name} restarted\n")
    return "".join(out)


def rollout_pause(s, p: Parsed, stdin, res) -> str:
    """kubectl's ``ObjectPauserFn``/``ObjectResumerFn`` support Deployments only: a StatefulSet gets
    ``error: statefulsets.apps "web" pausing is not supported`` and nothing changes."""
    if not p.args:
        raise KubectlError(NO_RESOURCE)
    items = collect(s, p, p.args, need_name=True)
    word = "pausing" if p.command.endswith("pause") else "resuming"
    raise KubectlError("\n".join(f'error: {t.qualified} "{o.name}" {word} is not supported' for t, o in items))


__all__ = ["apply", "create", "delete", "scale", "set_image", "patch", "edit", "label", "annotate",
           "rollout_undo", "rollout_restart", "rollout_pause"]
