"""Sweep specs: a TOML file naming a base profile, axes over profile fields and workload
options, preconditions, seeds, and a full grid or a seeded sample of points.

```toml
[sweep]
name = "wa-vs-spare"              # names the results (database rows, Parquet file, plots)
profile = "conventional-240"      # built-in name or TOML path
overrides = ["nand.blocks_per_plane=64"]   # applied to every point
preconditions = ["seq-fill", "rand-fill"]  # before each point's job
workload = ["rw=randwrite", "bs=4k", "iodepth=32", "runtime=60", "time_based"]
seeds = [1, 2]                    # replicates: every point runs once per seed
sample = "grid"                   # grid (default), random or lhs
points = 20                       # for random and lhs
sample_seed = 7                   # for random and lhs

[[axis]]
field = "ftl.gc_policy"           # a profile field (--set name) ...
values = ["greedy", "cost-benefit"]

[[axis]]
option = "iodepth"                # ... or a workload option
values = [1, 4, 32]

[[axis]]
field = "spare_factor"            # derived: sets drive.capacity_bytes_user to (1 - f) x raw
range = [0.07, 0.5]               # with `steps` (grid) or sampled (random, lhs)
steps = 5
```

Every point's profile and job are validated before anything runs; a bad axis or value is
refused naming the axis and the value, and the spec's line where the key (or the axis's
`[[axis]]`) is written (`spec.toml:17: axis 'iodepth': ...`; a mistake of no one key, such as a
point whose profile does not validate, names no line). The rules, all checked when the spec is
loaded:

- `name` (default: the spec file's name without `.toml`) names the database rows, the output
  files and the default output folder `sweep-NAME`, so it is a plain file name: not empty,
  not `.` or `..`, no `/`, `\\`, `..` or control characters (such as NUL).
- `profile` is a built-in profile name, or a TOML file: a value that is not a built-in name and
  contains `/` or ends in `.toml` is a path, relative to the spec file's folder (not the
  current folder). Points carry it as an absolute path, so Dask workers on other machines need
  the file at the same path.
- `seeds`: whole numbers from 0 to 2^63 - 1 (the results database stores signed 64-bit
  integers), each given once.
- The values of an axis are of one type: all numbers (whole numbers and decimals may mix), all
  text, or all booleans (a workload option's boolean is passed as `true`/`false`). Each value is
  given once; a whole-number `range` whose `steps` would round two steps to the same number is
  refused.
- Two axes may not set the same profile field or workload option (`spare_factor` sets
  `drive.capacity_bytes_user`).
- Two grid points that are the same simulation (spare factors that round to the same user
  capacity, or one job option spelt two ways, `bs=4k` and `bs=4096`: the job is compared as
  parsed, `JobSpec::simulation_key`) are refused naming both. A random or LHS sample that draws the same point
  more than once keeps it once, and the sweep says how many draws were dropped: a sample may
  have fewer than `points` points.
- A spec nested too deeply for the TOML reader is refused as not valid TOML.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ssdlab import __version__, _native, paths
from ssdlab import preconditions as pre
from ssdlab.errors import SsdlabError
from ssdlab.sweep import schema

#: Axis fields computed from others rather than set directly.
DERIVED = {"spare_factor": "drive.capacity_bytes_user = (1 - spare_factor) x raw bytes, whole 4 KiB sectors"}

SAMPLES = ("grid", "random", "lhs")


@dataclass(frozen=True)
class Axis:
    """One swept dimension: a profile field or a workload option, with its values (or a range
    to sample)."""

    name: str
    kind: str  # "field", "option" or "derived"
    target: str  # the profile field (section.field), workload option, or derived name it sets
    values: tuple = ()
    low: float | None = None
    high: float | None = None

    def value_at(self, u: float) -> Any:
        """The value at position `u` in [0, 1) (sampling)."""
        if self.values:
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        value = self.low + u * (self.high - self.low)
        return value if isinstance(self.low, float) or isinstance(self.high, float) else int(round(value))


@dataclass(frozen=True)
class Point:
    """One simulation: the base profile with overrides, preconditions, a job, a seed."""

    sweep: str
    index: int
    axes: dict
    profile: str
    overrides: tuple
    preconditions: tuple
    workload: tuple
    seed: int
    profile_hash: str = ""

    @property
    def key(self) -> str:
        """Identity of the point's result: profile (hash), workload, preconditions, seed and
        ssdlab version. A sweep run again skips points whose key already has a result."""
        text = "|".join([self.profile_hash, " ".join(self.preconditions), " ".join(self.workload), str(self.seed), __version__])
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class Spec:
    """A parsed, validated sweep."""

    name: str
    path: Path
    profile: str
    overrides: list[str]
    preconditions: list[str]
    workload: list[str]
    seeds: list[int]
    sample: str
    axes: list[Axis]
    points: list[Point] = field(default_factory=list)
    plots: dict = field(default_factory=dict)
    #: The base profile with the spec's overrides, as TOML (with the smallest user capacity when
    #: a spare-factor axis sets it per point).
    base_source: str = ""
    #: Sampled draws dropped because an earlier draw was the same point (random, lhs).
    duplicates: int = 0

    @property
    def profile_file(self) -> str | None:
        """The base profile's file (an absolute path), or None for a built-in profile."""
        return self.profile if os.path.isabs(self.profile) else None


