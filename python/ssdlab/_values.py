"""Python values as TOML values, for configs, ``set`` overrides and grids: one conversion for
``run`` and ``sweep``. numpy scalars and arrays are taken as their Python values; ``None``,
NaN and infinities are errors naming where they are (TOML has no null, and no config key
takes a non-finite number)."""

from __future__ import annotations

import json
import math
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


def set_list(set: Mapping[str, Any] | None) -> list[str]:
    """``{"nand.channels": 16}`` → ``["nand.channels=16"]``, the CLI's ``--set`` form; nested
    dicts (``{"nand": {"channels": 16}}``) give dotted keys."""
    return [f"{k}={toml_text(v, k)}" for k, v in flat(set or {}, "").items()]


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
