"""Loading manifests: YAML or JSON text, a dict or a list of dicts in, plain dicts out
(sigs.k8s.io/yaml ``YAMLToJSON``, kubectl's document splitting, with a size limit)."""

from __future__ import annotations

import base64
import datetime
import json
import math
from typing import Any, Iterable

import yaml

from .errors import ValidationError
from .field_errors import Error, required
from ..files import (MAX_NESTING_DEPTH, BoundedLoader, FileReadError, Limits, FastLoader, load_yaml_all,  # noqa: F401
                     refuse_duplicate_keys)


MAX_MANIFEST_BYTES = 1 << 20
"""Largest manifest :func:`load_documents` accepts: 1 MiB of text (or of JSON for a
dict).  The real API server refuses request bodies over 3 MiB; a teaching cluster has
no use for anything near that, so stsedu stops at 1 MiB."""

API_SERVER_REQUEST_LIMIT_BYTES = 3 << 20
"""The real API server's request-body limit (3 MiB), quoted in the size error."""

MAX_YAML_NODES = 1_000_000
"""Values a loaded document may expand to once YAML aliases are followed; more is
reported as go-yaml does ("document contains excessive aliasing")."""

def depth_error(path: str = "") -> ValidationError:
    """The error for a document nested deeper than :data:`MAX_NESTING_DEPTH`."""
    return ValidationError([(path, f"Invalid value: nesting deeper than {MAX_NESTING_DEPTH}"
                                   " levels of maps and lists: exceeded max depth")], kind="manifest")


def non_finite_error(path: str, value: float) -> ValidationError:
    """The error for a NaN or infinite number (JSON has no such numbers: sigs.k8s.io/yaml
    fails to convert them, ``json: unsupported value: NaN``)."""
    shown = "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")
    return ValidationError([(path, f"Invalid value: {shown}: json: unsupported value: {shown}"
                                   " (numbers must be finite)")], kind="manifest")


# ---------------------------------------------------------------------------
# Loading (sigs.k8s.io/yaml YAMLToJSON, kubectl's document splitting)
# ---------------------------------------------------------------------------