def _fail(path: Path, message: str, line: int | None = None) -> SsdlabError:
    """The error of a spec, at `line` of it when known (``spec.toml:17: ...``), on one line: a
    point's several problems (a job's options each refused on a line of their own) are joined
    by "; "."""
    message = "; ".join(part.strip() for part in str(message).splitlines() if part.strip())
    return SsdlabError(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@dataclass(frozen=True)
class _Text:
    """The spec's text, to find the line of a key in it (the line finder of profile errors)."""

    text: str

    def line(self, table: str, key: str = "", index: int = 0) -> int | None:
        """The line of `key` in `[table]` (the `index`-th `[[table]]`), or of the table's header
        when the key is not written there; None without the table."""
        return _native.toml_line(self.text, table, index, key)

    def axis(self, i: int, key: str = "") -> int | None:
        """The line of `key` in the spec's `i`-th `[[axis]]` (from 0), or of its header."""
        return self.line("axis", key, i)


def _axis(path: Path, text: _Text, i: int, raw: dict) -> Axis:
    where = f"axis {i + 1}"
    keys = set(raw) - {"field", "option", "values", "range", "steps", "name"}
    if keys:
        key = sorted(keys)[0]
        raise _fail(path, f"{where}: unknown key {key!r} (expected field or option, values or range, steps)", text.axis(i, key))
    if ("field" in raw) == ("option" in raw):
        raise _fail(path, f"{where}: give exactly one of field (a profile field, e.g. ftl.gc_policy) or option (a workload option, e.g. iodepth)", text.axis(i))
    target_key = "option" if "option" in raw else "field"
    target = raw[target_key]
    if not isinstance(target, str) or not target:
        raise _fail(path, f"{where}: field/option must be a name", text.axis(i, target_key))
    kind = "option" if "option" in raw else ("derived" if target in DERIVED else "field")
    if kind == "field" and "." not in target:
        raise _fail(path, f"{where}: field {target!r} must be section.field (e.g. ftl.gc_policy) or one of {', '.join(DERIVED)}", text.axis(i, target_key))
    name = raw.get("name", target)
    if "values" in raw:
        values = raw["values"]
        line = text.axis(i, "values")
        if not isinstance(values, list) or not values:
            raise _fail(path, f"axis {name!r}: values must be a non-empty list", line)
        kinds = {_type_of(v) for v in values}
        if len(kinds) > 1:
            raise _fail(
                path,
                f"axis {name!r}: values mix {' and '.join(sorted(kinds))} ({values!r}); give one type per axis (whole numbers and decimals may mix)",
                line,
            )
        _no_repeats(path, name, values, "values", line)
        return Axis(name, kind, target, tuple(values))
    if "range" in raw:
        r = raw["range"]
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r) and r[0] < r[1]):
            raise _fail(path, f"axis {name!r}: range must be [low, high] with low < high (got {r!r})", text.axis(i, "range"))
        steps = raw.get("steps")
        axis = Axis(name, kind, target, (), r[0], r[1])
        if steps is not None:
            if not isinstance(steps, int) or steps < 2:
                raise _fail(path, f"axis {name!r}: steps must be a whole number of at least 2 (got {steps!r})", text.axis(i, "steps"))
            values = [r[0] + (r[1] - r[0]) * k / (steps - 1) for k in range(steps)]
            if all(isinstance(x, int) for x in r):
                values = [int(round(v)) for v in values]
            _no_repeats(path, name, values, f"range {r!r} in {steps} steps (whole numbers)", text.axis(i, "steps"))
            return Axis(name, kind, target, tuple(values), r[0], r[1])
        return axis
    raise _fail(path, f"axis {name!r}: give values or range", text.axis(i))


def _type_of(value: Any) -> str:
    """The type of an axis value, in words: an axis has values of one type."""
    if isinstance(value, bool):
        return "booleans"
    return "numbers" if isinstance(value, (int, float)) else "text"


