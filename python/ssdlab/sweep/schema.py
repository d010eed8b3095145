"""The schema of a sweep spec (msgspec): every key's type is checked before anything is built
or run, and a mistake is reported as one line naming the key (``[sweep] sample_seed: expected
`int`, got `str```), which ``spec.load`` places at the key's line of the spec. What the schema
cannot say (profile fields, fio options, axis names in ``[plot]``) is checked by ``spec.load``
right after, still before any point runs."""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec

#: Most points a sweep may have (grid points x seeds, or sampled points x seeds): every point is
#: validated before the first runs, and each is a simulation; split a larger study into sweeps.
MAX_POINTS = 10_000

Value = bool | int | float | str
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
#: Largest seed: the results database stores seeds as SQLite INTEGER (signed 64-bit).
MAX_SEED = 2**63 - 1
Seed = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class AxisSchema(msgspec.Struct, forbid_unknown_fields=True):
    """One ``[[axis]]`` table."""

    field: Name | None = None
    option: Name | None = None
    values: Annotated[list[Value], msgspec.Meta(max_length=MAX_POINTS)] | None = None  # non-empty: checked with the axis's name
    range: Annotated[list[int | float], msgspec.Meta(min_length=2, max_length=2)] | None = None
    steps: Annotated[int, msgspec.Meta(ge=2, le=MAX_POINTS)] | None = None
    name: Name | None = None


class SweepSchema(msgspec.Struct, forbid_unknown_fields=True):
    """The ``[sweep]`` table."""

    workload: Annotated[list[str], msgspec.Meta(min_length=1)]
    name: Name | None = None
    profile: Name = "force-gs-240"
    overrides: list[str] = msgspec.field(default_factory=list)
    preconditions: list[str] = msgspec.field(default_factory=list)
    seeds: Annotated[list[Seed], msgspec.Meta(min_length=1, max_length=MAX_POINTS)] = msgspec.field(default_factory=lambda: [1])
    sample: Literal["grid", "random", "lhs"] = "grid"
    points: Annotated[int, msgspec.Meta(ge=1, le=MAX_POINTS)] | None = None
    sample_seed: NonNegative = 1


class PlotSchema(msgspec.Struct, forbid_unknown_fields=True):
    """The ``[plot]`` table."""

    heatmap: Annotated[list[Name], msgspec.Meta(min_length=2, max_length=2)] | None = None
    metric: Name | None = None


class SpecSchema(msgspec.Struct, forbid_unknown_fields=True):
    """A whole spec file."""

    sweep: SweepSchema
    axis: Annotated[list[AxisSchema], msgspec.Meta(min_length=1, max_length=64)]
    plot: PlotSchema = msgspec.field(default_factory=PlotSchema)


def _where(message: str) -> str:
    """msgspec's ``... - at `$.sweep.seeds[0]``` as ``[sweep] seeds[0]: ...``."""
    message = re.sub(r"unknown field `([^`]*)`", r"unknown key '\1'", message.replace(" | null`", "`"))
    text, _, at = message.partition(" - at `$")
    text = text[0].lower() + text[1:] if text else text
    at = at.rstrip("`")
    if not at:
        return text.replace("Object missing required field", "missing").replace("object contains unknown field", "unknown key")
    section, _, rest = at.lstrip(".").partition(".")
    if section.startswith("axis["):
        index = int(section[5:].split("]")[0])
        section = f"axis {index + 1}"
    else:
        section = f"[{section}]"
    text = text.replace("object contains unknown field", "unknown key").replace("object missing required field", "missing key")
    return f"{section} {rest}: {text}" if rest else f"{section}: {text}"


class SchemaError(ValueError):
    """A key of the wrong type (one line, from :func:`_where`), with where it is: the table
    (``sweep``, ``axis``, ``plot``; None for the whole spec), which one of an array of tables
    (``[[axis]]``, from 0) and the key (empty when the table itself is meant)."""

    def __init__(self, message: str, table: str | None, index: int, key: str) -> None:
        super().__init__(message)
        self.table, self.index, self.key = table, index, key


def _location(message: str) -> tuple[str | None, int, str]:
    """(table, index, key) of msgspec's ``... - at `$.axis[1].values[0]``` (("axis", 1,
    "values")); an unknown key's own name (``unknown field `foo```)."""
    at = message.partition(" - at `$")[2].rstrip("`").lstrip(".")
    if not at:
        return None, 0, ""
    section, _, rest = at.partition(".")
    table, index = section, 0
    if section.startswith("axis["):
        table, index = "axis", int(section[5:].split("]")[0])
    unknown = re.search(r"unknown field `([^`]*)`", message)
    key = unknown[1] if unknown and not rest else re.split(r"[.\[]", rest)[0]
    return table, index, key


def validate(data: object) -> SpecSchema:
    """Check parsed TOML against the schema; a mistake raises :class:`SchemaError` with one
    line and the place of the key."""
    try:
        return msgspec.convert(data, SpecSchema)
    except msgspec.ValidationError as error:
        raise SchemaError(_where(str(error)), *_location(str(error))) from None
