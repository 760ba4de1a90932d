"""Field errors as the API server words them (``k8s.io/apimachinery/pkg/util/validation/field``).

Each problem is a ``(field_path, message)`` pair, e.g. ``("spec.replicas", "Invalid value: -1: must be
greater than or equal to 0")``.
"""

from __future__ import annotations

import json
from typing import Any, Iterable


Error = tuple[str, str]
"""One problem: ``(field_path, message)``, e.g. ``("spec.replicas", "Invalid value: -1:
must be greater than or equal to 0")``."""


# ---------------------------------------------------------------------------
# field.Error wording (k8s.io/apimachinery/pkg/util/validation/field)
# ---------------------------------------------------------------------------

class GoText(str):
    """A bad value already rendered the way Go's ``fmt`` prints it (no quoting added)."""


def go_quote(text: str) -> str:
    """Quote *text* as Go's ``strconv.Quote`` (and ``%q``) does."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                        "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _go_json_string(text: str) -> str:
    """A JSON string as Go's ``encoding/json`` writes it: ``<``, ``>``, ``&``, U+2028 and
    U+2029 escaped, control characters other than \\n, \\r, \\t as ``\\u00XX``."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif code < 0x20 or ch in "<>&\u2028\u2029":
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_json(value: Any) -> GoText:
    """*value* (JSON-like: dicts in the order Go would write the fields) as Go's ``json.Marshal``
    writes it, compact.  Since v1.36 ``field.Error`` prints a bad value that is neither a string
    nor a number this way (``Invalid value: {"app":"nginx"}``)."""
    def enc(v: Any) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return json.dumps(v)
        if isinstance(v, str):
            return _go_json_string(v)
        if isinstance(v, dict):
            return "{" + ",".join(f"{_go_json_string(str(k))}:{enc(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ",".join(enc(x) for x in v) + "]"
        return _go_json_string(str(v))
    return GoText(enc(value))


def _render(value: Any) -> str:
    """Render a bad value as ``field.Error.ErrorBody`` does (``%v``, ``%q`` or ``%#v``)."""
    if isinstance(value, GoText):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_quote(json.dumps(value, separators=(",", ":")))


def _body(kind: str, value: Any = None, detail: str = "", *, show_value: bool = True) -> str:
    text = f"{kind}: {_render(value)}" if show_value else kind
    return f"{text}: {detail}" if detail else text


def required(path: str, detail: str = "") -> Error:
    """Mirror of ``field.Required``."""
    return (path, _body("Required value", detail=detail, show_value=False))


def invalid(path: str, value: Any, detail: str = "") -> Error:
    """Mirror of ``field.Invalid``."""
    return (path, _body("Invalid value", value, detail))


def not_supported(path: str, value: Any, supported: Iterable[str]) -> Error:
    """Mirror of ``field.NotSupported``: ``Unsupported value: "X": supported values: ...``."""
    values = ", ".join(go_quote(v) for v in supported)
    return (path, _body("Unsupported value", value, f"supported values: {values}" if values else ""))


def forbidden(path: str, detail: str) -> Error:
    """Mirror of ``field.Forbidden``."""
    return (path, _body("Forbidden", detail=detail, show_value=False))


def duplicate(path: str, value: Any) -> Error:
    """Mirror of ``field.Duplicate``."""
    return (path, _body("Duplicate value", value))


def not_found(path: str, value: Any) -> Error:
    """Mirror of ``field.NotFound``."""
    return (path, _body("Not found", value))


def too_long(path: str, max_bytes: int) -> Error:
    """Mirror of ``field.TooLong``."""
    return (path, _body("Too long", detail=f"must have at most {max_bytes} bytes", show_value=False))


def child_path(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index_path(path: str, i: int) -> str:
    return f"{path}[{i}]"


def dedupe(errors: Iterable[Error]) -> list[Error]:
    """Drop repeated messages, as ``field.ErrorList.ToAggregate`` does."""
    seen: set[Error] = set()
    out = []
    for err in errors:
        if err not in seen:
            seen.add(err)
            out.append(err)
    return out
