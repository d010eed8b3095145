"""A local sweep runs no more workers than the memory left holds, each building the largest
drive of its points, and says so."""

from ssdlab.drive import profile_info
from ssdlab.sweep import execute
from ssdlab.sweep.spec import Point
from ssdlab.workers import WORKER_BASE_BYTES


def _point(index: int, overrides: tuple) -> Point:
    return Point(sweep="s", index=index, axes={}, profile="conventional-240", overrides=overrides, preconditions=(), workload=("rw=randwrite",), seed=1)


def test_local_workers_are_as_many_as_the_memory_left_holds(monkeypatch, capsys):
    small = ("nand.blocks_per_plane=256", "drive.capacity_bytes_user=29999996928")
    points = [_point(0, small), _point(1, ()), _point(2, small)]
    largest = profile_info("conventional-240")["table_bytes"]
    assert largest > profile_info("conventional-240", list(small))["table_bytes"]
    per_worker = largest + WORKER_BASE_BYTES
    monkeypatch.setattr(execute, "shared_room", lambda: (per_worker * 3 // 2, "a test's limit"))
    assert execute.local_workers(points, 2) == 1
    assert "running 1 point at a time rather than 2" in capsys.readouterr().err
    monkeypatch.setattr(execute, "shared_room", lambda: (per_worker * 2, "a test's limit"))
    assert execute.local_workers(points, 2) == 2
    assert execute.local_workers(points[:1], 4) == 1  # never more workers than points
    monkeypatch.setattr(execute, "shared_room", lambda: None)
    assert execute.local_workers(points, 2) == 2
    assert capsys.readouterr().err == ""
