"""Resource quantities (``k8s.io/apimachinery/pkg/api/resource``): parse and print."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext, ROUND_CEILING, ROUND_FLOOR
from typing import Any


# ---------------------------------------------------------------------------
# Quantities (k8s.io/apimachinery/pkg/api/resource)
# ---------------------------------------------------------------------------

_QUANTITY_RE = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
                          r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")
_QUANTITY_SUFFIX = {
    None: Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"),
    "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
    "P": Decimal("1e15"), "E": Decimal("1e18"), "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40, "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}
QUANTITY_FORMAT_ERROR = ("quantities must match the regular expression"
                         " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
"""``resource.ErrFormatWrong``: what decoding a malformed quantity reports."""


def parse_quantity(value: Any) -> Decimal | None:
    """Value of a quantity such as ``"1Gi"``, ``"500m"`` or ``3``; None if malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY_RE.match(value.strip())
    if not match:
        return None
    number, suffix = match.groups()
    try:
        if suffix in _QUANTITY_SUFFIX:  # "E" and "Ei" are exa and exbi; "E3" / "e3" are exponents
            return Decimal(number) * _QUANTITY_SUFFIX[suffix]
        return Decimal(number) * (Decimal(10) ** int(suffix[1:]))
    except (InvalidOperation, ValueError):
        return None


_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}


def quantity_string(value: Any, places: int = 9) -> str:
    """A resource quantity as apimachinery's ``Quantity.String`` prints it (canonical form).

    The format follows the suffix written: a binary suffix (``Ki`` … ``Ei``) stays binary
    when the value is a whole number of at least 1024 (``1024Mi`` -> ``1Gi``, ``1536Mi``
    stays), else it is printed decimal (``0.5Ki`` -> ``512``); an exponent (``1e3``) stays an
    exponent; otherwise decimal SI with the largest suffix that keeps an integer mantissa
    (``0.5`` -> ``500m``, ``2000`` -> ``2k``, ``1500`` stays).  Values are rounded up to
    nano units, as ``ParseQuantity`` does (to *places* decimals: 3 is ``SetDefaults_ResourceList``'s
    milli rounding); zero is ``0``.  A value that is not a quantity is returned as text.
    """
    amount = parse_quantity(value)
    if amount is None:
        return str(value)
    suffix = str(value).strip().lstrip("+-0123456789.")
    if suffix in _BINARY:
        fmt = "binary"
    elif re.fullmatch(r"[eE][+-]?[0-9]+", suffix):
        fmt = "exponent"
    else:
        fmt = "decimal"
    with localcontext() as ctx:
        ctx.prec = 80
        nanos = (amount * Decimal(10) ** places).to_integral_value(  # rounded away from zero
            rounding=ROUND_CEILING if amount >= 0 else ROUND_FLOOR) * Decimal(10) ** (9 - places)
        if nanos == 0:
            return "0"
        sign = "-" if nanos < 0 else ""
        nanos = abs(int(nanos))
        if fmt == "binary":
            whole = nanos % 10 ** 9 == 0
            if nanos < 1024 * 10 ** 9 or not whole:
                fmt = "decimal"
            else:
                number, power = nanos // 10 ** 9, 0
                while number >= 1024 and number % 1024 == 0 and power < len(_BINARY):
                    number //= 1024
                    power += 1
                return f"{sign}{number}{'' if power == 0 else _BINARY[power - 1]}"
        mantissa, exponent = nanos, -9
        while mantissa >= 10 and mantissa % 10 == 0:
            mantissa //= 10
            exponent += 1
        shift = exponent % 3  # lower the exponent to a multiple of 3
        mantissa *= 10 ** shift
        exponent -= shift
        if fmt == "decimal" and exponent in _DECIMAL_SUFFIX:
            return f"{sign}{mantissa}{_DECIMAL_SUFFIX[exponent]}"
        return f"{sign}{mantissa}{'' if exponent == 0 else f'e{exponent}'}"
