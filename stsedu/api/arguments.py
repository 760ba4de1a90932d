"""Checks of the arguments of user calls that are not manifests.

``cluster.scale``, ``advance``, ``run``, ``inject_error``, ``Cluster(...)`` and the
other calls of :class:`~stsedu.cluster.Cluster` take plain Python values.  Each
function here returns the problems with one value as ``(argument, message)`` pairs
worded like the API server's field errors (``Invalid value: -1: must be greater
than or equal to 0``), so the cluster can raise them all at once, as one
:class:`~stsedu.api.errors.ValidationError`, before it changes anything.

Pure functions; nothing here touches a cluster.  docs/validation.md lists every
rejected input with its message (its "calls" table is checked by
``tests/kit/test_robustness.py``).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import operator
from collections.abc import Mapping
from typing import Any, Iterable

from .errors import ValidationError
from .field_errors import invalid as field_invalid, not_supported as field_not_supported
from .load import MAX_YAML_NODES, MAX_MANIFEST_BYTES, parse_yaml, size_error, to_json_value
from .merge_patch import merge_patch
from .schema import decode_errors
from .validation.meta import validate_annotations, validate_labels

Error = tuple[str, str]

NEGATIVE_MSG = "must be greater than or equal to 0"


def invalid(path: str, value: Any, detail: str) -> Error:
    """``Invalid value: <value>: <detail>`` (``field.Invalid``)."""
    return field_invalid(path, shown(value), detail)


def not_supported(path: str, value: Any, supported: Iterable[str]) -> Error:
    """``Unsupported value: "x": supported values: "a", "b"`` (``field.NotSupported``)."""
    return field_not_supported(path, shown(value), list(supported))


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int, float))


# ------------------------------------------------------------ numbers: the one checker

MAX_INT_DIGITS = 100
"""Longest integer (in decimal digits) any argument may be; Python cannot even print one of more
than 4300 digits, and no count, time or answer of the kit needs more than a few."""
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219280948873626) + 1


def _digits(n: int) -> int:
    """About how many decimal digits *n* has (without converting it to text)."""
    return max(1, int(abs(n).bit_length() * 0.30102999566398120) + 1)


def shown(value: Any) -> Any:
    """*value* as an error message prints it: JSON's plain values as they are, a NumPy or pandas
    scalar as the Python number it holds, an integer too long to print by its size, anything
    else by its ``repr``."""
    if isinstance(value, numbers.Number) and not isinstance(value, (bool, int, float)) and hasattr(value, "item"):
        value = value.item()   # numpy.int64(4) -> 4, numpy.float32(1.5) -> 1.5
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        return f"<an integer of about {_digits(value)} digits>"
    if _plain(value):
        return value
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def as_number(value: Any, whole: bool = False) -> tuple[int | float | None, str]:
    """The one number check of the kit's public calls: ``(number, "")`` or ``(None, why)``.

    Anything ``numbers.Real`` accepts is a number -- Python's int and float, NumPy's and pandas'
    scalars (``numpy.int64``, ``numpy.float32``), ``fractions.Fraction`` -- except a bool (True is
    no count), NaN and the infinities, and an integer of more than :data:`MAX_INT_DIGITS` digits.
    The number comes back as a Python int (an ``numbers.Integral``, or with *whole* a real with no
    fraction: ``3.0``) or float.  *why* completes "must be ...": ``must be a finite number``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None, f"must be {'an integer' if whole else 'a number'}, not {_type_name(value)}"
    if isinstance(value, numbers.Integral):
        try:
            n = operator.index(value)
        except TypeError:
            n = int(value)
        if n.bit_length() > _MAX_INT_BITS:
            return None, f"must have at most {MAX_INT_DIGITS} digits"
        return n, ""
    try:
        f = float(value)
    except (OverflowError, ValueError):
        return None, "must be a finite number"
    if not math.isfinite(f):
        return None, "must be a finite number"
    if whole:
        if not f.is_integer():
            return None, "must be a whole number"
        return int(f), ""
    return f, ""


def real(value: Any) -> float | None:
    """*value* as a Python float once :func:`number` found no problem (None stays None): what the
    clock is given, so that a ``numpy.float32`` never does arithmetic with it."""
    return None if value is None else float(as_number(value)[0])


