"""collector_paused: no collection inside the block, the collector back on after, a kept load frozen."""

from __future__ import annotations

import gc

from memtui.notes.bulk import collector_paused


def test_the_collector_is_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "a collector that was off stays off"
    finally:
        gc.enable()


def test_a_kept_load_is_frozen_out_of_later_passes() -> None:
    gc.unfreeze()
    try:
        with collector_paused(keep=True):
            kept = [[n] for n in range(1000)]
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
