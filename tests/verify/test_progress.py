"""The progress hook of verify.runtime.progress (the bar of `tvk certify`'s multi-start search)."""

from __future__ import annotations

import pytest

from verify.runtime.progress import counter


def test_counter_draws_from_the_first_update_and_says_done_once(capsys):
    calls: list[str] = []
    with counter(3, "search", done=lambda: calls.append("done")) as update:
        assert capsys.readouterr().err == ""  # nothing before the work starts
        for finished in (1, 2, 3, 3):
            update(finished)
    err = capsys.readouterr().err
    assert calls == ["done"] and "search:" in err and "0/3" in err and err.endswith("\r")  # drawn, then cleared


def test_counter_disabled_draws_nothing_but_still_says_done(capsys):
    calls: list[str] = []
    with counter(2, "search", enabled=False, done=lambda: calls.append("done")) as update:
        update(1)
        update(2)
    assert calls == ["done"] and capsys.readouterr().err == ""


def test_counter_closes_its_bar_when_the_work_fails(capsys):
    with pytest.raises(RuntimeError), counter(5, "search") as update:
        update(2)
        raise RuntimeError("solver failed")
    err = capsys.readouterr().err
    assert "/5" in err and err.endswith("\r")  # the bar cleared its line (leave=False)
