"""``-o jsonpath=...`` and ``-o go-template=...`` / ``--template``, as kubectl prints them.

**jsonpath.**  kubectl's JSONPath (client-go ``util/jsonpath``) is a *template*: text outside
braces is printed as it is, and each ``{...}`` is an action: a path (``{.items[*].metadata.name}``,
``{.spec.containers[0].image}``, ``{..image}``, filters such as ``{.items[?(@.status.phase=="Running")]}``),
a quoted literal (``{"\\n"}``), or ``{range PATH}...{end}``.  The paths themselves are
evaluated by `jsonpath-ng <https://pypi.org/project/jsonpath-ng/>`_ (its ``ext`` parser, which
knows filters); this module only reads the template around them, as kubectl's parser does.
Several results of one action are printed separated by a space; strings bare, numbers and
booleans as JSON, maps and lists as compact JSON.  A missing key prints nothing, as with
kubectl's default ``--allow-missing-template-keys=true``.

**go-template.**  No well-kept Python library runs Go's ``text/template``, so the subset the
tutorial and walkthroughs use is read here: ``{{.field.path}}``, variables (``$``, ``$c.image``),
``{{range PIPE}}``, ``{{range $i, $c := PIPE}}``, ``{{if PIPE}}``/``{{else}}``/``{{end}}``, string
literals (``{{"\\n"}}``), and ``{{-``/``-}}`` trimming.  Values print as Go's ``%v`` does
(``map[k:v]``, ``[a b]``, ``<no value>`` for a missing key).  Anything else is refused with
``error: error parsing template ...`` rather than guessed.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from .flags import KubectlError

__all__ = ["jsonpath", "go_template"]

MAX_TEMPLATE = 10_000
MAX_OUTPUT = 5_000_000
MAX_WORK = 200_000
"""Steps one template may take (each piece printed, each range item, each value a path finds):
nested ``{{range $.items}}`` or ``{range $..*}`` multiply, so the work is bounded, not just the output."""


def _json_compact(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _go_unquote(lit: str) -> str:
    """A Go double-quoted or back-quoted literal's value."""
    if lit.startswith("`"):
        return lit[1:-1]
    try:
        return json.loads(lit)
    except ValueError:
        return bytes(lit[1:-1], "utf-8").decode("unicode_escape")


# ===================================================================== jsonpath

def _jp_tokens(template: str) -> list[tuple[str, str]]:
    """``("text", s)`` and ``("action", inside)`` pieces; braces inside quotes and brackets do not close."""
    out, i, n = [], 0, len(template)
    while i < n:
        j = template.find("{", i)
        if j < 0:
            out.append(("text", template[i:]))
            break
        if j > i:
            out.append(("text", template[i:j]))
        depth, k, quote = 0, j + 1, ""
        while k < n:
            ch = template[k]
            if quote:
                if ch == "\\":
                    k += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
            elif ch == "}" and depth <= 0:
                break
            k += 1
        if k >= n:
            raise ValueError("unclosed action")
        out.append(("action", template[j + 1:k].strip()))
        i = k + 1
    return out


def _jp_find(path: str, data: Any, root: Any) -> list[Any]:
    p = path.strip()
    if p in ("", "$", "@"):
        return [data if p == "@" or not p else root]
    start = root if p.startswith("$") else data
    if p.startswith("$") or p.startswith("@"):
        p = p[1:]
    if not p.startswith((".", "[")):
        p = "." + p
    # kubectl escapes a dot inside a key with a backslash (labels.apps\.kubernetes\.io/pod-index);
    # jsonpath-ng reads such a key quoted
    p = re.sub(r"\.((?:[^.\[\]\\'\"]|\\.)+)",
               lambda m: "." + (f"'{m.group(1).replace(chr(92) + '.', '.')}'"
                                if "\\" in m.group(1) or "/" in m.group(1) else m.group(1)), p)
    expr = _jp_expr("$" + p)
    if expr is None:
        raise ValueError(f"unrecognized identifier {path.strip()}")
    return [m.value for m in expr.find(start)]


@functools.lru_cache(maxsize=256)
def _jp_expr(path: str):
    """jsonpath-ng's parse of *path* (None if it cannot read it), once per path: a range runs its
    actions once per item."""
    from jsonpath_ng.ext import parse
    try:
        return parse(path)
    except Exception:  # jsonpath-ng raises its own errors and plain Exception too
        return None


