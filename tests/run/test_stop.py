"""Tests of ``synthtrust.run._stop``: a run stopped by SIGTERM or SIGINT stops.

The process tests start ``synthtrust run`` (or a script calling ``run_grid``) as a subprocess,
record every descendant it starts while it runs (psutil), signal it while its two loky workers
compute, and check that within 10 s of the signal no recorded process is left, the exit status
and the one line printed, and that a rerun computes exactly the tasks the stopped run had not
cached. They run the ``stoppable`` chapter of tests/fixtures/book/unlisted (8 tasks of 1 s),
copied into the book fixture.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import joblib
import psutil
import pytest

from synthtrust.run._stop import RunStopped
from synthtrust.run.experiment import replicate_rngs

N_TASKS = 8
SECONDS = 1.0
GRACE_S = 10.0


# ---------------------------------------------------------------------------------------------
# The exception and the progress record
# ---------------------------------------------------------------------------------------------
def test_run_stopped_names_the_signal_and_exits_with_128_plus_its_number():
    term = RunStopped(signal.SIGTERM, "3 of 8 tasks cached, rerun to resume")
    assert str(term) == "stopped by SIGTERM; 3 of 8 tasks cached, rerun to resume"
    assert term.exit_status == 143 and term.signum == 15
    assert str(RunStopped(signal.SIGINT)) == "stopped by SIGINT"
    assert RunStopped(signal.SIGINT).exit_status == 130
    assert isinstance(term, KeyboardInterrupt) and not isinstance(term, Exception)


# ---------------------------------------------------------------------------------------------
# The kernel's shutdown: SIGKILL to its process group, no SIGINT first
# ---------------------------------------------------------------------------------------------
_CHILD = """
import signal, sys, time
def caught(signum, frame):
    open(sys.argv[1], "w").write("SIGINT")
    sys.exit(0)
signal.signal(signal.SIGINT, caught)
open(sys.argv[2], "w").write("ready")
time.sleep(120)
"""


def _shutdown_with_a_child_in_the_group(manager_class, tmp_path) -> tuple[bool, bool]:
    """Start a kernel of ``manager_class``, have it start a child in its process group (the
    child writes ``caught`` at SIGINT), shut the kernel down at once; return (child caught a
    SIGINT, child still alive 5 s later). The kill waits a second, so that a SIGINT sent before
    it is seen however busy the machine."""
    import asyncio
    import concurrent.futures

    class DelayedKill(manager_class):
        async def _async_kill_kernel(self, restart: bool = False) -> None:
            await asyncio.sleep(1.0)
            await super()._async_kill_kernel(restart)

    caught, ready = tmp_path / "caught", tmp_path / "ready"
    code = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {_CHILD!r}, {str(caught)!r}, "
        f"{str(ready)!r}])\n"
        "print(child.pid)"
    )

    async def main() -> int:
        km = DelayedKill(kernel_name="python3")
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            await kc.wait_for_ready(timeout=60)
            pids = []
            await kc.execute_interactive(
                code, timeout=60, output_hook=lambda m: pids.append(m["content"].get("text"))
            )
            deadline = time.monotonic() + 30
            while not ready.exists():
                assert time.monotonic() < deadline, "the kernel's child never started"
                await asyncio.sleep(0.05)
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)
        return int("".join(p for p in pids if p).strip())

    # a thread of its own: an earlier test of this worker may leave an event loop running in
    # the main thread (asyncio.run then refuses to start)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pid = pool.submit(asyncio.run, main()).result()
    deadline = time.monotonic() + 5
    while psutil.pid_exists(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    return caught.exists(), alive


def test_the_kernel_is_killed_without_an_interrupt_to_its_workers(tmp_path):
    from jupyter_client.manager import AsyncKernelManager

    from synthtrust.run._stop import kill_only_kernel_manager

    manager = kill_only_kernel_manager()
    assert issubclass(manager, AsyncKernelManager) and manager is kill_only_kernel_manager()
    # jupyter_client's own manager interrupts the group first: the child sees SIGINT
    (tmp_path / "stock").mkdir()
    assert _shutdown_with_a_child_in_the_group(AsyncKernelManager, tmp_path / "stock") == (
        True,
        False,
    )
    # the run's manager: SIGKILL alone, the child ends without seeing a SIGINT
    (tmp_path / "run").mkdir()
    assert _shutdown_with_a_child_in_the_group(manager, tmp_path / "run") == (False, False)


# ---------------------------------------------------------------------------------------------
# The signal handlers, each in a process of its own
# ---------------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _stop_signals_not_ignored():
    """SIGINT and SIGTERM not ignored in this process while a test runs, so that its children
    start with them at their defaults, as a shell's foreground job does: a test run in the
    background of a non-interactive shell inherits SIGINT ignored, and a child exec'ed from it
    would ignore it too (an ignored signal stays ignored across exec; a handler becomes the
    default). Set here rather than in the child (``preexec_fn``), which would fork a process
    that has JAX's threads."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    previous = {sig: signal.getsignal(sig) for sig in defaults}
    for sig, handler in defaults.items():
        if previous[sig] is signal.SIG_IGN:
            signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _python(code: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        **kwargs,
    )


