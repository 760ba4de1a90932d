"""Label selectors (``k8s.io/apimachinery/pkg/apis/meta/v1``, ``pkg/labels``)."""

from __future__ import annotations

from dataclasses import dataclass

from .formats import is_qualified_name, is_valid_label_value


# ---------------------------------------------------------------------------
# Label selectors (k8s.io/apimachinery/pkg/apis/meta/v1, pkg/labels)
# ---------------------------------------------------------------------------

_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


@dataclass(frozen=True)
class Selector:
    """A parsed label selector: *requirements* are ``(key, operator, values)``;
    *nothing* marks the selector of a nil ``LabelSelector`` (matches nothing)."""

    requirements: tuple = ()
    nothing: bool = False

    @property
    def empty(self) -> bool:
        """True if it selects everything (``labels.Selector.Empty``)."""
        return not self.nothing and not self.requirements

    def matches(self, labels: dict | None) -> bool:
        """True if *labels* satisfy every requirement (``labels.Selector.Matches``)."""
        if self.nothing:
            return False
        labels = labels or {}
        for key, op, values in self.requirements:
            has = key in labels
            if op == "In" and not (has and labels[key] in values):
                return False
            if op == "NotIn" and has and labels[key] in values:
                return False
            if op == "Exists" and not has:
                return False
            if op == "DoesNotExist" and has:
                return False
        return True


def label_selector_as_selector(selector: dict | None) -> Selector | None:
    """Mirror of ``metav1.LabelSelectorAsSelector``; None where upstream returns an error."""
    if selector is None:
        return Selector(nothing=True)
    reqs = []
    for key, value in (selector.get("matchLabels") or {}).items():
        if is_qualified_name(key) or is_valid_label_value(value):
            return None
        reqs.append((key, "In", (value,)))
    for expr in selector.get("matchExpressions") or ():
        key, op, values = expr.get("key") or "", expr.get("operator"), tuple(expr.get("values") or ())
        if op not in _SELECTOR_OPERATORS or is_qualified_name(key):
            return None
        if (op in ("In", "NotIn")) != bool(values):
            return None
        if any(is_valid_label_value(v) for v in values):
            return None
        reqs.append((key, op, values))
    return Selector(tuple(reqs))
