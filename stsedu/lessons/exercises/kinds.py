"""The kinds of answer an exercise expects, and how a learner's answer is read.

Each kind has a normaliser (a learner's spelling -> one canonical value that
compares with ``==`` and is JSON-friendly), a placeholder saying which form to
use, and a generic hint for a wrong answer when the exercise names none.

=========== ======================================================= ==========================
kind        a learner writes                                        canonical value
=========== ======================================================= ==========================
pods        ``["web-0", "web-2"]`` or ``"web-0, web-2"``             sorted list of names
decisions   ``("create", "web-1")``, a list of them, ``"nothing"``  list of [action, pod]
number      ``3`` or ``"3"``                                        int
revision    ``2``, ``"2"`` or ``"revision 2"``                      int
bool        ``True`` / ``False`` (or ``"yes"`` / ``"no"``)          bool
text        ``"www-web-2"``                                         stripped string
choice      one of the exercise's choices (or its letter a, b, ...) the choice's text
=========== ======================================================= ==========================
"""

from __future__ import annotations

import re
from typing import Any

from ...api.arguments import ascii_int
from ...i18n import N_, _

KINDS = ("pods", "decisions", "number", "revision", "bool", "text", "choice")
POD_ACTIONS = ("create", "delete", "update", "wait")


class AnswerFormatError(ValueError):
    """A learner's answer cannot be read as the kind the exercise expects."""


def _blank(ans: Any) -> bool:
    return ans is None or ans is Ellipsis or (isinstance(ans, str) and not ans.strip())


def ordinal_key(name: str) -> tuple[str, int]:
    """Sort key of a pod name: (set, ordinal), or (name, -1) when its tail is no ordinal in ASCII
    digits (:func:`~stsedu.api.arguments.ascii_int`); the one key of answers and reveals."""
    base, _, tail = name.rpartition("-")
    n = ascii_int(tail)
    return (base, n) if n is not None else (name, -1)


def _foreign_ordinal(name: str) -> bool:
    """True for a name whose ordinal is written in digits other than 0-9 (``web-²``)."""
    tail = name.rpartition("-")[2]
    return tail.isdigit() and not tail.isascii()


def norm_pods(ans: Any) -> list[str]:
    if isinstance(ans, str):
        ans = [a for a in re.split(r"[\s,;]+", ans.strip().strip("[]")) if a]
        ans = [a.strip("'\"") for a in ans]
    if not isinstance(ans, (list, tuple, set)):
        raise AnswerFormatError("write a list of names, like [\"web-0\", \"web-1\"]")
    if not all(isinstance(a, str) and a for a in ans):
        raise AnswerFormatError("every name must be a string in quotes, like \"web-0\"")
    odd = [a.strip() for a in ans if _foreign_ordinal(a.strip())]
    if odd:
        raise AnswerFormatError(f"the ordinal in {odd[0]!r} must be written with the digits 0-9")
    return sorted({a.strip() for a in ans}, key=ordinal_key)


def _decision(item: Any) -> list:
    if isinstance(item, str):
        words = item.strip().lower().split()
        if not words:
            raise AnswerFormatError("an empty decision")
        item = words
    if not isinstance(item, (list, tuple)) or not 1 <= len(item) <= 2 or not isinstance(item[0], str):
        raise AnswerFormatError('write a decision as ("create", "web-1")')
    action = item[0].strip().lower()
    if action not in POD_ACTIONS:
        raise AnswerFormatError(f"{item[0]!r} is not a pod action (use {', '.join(POD_ACTIONS)})")
    pod = item[1] if len(item) > 1 else None
    if pod is not None and not isinstance(pod, str):
        raise AnswerFormatError('the pod must be a name in quotes, like "web-1"')
    return [action, pod]


def norm_decisions(ans: Any) -> list[list]:
    if isinstance(ans, str):
        text = ans.strip().lower()
        if text in ("nothing", "none", "no action", "[]"):
            return []
        return [_decision(p) for p in re.split(r"[;,]| and ", text) if p.strip()]
    if isinstance(ans, (list, tuple)):
        if ans and isinstance(ans[0], str) and ans[0].strip().lower() in POD_ACTIONS \
                and len(ans) <= 2 and (len(ans) == 1 or not isinstance(ans[1], str)
                                       or ans[1].strip().lower() not in POD_ACTIONS):
            return [_decision(ans)]       # one decision: ("create", "web-1")
        return [_decision(a) for a in ans]
    raise AnswerFormatError('write a decision like ("create", "web-1"), a list of them, or "nothing"')


_MAX_INT = 10 ** 18
"""Whole-number answers stay below this (a count of pods, a revision): a larger one is refused
before anything prints it (Python will not turn an int of over 4300 digits into text)."""


def _int(ans: Any, what: str) -> int:
    if isinstance(ans, bool):
        raise AnswerFormatError(f"write {what}, not True/False")
    if isinstance(ans, float) and ans.is_integer() and abs(ans) < _MAX_INT:
        return int(ans)
    if isinstance(ans, int) and abs(ans) < _MAX_INT:
        return ans
    if isinstance(ans, str) and len(ans) < 100:
        m = re.fullmatch(r"\s*(?:revision|rev\.?|r)?\s*(-?[0-9]{1,18})\s*", ans.lower())
        if m:
            return int(m.group(1))
    if isinstance(ans, int) or (isinstance(ans, str) and re.fullmatch(r"\s*-?[0-9]{19,}\s*", ans)):
        raise AnswerFormatError(f"write {what} with at most 18 digits, like 2")
    raise AnswerFormatError(f"write {what}, like 2")


