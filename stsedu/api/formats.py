"""String formats the API server checks: DNS names, label keys and values, percents, ports."""

from __future__ import annotations

import re


# ---------------------------------------------------------------------------
# String formats (k8s.io/apimachinery/pkg/api/validate/content, util/validation)
# ---------------------------------------------------------------------------
# Go's regexp anchored with ^...$ matches the whole string; Python's ``$`` also matches
# before a final newline, so every pattern here is used with ``fullmatch`` only.

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_PERCENT_FMT = "[0-9]+%"

_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_PERCENT_RE = re.compile(_PERCENT_FMT)

NEGATIVE_MSG = "must be greater than or equal to 0"
"""``IsNegativeErrorMsg`` of ``ValidateNonnegativeField``."""


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Mirror of ``RegexError`` (note the double space before each " or ")."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int, unit: str = "characters") -> str:
    """Mirror of ``MaxLenError``: ``characters`` in k8s.io/apimachinery/pkg/util/validation
    (DNS names, port names), ``bytes`` in its ``api/validate/content`` package (label keys
    and values)."""
    return f"must be no more than {length} {unit}"


def inclusive_range_error(lo: int, hi: int) -> str:
    """Mirror of ``InclusiveRangeError``."""
    return f"must be between {lo} and {hi}, inclusive"


def _name_errors(value: str, max_len: int, pattern, message: str, fmt: str, *examples: str,
                 dotted=None) -> list[str]:
    """The length and format checks the DNS name validators share (``IsDNS1123Label`` and kin).

    *dotted*, if given, is a pattern that, when it matches a value the format
    rejects, is reported as ``must not contain dots`` instead.
    """
    errs = []
    if len(value.encode("utf-8", "surrogatepass")) > max_len:
        errs.append(max_len_error(max_len))
    if not pattern.fullmatch(value):
        if dotted is not None and dotted.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(message, fmt, *examples))
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """Mirror of ``IsDNS1123Label``."""
    return _name_errors(
        value, 63, _DNS1123_LABEL_RE,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters"
        " or '-', and must start and end with an alphanumeric character",
        _DNS1123_LABEL_FMT, "my-name", "123-abc", dotted=_DNS1123_SUBDOMAIN_RE)


def is_dns1123_subdomain(value: str) -> list[str]:
    """Mirror of ``IsDNS1123Subdomain``."""
    return _name_errors(
        value, 253, _DNS1123_SUBDOMAIN_RE,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,"
        " '-' or '.', and must start and end with an alphanumeric character",
        _DNS1123_SUBDOMAIN_FMT, "example.com")


def is_dns1035_label(value: str) -> list[str]:
    """Mirror of ``IsDNS1035Label``."""
    return _name_errors(
        value, 63, _DNS1035_LABEL_RE,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start"
        " with an alphabetic character, and end with an alphanumeric character",
        _DNS1035_LABEL_FMT, "my-name", "abc-123")


_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start"
                  " and end with an alphanumeric character")


def is_qualified_name(value: str) -> list[str]:
    """Mirror of ``IsQualifiedName`` / ``content.IsLabelKey``."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [("a valid label key "
                 + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                 + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode("utf-8", "surrogatepass")) > 63:
        errs.append("name part " + max_len_error(63, "bytes"))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT,
                                               "MyName", "my.name", "123-abc"))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """Mirror of ``IsValidLabelValue`` / ``content.IsLabelValue``."""
    errs = []
    if len(value.encode("utf-8", "surrogatepass")) > 63:
        errs.append(max_len_error(63, "bytes"))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-',"
            " '_' or '.', and must start and end with an alphanumeric character",
            _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_valid_percent(value: str) -> list[str]:
    """Mirror of ``IsValidPercent``."""
    if _PERCENT_RE.fullmatch(value):
        return []
    return [regex_error("a valid percent string must be a numeric string followed by an"
                        " ending '%'", _PERCENT_FMT, "1%", "93%")]


def is_valid_port_num(port: int) -> list[str]:
    """Mirror of ``IsValidPortNum``."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_valid_port_name(port: str) -> list[str]:
    """Mirror of ``IsValidPortName``."""
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not re.fullmatch(r"[-a-z0-9]+", port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNSLabel`` (a generateName prefix may end in '-')."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1123_label(name)


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNSSubdomain``."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1123_subdomain(name)


def name_is_dns1035_label(name: str, prefix: bool = False) -> list[str]:
    """Mirror of ``NameIsDNS1035Label`` (Service names)."""
    if prefix and len(name) > 1 and name.endswith("-"):
        name = name[:-2] + "a"
    return is_dns1035_label(name)
