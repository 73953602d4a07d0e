"""Python values as TOML values, for configs, ``set`` overrides and grids: one conversion for
``run`` and ``sweep``. numpy scalars and arrays are taken as their Python values; ``None``,
NaN and infinities are errors naming where they are (TOML has no null, and no config key
takes a non-finite number)."""

from __future__ import annotations

import json
import math
import operator
import os
from typing import Any, Mapping


def plain(value: Any, where: str) -> Any:
    """`value` as JSON holds it: str, bool, int, finite float, lists and dicts of those."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()  # numpy: a scalar gives its Python value, an array a list
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None:
        raise ValueError(f"{where}: None is not a value (TOML has no null)")
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value} is not a finite number")
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        return {str(k): plain(v, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"{where}: a {type(value).__name__} is not a TOML value")


def toml_text(value: Any, where: str) -> str:
    """`value` as TOML text, the right side of a ``--set key=value``."""
    value = plain(value, where)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string (non-ASCII kept as it is, so no surrogates).
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(v, where) for v in value) + "]"
    raise TypeError(f"{where}: a table is not a value for one key; set its keys one by one")


def set_list(overrides: Mapping[str, Any] | None) -> list[str]:
    """``{"nand.channels": 16}`` → ``["nand.channels=16"]``, the CLI's ``--set`` form; nested
    dicts (``{"nand": {"channels": 16}}``) give dotted keys."""
    if overrides is not None and not isinstance(overrides, Mapping):
        raise TypeError(
            f"overrides: expected a dict of config keys and values, like {{\"nand.channels\": 16}}, "
            f"not a {type(overrides).__name__}"
        )
    return [f"{k}={toml_text(v, k)}" for k, v in flat(overrides or {}, "").items()]


#: The DeprecationWarning of ``set=``, now ``overrides=``.
_SET_RENAMED = "set= is deprecated (it shadows the builtin `set`); pass overrides= instead"


def overrides_arg(overrides: Mapping[str, Any] | None, set: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The config overrides of a call that may still use the deprecated ``set=`` alias: it
    works, with a DeprecationWarning; giving both is an error."""
    if set is None:
        return overrides
    import warnings

    warnings.warn(_SET_RENAMED, DeprecationWarning, stacklevel=3)
    if overrides is not None:
        raise TypeError("overrides= and its deprecated alias set= were both given; pass overrides= only")
    return set


def seed_arg(seed: Any) -> int | None:
    """``seed`` as the simulator takes it (``--seed``): None, or a whole number in
    0 ..= 2^64 − 1 (numpy integers included); anything else is an error naming ``seed``."""
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise TypeError("seed: expected a whole number in 0 ..= 2^64 - 1, not a bool")
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed: expected a whole number in 0 ..= 2^64 - 1, not a {type(seed).__name__}") from None
    if not 0 <= value < 2**64:
        raise ValueError(f"seed = {value}: must be in 0 ..= 2^64 - 1 (18446744073709551615)")
    return value


def flat(table: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """Nested dicts as dotted keys, in order; a key given twice is an error."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        items = flat(v, key + ".").items() if isinstance(v, Mapping) and v else [(key, v)]
        for fk, fv in items:
            if fk in out:
                raise ValueError(f"{fk}: set twice (a nested dict and a dotted key)")
            out[fk] = fv
    return out