def norm_number(ans: Any) -> int:
    return _int(ans, "a whole number")


def norm_revision(ans: Any) -> int:
    return _int(ans, "a revision number")


def norm_bool(ans: Any) -> bool:
    if isinstance(ans, bool):
        return ans
    if isinstance(ans, str) and ans.strip().lower() in ("true", "yes", "y"):
        return True
    if isinstance(ans, str) and ans.strip().lower() in ("false", "no", "n"):
        return False
    raise AnswerFormatError("write True or False")


def norm_text(ans: Any) -> str:
    if isinstance(ans, bool) or not isinstance(ans, (str, int)):
        raise AnswerFormatError('write the answer as a string in quotes, like "web-0"')
    return str(ans).strip()


def norm_choice(ans: Any, choices: tuple[str, ...]) -> str:
    if isinstance(ans, bool) or not isinstance(ans, (str, int)):
        raise AnswerFormatError(f"write one of the choices: {_choices_text(choices)}")
    text = str(ans).strip()
    for c in choices:
        if text.lower() == c.lower():
            return c
    if len(text) == 1 and text.isalpha() and ord(text.lower()) - ord("a") < len(choices):
        return choices[ord(text.lower()) - ord("a")]
    raise AnswerFormatError(f"{text!r} is not one of the choices: {_choices_text(choices)}")


def _choices_text(choices) -> str:
    return ", ".join(f'"{c}"' for c in choices)


_NORMALISERS = {"pods": norm_pods, "decisions": norm_decisions, "number": norm_number,
                "revision": norm_revision, "bool": norm_bool, "text": norm_text}


def normalise(kind: str, ans: Any, choices: tuple[str, ...] = ()) -> Any:
    """*ans* in its canonical form for *kind*.  Raise AnswerFormatError if it is blank or unreadable."""
    if _blank(ans):
        raise AnswerFormatError("no answer yet")
    if kind == "choice":
        return norm_choice(ans, choices)
    return _NORMALISERS[kind](ans)


SUBJECT_FORMS = {
    ("pods", "claims"): N_('a list of claim names, like ["data-web-0"]'),
    ("text", "claim"): N_('a claim name in quotes, like "data-web-0"'),
    ("text", "dns_name"): N_('a DNS name in quotes, like "web-7.nginx.default.svc.cluster.local"'),
    ("text", "phase"): N_('a pod phase in quotes: "Pending", "Running", "Succeeded" or "Failed"'),
    ("text", "rule"): N_('the name of an upstream function in quotes, like "someFunction"'),
}
"""The form of an answer when what is asked is more than its kind: claim names are ``pods`` by
kind (a list of names) but a student who writes pod names scores nothing."""


def placeholder(kind: str, choices: tuple[str, ...] = (), subject: str = "") -> str:
    """Which form to use (never the answer): the comment after ``answer = None``.  *subject*
    (``claims``, ``claim``, ``dns_name``, ``phase``, ``rule``) names what is asked
    when the kind alone would mislead (:data:`SUBJECT_FORMS`)."""
    if (kind, subject) in SUBJECT_FORMS:
        return _(SUBJECT_FORMS[(kind, subject)])
    if kind == "choice":
        return _("one of {choices}").format(choices=_choices_text(choices))
    return _({
        "pods": N_('a list of pod names, like ["web-0"]'),
        "decisions": N_('a decision like ("create", "web-7") or ("wait", "web-7"), a list of them, or "nothing"'),
        "number": N_("a whole number, like 7"),
        "revision": N_("a revision number, like 7"),
        "bool": N_("True or False"),
        "text": N_('a string in quotes, like "web-0"'),
    }[kind])


def show(v: Any) -> str:
    """A canonical answer as a learner would read it."""
    if isinstance(v, list) and v and isinstance(v[0], list):
        return ", ".join(f"{a} {p}" if p else a for a, p in v)
    if v == []:
        return "nothing"
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return repr(v)


def generic_hint(kind: str, given: Any, expected: Any) -> str:
    """A hint that fits any exercise of *kind* (used when the exercise names none for this answer)."""
    if kind == "decisions":
        if given and expected and [a for a, _ in given] == [a for a, _ in expected]:
            return _("The kind of action is right; look again at which pod it concerns.")
        if given and expected and [p for _, p in given] == [p for _, p in expected]:
            return _("The pod is right; what does the controller do with it?")
        if expected == []:
            return _("Look again: is there anything left for the controller to do?")
        return _("Walk through the sync in order: replicas first (lowest ordinal), then condemned pods, "
                 "then the update.")
    if kind == "pods":
        missing = set(expected) - set(given)
        extra = set(given) - set(expected)
        parts = []
        if missing:
            parts.append(_("{n} name(s) missing from your list").format(n=len(missing)))
        if extra:
            parts.append(_("{n} name(s) too many").format(n=len(extra)))
        return _("; ").join(parts) + _(".") if parts else _("Check the names.")
    if kind == "bool":
        return _("Think about the exact rule (strictly more, or at least?).")
    if kind in ("number", "revision"):
        return _("Too high.") if given > expected else _("Too low.")
    return _("Compare with the rule in the notebook's text.")


def jsonable(v: Any) -> Any:
    """A canonical value as JSON can store it (tuples become lists)."""
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v
