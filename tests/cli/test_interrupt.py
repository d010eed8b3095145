"""Long simulations release the GIL and stop promptly on Ctrl-C."""

import signal
import subprocess
import sys
import threading
import time

from ssdlab import Drive


def test_ctrl_c_stops_a_long_run_with_status_130():
    p = subprocess.Popen(
        [sys.executable, "-m", "ssdlab.cli", "run", "--rw=randwrite", "--bs=4k", "--iodepth=32", "--runtime=100000", "--time_based", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    started = time.time()
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert time.time() - started < 5
    assert err.strip() == "ssdlab: interrupted"


def test_runs_release_the_gil(small_overrides):
    drive = Drive(overrides=small_overrides + ["reduction.enabled=false"])
    ticks = 0
    done = threading.Event()

    def count():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    started = time.perf_counter()
    drive.run(["rw=randwrite", "bs=4k", "iodepth=32", "runtime=3000", "time_based"])
    wall = time.perf_counter() - started
    done.set()
    thread.join()
    # The counting thread kept running while the simulation ran.
    assert wall > 0.2
    assert ticks > 0.3 * wall / 0.001 * 0.5, (ticks, wall)
