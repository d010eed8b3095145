"""Issue 24, round five: nbdkit's worker threads per connection follow the latency mode. Emulated
replies hold a thread each until their simulated completion (64 cover NCQ's 32 in flight);
without emulation 16 suffice, and fewer keep less memory (nbdkit keeps a data buffer per worker
thread as large as the largest request it served)."""

from __future__ import annotations

from served import need

from ssdlab.serve import ServeOptions, command


def threads_of(latency: str) -> int:
    cmd = command(ServeOptions(profile="force-gs-240", backing="/tmp/unused.img", socket="/tmp/unused.sock", latency=latency, control="/tmp/unused.control"))
    return int(cmd[cmd.index("--threads") + 1])


def test_emulated_latency_gets_a_thread_for_every_command_in_flight():
    need("nbdkit")
    assert threads_of("emulate") == 64


def test_no_emulation_gets_16_worker_threads():
    need("nbdkit")
    assert threads_of("none") == 16
