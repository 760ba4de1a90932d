"""What kubectl reads (``-f`` files, standard input, the tutorial's URLs, ``-p`` patches), how a
strategic merge patch merges lists, and how it prints the API server's refusals.

* :func:`read_files`: ``-f FILE``, ``-f DIR`` (its ``.yaml``, ``.yml`` and ``.json`` files, in name
  order), ``-f -`` (standard input, a ``%%kubectl`` cell's body) and the tutorial's addresses
  ``https://k8s.io/examples/application/web/web.yaml`` and ``.../web-parallel.yaml``, served from
  copies shipped in the package (no network); errors as cli-runtime's builder words them
  (``the path "x" does not exist``);
* :func:`load_patch`: ``-p`` text read as kubectl reads it (YAML, so JSON too);
* :func:`strategic_merge`: a strategic merge patch on a StatefulSet or Pod, lists merged by the
  patch merge keys of the core types (containers by name, ports by containerPort, ...);
* :func:`merge_diff`: the JSON merge patch from one manifest to another (how a computed change is
  handed to :meth:`~stsedu.Cluster.patch`, which validates and records it);
* :func:`invalid_text`: a :class:`~stsedu.ValidationError` as kubectl prints an Invalid status
  (``The StatefulSet "web" is invalid: spec.replicas: Invalid value: -1: ...``).
"""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path

from ...api.errors import ValidationError
from ...api.field_errors import go_quote
from ...files import FileReadError, Limits, read_text
from .flags import KubectlError

MAX_FILE = 2_000_000
MAX_FILES = 100
FILE = Limits("file kubectl reads", MAX_FILE)
"""What ``-f FILE`` and ``--patch-file`` may be: a regular file (not a pipe, a device or a folder)
of at most :data:`MAX_FILE` bytes, its size checked before it is read."""

TUTORIAL_URLS = {
    "https://k8s.io/examples/application/web/web.yaml": "web.yaml",
    "https://k8s.io/examples/application/web/web-parallel.yaml": "web-parallel.yaml",
    "https://raw.githubusercontent.com/kubernetes/website/main/content/en/examples/application/web/web.yaml":
        "web.yaml",
    "https://raw.githubusercontent.com/kubernetes/website/main/content/en/examples/application/web/"
    "web-parallel.yaml": "web-parallel.yaml",
}
"""The tutorial's manifests by address; ``-f`` reads the copies in ``stsedu/data/tutorial/``."""


def tutorial_file(name: str) -> str:
    """The text of a shipped tutorial manifest (``web.yaml``, ``web-parallel.yaml``)."""
    return resources.files("stsedu").joinpath("data", "tutorial", name).read_text()


def _documents(text: str, src: str) -> list[tuple[str, dict]]:
    from ...api.load import load_documents
    try:
        docs = load_documents(text)
    except ValidationError as e:
        msg = e.errors[0][1] if e.errors else str(e)
        raise KubectlError(f"error: error parsing {src}: {msg}") from None
    return [(src, d) for d in docs]


def read_files(names: list[str], stdin: str | None, recursive: bool = False,
               seen: dict[str, str] | None = None) -> list[tuple[str, dict]]:
    """``(source, document)`` for every ``-f`` given, in order.

    *seen* maps a file's path to its text: a path in it is read from there instead of the disk
    (the terminal's replay reads a file as it was when the command ran), and every file read
    from the disk is added to it."""
    out: list[tuple[str, dict]] = []
    seen = {} if seen is None else seen
    for name in names:
        if name == "-":
            if stdin is None:
                raise KubectlError("error: no objects passed to apply: standard input is empty "
                                   "(in a notebook: %%kubectl apply -f - with the manifest as the cell's body)")
            out += _documents(stdin, "STDIN")
            continue
        if name.startswith(("http://", "https://")):
            shipped = TUTORIAL_URLS.get(name)
            if shipped is None:
                raise KubectlError(f'error: unable to read URL "{name}": the embedded cluster has no network; '
                                   f"it serves the tutorial's files only: " + ", ".join(sorted(TUTORIAL_URLS)[:2]))
            out += _documents(tutorial_file(shipped), name)
            continue
        if name in seen:
            out += _documents(seen[name], name)
            continue
        p = Path(name)
        if not p.exists():
            raise KubectlError(f'error: the path "{name}" does not exist')
        if p.is_dir():
            pattern = "**/*" if recursive else "*"
            files = sorted(f for f in p.glob(pattern) if f.suffix in (".yaml", ".yml", ".json") and f.is_file())
            if len(files) > MAX_FILES:
                raise KubectlError(f"error: {name} holds more than {MAX_FILES} manifest files")
        else:
            files = [p]
        for f in files:
            try:
                text = read_text(f, FILE)
            except FileReadError as e:
                raise KubectlError(f"error: error reading {f}: {e}") from None
            if not p.is_dir():
                seen[name] = text
            out += _documents(text, str(f))
    return out