class _KubeRules:
    """How sigs.k8s.io/yaml reads YAML: timestamps stay strings, keys become strings
    (``true``, ``1``), and a key set twice in one map is an error."""

    def construct_mapping(self, node, deep=False):
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)
        refuse_duplicate_keys(self, node, _go_key)
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise yaml.constructor.ConstructorError(
                    None, None, "invalid map key: a list or map cannot be a key",
                    key_node.start_mark)
            mapping[_go_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping


class _KubeLoader(_KubeRules, BoundedLoader):
    """:class:`_KubeRules` on PyYAML's pure-Python parser (its error messages are the
    ones docs/validation.md quotes)."""


_FastKubeLoader = type("_FastKubeLoader", (_KubeRules, FastLoader), {}) if FastLoader is not None else None
"""The same rules on libyaml's parser: a 1 MiB manifest in about a second, not forty."""

_NO_TIMESTAMPS = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
MAX_MANIFEST_NODES = 50_000
"""Values (keys, items, scalars) a manifest's YAML may hold, checked while it is read,
and again once aliases are followed (on the node graph, before anything is expanded):
about two seconds of PyYAML's work.  A StatefulSet manifest holds a few hundred."""

_MANIFEST_LIMITS = Limits("manifest", MAX_MANIFEST_BYTES, MAX_MANIFEST_NODES)

for _cls in (_KubeLoader, _FastKubeLoader):
    if _cls is not None:
        _cls.yaml_implicit_resolvers = _NO_TIMESTAMPS
        _cls.max_nodes, _cls.kind = MAX_MANIFEST_NODES, "manifest"

_REPARSE_BYTES = 64 << 10
"""Bad YAML up to this size is parsed again by PyYAML's pure-Python parser, whose
messages the docs quote; a larger file keeps libyaml's (go-yaml's) wording."""


def _manifest_error(message: str) -> ValidationError:
    return ValidationError([("", message)], kind="manifest")


def size_error(size: int) -> ValidationError:
    return _manifest_error(
        f"manifest is {size} bytes, over stsedu's limit of {MAX_MANIFEST_BYTES} bytes (1 MiB);"
        f" the real API server refuses request bodies over {API_SERVER_REQUEST_LIMIT_BYTES}"
        " bytes (3 MiB)")


def _valid_utf8(text: str) -> str:
    """*text* with lone surrogates (no UTF-8 for them) replaced by U+FFFD, as Go's
    ``encoding/json`` decodes an unpaired ``\\ud800``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


def _go_key(key: Any) -> str:
    if isinstance(key, str):
        return _valid_utf8(key)
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def to_json_value(value: Any, budget: list[int], path: str = "", depth: int = 0) -> Any:
    """Plain JSON data from what YAML built (or a caller passed): string keys, no dates,
    aliases expanded -- within the node *budget*, :data:`MAX_NESTING_DEPTH` levels, and
    finite numbers only."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _manifest_error("error converting YAML to JSON: yaml: document contains"
                              " excessive aliasing")
    if isinstance(value, (dict, list, tuple, set)) and depth >= MAX_NESTING_DEPTH:
        raise depth_error(path)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = _go_key(k)
            out[key] = to_json_value(v, budget, f"{path}.{key}" if path else key, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [to_json_value(v, budget, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, set):
        return {_go_key(k): None for k in value}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, str):
        return _valid_utf8(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise non_finite_error(path, value)
        if value.is_integer() and abs(value) < 2 ** 63:
            return int(value)
    return value


def to_json_data(value: Any, path: str = "", max_nodes: int = MAX_YAML_NODES) -> Any:
    """*value* as plain JSON data (see :func:`to_json_value`), with a fresh node budget.

    Raises ValidationError for excessive aliasing, nesting deeper than
    :data:`MAX_NESTING_DEPTH`, and NaN or infinite numbers (each naming its field).
    """
    return to_json_value(value, [max_nodes], path)


def _yaml_error(exc: yaml.YAMLError) -> ValidationError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    if mark is not None:
        where = f"line {mark.line + 1}, column {mark.column + 1}: "
    else:
        where = ""
    return _manifest_error(f"error converting YAML to JSON: yaml: {where}{problem}")


def parse_yaml(text: str) -> list[Any]:
    try:
        # safe_load_all, within the manifest's limits (values counted before aliases expand)
        return load_yaml_all(text, _MANIFEST_LIMITS, _FastKubeLoader or _KubeLoader, yaml_errors=True)
    except yaml.YAMLError as exc:
        if _FastKubeLoader is not None and len(text) <= _REPARSE_BYTES:
            try:
                list(yaml.load_all(text, Loader=_KubeLoader))
            except yaml.YAMLError as slow:
                exc = slow
        raise _yaml_error(exc) from None
    except FileReadError as exc:
        raise _manifest_error(f"error converting YAML to JSON: yaml: {exc}") from None


def _flatten(docs: Iterable[Any]) -> list[dict]:
    """Mapping documents only; ``kind: List`` documents contribute their items."""
    out: list[dict] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out.extend(_flatten(doc["items"]))
        else:
            out.append(doc)
    return out


def _missing_type_errors(docs: list[dict]) -> list[Error]:
    errs = []
    for n, doc in enumerate(docs, start=1):
        where = f"document {n}" if len(docs) > 1 else "the manifest"
        if not isinstance(doc.get("apiVersion"), str) or not doc.get("apiVersion"):
            errs.append(required("apiVersion", f"Object 'apiVersion' is missing in {where}"))
        if not isinstance(doc.get("kind"), str) or not doc.get("kind"):
            errs.append(required("kind", f"Object 'Kind' is missing in {where}"))
    return errs


def load_documents(source: str | bytes | dict | list) -> list[dict]:
    """Plain manifest dicts from YAML/JSON text (multi-document), a dict or a list of dicts.

    Always returns new objects (the input is never mutated).  Empty and non-mapping
    documents are skipped; ``kind: List`` documents are flattened to their items.
    Documents of kinds other than StatefulSet and Service are returned as they are.

    Raises :class:`~stsedu.api.errors.ValidationError` (kind ``"manifest"``) if the text is
    over :data:`MAX_MANIFEST_BYTES`, is not valid YAML (message
    ``error converting YAML to JSON: yaml: line L, column C: <problem>``, line and column
    1-based and counted from the start of the whole text), or has a document without
    ``apiVersion`` or ``kind``.  Raises :class:`TypeError` for other input types.
    """
    if isinstance(source, bytes):
        if len(source) > MAX_MANIFEST_BYTES:
            raise size_error(len(source))
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _manifest_error(f"error converting YAML to JSON: yaml: invalid UTF-8: {exc}") from None
    if isinstance(source, str):
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > MAX_MANIFEST_BYTES:
            raise size_error(size)
        raw = parse_yaml(source)
    elif isinstance(source, dict):
        raw = [source]
    elif isinstance(source, list):
        bad = [type(d).__name__ for d in source if not isinstance(d, dict)]
        if bad:
            raise TypeError(f"load_documents: a list must hold dicts, not {bad[0]}")
        raw = list(source)
    else:
        raise TypeError(f"load_documents: expected YAML text, a dict or a list of dicts,"
                        f" not {type(source).__name__}")
    budget = [MAX_YAML_NODES]
    docs = _flatten([to_json_value(d, budget) for d in raw])
    if not isinstance(source, str):
        size = len(json.dumps(docs, default=str).encode("utf-8"))
        if size > MAX_MANIFEST_BYTES:
            raise size_error(size)
    errs = _missing_type_errors(docs)
    if errs:
        raise ValidationError(errs, kind="manifest")
    return docs