def test_stop_on_signals_raises_once_unwinds_and_restores_the_handlers():
    done = _python(
        """
        import os, signal, time
        from synthtrust.run._stop import RunStopped, stop_on_signals
        try:
            with stop_on_signals():
                try:
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(5)
                    print("not stopped")
                finally:
                    os.kill(os.getpid(), signal.SIGINT)  # ignored while the stop unwinds
                    time.sleep(0.2)
                    print("unwound")
        except RunStopped as exc:
            print(exc.signum, exc.exit_status)
        print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
              signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["unwound", "15 143", "True True"]


def test_stop_in_an_event_loop_settles_its_tasks_silently():
    # the signal arrives in a loop's callback (the loop re-raises it), as in papermill's client
    done = _python(
        """
        import asyncio, gc, os, signal
        from synthtrust.run._stop import RunStopped, stop_on_signals
        loop = asyncio.new_event_loop()
        async def fails():
            await asyncio.sleep(0.3)
            raise ValueError("an exception no one retrieves")
        async def main():
            loop.call_later(0.1, os.kill, os.getpid(), signal.SIGINT)
            await asyncio.sleep(30)
        failing, sleeping = loop.create_task(fails()), loop.create_task(main())
        try:
            with stop_on_signals():
                try:
                    loop.run_until_complete(sleeping)
                finally:  # as papermill's kernel shutdown, the loop runs again: fails() fails
                    loop.run_until_complete(asyncio.sleep(0.5))
        except RunStopped as exc:
            print(exc)
        print(failing.done(), sleeping.cancelled())
        del failing, sleeping
        gc.collect()
        loop.close()
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["stopped by SIGINT", "True True"]
    assert done.stderr == ""  # no "Task exception was never retrieved"


@pytest.mark.parametrize("own_handler", [False, True])
def test_sigterm_unwinds_the_block_then_ends_the_process_by_sigterm(own_handler):
    done = _python(
        f"""
        import os, signal, time
        from synthtrust.run._stop import sigterm_unwinds
        if {own_handler}:
            signal.signal(signal.SIGTERM, lambda s, f: print("own handler", flush=True))
        with sigterm_unwinds():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)
            finally:
                print("unwound", flush=True)
        print("after", flush=True)
        """
    )
    if own_handler:  # the process's own handler decides: here it returns
        assert done.returncode == 0 and done.stdout.splitlines() == [
            "own handler",
            "unwound",
            "after",
        ]
    else:
        assert done.returncode == -signal.SIGTERM
        assert done.stdout.splitlines() == ["unwound"]


# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------
def _cached_entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("output.pkl"))