def _no_repeats(path: Path, name: str, values: list, what: str, line: int | None) -> None:
    seen: list = []
    for v in values:
        if v in seen:
            raise _fail(path, f"axis {name!r}: {what} gives {v!r} twice; each value of an axis must differ (the points would be the same)", line)
        seen.append(v)


def _check_name(path: Path, name: str, given: bool, line: int | None) -> None:
    """The sweep's name is part of file and folder names: a plain name, nothing that leads out
    of the output folder. `given`: by `[sweep] name` (written at `line`), not the file's name."""
    where = "[sweep] name" if given else f"the sweep's name (the spec's file name {path.name!r}; give [sweep] name)"
    if not name or name in (".", "..") or ".." in name or "/" in name or "\\" in name or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise _fail(path, f"{where}: {name!r} cannot name files: give a name without '/', '\\', '..' or control characters", line)


def _resolve_profile(path: Path, profile: str, line: int | None) -> str:
    """A built-in profile name as is; a path (not a built-in name, with '/' or ending in
    '.toml') relative to the spec's folder, made absolute and checked as an input. `line`:
    where `[sweep] profile` is written."""
    if profile in _native.profile_names() or not ("/" in profile or profile.endswith(".toml")):
        return profile
    if "\0" in profile:
        raise _fail(path, "[sweep] profile: the path contains a NUL byte", line)
    resolved = os.path.abspath(os.path.join(path.parent, profile))
    try:
        paths.input_file("[sweep] profile", resolved, paths.MAX_TEXT_FILE_BYTES)
    except SsdlabError as error:
        raise _fail(path, f"{error} (a profile path is relative to the spec's folder)", line) from None
    return resolved


def _set(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value) if isinstance(value, float) else str(value)


def _check_spare_factor(spec: Spec, axis: Axis, value) -> None:
    """A spare factor is a number strictly between 0 and 1."""
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1):
        raise SsdlabError(f"{spec.path}: axis {axis.name!r}: spare factor {value!r} must be a number between 0 and 1")


def point_settings(spec: Spec, axes_values: dict, raw_bytes: int | None) -> tuple[list[str], list[str]]:
    """The overrides and workload options of a point with these axis values."""
    overrides = list(spec.overrides)
    workload = list(spec.workload)
    for axis in spec.axes:
        value = axes_values[axis.name]
        if axis.kind == "derived":  # spare_factor
            _check_spare_factor(spec, axis, value)
            user = int((1 - value) * raw_bytes) // 4096 * 4096
            overrides.append(f"drive.capacity_bytes_user={user}")
        elif axis.kind == "field":
            overrides.append(f"{axis.target}={_set(value)}")
        else:
            workload = [w for w in workload if not w.startswith(f"{axis.target}=") and w != axis.target]
            text = ("true" if value else "false") if isinstance(value, bool) else value  # fio's words, not Python's True
            workload.append(f"{axis.target}={text}")
    return overrides, workload


def _sample(spec: Spec, n: int, seed: int) -> list[dict]:
    import numpy as np

    rng = np.random.default_rng(seed)
    d = len(spec.axes)
    if spec.sample == "random":
        u = rng.random((n, d))
    else:  # Latin hypercube: each axis cut in n strata, one point per stratum, shuffled
        u = np.empty((n, d))
        for j in range(d):
            u[:, j] = (rng.permutation(n) + rng.random(n)) / n
    return [{axis.name: axis.value_at(float(u[i, j])) for j, axis in enumerate(spec.axes)} for i in range(n)]