def _jp_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (dict, list)):
        return _json_compact(v)
    if v is None:
        return "null"
    return json.dumps(v)


def _parsed(template: str, parse, error: str):
    """*template* parsed by *parse*, after kubectl's size check; a parse error raised as *error* followed by its message."""
    if len(template) > MAX_TEMPLATE:
        raise KubectlError(f"error: the template is longer than {MAX_TEMPLATE} characters")
    try:
        return parse(template)
    except ValueError as e:
        raise KubectlError(error + str(e)) from None


class _Output:
    """A template's output, built piece by piece, refused once longer than :data:`MAX_OUTPUT`, and the
    work done to build it, refused past :data:`MAX_WORK` steps."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.work = 0

    def step(self, n: int = 1) -> None:
        self.work += n
        if self.work > MAX_WORK:
            raise KubectlError(f"error: the template takes more than {MAX_WORK} steps (nested ranges multiply); "
                               "the kit stops there")

    def emit(self, s: str) -> None:
        self.size += len(s)
        if self.size > MAX_OUTPUT:
            raise KubectlError(f"error: the template's output is longer than {MAX_OUTPUT} characters")
        self.parts.append(s)

    def text(self) -> str:
        return "".join(self.parts)


def jsonpath(template: str, data: Any) -> str:
    """*template* (kubectl's ``-o jsonpath=``) applied to *data* (an object, or a ``List``)."""
    pieces = _parsed(template, _jp_tokens, f"error: error parsing jsonpath {template}, ")
    # nest {range}...{end}
    stack: list[list] = [[]]
    for kind, s in pieces:
        if kind == "action" and s.startswith("range "):
            node = ["range", s[6:].strip(), []]
            stack[-1].append(node)
            stack.append(node[2])
        elif kind == "action" and s == "end":
            if len(stack) == 1:
                raise KubectlError(f"error: error parsing jsonpath {template}, not in range")
            stack.pop()
        else:
            stack[-1].append([kind, s])
    if len(stack) != 1:
        raise KubectlError(f"error: error parsing jsonpath {template}, unclosed range")
    out = _Output()
    emit = out.emit

    def find(path, cur) -> list:
        found = _jp_find(path, cur, data)
        out.step(1 + len(found))
        return found

    def walk(nodes, cur) -> None:
        for node in nodes:
            out.step()
            if node[0] == "text":
                emit(node[1])
            elif node[0] == "range":
                found = find(node[1], cur)
                if len(found) == 1 and isinstance(found[0], list) and not node[1].rstrip().endswith("]"):
                    found = found[0]
                for item in found:
                    walk(node[2], item)
            else:
                s = node[1]
                if s[:1] in "\"'" and s[-1:] == s[:1] and len(s) >= 2:
                    emit(_go_unquote('"' + s[1:-1] + '"') if s[0] == "'" else _go_unquote(s))
                    continue
                emit(" ".join(_jp_text(v) for v in find(s, cur)))

    try:
        walk(stack[0], data)
    except ValueError as e:
        raise KubectlError(f"error: error parsing jsonpath {template}, {e}") from None
    return out.text()


# ===================================================================== go-template

_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)
_VAR = r"\$[A-Za-z0-9_]*"
_RANGE = re.compile(rf"range\s+(?:({_VAR})\s*(?:,\s*({_VAR}))?\s*:=\s*)?(.+)$", re.S)
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\S+')


def _go_text(v: Any) -> str:
    """Go's ``%v`` of a JSON value (as kubectl's unstructured objects hold it)."""
    if v is _MISSING or v is None:
        return "<no value>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_go_text(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_go_text(x) for x in v) + "]"
    return str(v)


_MISSING = object()


