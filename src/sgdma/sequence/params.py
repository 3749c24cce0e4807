"""Gate parameter values as files write them: numbers, or angles like "pi/2",
"-3*pi/4", "3pi/4", "90deg".  A tiny parser, no eval."""
from __future__ import annotations

import math


def parse_value(value, what: str = "parameter") -> float:
    """A float from a number or an angle expression; ValueError names ``what``."""
    if isinstance(value, bool):
        raise ValueError(f"{what}: {value!r} is a boolean, not a number")
    if isinstance(value, (int, float)):
        x = float(value)
    else:
        text = str(value).strip().lower().replace(" ", "")
        try:
            x = _parse(text)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise ValueError(f"{what}: cannot read {value!r}; write a number or an angle such as "
                             f"'pi/2', '-3*pi/4', '3pi/4' or '90deg'") from None
    if not math.isfinite(x):
        raise ValueError(f"{what}: {value!r} is not finite; a gate parameter must be a finite number")
    return x


def _parse(text: str) -> float:
    scale = 1.0
    if text.endswith("deg"):
        text, scale = text[:-3], math.pi / 180
    sign = -1.0 if text.startswith("-") else 1.0
    text = text.lstrip("+-")
    numerator, _, denominator = text.partition("/")
    if not numerator:
        raise ValueError(text)
    value = 1.0
    for factor in numerator.split("*"):
        if factor.endswith("pi"):
            coefficient = factor[:-2]
            value *= (float(coefficient) if coefficient else 1.0) * math.pi
        else:
            value *= float(factor)
    if denominator:
        value /= float(denominator)
    return sign * value * scale


def wrap_angle(theta: float) -> float:
    """Into (-pi, pi]: a rotation by theta + 2 pi is the same gate up to a global phase."""
    wrapped = math.remainder(theta, 2 * math.pi)
    return math.pi if wrapped == -math.pi else wrapped