def load(path: str | Path) -> Spec:
    """Parse, expand and validate a sweep spec; every point's profile and job are checked."""
    path = Path(paths.input_file("sweep spec", path, paths.MAX_TEXT_FILE_BYTES))
    try:
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
        data = tomllib.loads(text)
    except RecursionError:
        raise _fail(path, "not valid TOML: arrays or tables nested too deeply") from None
    except UnicodeDecodeError:
        raise _fail(path, "not UTF-8 text (is this a binary file?)") from None
    except tomllib.TOMLDecodeError as error:
        raise _fail(path, f"not valid TOML: {error}") from None
    except OSError as error:
        raise _fail(path, f"cannot read: {paths.why(error)}") from None
    where = _Text(text)
    unknown = set(data) - {"sweep", "axis", "plot"}
    if unknown:
        first = sorted(unknown)[0]
        raise _fail(path, f"unknown section [{first}] (expected [sweep], [[axis]], [plot])", where.line(first))
    if not isinstance(data.get("sweep"), dict):
        raise _fail(path, "missing [sweep] section")
    # Every key's type, before anything is built (msgspec schema).
    try:
        checked = schema.validate(data)
    except schema.SchemaError as error:
        raise _fail(path, str(error), error.table and where.line(error.table, error.key, error.index)) from None
    except RecursionError:
        raise _fail(path, "nested too deeply") from None
    s = {k: v for k, v in msgspec.structs.asdict(checked.sweep).items() if v is not None}
    data = {
        "sweep": s,
        "axis": [{k: v for k, v in msgspec.structs.asdict(a).items() if v is not None} for a in checked.axis],
        "plot": {k: v for k, v in msgspec.structs.asdict(checked.plot).items() if v is not None},
    }
    name = s["name"] if "name" in s else path.stem
    _check_name(path, name, "name" in s, where.line("sweep", "name") if "name" in s else None)
    seeds = s.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= schema.MAX_SEED for x in seeds):
        raise _fail(path, f"[sweep] seeds: expected a non-empty list of whole numbers from 0 to 2^63 - 1 (got {seeds!r})", where.line("sweep", "seeds"))
    repeated = next((x for i, x in enumerate(seeds) if x in seeds[:i]), None)
    if repeated is not None:
        raise _fail(path, f"[sweep] seeds: {repeated} is given twice; each seed must differ (its points would be the same)", where.line("sweep", "seeds"))
    sample = s.get("sample", "grid")
    if sample not in SAMPLES:
        raise _fail(path, f"[sweep] sample: expected one of {', '.join(SAMPLES)} (got {sample!r})", where.line("sweep", "sample"))
    workload = s.get("workload")
    if not isinstance(workload, list) or not workload or not all(isinstance(w, str) for w in workload):
        raise _fail(path, '[sweep] workload: expected a list of fio options (e.g. ["rw=randwrite", "bs=4k"])', where.line("sweep", "workload"))
    raw_axes = data.get("axis", [])
    if not isinstance(raw_axes, list) or not raw_axes:
        raise _fail(path, "no [[axis]]: a sweep needs at least one axis")
    spec = Spec(
        name=str(name),
        path=path,
        profile=_resolve_profile(path, str(s.get("profile", "force-gs-240")), where.line("sweep", "profile")),
        overrides=list(s.get("overrides", [])),
        preconditions=list(s.get("preconditions", [])),
        workload=list(workload),
        seeds=list(seeds),
        sample=sample,
        axes=[_axis(path, where, i, a) for i, a in enumerate(raw_axes)],
        plots=data.get("plot", {}),
    )
    names = [a.name for a in spec.axes]
    if len(set(names)) != len(names):
        again = next(i for i, n in enumerate(names) if n in names[:i])
        raise _fail(path, f"two axes have the same name ({names[again]!r})", where.axis(again, "name"))
    sets: dict[str, str] = {}
    for i, a in enumerate(spec.axes):
        target = "drive.capacity_bytes_user" if a.kind == "derived" else (f"workload option {a.target}" if a.kind == "option" else a.target)
        if target in sets:
            raise _fail(
                path,
                f"axes {sets[target]!r} and {a.name!r} both set {target}; give one axis per profile field or workload option",
                where.axis(i, "option" if a.kind == "option" else "field"),
            )
        sets[target] = a.name
    for i, step in enumerate(spec.preconditions):
        try:
            pre.parse(step)
        except SsdlabError as error:
            raise _fail(path, f"[sweep] preconditions[{i}] {step!r}: {error}", where.line("sweep", "preconditions")) from None
    # The base profile first: its errors name no axis.
    # A spare-factor or user-capacity axis sets the user capacity of every point, so the base is
    # checked with the smallest capacity (the profile's own may not fit the swept NAND geometry).
    base_overrides = list(spec.overrides)
    if any(a.kind == "derived" or a.target == "drive.capacity_bytes_user" for a in spec.axes):
        base_overrides.append("drive.capacity_bytes_user=4096")
    try:
        base = _native.profile_source(spec.profile, base_overrides)
    except SsdlabError as error:
        raise _fail(path, f"[sweep] profile/overrides: {error}", where.line("sweep", "overrides" if spec.overrides else "profile")) from None
    spec.base_source = base
    raw_bytes = _raw_bytes(base)
    _check_plot(spec, where)
    for i, a in enumerate(spec.axes):
        # A derived axis's values checked at their line (a point's settings check them too,
        # without one).
        for value in a.values if a.kind == "derived" else []:
            try:
                _check_spare_factor(spec, a, value)
            except SsdlabError as error:
                raise _fail(path, str(error).removeprefix(f"{spec.path}: "), where.axis(i, "values")) from None
    if sample == "grid":
        for i, a in enumerate(spec.axes):
            if not a.values:
                raise _fail(path, f"axis {a.name!r}: a grid needs values (or range with steps)", where.axis(i, "range"))
        count = math.prod(len(a.values) for a in spec.axes) * len(spec.seeds)
        if count > schema.MAX_POINTS:
            raise _fail(path, f'the grid has {count:,} points (with seeds); at most {schema.MAX_POINTS:,} are accepted: sample it (sample = "lhs") or split it')
        combos = [dict(zip(names, c, strict=True)) for c in itertools.product(*[a.values for a in spec.axes])]
    else:
        n = s.get("points")
        if not isinstance(n, int) or n < 1:
            raise _fail(path, f"[sweep] points: {sample} sampling needs a whole number of points (got {n!r})", where.line("sweep", "points"))
        if n * len(spec.seeds) > schema.MAX_POINTS:
            raise _fail(path, f"{n:,} points x {len(spec.seeds)} seeds; at most {schema.MAX_POINTS:,} are accepted", where.line("sweep", "points"))
        combos = _sample(spec, n, int(s.get("sample_seed", 1)))
    hashes: dict[tuple, str] = {}
    simulations: dict[tuple, dict] = {}  # (profile hash, workload) -> the first combo that is it
    for combo in combos:
        overrides, workload_options = point_settings(spec, combo, raw_bytes)
        key = tuple(overrides)
        if key not in hashes:
            try:
                source = _native.profile_source(spec.profile, overrides)
            except SsdlabError as error:
                raise _fail(path, f"point {_describe(combo)}: {error}") from None
            hashes[key] = hashlib.sha256(source.encode()).hexdigest()[:16]
        try:
            job = _native.job_from_options(spec.name, workload_options)
        except SsdlabError as error:
            raise _fail(path, f"point {_describe(combo)}: {error}") from None
        # The job as parsed, not as spelt: `bs=4k` and `bs=4096` are one simulation.
        same = simulations.setdefault((hashes[key], job.simulation_key()), combo)
        if same is not combo:
            if sample == "grid":
                raise _fail(
                    path, f"points {_describe(same)} and {_describe(combo)} are the same simulation (same profile and job); give axis values that differ"
                )
            spec.duplicates += 1
            continue
        for seed in spec.seeds:
            spec.points.append(
                Point(spec.name, len(spec.points), combo, spec.profile, tuple(overrides), tuple(spec.preconditions), tuple(workload_options), seed, hashes[key])
            )
    return spec