def load_patch(text: str):
    """A ``-p`` patch as kubectl reads it (``yaml.ToJSON``): YAML or JSON; kubectl's error if neither."""
    from ...api.load import parse_yaml, to_json_data
    if len(text) > MAX_FILE:
        raise KubectlError(f"error: the patch is longer than {MAX_FILE} characters")
    if text.lstrip().startswith("{"):  # yaml.ToJSON passes what looks like JSON on as it is
        import json
        try:
            json.loads(text)
        except ValueError:  # ... and the API server refuses it (handlers/patch.go)
            raise KubectlError("Error from server (BadRequest): invalid JSON patch") from None
    try:
        docs = parse_yaml(text)
        data = to_json_data(docs[0] if docs else None)
    except ValidationError as e:
        msg = e.errors[0][1] if e.errors else str(e)
        msg = msg.removeprefix("error converting YAML to JSON: ")
        raise KubectlError(f'error: unable to parse "{text}": {msg}') from None
    if data is None:
        raise KubectlError(f'error: unable to parse "{text}": the patch is empty')
    return data


# ===================================================================== strategic merge

MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name", "ports": "containerPort",
    "env": "name", "volumeMounts": "mountPath", "volumes": "name", "imagePullSecrets": "name",
    "volumeDevices": "devicePath", "ownerReferences": "uid", "conditions": "type", "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey", "resourceClaims": "name",
}
"""Lists the core and apps types merge by key (``patchStrategy:"merge"`` with ``patchMergeKey``);
any other list is replaced whole, as in a JSON merge patch."""


def strategic_merge(target, patch):
    """A strategic merge patch (``kubectl patch --type strategic``, kubectl's default) of *patch* onto
    *target*: maps merge, ``null`` deletes, lists in :data:`MERGE_KEYS` merge item by item on their key
    (an item with ``$patch: delete`` is removed), ``$patch: replace`` replaces a map, and the
    ``$setElementOrder/`` and ``$retainKeys`` directives are read and dropped."""
    return _smp(target, patch, None)


def _smp(target, patch, key_name):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if k.startswith("$setElementOrder/") or k in ("$retainKeys", "$patch"):
            continue
        if v is None:
            out.pop(k, None)
        elif isinstance(v, list) and k in MERGE_KEYS and isinstance(out.get(k), list):
            out[k] = _merge_list(out[k], v, MERGE_KEYS[k])
        else:
            merged = _smp(out.get(k), v, k)
            if merged is None:
                out.pop(k, None)
            else:
                out[k] = merged
    return out


def _merge_list(current: list, patch: list, key: str) -> list:
    out = copy.deepcopy(current)
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            return copy.deepcopy(patch)
        at = next((i for i, x in enumerate(out) if isinstance(x, dict) and x.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if at is not None:
                out.pop(at)
            continue
        if at is None:
            out.append(_smp({}, item, None))
        else:
            out[at] = _smp(out[at], item, None)
    return out


def merge_diff(old, new) -> dict:
    """The JSON merge patch (RFC 7386) that turns *old* into *new* (``{}`` when they are equal)."""
    out = {}
    for k in set(old) | set(new):
        if k not in new:
            out[k] = None
        elif k not in old:
            out[k] = copy.deepcopy(new[k])
        elif old[k] != new[k]:
            if isinstance(old[k], dict) and isinstance(new[k], dict):
                out[k] = merge_diff(old[k], new[k])
            else:
                out[k] = copy.deepcopy(new[k])
    return out


# ===================================================================== errors

def invalid_text(e: ValidationError) -> str:
    """kubectl's ``checkErr`` for an Invalid status: ``The Kind "name" is invalid: path: message``, or
    one ``* path: message`` line per cause when there are several (``MultilineError``)."""
    blocks = []
    for err in [e] + list(getattr(e, "others", []) or []):
        if err.kind == "manifest" or not err.name:
            msg = "; ".join(f"{p}: {m}" if p else m for p, m in err.errors)
            blocks.append(f"error: {msg}")
            continue
        kind = err.kind.split(".")[0]
        causes = list(dict.fromkeys(f"{p}: {m}" if p else m for p, m in err.errors))
        head = f"The {kind} {go_quote(err.name)} is invalid: "  # kubectl prints the name with %q
        blocks.append(head + causes[0] if len(causes) == 1 else head + "\n" + "".join(f"* {c}\n" for c in causes))
    return "\n".join(b.rstrip("\n") for b in blocks)
