"""Which claims an ``--only`` value selects: its shell patterns, and the one message when none matches.

Torch-free and in the lowest room (docs/architecture.md), so that the claim index, the claims' registry and the
report application share one rule and one message (``tvk list`` and ``tvk report`` say the same).
"""

from __future__ import annotations

__all__ = ["claim_patterns", "no_match_message"]


def claim_patterns(pattern: str | None, option: str = "--only") -> list[str]:
    """The shell-style alternatives of an ``--only`` value: comma-separated, blanks ignored; None means every claim.
    ``option`` is the option the message of an empty value names (the pytest plugin's ``--tvk``).

    >>> claim_patterns("shi-*, karp-ch3-*")
    ['shi-*', 'karp-ch3-*']
    >>> claim_patterns(None)
    ['*']
    >>> claim_patterns(" , ")
    Traceback (most recent call last):
    ...
    ValueError: --only ' , ' names no pattern: give shell patterns such as 'shi-*' (comma-separated), or leave --only out for every claim
    """
    if pattern is None:
        return ["*"]
    pats = [p.strip() for p in pattern.split(",") if p.strip()]
    if not pats:
        raise ValueError(
            f"{option} {pattern!r} names no pattern: give shell patterns such as 'shi-*' (comma-separated), or leave "
            f"{option} out for every claim"
        )
    return pats


def no_match_message(pattern: str | None, scale: str, what: str = "") -> str:
    """The one message of ``tvk list`` and ``tvk report`` when no claim matches ``pattern`` at ``scale``."""
    return f"no{what} claim matches {pattern!r} at scale {scale!r}; `tvk list` shows the claim ids"