def _cached_tasks(cache: Path, seconds: float = SECONDS) -> set[int]:
    """The tasks whose entries the cache holds, each whole (its frame matches its digest);
    a task is recognised by its draw (the oracle: ``replicate_rngs`` of its cell)."""
    draws = {
        replicate_rngs({"task": k, "seconds": seconds}, [0], seed=0)[0].random(): k
        for k in range(N_TASKS)
    }
    tasks = set()
    for entry in _cached_entries(cache):
        digest, frame = joblib.load(entry)
        assert digest == joblib.hash(frame), entry
        tasks.add(draws[float(frame["x"].iloc[0])])
    return tasks


def _loky_workers(procs) -> int:
    n = 0
    for proc in procs.values():
        try:
            n += proc.is_running() and "popen_loky_posix" in " ".join(proc.cmdline())
        except psutil.Error:
            pass
    return n


def _alive(procs) -> list[str]:
    left = []
    for proc in procs.values():
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{proc.pid} {' '.join(proc.cmdline())[:100]}")
        except psutil.NoSuchProcess:
            pass
    return left


def _stop_while_busy(argv, sig, ready, env, timeout=90.0):
    """Start ``argv``, record its descendants, send ``sig`` once ``ready(procs)``; return (exit
    status, stdout, stderr, processes left 10 s after the signal)."""
    # files, not pipes: a process left behind would hold a pipe open
    out_file, err_file = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    child = subprocess.Popen(
        argv,
        stdout=out_file,
        stderr=err_file,
        text=True,
        env=env,
        start_new_session=True,  # the signal goes to the child alone, as timeout's does
    )
    root, procs = psutil.Process(child.pid), {}

    def record():
        try:
            for proc in root.children(recursive=True):
                procs.setdefault(proc.pid, proc)
        except psutil.NoSuchProcess:
            pass

    try:
        deadline = time.monotonic() + timeout
        while not ready(procs):
            assert child.poll() is None, "the run ended before it got busy"
            assert time.monotonic() < deadline, "the run never got busy"
            record()
            time.sleep(0.1)
        record()
        sent = time.monotonic()
        child.send_signal(sig)
        while child.poll() is None and time.monotonic() < sent + GRACE_S:
            record()
            time.sleep(0.1)
        while _alive(procs) and time.monotonic() < sent + GRACE_S:
            time.sleep(0.1)
        left = ([f"{child.pid} (the command)"] if child.poll() is None else []) + _alive(procs)
        out_file.seek(0)
        err_file.seek(0)
        return child.returncode, out_file.read(), err_file.read(), left
    finally:  # a failed test leaves nothing behind either
        for proc in [*procs.values(), root]:
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass
        child.wait(timeout=GRACE_S)
        out_file.close()
        err_file.close()


@pytest.fixture
def stoppable(book, tmp_path):
    """The book fixture with the stoppable chapter, and the environment of its runs (the
    tasks log their number into ``tmp_path/tasks.log``)."""
    shutil.copytree(book / "unlisted" / "chapters", book / "chapters", dirs_exist_ok=True)
    log = tmp_path / "tasks.log"
    return {**os.environ, "SYNTHTRUST_STOP_LOG": str(log)}, log


def _cli(*args) -> list[str]:
    return [sys.executable, "-m", "synthtrust.cli", "run", "stoppable", "--no-progress", *args]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopped_run_leaves_no_process_and_resumes_from_the_cache(stoppable, tmp_path, sig):
    env, log = stoppable
    cache = tmp_path / "cache"
    argv = _cli("--n-jobs", "2", "--cache-dir", str(cache), "--out", str(tmp_path / "run"))

    def ready(procs):  # a task is cached, the two workers compute the next ones
        return bool(_cached_entries(cache)) and _loky_workers(procs) == 2

    status, out, err, left = _stop_while_busy(argv, sig, ready, env)
    assert left == []
    assert status == 128 + sig, (out, err)
    name = signal.Signals(sig).name
    lines = err.splitlines()
    assert len(lines) == 1 and out == "", err
    found = re.fullmatch(
        rf"synthtrust: stopped by {name}; (\d+) of {N_TASKS} tasks cached, rerun to resume",
        lines[0],
    )
    assert found, lines[0]
    cached = _cached_tasks(cache)  # every entry whole
    assert int(found[1]) == len(cached) and 1 <= len(cached) < N_TASKS
    assert not (tmp_path / "run" / "manifest.json").exists()

    log.unlink()
    rerun = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    computed = [int(line) for line in log.read_text().split()]
    assert sorted(computed) == sorted(set(range(N_TASKS)) - cached)  # only the rest
    assert _cached_tasks(cache) == set(range(N_TASKS))
    assert (tmp_path / "run" / "manifest.json").is_file()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopped_estimate_leaves_no_process(stoppable, sig):
    env, log = stoppable
    argv = _cli("--estimate", "--estimate-tasks", str(N_TASKS))

    def ready(procs):  # the two workers time their first tasks
        return _loky_workers(procs) == 2

    status, out, err, left = _stop_while_busy(argv, sig, ready, env)
    assert left == []
    assert status == 128 + sig, (out, err)
    name = signal.Signals(sig).name
    assert err.splitlines() == [
        f"synthtrust: stopped by {name}; no estimate (0 grid(s) timed), nothing was written"
    ]
    assert out == ""