def _go_parse(template: str):
    """The template as a tree: ``("text", s)``, ``("value", pipe)``, ``("range", k, v, pipe, body, else)``,
    ``("if", pipe, body, else)``."""
    pieces, pos = [], 0
    for m in _ACTION.finditer(template):
        text = template[pos:m.start()]
        if m.group(1):
            text = text.rstrip()
        pieces.append(("text", text))
        pieces.append(("action", m.group(2).strip(), bool(m.group(3))))
        pos = m.end()
    pieces.append(("text", template[pos:]))
    # apply right-trim markers
    for i, p in enumerate(pieces):
        if p[0] == "action" and p[2] and i + 1 < len(pieces):
            pieces[i + 1] = ("text", pieces[i + 1][1].lstrip())
    if "{{" in "".join(p[1] for p in pieces if p[0] == "text"):
        raise ValueError("unclosed action")
    root: dict = {"kind": "root", "body": [], "else": None}
    stack = [root]
    for p in pieces:
        if p[0] == "text":
            if p[1]:
                (stack[-1]["else"] if stack[-1]["else"] is not None else stack[-1]["body"]).append(("text", p[1]))
            continue
        a = p[1]
        if a.startswith("/*"):
            continue
        top = stack[-1]
        if a == "end":
            if len(stack) == 1:
                raise ValueError("unexpected {{end}}")
            stack.pop()
            node = (top["kind"], *top["head"], top["body"], top["else"] or [])
            parent = stack[-1]
            (parent["else"] if parent["else"] is not None else parent["body"]).append(node)
        elif a == "else":
            if len(stack) == 1 or top["else"] is not None:
                raise ValueError("unexpected {{else}}")
            top["else"] = []
        elif a.startswith("range "):
            m = _RANGE.match(a)
            k, v = (m.group(1), m.group(2)) if m.group(2) else (None, m.group(1))
            stack.append({"kind": "range", "head": (k, v, m.group(3).strip()), "body": [], "else": None})
        elif a.startswith("if "):
            stack.append({"kind": "if", "head": (a[3:].strip(),), "body": [], "else": None})
        else:
            (top["else"] if top["else"] is not None else top["body"]).append(("value", a))
    if len(stack) != 1:
        raise ValueError("unexpected EOF")
    return root["body"]


def _go_eval(pipe: str, dot: Any, env: dict) -> Any:
    words = _TOKEN.findall(pipe)
    if len(words) != 1:
        raise ValueError(f'function "{words[0]}" not defined' if words else "missing value for command")
    w = words[0]
    if w[0] in "\"`":
        return _go_unquote(w)
    if re.fullmatch(r"-?\d+", w):
        return int(w)
    if w in ("true", "false"):
        return w == "true"
    if w.startswith("$"):
        name, _, rest = w.partition(".")
        if name not in env:
            raise ValueError(f'undefined variable "{name}"')
        cur, path = env[name], rest
    elif w.startswith("."):
        cur, path = dot, w[1:]
    else:
        raise ValueError(f'function "{w}" not defined')
    for key in (path.split(".") if path else []):
        if isinstance(cur, dict):
            cur = cur.get(key, _MISSING)
        else:
            return _MISSING
    return cur


def _truthy(v: Any) -> bool:
    return v not in (_MISSING, None, False, 0, "") and not (isinstance(v, (list, dict)) and not v)


def go_template(template: str, data: Any) -> str:
    """*template* (kubectl's ``--template`` / ``-o go-template=``) applied to *data*."""
    tree = _parsed(template, _go_parse, f"error: error parsing template {template}, template: output:1: ")
    out = _Output()
    emit = out.emit

    def walk(nodes, dot, env) -> None:
        for n in nodes:
            out.step()
            if n[0] == "text":
                emit(n[1])
            elif n[0] == "value":
                emit(_go_text(_go_eval(n[1], dot, env)))
            elif n[0] == "if":
                _, pipe, body, other = n
                walk(body if _truthy(_go_eval(pipe, dot, env)) else other, dot, env)
            else:
                _, k, v, pipe, body, other = n
                seq = _go_eval(pipe, dot, env)
                items = (list(enumerate(seq)) if isinstance(seq, list)
                         else sorted(seq.items()) if isinstance(seq, dict) else [])
                if not items:
                    walk(other, dot, env)
                for key, item in items:
                    inner = dict(env)
                    if k:
                        inner[k] = key
                    if v:
                        inner[v] = item
                    walk(body, item, inner)

    try:
        walk(tree, data, {"$": data})
    except ValueError as e:
        raise KubectlError(f"error: error executing template {template!r}: template: output:1: {e}") from None
    return out.text()
