"""Stopping a run: the signals that stop it, and what it kept for the rerun that resumes it.

Who gets the signal and what follows (Linux; the same on other POSIX systems):

- ``timeout -s TERM``, a batch scheduler at its time limit or Ctrl-C signal the ``synthtrust``
  process (and its process group). The chapter's kernel is not in that group: jupyter_client
  starts kernels in a session of their own (``start_new_session``), with ``run_grid``'s loky
  workers and Dask processes in the kernel's group. Left at its default, SIGTERM ended the
  ``synthtrust`` process at once; the kernel noticed (ipykernel's parent poller) and exited,
  and the loky workers, which look at their queue only between tasks, ran on — for the rest of
  their task, and then up to loky's idle timeout.
- :func:`stop_on_signals` turns the first SIGTERM or SIGINT into :class:`RunStopped`, raised in
  the main thread, so the ``finally`` clauses on the way out run. papermill's client shuts the
  kernel down there (``NotebookClient.setup_kernel``), with jupyter_client's
  ``KernelManager.shutdown_kernel(now=True)`` as the runner configures it: SIGKILL to the
  kernel's process group, which holds its loky workers and Dask processes. The kernel manager
  is :func:`kill_only_kernel_manager`'s: jupyter_client's own sends SIGINT to the group first,
  and a loky worker still importing its modules when that arrives prints a
  ``KeyboardInterrupt`` traceback to the terminal before the SIGKILL ends it. A second signal
  while this runs is ignored, so it cannot cut the shutdown short.
- In a kernel stopped otherwise (an interrupt or shutdown from a notebook server, a SIGTERM
  to the kernel alone), SIGINT raises ``KeyboardInterrupt`` in ``run_grid`` and joblib aborts
  the grid: ``abort_everything`` kills the loky workers (``terminate(kill_workers=True)``), a Dask
  cluster started for the grid is closed by the ``with`` that opened it. SIGTERM's default
  would end the kernel before that: :func:`sigterm_unwinds` makes it unwind ``run_grid`` the
  same way first and then end the process with SIGTERM as before.
- The task cache stays consistent however the processes end: ``joblib.Memory`` writes each
  file of an entry to a temporary name and renames it (``concurrency_safe_write``), an entry
  is only read once its ``output.pkl`` exists, and ``run_grid`` checks each entry's digest.

The grid records (:mod:`synthtrust.run._grid_records`) are how the chapter's kernel tells the
``synthtrust`` process how many tasks are in the cache, for the line a stopped run prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import threading
from collections.abc import Iterator

__all__ = [
    "STOP_SIGNALS",
    "RunStopped",
    "kill_only_kernel_manager",
    "sigterm_unwinds",
    "stop_on_signals",
]

#: The signals that stop a run: a scheduler's or ``timeout``'s SIGTERM, Ctrl-C's SIGINT.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class RunStopped(KeyboardInterrupt):
    """A run was stopped by a signal (``signum``) before it finished.

    A ``KeyboardInterrupt``, whatever the signal: code that catches ``Exception`` lets it
    through, joblib aborts its grid on it, and asyncio lets it out of an event loop (it keeps
    other exceptions raised in a callback or task to itself). ``str()`` is ``"stopped by SIGTERM"``, followed by ``"; " + detail`` when a detail
    is given; :attr:`exit_status` is the shell's ``128 + signum``.
    """

    def __init__(self, signum: int, detail: str = ""):
        super().__init__(signum, detail)
        self.signum = int(signum)
        self.detail = detail

    @property
    def exit_status(self) -> int:
        """``128 + signum``: 143 for SIGTERM, 130 for SIGINT."""
        return 128 + self.signum

    def __str__(self) -> str:
        name = signal.Signals(self.signum).name
        return f"stopped by {name}; {self.detail}" if self.detail else f"stopped by {name}"


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Raise :class:`RunStopped` in the block at the first SIGTERM or SIGINT; ignore later ones.

    Only signals left at their defaults are taken over (SIGTERM's ``SIG_DFL``, SIGINT's
    ``KeyboardInterrupt``), and only in the main thread (where Python runs signal handlers);
    elsewhere the block runs unchanged. The previous handlers are restored when the block ends.
    The exception unwinds the block's ``finally`` clauses, e.g. papermill's kernel shutdown;
    the later signals are ignored until the block ends, so that they do not interrupt it.

    A signal that arrives while an asyncio event loop runs (papermill runs nbclient's
    coroutines on one) would leave that loop's tasks behind: run on by the kernel shutdown
    (which runs the loop again) they would log the kernel's death, and finished with an
    exception no one retrieves, asyncio would log them when collected. They are cancelled when
    the signal arrives, and when the block ends they are settled as :func:`asyncio.run` settles
    its tasks: the unfinished ones awaited (for a second at most), the exceptions retrieved.
    """
    defaults = {signal.SIGTERM: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler}
    if not _in_main_thread():
        yield
        return
    taken = [s for s in STOP_SIGNALS if signal.getsignal(s) is defaults[s]]
    stopped: list[int] = []
    left: list = []  # (the loop the signal interrupted, its tasks)

    def handler(signum, frame):
        if stopped:
            return
        stopped.append(signum)
        with contextlib.suppress(RuntimeError):  # no loop running
            loop = asyncio.get_running_loop()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:  # they stop at their next await, before they see the shutdown
                task.cancel()
            left.append((loop, tasks))
        raise RunStopped(signum)

    previous = {s: signal.signal(s, handler) for s in taken}
    try:
        yield
    finally:
        try:
            for loop, tasks in left:
                _settle(loop, tasks)
        finally:
            for s, h in previous.items():
                signal.signal(s, h)