def test_stopped_run_on_a_local_dask_cluster_leaves_no_process(stoppable, tmp_path):
    pytest.importorskip("distributed")
    env, _ = stoppable
    cache = tmp_path / "cache"
    argv = _cli("--dask", "local", "--n-jobs", "2", "--cache-dir", str(cache))
    status, _, err, left = _stop_while_busy(
        argv, signal.SIGTERM, lambda procs: bool(_cached_entries(cache)), env
    )
    assert left == []
    assert status == 143
    cached = _cached_tasks(cache)
    assert err.splitlines() == [
        f"synthtrust: stopped by SIGTERM; {len(cached)} of {N_TASKS} tasks cached, rerun to resume"
    ]


GRID_SCRIPT = """
import os, sys, time
import pandas as pd
from synthtrust.run.experiment import run_grid

def wait(params, rngs):
    time.sleep(params["seconds"])
    with open(os.environ["SYNTHTRUST_STOP_LOG"], "a") as fh:
        fh.write(f"{params['task']}\\n")
    return pd.DataFrame({"x": [rng.random() for rng in rngs]})

run_grid(wait, {"task": list(range(8)), "seconds": 0.5}, 1, 0, chunk_size=1, n_jobs=2,
         cache_dir=sys.argv[1], progress=False)
print("finished")
"""


@pytest.mark.parametrize(
    ("sig", "estimate"),
    [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGTERM, True)],
    ids=["SIGTERM", "SIGINT", "SIGTERM-estimate"],
)
def test_run_grid_stops_its_workers_when_its_process_is_stopped(tmp_path, sig, estimate):
    # the kernel's side: run_grid's own process gets the signal (a kernel interrupt, or the
    # SIGTERM jupyter_client sends a kernel that does not shut down)
    cache, log = tmp_path / "cache", tmp_path / "tasks.log"
    env = {**os.environ, "SYNTHTRUST_STOP_LOG": str(log)}
    if estimate:
        env["SYNTHTRUST_ESTIMATE"] = str(tmp_path / "stages.jsonl")
    argv = [sys.executable, "-c", GRID_SCRIPT, str(cache)]

    def ready(procs):
        busy = _loky_workers(procs) == 2
        return busy and (estimate or bool(_cached_entries(cache)))

    status, out, _, left = _stop_while_busy(argv, sig, ready, env)
    assert left == []
    assert status == -sig and "finished" not in out  # the process ends by its signal
    if estimate:
        assert not cache.exists()  # estimate mode reads and writes no cache
        return
    cached = _cached_tasks(cache, seconds=0.5)
    assert 1 <= len(cached) < N_TASKS
    if sig == signal.SIGINT:
        return  # joblib's own abort; the resume is the same as after SIGTERM
    log.unlink()
    rerun = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert rerun.returncode == 0 and rerun.stdout == "finished\n", rerun.stderr
    assert sorted(int(x) for x in log.read_text().split()) == sorted(set(range(8)) - cached)
