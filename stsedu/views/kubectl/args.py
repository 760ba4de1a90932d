"""kubectl's resource arguments (``TYPE``, ``TYPE NAME...``, ``TYPE/NAME``, ``TYPE1,TYPE2``, ``-l``,
``--all``) and the objects they name, with cli-runtime's builder errors."""

from __future__ import annotations

from ...api.errors import RolloutError, ValidationError
from . import printers as P
from .flags import KubectlError, Parsed
from .objects_io import invalid_text

MISSING_RESOURCE = """error: You must provide one or more resources by argument or filename.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'
   '<resource> <name>'
   '<resource>'"""

NO_NAME = "error: resource(s) were provided, but no name was specified"
NO_RESOURCE = "error: required resource not specified"
"""The rollout subcommands' ``Validate`` with no resource."""
ONE_OR_MORE = "error: one or more resources must be specified as <resource> <name> or <resource>/<name>"
"""``label``, ``annotate`` and ``set image`` with no resource."""


# ====================================================================== arguments

def targets(args: list[str], command: str) -> list[tuple[P.RType, str | None]]:
    """kubectl's resource arguments: ``TYPE``, ``TYPE NAME...``, ``TYPE/NAME...``, ``TYPE1,TYPE2``."""
    if not args:
        return []
    if any("/" in a for a in args):
        if not all("/" in a for a in args):
            raise KubectlError("error: there is no need to specify a resource type as a separate argument when "
                               "passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' "
                               "instead of 'kubectl get resource resource/<resource_name>'")
        out = []
        for a in args:
            if a.count("/") > 1:
                raise KubectlError("error: arguments in resource/name form may not have more than one slash")
            t, _, name = a.partition("/")
            if not t or not name:
                raise KubectlError("error: arguments in resource/name form must have a single resource and name")
            out.append((P.resolve_type(t), name))
        return out
    types = [P.resolve_type(t) for t in args[0].split(",") if t]
    if not types:
        raise KubectlError(f'error: the server doesn\'t have a resource type "{args[0]}"')
    if len(args) == 1:
        return [(t, None) for t in types]
    return [(t, n) for t in types for n in args[1:]]


def _requirements(text: str) -> list[str]:
    """*text* split at the commas outside parentheses, in one pass (a lookahead per comma would
    rescan the rest of a long ``in (...)`` list for each of its commas)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def label_selector(text: str):
    """A ``-l`` selector (``app=nginx``, ``app!=x``, ``app in (a,b)``, ``app``, ``!app``) as a predicate."""
    import re
    reqs = []
    for part in _requirements(text.strip()):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)", part)
        if m:
            vals = {v.strip() for v in m.group(3).split(",")}
            reqs.append((m.group(1), m.group(2), vals))
            continue
        m = re.fullmatch(r"([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)", part)
        if m:
            reqs.append((m.group(1), "!=" if m.group(2) == "!=" else "=", {m.group(3)}))
            continue
        m = re.fullmatch(r"(!?)([\w./-]+)", part)
        if m:
            reqs.append((m.group(2), "!" if m.group(1) else "exists", set()))
            continue
        raise KubectlError(f'error: unable to parse requirement: found \'{part}\', expected: identifier '
                           f'or \'in\', \'notin\', \'=\', \'==\', \'!=\', \'(\'')

    def match(labels) -> bool:
        labels = labels or {}
        for key, op, vals in reqs:
            has = key in labels
            if op == "=" and not (has and labels[key] in vals):
                return False
            if op == "!=" and has and labels[key] in vals:
                return False
            if op == "in" and not (has and labels[key] in vals):
                return False
            if op == "notin" and has and labels[key] in vals:
                return False
            if op == "exists" and not has:
                return False
            if op == "!" and has:
                return False
        return True
    return match


def collect(s, p: Parsed, args: list[str], need_name: bool, allow_all: bool = True):
    """The ``(type, object)`` pairs a command acts on, in order; kubectl's errors when it cannot tell."""
    ns = p["namespace"]
    tg = targets(args, p.command)
    selector = p.values.get("selector") or ""
    every = bool(p.values.get("all"))
    if not tg:
        raise KubectlError(MISSING_RESOURCE)
    named = [t for t in tg if t[1] is not None]
    if named and (selector or every):
        raise KubectlError("error: name cannot be provided when a selector is specified" if selector else
                           "error: setting 'all' parameter but found a non empty selector. ")
    if need_name and not named and not selector and not every:
        raise KubectlError(NO_NAME)
    out = []
    if named:
        for t, n in tg:
            out.append((t, s.get_object(t, ns, n)))
        return out
    match = label_selector(selector) if selector else (lambda labels: True)
    for t, _ in tg:
        out += [(t, o) for o in s.objects(t, ns) if match(o.labels)]
    return out


def one_statefulset(s, p: Parsed, args: list[str]):
    items = collect(s, p, args, need_name=True)
    for t, o in items:
        if t.kind != "StatefulSet":
            raise KubectlError("Error from server (NotFound): the server could not find the requested resource")
    return items


def call(fn, t, name):
    """Run a Cluster call; its refusal as kubectl prints the API server's or kubectl's error."""
    try:
        return fn()
    except RolloutError as e:
        raise KubectlError(f"error: {e}") from None
    except ValidationError as e:
        raise KubectlError(invalid_text(e)) from None
    except KeyError:
        raise t.not_found(name) from None


