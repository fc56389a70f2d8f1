"""Monte Carlo in fixed-seed chunks, run in this process or on worker processes, with the same counts.

Why chunks: a run of N plays split by the number of workers would give different
counts for different numbers of workers.  Instead the N plays are always cut into
chunks of CHUNK_PLAYS plays (the last one shorter), and chunk ``k`` draws its dice
from its own stream, seeded by :func:`chunk_seed` from the run's seed and ``k``
alone.  Whoever plays a chunk, and in whatever order, it counts the same outcomes;
the counts are added up in chunk order.  So ``--jobs 1`` and ``--jobs 8`` agree
play for play, and a run of at most CHUNK_PLAYS plays draws exactly the dice it
drew before chunks existed (chunk 0 is seeded with the run's seed itself).

Workers are forked from this process (``fork`` start method): they inherit the
loaded ruleset as it is, however it was loaded (a path, a string, a variant), and
nothing but outcome counts travels back.  Where fork is not available (Windows),
every chunk runs in this process.  Workers ignore Ctrl-C: the parent stops them
(by their process ids) and reports one interruption.  The command's timeout is one
deadline shared by every worker (the system-wide monotonic clock); a chunk that
fails in a worker is played again here, where it raises the same error (its dice
are fixed), so an error reads the same whatever ``jobs`` is.
"""

from __future__ import annotations

import functools
import hashlib
import io
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, Protocol

from .errors import Source, WartableError

# Plays in one chunk: small enough to share out 2,000 slow battle plays between two workers,
# large enough that a chunk's own cost (a seeded stream, a call) is lost in a fast procedure's plays.
CHUNK_PLAYS = 1_000

# Worker processes one run may ask for: a typo (--jobs 10000) must not fork ten thousand processes.
MAX_JOBS = 256

# How often the parent looks at the clock, at its workers and at Ctrl-C while it waits (seconds).
POLL_SECONDS = 0.1

# Workers stop themselves at the deadline, and the chunk then fails here with its own position; the
# parent stops them itself only this long after it (a worker stuck where the clock is never read).
DEADLINE_GRACE = 1.0

# A worker reports progress inside a chunk at most this often (seconds): a slow battle's chunk lasts seconds.
PROGRESS_SECONDS = 0.25

Counts = dict[Any, int]
Progress = Callable[[int, int], None]


class WorkerLost(WartableError):
    """A worker process ended without a result (killed from outside, or out of memory)."""


class ChunkJob(Protocol):
    """What plays chunks: ``start()`` once per process (its budget and memos), ``chunk`` once per chunk;
    ``warm(state)`` once in the parent before workers are forked, so that code compiled on first use
    (a procedure's generated Python) is compiled once, not once a worker."""

    def start(self, deadline: float | None) -> Any: ...

    def chunk(self, state: Any, index: int, plays: int, progress: Progress | None) -> Any: ...

    def warm(self, state: Any) -> None: ...