def _settle(loop: asyncio.AbstractEventLoop, tasks, settle_s: float = 1.0) -> None:
    """Cancel and await the unfinished ``tasks`` of ``loop``, retrieve the finished ones'
    exceptions (what :func:`asyncio.run` does with the tasks it leaves)."""
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()  # again: a task may have caught the first cancellation
    if pending and not loop.is_closed() and not loop.is_running():
        loop.run_until_complete(asyncio.wait(pending, timeout=settle_s))
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: not logged when collected


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """SIGTERM in the block unwinds it (as :class:`RunStopped`), then ends the process by SIGTERM.

    For the parallel part of ``run_grid``: the exception goes through joblib, which aborts the
    grid and kills its loky workers, and through the ``with`` that closes a Dask cluster;
    SIGTERM is then raised again with its default action, so the process ends as it would
    have, only after its workers. Does nothing outside the main thread or where SIGTERM has a
    handler already (the handler decides). A second SIGTERM while the block unwinds is ignored.
    """
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    stopped: list[int] = []

    def handler(signum, frame):
        if not stopped:
            stopped.append(signum)
            raise RunStopped(signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    except RunStopped:
        if not stopped:
            raise  # another block's stop, passing through
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if stopped:
        signal.raise_signal(signal.SIGTERM)


@functools.cache
def kill_only_kernel_manager() -> type:
    """The kernel manager of a chapter's kernel: its shutdown kills, without an interrupt first.

    A subclass of jupyter_client's ``AsyncKernelManager`` (nbclient's default), built on first
    call (jupyter_client is imported then, not with this module). Its
    ``shutdown_kernel(now=True)`` sends only SIGKILL to the kernel's process group, where
    jupyter_client's interrupts first: SIGINT to the group, SIGKILL a moment later. That SIGINT
    reaches the kernel's loky workers too, and a worker still importing its modules (a grid
    that has just started one) dies of it with a ``KeyboardInterrupt`` traceback on the
    terminal, in the middle of a stopped run's one-line message. Interrupts outside a shutdown
    (a cell's timeout) are unchanged.
    """
    from jupyter_client.manager import AsyncKernelManager

    class KillOnlyKernelManager(AsyncKernelManager):
        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    KillOnlyKernelManager.__module__ = __name__
    KillOnlyKernelManager.__qualname__ = "KillOnlyKernelManager"
    return KillOnlyKernelManager