def _check_plot(spec: Spec, where: _Text) -> None:
    """`[plot]`: the heat map's axes are two different axes of the sweep, and the metric is a
    number every point's summary has (checked before any point runs)."""
    heat = spec.plots.get("heatmap")
    names = [a.name for a in spec.axes]
    if heat is not None:
        line = where.line("plot", "heatmap")
        for h in heat:
            if h not in names:
                raise _fail(spec.path, f"[plot] heatmap: {h!r} is not an axis of this sweep (axes: {', '.join(names)})", line)
        if heat[0] == heat[1]:
            raise _fail(spec.path, "[plot] heatmap: give two different axes", line)
    metric = spec.plots.get("metric")
    if metric is not None:
        known = metric_names()
        if metric not in known:
            raise _fail(
                spec.path,
                f"[plot] metric: {metric!r} is not a number of a point's summary (e.g. {', '.join(sorted(known)[:8])}, ...)",
                where.line("plot", "metric"),
            )


_METRICS: list[str] = []


def metric_names() -> list[str]:
    """The numeric keys of a run's summary (nested ones joined with dots), from a one-command
    run on a small data-reduction drive (every key a sweep point can have)."""
    if not _METRICS:
        import pandas as pd

        from ssdlab.drive import Drive

        summary = Drive("force-gs-240", ["nand.blocks_per_plane=64", "drive.capacity_bytes_user=7499997184"]).run(["rw=write", "number_ios=1"]).summary
        flat = pd.json_normalize(summary, sep=".").iloc[0].to_dict()
        _METRICS.extend(k for k, v in flat.items() if isinstance(v, (int, float)) or v is None)
    return _METRICS


def _describe(combo: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in combo.items())


def _raw_bytes(source: str) -> int:
    n = tomllib.loads(source)["nand"]
    keys = ("channels", "packages_per_channel", "dies_per_package", "planes_per_die", "blocks_per_plane", "pages_per_block", "page_bytes")
    return math.prod(n[k] for k in keys)