def whole_number(value: Any, what: str = "a whole number") -> int:
    """*value* as an int (:func:`as_number` with *whole*), or ValueError saying
    ``<what> is asked for, and <value> is not one (must be ...)`` -- for the kit's answer forms."""
    n, why = as_number(value, whole=True)
    if n is None:
        text = shown(value)
        text = text if isinstance(text, str) and text is not value else repr(text)
        raise ValueError(f"{what} is asked for, and {text} is not one ({why})")
    return n


def ascii_int(text: str) -> int | None:
    """The int written by *text* in ASCII digits (``"12"``), else None: ``"²".isdigit()`` is true
    but no int, and ``"٣"`` is an Arabic-Indic three ``int()`` would read."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= MAX_INT_DIGITS else None


def _type_name(value: Any) -> str:
    """The JSON type of *value*, or its Python type when it has none."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Real):   # NumPy's and pandas' scalars too
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def as_list(value: Any, arg: str, what: str = "names") -> list:
    """A Python argument that takes a list (``images``, ``status_fields``, ``submissions``...).

    A bare string (or path) is deliberately one item: ``images="nginx:2"`` means
    ``["nginx:2"]``, never its letters.  A mapping, or anything that is not iterable,
    raises TypeError naming *arg* and the expected type."""
    import os
    if isinstance(value, (str, bytes, os.PathLike)):
        return [value]
    if isinstance(value, Mapping):
        raise TypeError(f"{arg} must be a list of {what}, not a {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"{arg} must be a list of {what}, not {type(value).__name__}") from None


def int_argument(value: Any, arg: str, minimum: int | None = None, allow_none: bool = False,
                 limit: str = "") -> int | None:
    """An int argument of a Python call (not a manifest field): TypeError naming *arg* for
    another type, ValueError below *minimum* or above the budget :mod:`stsedu.limits` names *limit*."""
    if value is None and allow_none:
        return None
    n = as_integer(value)
    if n is None:
        raise TypeError(f"{arg} must be an integer{' or None' if allow_none else ''},"
                        f" not {type(value).__name__} {value!r}"[:200])
    if minimum is not None and n < minimum:
        raise ValueError(f"{arg} must be at least {minimum}, not {n}")
    if limit:
        from .. import limits
        if n > getattr(limits, limit):
            raise ValueError(f"{arg} must be at most {getattr(limits, limit)}, not {shown(n)} "
                             f"(the kit's budget; {limits.hint(limit)})")
    return n


def as_integer(value: Any) -> int | None:
    """*value* as an int if it is an integer (``3``, ``numpy.int64(3)``, ``3.0``), else None.

    bool is not an integer here, as in JSON (:func:`as_number`).
    """
    return as_number(value, whole=True)[0]


def integer(value: Any, path: str, *, minimum: int | None = None) -> list[Error]:
    """An integer, at least *minimum*."""
    number, why = as_number(value, whole=True)
    if number is None:
        return [invalid(path, value, why)]
    if minimum is not None and number < minimum:
        detail = NEGATIVE_MSG if minimum == 0 else f"must be greater than or equal to {minimum}"
        return [invalid(path, number, detail)]
    return []


MAX_SECONDS = 10 ** 9
"""Longest span of simulated time one argument may ask for (about 31.7 years): stage
delays, ``advance``, ``fail_after``...  Finite sums of such spans cannot overflow the clock."""

MAX_TIME = 10 ** 12
"""Latest simulated time the clock may reach (about 31,700 years); ``advance`` and ``until``
past it are refused, naming the argument."""


def max_syncs(value: Any, path: str = "max_syncs") -> list[Error]:
    """A number of syncs for one call: an integer from 1 to ``stsedu.limits.MAX_SYNCS_PER_CALL``."""
    from .. import limits
    errs = integer(value, path, minimum=1)
    if not errs and as_integer(value) > limits.MAX_SYNCS_PER_CALL:
        errs = [invalid(path, value, f"must be at most {limits.MAX_SYNCS_PER_CALL} syncs per call"
                                     f" (the kit's budget; {limits.hint('MAX_SYNCS_PER_CALL')})")]
    return errs


def number(value: Any, path: str, *, minimum: float | None = 0.0, allow_none: bool = False,
           maximum: float | None = MAX_SECONDS) -> list[Error]:
    """A finite real number of seconds (not bool, NaN or infinity), at least *minimum* and
    at most *maximum* (:data:`MAX_SECONDS` unless given)."""
    if value is None and allow_none:
        return []
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return [invalid(path, value, f"must be a number of seconds, not {_type_name(value)}")]
    n, why = as_number(value)
    if n is None:
        shown_value = float(value) if why == "must be a finite number" and not isinstance(value, numbers.Integral) \
            else value
        return [invalid(path, shown_value, why + (" of seconds" if why == "must be a finite number" else ""))]
    if minimum is not None and n < minimum:
        detail = NEGATIVE_MSG if minimum == 0 else f"must be greater than or equal to {minimum}"
        return [invalid(path, value, detail)]
    if maximum is not None and n > maximum:
        return [invalid(path, value, f"must be less than or equal to {maximum:g} (seconds of simulated time)")]
    return []


def string(value: Any, path: str, *, required: bool = True) -> list[Error]:
    """A string (non-empty if *required*)."""
    if not isinstance(value, str):
        return [invalid(path, value, f"must be a string, not {_type_name(value)}")]
    if required and not value:
        return [(path, "Required value")]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no JSON text can carry it
        return [invalid(path, value.encode("utf-8", "backslashreplace").decode(), "must be valid UTF-8 text")]
    return []


def boolean(value: Any, path: str) -> list[Error]:
    """True or False (not "false", not 0)."""
    if not isinstance(value, bool):
        return [invalid(path, value, f"must be true or false, not {_type_name(value)}")]
    return []


def one_of(value: Any, path: str, supported: Iterable[str]) -> list[Error]:
    """One of *supported* (exact, case-sensitive)."""
    supported = list(supported)
    if not isinstance(value, str) or value not in supported:
        return [not_supported(path, value, supported)]
    return []


def call_error(method: str, errors: Iterable[Error]) -> ValidationError:
    """The ValidationError for a bad call: ``Cluster.advance() is invalid: seconds: ...``."""
    return ValidationError(list(errors), kind=f"Cluster.{method}()" if method else "Cluster()")


def check(method: str, errors: list[Error]) -> None:
    """Raise :func:`call_error` if *errors* is not empty."""
    if errors:
        raise call_error(method, errors)


# ------------------------------------------------------------ one checker for every public call

def optional(spec):
    """*spec*, or None."""
    def check_optional(value: Any, path: str) -> list[Error]:
        return [] if value is None else spec(value, path)
    return check_optional


def name(value: Any, path: str) -> list[Error]:
    """An object name or a namespace: a non-empty string."""
    return string(value, path)


def seconds(value: Any, path: str) -> list[Error]:
    """A finite number of seconds >= 0 (not bool, not text, not NaN or infinity)."""
    return number(value, path)


def pod_ref(value: Any, path: str) -> list[Error]:
    """A pod: its name, or a Pod object (anything with a string ``name``)."""
    if isinstance(value, str):
        return string(value, path)
    if isinstance(getattr(value, "name", None), str) and hasattr(value, "phase"):
        return []
    return [invalid(path, value, f"must be a pod name or a Pod, not {_type_name(value)}")]


def checked(owner: str, **specs):
    """Decorator: check the named arguments of a public call before it runs.

    ``@checked("Cluster", name=name, namespace=name)`` raises one
    :class:`~stsedu.api.errors.ValidationError` (``Cluster.pods() is invalid:
    set_name: Invalid value: 5: must be a string, not number``) listing every bad
    argument, before the call changes anything.  Each spec is one of the checkers
    above: ``spec(value, argument) -> [(argument, message), ...]``.
    """
    def decorate(fn):
        signature = inspect.signature(fn)
        kind = f"{owner}.{fn.__name__}()"
        params = list(signature.parameters)
        # (argument, position, default, spec): read straight from args/kwargs, no bind()
        # per call -- Cluster.sync is on the hot path of every run
        where = [(arg, params.index(arg), signature.parameters[arg].default, spec)
                 for arg, spec in specs.items()]

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            errs: list[Error] = []
            n = len(args)
            for arg, pos, default, spec in where:
                if pos < n:
                    value = args[pos]
                elif arg in kwargs:
                    value = kwargs[arg]
                elif default is inspect.Parameter.empty:
                    return fn(*args, **kwargs)  # Python's own error for a missing argument
                else:
                    value = default
                if spec is name and value.__class__ is str and value and value.isascii():
                    continue  # the common case, at once
                errs += spec(value, arg)
            if errs:
                raise ValidationError(errs, kind=kind)
            return fn(*args, **kwargs)
        wrapper.__signature__ = signature
        return wrapper
    return decorate


# ------------------------------------------------------------ Cluster(...) options

KUBELET_MODES = ("auto", "manual")
STAGES = ("start", "ready", "terminate", "jitter")


def cluster_options(*, kubelet: Any, seed: Any, profile: Any, feature_gates: Any, stages: Any,
                    cluster_domain: Any, gc_delay: Any) -> list[Error]:
    """Problems with the arguments of ``Cluster(...)``, in argument order."""
    from .formats import is_dns1123_subdomain
    from .profiles import GATE_ADDED_IN, KNOWN_GATES, PROFILES, Profile, get_profile

    errs = one_of(kubelet, "kubelet", KUBELET_MODES)
    seed_number, why = as_number(seed, whole=True)
    if seed_number is None:
        errs.append(invalid("seed", seed, why if why.startswith("must have") else
                            f"must be an integer (the same seed gives the same run), not {_type_name(seed)}"))
    prof = None
    if isinstance(profile, Profile):
        prof = profile
    elif isinstance(profile, str) and profile in PROFILES:
        prof = get_profile(profile)
    else:
        errs.append(not_supported("profile", profile, sorted(PROFILES)))
    if feature_gates is not None:
        if not isinstance(feature_gates, Mapping):
            errs.append(invalid("feature_gates", feature_gates,
                                f"must be a mapping of gate name to true/false, not {_type_name(feature_gates)}"))
        else:
            known = prof.known_gates if prof is not None else KNOWN_GATES
            for gate, value in feature_gates.items():
                path = f"feature_gates[{gate}]"
                if gate not in known:
                    added = f" ({gate} was added in {GATE_ADDED_IN[gate]})" if gate in GATE_ADDED_IN else ""
                    which = f"for profile {prof.name}" if prof is not None else "in stsedu"
                    errs.append((path, f"unrecognized feature gate: {gate}{added}; known gates {which}: "
                                       f"{', '.join(known) or 'none'}"))
                    continue
                errs += boolean(value, path)
    if stages is not None:
        if not isinstance(stages, Mapping) and all(hasattr(stages, k) for k in STAGES):  # a StageProfile
            values = {k: getattr(stages, k) for k in STAGES}
        elif isinstance(stages, Mapping):
            values = dict(stages)
        else:
            values = {}
            errs.append(invalid("stages", stages,
                                f"must be a StageProfile or a mapping of stage to seconds, not {_type_name(stages)}"))
        for key, value in values.items():
            if key not in STAGES:
                errs.append(not_supported("stages", key, STAGES))
                continue
            errs += number(value, f"stages.{key}")
    if not isinstance(cluster_domain, str):
        errs += string(cluster_domain, "cluster_domain")
    else:
        errs += [invalid("cluster_domain", cluster_domain, m) for m in is_dns1123_subdomain(cluster_domain)]
    errs += number(gc_delay, "gc_delay", allow_none=True)
    return errs


# ------------------------------------------------------------------ edits

def replicas(value: Any, name: str) -> int:
    """*value* as the replicas of a scale request; raise ValidationError otherwise.

    A value that is not an int32 gets the decode error the API server returns for
    the scale subresource (``json: cannot unmarshal string into Go struct field
    ScaleSpec.spec.replicas of type int32``); a negative one is left for the
    StatefulSet validation (``must be greater than or equal to 0``).
    """
    number = as_integer(value)
    if number is not None and -(1 << 31) <= number < (1 << 31):
        return number
    if value is None:
        raise ValidationError([("spec.replicas", "Required value")], name=name)
    kind = _type_name(value)
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        kind = f"number {shown(value)}"
    elif kind not in ("bool", "string", "array", "object"):
        raise ValidationError([invalid("spec.replicas", value, f"must be an integer, not {kind}")], name=name)
    raise ValidationError([("spec.replicas", f"json: cannot unmarshal {kind} into Go struct field "
                                             "ScaleSpec.spec.replicas of type int32")], name=name)


def load_patch(patch: Any, *, kind: str, name: str) -> dict:
    """A JSON merge patch as plain JSON data, from a dict or YAML/JSON text.

    Text is read as manifests are (safe YAML, the size limit, line and column
    in syntax errors); keys become strings and ``3.0`` becomes 3.  Raise
    ValidationError if the patch is not one JSON object.
    """
    if isinstance(patch, (str, bytes)):
        text = patch.decode("utf-8", "replace") if isinstance(patch, bytes) else patch
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_MANIFEST_BYTES:
            raise size_error(size)
        docs = [d for d in parse_yaml(text) if d is not None]
        if len(docs) > 1:
            raise ValidationError([("", f"patch must be one JSON object, not {len(docs)} documents")],
                                  kind=kind, name=name)
        patch = docs[0] if docs else {}
    if not isinstance(patch, Mapping):
        raise ValidationError([("", f"patch must be a JSON object, not {_type_name(patch)}")],
                              kind=kind, name=name)
    return to_json_value(dict(patch), [MAX_YAML_NODES])


def pod_metadata_patch(patch: dict, labels: Mapping[str, str], annotations: Mapping[str, str]
                       ) -> tuple[dict, dict, list[Error]]:
    """The pod's labels and annotations after *patch*, and the problems with it.

    Only ``metadata.labels`` and ``metadata.annotations`` of a pod may be
    patched here; values must be strings (``null`` deletes a key); the results
    must be valid labels and annotations (``ValidateLabels``,
    ``ValidateAnnotations``).
    """
    errs: list[Error] = []
    for key in patch:
        if key not in ("metadata", "spec"):
            errs.append((key, "Forbidden: stsedu lets you patch only metadata.labels, "
                              "metadata.annotations and spec.activeDeadlineSeconds of a pod"))
    meta = patch.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return dict(labels), dict(annotations), errs + [(
            "metadata", f"json: cannot unmarshal {_type_name(meta)} into Go struct field Pod.metadata"
                        " of type v1.ObjectMeta")]
    for key in meta:
        if key not in ("labels", "annotations"):
            errs.append((f"metadata.{key}", "Forbidden: field is immutable here"))
    # type errors, worded as the strict decoder words them for ObjectMeta
    errs += decode_errors({"kind": "StatefulSet", "metadata": {k: v for k, v in meta.items()
                                                                 if k in ("labels", "annotations")}})
    if errs:
        return dict(labels), dict(annotations), errs
    # RFC 7386: a null deletes the whole map ({"metadata": {"labels": null}} removes every label)
    new_labels = merge_patch(dict(labels), meta["labels"]) if "labels" in meta else dict(labels)
    new_annotations = (merge_patch(dict(annotations), meta["annotations"]) if "annotations" in meta
                       else dict(annotations))
    new_labels = {} if new_labels is None else new_labels
    new_annotations = {} if new_annotations is None else new_annotations
    errs += validate_labels(new_labels, "metadata.labels")
    errs += validate_annotations(new_annotations, "metadata.annotations")
    return new_labels, new_annotations, errs


MAX_INT32 = 2147483647


def pod_spec_patch(patch: dict, spec: Mapping[str, Any]) -> tuple[dict, list[Error]]:
    """The pod's spec after *patch*'s ``spec`` part, and the problems with it.

    Only ``spec.activeDeadlineSeconds`` may change on a running pod (``ValidatePodUpdate``):
    an integer from 1 to 2147483647 when first set, never raised above its previous value,
    and never removed once set.
    """
    new = dict(spec)
    if "spec" not in patch:
        return new, []
    part = patch["spec"]
    path = "spec.activeDeadlineSeconds"
    if not isinstance(part, dict):
        return new, [("spec", f"json: cannot unmarshal {_type_name(part)} into Go struct field Pod.spec"
                              " of type v1.PodSpec")]
    errs: list[Error] = [(f"spec.{k}", "Forbidden: pod updates may not change fields other than "
                                       "`spec.activeDeadlineSeconds` here")
                         for k in part if k != "activeDeadlineSeconds"]
    if "activeDeadlineSeconds" not in part or errs:
        return new, errs
    value, old = part["activeDeadlineSeconds"], spec.get("activeDeadlineSeconds")
    if value is None:
        if old is not None:
            return new, [field_invalid(path, None, "must not update from a positive integer to nil value")]
        return new, []
    if isinstance(value, bool) or not isinstance(value, int):
        return new, [(path, f"json: cannot unmarshal {_type_name(value)} into Go struct field "
                            "PodSpec.spec.activeDeadlineSeconds of type int64")]
    if not 1 <= value <= MAX_INT32:
        return new, [field_invalid(path, value, f"must be between 1 and {MAX_INT32}, inclusive")]
    if old is not None and value > old:
        return new, [field_invalid(path, value, "must be less than or equal to previous value")]
    new["activeDeadlineSeconds"] = value
    return new, []
