"""A variant per student: an exercise's ``parameters``, and the values one student gets.

An exercise may declare parameters, each a list of ``choices`` or a whole-number ``range``
(both ends included), and use them anywhere below as ``${name}``::

    parameters:
      replicas: {range: [4, 6]}
      unready: {choices: [web-1, web-2]}
    question: ${replicas} Ready pods; ${unready} turns not Ready. You scale to 2. What does the next sync do?

A value that is the whole string (``replicas: ${replicas}``) keeps its type (a number stays a
number); inside a longer string it is written as text.  Each student gets a variant seeded by
the student's name and the exercise's id (:func:`pick`), the same every time, so the teacher's
grader replays the student's own situation and a neighbour's answer scores on the neighbour's.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from typing import Any, Mapping

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
MAX_VARIANTS = 10_000
"""At most this many combinations of values per exercise."""


class ParameterError(ValueError):
    """A parameter or a ``${name}`` is wrong; *path* is where (keys and indexes)."""

    def __init__(self, problem: str, *path) -> None:
        self.problem, self.path = problem, path
        super().__init__(problem)


def parse(spec: Any) -> tuple[tuple[str, tuple], ...]:
    """``parameters:`` as ((name, values), ...), values in order; ParameterError otherwise."""
    if not isinstance(spec, Mapping) or not spec:
        raise ParameterError("must be a mapping of names to {choices: [...]} or {range: [low, high]}",
                             "parameters")
    out, count = [], 1
    for name, p in spec.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ParameterError("a parameter's name is letters, digits and _ (used as ${name})",
                                 "parameters", name)
        if not isinstance(p, Mapping) or len(p) != 1 or next(iter(p)) not in ("choices", "range"):
            raise ParameterError("must be {choices: [a, b, ...]} or {range: [low, high]}", "parameters", name)
        if "choices" in p:
            values = p["choices"]
            if not isinstance(values, list) or not values or not all(
                    isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
                raise ParameterError("must be a list of at least one string or whole number",
                                     "parameters", name, "choices")
            if len(set(values)) != len(values):
                raise ParameterError("a choice is listed twice", "parameters", name, "choices")
        else:
            r = p["range"]
            if not isinstance(r, list) or len(r) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in r) or r[0] > r[1]:
                raise ParameterError("must be [low, high], two whole numbers with low <= high",
                                     "parameters", name, "range")
            values = list(range(r[0], r[1] + 1))
        count *= len(values)
        if count > MAX_VARIANTS:
            raise ParameterError(f"more than {MAX_VARIANTS} variants in all", "parameters", name)
        out.append((name, tuple(values)))
    return tuple(out)


def first(params) -> dict[str, Any]:
    """The first value of each parameter (the variant ``stsedu exercise check`` shows first)."""
    return {name: values[0] for name, values in params}


def every(params, limit: int = 100) -> list[dict[str, Any]]:
    """Up to *limit* combinations of values, in order."""
    names = [n for n, _ in params]
    return [dict(zip(names, combo)) for combo in
            itertools.islice(itertools.product(*(v for _, v in params)), limit)]


def count(params) -> int:
    n = 1
    for _, values in params:
        n *= len(values)
    return n


def pick(params, student: str, exercise_id: str) -> dict[str, Any]:
    """The values of *student*'s variant of *exercise_id*: seeded by both (the name's case and
    surrounding spaces do not count), the same on every machine."""
    seed = hashlib.sha256(f"{exercise_id}\n{student.strip().casefold()}".encode("utf-8")).digest()
    rng = random.Random(int.from_bytes(seed[:8], "big"))
    return {name: rng.choice(values) for name, values in params}


def describe(values: Mapping[str, Any]) -> str:
    """``replicas=5 unready=web-2``."""
    return " ".join(f"{k}={v}" for k, v in values.items())


def substitute(data: Any, values: Mapping[str, Any], path: tuple = ()) -> Any:
    """*data* with every ``${name}`` replaced by its value (a whole-string one keeps its type)."""
    if isinstance(data, Mapping):
        return {k: substitute(v, values, path + (k,)) for k, v in data.items()}
    if isinstance(data, list):
        return [substitute(v, values, path + (i,)) for i, v in enumerate(data)]
    if not isinstance(data, str) or "${" not in data:
        return data
    for name in PLACEHOLDER.findall(data):
        if name not in values:
            known = ", ".join(values) or "none"
            raise ParameterError(f"unknown parameter ${{{name}}} (parameters: {known})", *path)
    whole = PLACEHOLDER.fullmatch(data)
    if whole:
        return values[whole.group(1)]
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), data)
