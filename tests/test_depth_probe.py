"""The depth a sampling worker plays its chunks at (interpreter.parallel._DepthProbe).

Python 3.11 frees a 16 KB chunk of its frame stack as soon as the frame that opened it returns, so a play whose
calls cross a chunk's end maps and unmaps memory on every call: the worker tries depths STEP_FRAMES apart on a few
warm-up plays and keeps the first quiet one (at most one minor fault a play), else the one that faulted least.  The
fault counts below are fed in by hand (the tenth round's measurements of fifteen_a_side), so each choice is known.
"""

from __future__ import annotations

import pytest

from interpreter.parallel import (
    DEPTHS_TRIED,
    PROBE_PLAYS,
    QUIET_FAULTS,
    STEP_FRAMES,
    _DepthProbe,
)


def probed(faults_per_depth: list[int]) -> tuple[int, list[int]]:
    """(the depth chosen, the depths tried) when the warm-up plays at the k-th depth tried fault faults_per_depth[k]."""
    probe = _DepthProbe()
    counter = [0]
    probe._faults = lambda: counter[0]  # type: ignore[method-assign]
    tried = []
    while probe.next():
        tried.append(probe.levels)
        counter[0] += faults_per_depth[len(tried) - 1]  # the warm-up plays at this depth
    return probe.best, tried


def test_quiet_means_at_most_one_fault_a_play():
    assert QUIET_FAULTS == PROBE_PLAYS


def test_the_first_quiet_depth_is_kept_and_no_deeper_one_tried():
    # measured: 0 frames 513 faults, 20: 1,020, 40: 149, 60: 51 (half-thrashing: 28,000 in a 4,000-play run), 80: 145,
    # 100: 6 (quiet: 6 <= 8) -> the sixth depth, 5 * STEP_FRAMES = 100 frames; nothing tried after it
    best, tried = probed([513, 1020, 149, 51, 145, 6, 0, 0])
    assert tried == [0, 20, 40, 60, 80, 100]
    assert best == 5 * STEP_FRAMES == 100


def test_a_depth_of_exactly_one_fault_a_play_is_quiet():
    best, tried = probed([9, PROBE_PLAYS, 0])  # 9 > 8 faults: noisy; 8 <= 8: quiet at the second depth
    assert (best, tried) == (STEP_FRAMES, [0, STEP_FRAMES])


def test_with_no_quiet_depth_the_fewest_faults_win_and_ties_keep_the_first():
    # every depth above 8 faults: the least, 40, was met first at the third depth (2 * 20 = 40 frames) and again
    # at the seventh; the first is kept
    faults = [900, 300, 40, 700, 41, 50, 40, 99]
    assert len(faults) == DEPTHS_TRIED
    best, tried = probed(faults)
    assert tried == [k * STEP_FRAMES for k in range(DEPTHS_TRIED)]
    assert best == 2 * STEP_FRAMES


@pytest.mark.parametrize("quiet_first", [0, 3])
def test_depth_zero_quiet_at_once(quiet_first):
    best, tried = probed([quiet_first] + [1000] * (DEPTHS_TRIED - 1))
    assert (best, tried) == (0, [0])


def test_without_fault_counts_no_depth_is_tried(monkeypatch):
    # a system without the resource module: nothing to measure, the chunks are played where the worker is
    probe = _DepthProbe()
    monkeypatch.setattr(probe, "_resource", None)
    assert probe.next() is False
    assert probe.best == 0