def chunk_seed(seed: int, index: int) -> int:
    """The seed of chunk ``index`` of a run seeded with ``seed``.

    Chunk 0 uses ``seed`` itself (a run of up to CHUNK_PLAYS plays is the run it
    always was); chunk k > 0 uses the first 8 bytes of
    SHA-256("wartable chunk {seed} {k}") read as a big-endian integer: a
    derivation any program can repeat, independent of Python's hash seed.
    """
    if index == 0:
        return seed
    digest = hashlib.sha256(f"wartable chunk {seed} {index}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def chunks(trials: int) -> list[tuple[int, int]]:
    """(chunk index, plays in it) for a run of ``trials`` plays: full chunks, then the rest."""
    full, rest = divmod(trials, CHUNK_PLAYS)
    return [(index, CHUNK_PLAYS) for index in range(full)] + ([(full, rest)] if rest else [])


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def run_chunks(
    job: ChunkJob, trials: int, jobs: int, *, deadline: float | None, timed_out: Callable[[], BaseException],
    progress: Progress | None = None, state: Any = None, fold: Callable[[Any], None] | None = None,
) -> list[Counts]:
    """Every chunk's counts, in chunk order (:func:`run_tasks` over :func:`chunks`), or each given to ``fold``.

    ``state`` is this process's state from ``job.start`` (made here when None);
    ``timed_out()`` is the error raised when ``deadline`` passes while workers play.
    """
    return run_tasks(job, chunks(trials), jobs, deadline=deadline, timed_out=timed_out, progress=progress, state=state, fold=fold)


def run_tasks(
    job: ChunkJob, planned: list[tuple[int, int]], jobs: int, *, deadline: float | None, timed_out: Callable[[], BaseException],
    progress: Progress | None = None, state: Any = None, fold: Callable[[Any], None] | None = None,
) -> list[Any]:
    """What ``job.chunk`` gives for every (index, size) of ``planned``, in that order: chunks of plays, or
    any other tasks (a sweep's rows), played by ``min(jobs, tasks)`` processes (this one when 1).  With ``fold``,
    each result is handed to it instead, in that order, as soon as it and those before it are in (nothing is kept:
    see :class:`Tally`), and the list is empty; an error ``fold`` raises stops the run."""
    reporter = _Reporter(sum(size for _, size in planned), progress)
    reporter.start()
    ordered = _InOrder(planned, fold)
    workers = min(jobs, len(planned))
    if workers <= 1 or not can_fork():
        here = job.start(deadline) if state is None else state
        for index, plays in planned:
            ordered.add(index, job.chunk(here, index, plays, reporter.inside(index)))
            reporter.finished(index, plays)
        return ordered.found
    job.warm(job.start(deadline) if state is None else state)
    _in_workers(job, planned, workers, deadline, timed_out, reporter, state, ordered)
    return ordered.found


class _InOrder:
    """Results handed on in the planned order as they come in, whatever order the workers finish them in: to
    ``fold``, or kept in ``found``.  Only results that arrive before one planned ahead of them wait here."""

    def __init__(self, planned: list[tuple[int, int]], fold: Callable[[Any], None] | None):
        self.order = [index for index, _ in planned]
        self.fold = fold
        self.found: list[Any] = []
        self._next = 0
        self._waiting: dict[int, Any] = {}

    def add(self, index: int, result: Any) -> None:
        self._waiting[index] = result
        while self._next < len(self.order) and self.order[self._next] in self._waiting:
            ready = self._waiting.pop(self.order[self._next])
            self._next += 1
            if self.fold is None:
                self.found.append(ready)
            else:
                self.fold(ready)


class Tally:
    """Chunks' counts added up as they come in (keys in the order first met, chunk by chunk), holding at most
    ``limit`` distinct keys (None: no limit): ``too_many(limit)``, the caller's error, is raised at the chunk that
    passes it.  Chunks come in their planned order (:class:`_InOrder`), so that chunk is the same whatever the
    number of workers.  Without the bound, a procedure whose outcome holds three d1000s sampled a million times
    kept about a million outcomes (2.3 GB with two workers, 65 s against a 20 s timeout: counting them out runs
    after the timed plays)."""

    def __init__(self, limit: int | None, too_many: Callable[[int], BaseException]):
        self.total: Counts = {}
        self.limit = limit
        self.too_many = too_many

    def add(self, counts: Counts) -> None:
        total = self.total
        for key, count in counts.items():
            total[key] = total.get(key, 0) + count
        if self.limit is not None and len(total) > self.limit:
            raise self.too_many(self.limit)


class _Reporter:
    """Progress over the whole run from chunk-local reports, passed on only when the percentage moves."""

    def __init__(self, trials: int, progress: Progress | None):
        self.trials = trials
        self.progress = progress
        self.finished_plays = 0
        self.running: dict[int, int] = {}
        self.shown = -1

    def start(self) -> None:
        """0% before the first play: a slow first chunk shows a line at once."""
        self._show()

    def inside(self, index: int) -> Progress | None:
        if self.progress is None:
            return None

        def report(done: int, _plays: int) -> None:
            self.update(index, done)

        return report

    def update(self, index: int, done: int) -> None:
        self.running[index] = done
        self._show()

    def finished(self, index: int, plays: int) -> None:
        self.running.pop(index, None)
        self.finished_plays += plays
        self._show()

    def _show(self) -> None:
        if self.progress is None:
            return
        done = min(self.trials, self.finished_plays + sum(self.running.values()))
        percent = done * 100 // self.trials
        if percent != self.shown:
            self.shown = percent
            self.progress(done, self.trials)


def _in_workers(
    job: ChunkJob, planned: list[tuple[int, int]], workers: int, deadline: float | None,
    timed_out: Callable[[], BaseException], reporter: _Reporter, state: Any, ordered: _InOrder,
) -> None:
    """The chunks shared out among forked workers; their results handed to ``ordered`` as they come in."""
    context = multiprocessing.get_context("fork")
    tasks = context.Queue()
    results = context.Queue()
    for task in planned:
        tasks.put(task)
    for _ in range(workers):
        tasks.put(None)
    for stream in (sys.stdout, sys.stderr):  # a forked child flushes inherited buffers: empty them first
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    reporting = reporter.progress is not None
    processes = [context.Process(target=_worker, args=(job, deadline, tasks, results, reporting), daemon=True) for _ in range(workers)]
    plays_of = dict(planned)
    failed: int | None = None
    try:
        for process in processes:
            process.start()
        for message in _messages(results, processes, deadline, timed_out, len(planned)):
            kind, index, payload = message
            if kind == "progress":
                reporter.update(index, payload)
            elif kind == "done":
                reporter.finished(index, plays_of[index])
                ordered.add(index, pickle.loads(payload))  # our own workers' bytes (_packed), never outside data
            else:
                failed = index
                break
    finally:
        _stop(processes)
        tasks.close()
        results.close()
    if failed is not None:
        here = job.start(deadline) if state is None else state
        job.chunk(here, failed, plays_of[failed], None)  # raises the worker's error here, with its position
        raise RuntimeError(f"chunk {failed} failed in a worker process and succeeded in this one")


def _messages(results: Any, processes: list, deadline: float | None, timed_out: Callable[[], BaseException], expected: int) -> Iterator[tuple]:
    """Messages from the workers until every chunk is done; the timeout and lost workers raised here."""
    done = 0
    while done < expected:
        try:
            message = results.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if deadline is not None and time.monotonic() > deadline + DEADLINE_GRACE:
                raise timed_out() from None
            lost = [p for p in processes if p.exitcode not in (None, 0)]
            if lost:
                raise WorkerLost(Source("<jobs>", "").diagnostic(
                    1, 1, f"a worker process ended without its result (exit code {lost[0].exitcode}): out of memory? try fewer --jobs"
                )) from None
            continue
        if message[0] != "progress":
            done += 1
        yield message


def _stop(processes: list) -> None:
    """End the workers this run started (by their process ids), and wait for them."""
    for process in processes:
        if process.pid is not None and process.is_alive():
            process.terminate()
    for process in processes:
        if process.pid is not None:
            process.join(timeout=2)
            if process.is_alive():
                process.kill()
                process.join()


# Python 3.11 keeps frames on a stack of 16 KB chunks, and frees a chunk as soon as the frame that opened it
# returns: a play whose calls go up and down across a chunk's end maps and unmaps 16 KB again and again.
# Where the ends fall depends on how deep the caller is, so a worker (started from multiprocessing's frames,
# not the command's) may land on one where the command did not: 455,000 mmap/munmap pairs in 400 plays of a
# fifteen-a-side battle, as much system time as play.  The worker tries a few depths, STEP_FRAMES small frames
# (about 2 KB) apart, on warm-up plays, and plays its chunks at the first depth that does not thrash.
STEP_FRAMES = 20
DEPTHS_TRIED = 8


def _at_depth(levels: int, call: Callable[[], Any]) -> Any:
    """``call()`` under ``levels`` extra small frames."""
    if levels <= 0:
        return call()
    return _at_depth(levels - 1, call)


class _DepthProbe:
    """The extra frames under which a worker plays its chunks: STEP_FRAMES apart, the first depth whose warm-up plays
    fault at most QUIET_FAULTS times, else the one that faulted least.  The worker plays the warm-up chunks itself,
    from its own frame and through the same calls as a real chunk (:func:`_worker`): a probe made one or two frames
    deeper than the chunks (a function of its own, ``warm``) found a quiet depth that was not quiet for them (the
    tenth round: 323,000 minor faults in 4,000 plays with two workers, against 21,000)."""

    def __init__(self) -> None:
        try:
            import resource
        except ImportError:  # pragma: no cover - not a POSIX system (and no fork either)
            resource = None  # type: ignore[assignment]
        self._resource = resource
        self.levels, self.best, self._tried = 0, 0, 0
        self._fewest: int | None = None
        self._before = 0

    def _faults(self) -> int:
        return self._resource.getrusage(self._resource.RUSAGE_SELF).ru_minflt if self._resource is not None else 0

    def next(self) -> bool:
        """Take the faults of the depth just tried (if any); whether to try another (at ``levels``)."""
        if self._tried:
            faults = self._faults() - self._before
            if self._fewest is None or faults < self._fewest:
                self.best, self._fewest = self.levels, faults
            if faults <= QUIET_FAULTS:
                return False
        if self._tried >= DEPTHS_TRIED or self._resource is None:
            return False
        self.levels = self._tried * STEP_FRAMES
        self._tried += 1
        self._before = self._faults()
        return True


# Warm-up plays a depth is tried with (chunk 0's first plays, thrown away).
PROBE_PLAYS = 8
# Minor page faults those plays may take and still count as quiet: once a play.  A thrashing depth takes hundreds or
# thousands; 64 (eight a play) let through a depth that half-thrashed (fifteen_a_side, tenth round: 51-55 faults in
# 8 plays at 60 frames, 28,000 in the run, against 6-9 at 100).
QUIET_FAULTS = PROBE_PLAYS


def _worker(job: ChunkJob, deadline: float | None, tasks: Any, results: Any, reporting: bool) -> None:
    """A worker: chunks from ``tasks`` until the end mark, each one's counts (or its failure) to ``results``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent answers it
    state = job.start(deadline)
    probe = _DepthProbe()
    while probe.next():  # warm-up chunks (thrown away) from this frame, as the real ones below are played
        try:
            _at_depth(probe.levels, functools.partial(job.chunk, job.start(deadline), 0, PROBE_PLAYS, None))
        except Exception:  # noqa: BLE001, S110 - a failing play is reported by the chunk that plays it, with its seed
            pass
    levels = probe.best
    while True:
        task = tasks.get()
        if task is None:
            return
        index, plays = task
        shown = [time.monotonic()]

        def progress(done: int, _plays: int, index: int = index, shown: list[float] = shown) -> None:
            now = time.monotonic()
            if now - shown[0] >= PROGRESS_SECONDS:
                shown[0] = now
                results.put(("progress", index, done))

        try:
            counts = _at_depth(levels, functools.partial(job.chunk, state, index, plays, progress if reporting else None))
            packed = _packed(counts)  # here, not in the queue's feeder thread, where a failure is lost and the parent waits
        except BaseException:  # noqa: BLE001 - any failure, even an internal bug: played again in the parent, which raises it with its traceback or position
            results.put(("failed", index, None))
            return
        results.put(("done", index, packed))


class _ResultPickler(pickle.Pickler):
    """Fractions as (numerator, denominator): Python 3.10's Fraction pickles through str(), which refuses a
    number past 4,300 digits (a sweep row's exact odds of 1,450 rolls), and the row never came back."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Fraction:
            return Fraction, (obj.numerator, obj.denominator)
        return NotImplemented


def _packed(value: Any) -> bytes:
    """A worker's result as bytes, pickled with :class:`_ResultPickler` (unpickled by plain ``pickle.loads``)."""
    buffer = io.BytesIO()
    _ResultPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()
