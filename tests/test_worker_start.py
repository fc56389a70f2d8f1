"""Eighth round (issue 24): a worker finds where its frames do not thrash with PROBE_PLAYS plays a depth tried,
not the parent's WARM_PLAYS; the counts of a run do not depend on it (probes are thrown away)."""

from __future__ import annotations

from interpreter import parallel
from interpreter.api import WARM_PLAYS


class ProbedJob:
    """Records each warm-up it is asked for; faults as many pages as it is told for each depth."""

    def __init__(self, pages_by_try: list[int]) -> None:
        self.asked: list[int | None] = []
        self.pages_by_try = pages_by_try

    def start(self, deadline):  # pragma: no cover - not called by _quiet_depth
        return None

    def chunk(self, state, index, plays, progress):  # pragma: no cover - not called by _quiet_depth
        return {}

    def warm(self, state, plays=None):
        self.asked.append(plays)
        pages = self.pages_by_try[min(len(self.asked), len(self.pages_by_try)) - 1]
        touched = bytearray(pages * 4096)  # new pages: minor faults when written
        for offset in range(0, len(touched), 4096):
            touched[offset] = 1


def test_a_worker_probes_each_depth_with_fewer_plays_than_the_parent_warms():
    assert parallel.PROBE_PLAYS < WARM_PLAYS
    job = ProbedJob([0])
    assert parallel._quiet_depth(job, None) == 0  # quiet at once: one probe, at no extra depth
    assert job.asked == [parallel.PROBE_PLAYS]


def test_a_depth_that_faults_is_left_for_the_next():
    # the first depth tried faults on 4,000 new pages (16 MB: far past QUIET_FAULTS whatever the allocator keeps),
    # the next on none: the worker plays at the second depth, STEP_FRAMES frames deeper, after two probes
    job = ProbedJob([4000, 0])
    assert parallel._quiet_depth(job, None) == parallel.STEP_FRAMES
    assert job.asked == [parallel.PROBE_PLAYS] * 2
