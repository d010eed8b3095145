"""The thermal and power-state suites of today's lab (issue 22) at a small scale: the thermal run
reaches throttling on a drive that throttles and never on one that does not (and the throttled
seconds are the slow ones); wake-up latency from PS4 is the profile's exit latency plus the
drive's own first-command time, idle power in each state is the profile's; the presets pick the
suites where the profile has the models."""

import tomllib
from pathlib import Path

import pytest

from ssdlab.lab.context import ReviewContext
from ssdlab.lab.review import preset_for
from ssdlab.lab.suites import power_states, thermal

SCALE = 0.05


def run_suite(module, profile: str, tmp_path: Path, **settings):
    ctx = ReviewContext(profile, scale=SCALE, out_dir=tmp_path, **settings)
    ctx.suite = module.NAME
    return ctx, module.run(ctx)


def figures(result) -> dict[str, float]:
    return {m.key: m.value for m in result.metrics}


def test_the_thermal_run_throttles_a_drive_that_throttles_and_not_one_that_does_not(tmp_path):
    # The Samsung 980 PRO in a warm case (40 C) reaches its first throttling step (82 C) and
    # slows while throttled; once idle it cools below it.
    ctx, hot = run_suite(thermal, "samsung-980-pro-1tb", tmp_path / "pro", ambient_c=40.0)
    got = figures(hot)
    first_c = tomllib.loads(ctx.info()["source"])["thermal"]["throttle_c"][0]
    series = hot.tables["thermal"]
    writing = series[series["phase"] == "sustained write"]
    assert got["peak_c"] >= first_c
    assert got["throttled_share"] > 0.1, got
    # Throttling cost speed: the same write on a drive whose firmware does not throttle is faster.
    assert got["mean_write_mbps"] < 0.95 * got["baseline_write_mbps"] and got["throttle_cost"] > 0.05, got
    assert (writing["throttle_step"] > 0).any() and got["first_throttle_s"] > 0
    assert got["after_idle_c"] < first_c - 2.0, got
    assert (tmp_path / "pro" / "charts" / "thermal.png").stat().st_size > 5000
    # The Samsung 870 EVO (SATA, 2.5-inch case) at the same ambient never gets there.
    ctx, cool = run_suite(thermal, "samsung-870-evo-4tb", tmp_path / "evo", ambient_c=40.0)
    got = figures(cool)
    step_c = tomllib.loads(ctx.info()["source"])["thermal"]["throttle_c"][0]
    assert "first_throttle_s" not in got and got["throttled_share"] == 0.0, got
    assert got["mean_write_mbps"] == got["baseline_write_mbps"] and got["throttle_cost"] == 0.0, got
    assert got["peak_c"] < step_c and (cool.tables["thermal"]["throttle_step"].fillna(0) == 0).all()


def test_wake_up_from_ps4_is_the_exit_latency_plus_the_first_command_time(tmp_path):
    ctx, result = run_suite(power_states, "samsung-980-pro-1tb", tmp_path)
    power = tomllib.loads(ctx.info()["source"])["power"]
    states = result.tables["power_states"].set_index("state")
    first_ms = states.loc["PS0", "wake_ms"]
    assert 0.0 < first_ms < 1.0
    for ps in range(len(power["state_mw"])):
        row = states.loc[f"PS{ps}"]
        # Wake-up: the state's exit latency on top of the same read in PS0, to the nanosecond.
        assert row["wake_ms"] - first_ms == pytest.approx(power["exit_latency_us"][ps] / 1e3, abs=1e-6), (ps, row.to_dict())
        # Idle power: a non-operational state's power; an operational one's idle power.
        expected_w = power["state_mw"][ps] / 1e3 if not power["operational"][ps] else ctx.info()["idle_watts"]
        assert row["idle_w"] == pytest.approx(expected_w, rel=0.01), (ps, row.to_dict())
    assert states.loc["PS4", "how"] == "APST took the drive there"
    walk = result.tables["power_apst_walk"]
    assert list(dict.fromkeys(walk["state"])) == [0, 3, 4]
    # Active power in PS0 stays within the state's maximum.
    active = result.tables["power_active"]
    assert (active["power_w"] > 1.0).all() and (active["power_w"] <= power["state_mw"][0] / 1e3).all(), active
    for chart in ("power_states_idle", "power_states_wake", "power_states_apst", "power_states_active"):
        assert (tmp_path / "charts" / f"{chart}.png").stat().st_size > 5000


def test_presets_pick_the_heat_and_power_suites_where_the_profile_has_the_models(tmp_path):
    pro = preset_for(ReviewContext("samsung-980-pro-1tb", scale=SCALE, out_dir=tmp_path).info())
    assert "thermal" in pro.suites and "power-states" in pro.suites
    qvo = preset_for(ReviewContext("samsung-870-qvo-1tb", scale=SCALE, out_dir=tmp_path).info())
    assert "thermal" in qvo.suites and "power-states" not in qvo.suites
    assert any(name == "power-states" and "nvme" in why for name, why in qvo.left_out)
    # A profile without the models: the suites are left out, and the report says why.
    source = tomllib.loads(ReviewContext("samsung-970-evo-500").info()["source"])
    text = Path(tmp_path / "no-models.toml")
    lines = ReviewContext("samsung-970-evo-500").info()["source"].split("\n[power]")[0]
    text.write_text(lines)
    assert "thermal" in source
    bare = preset_for(ReviewContext(str(text), scale=SCALE, out_dir=tmp_path).info())
    assert "thermal" not in bare.suites and "power-states" not in bare.suites
    assert dict(bare.left_out)["thermal"].startswith("needs the profile's [thermal] model")


def test_idle_power_is_measured_once_a_slowly_folding_drive_is_at_rest(tmp_path):
    # Native programs 30 ms long: the drive folds the SLC data it was given for far longer
    # than the minimum rest (a minute, scaled). Idle power is measured once it is at rest, so
    # an operational state's idle power is the controller's idle power, not idle plus folding.
    ctx, result = run_suite(power_states, "samsung-980-pro-1tb", tmp_path, overrides=["media.t_prog_ns=30000000", "nand.t_prog_ns=30000000"])
    states = result.tables["power_states"].set_index("state")
    for ps in (0, 1, 2):
        assert states.loc[f"PS{ps}", "idle_w"] == pytest.approx(ctx.info()["idle_watts"], rel=0.01), states
    assert not any("still doing NAND work" in n for n in result.notes), result.notes
