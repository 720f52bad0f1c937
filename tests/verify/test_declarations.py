"""The declarations a claim carries (docs/verdicts.md): a deviation from the source's settings, a post-hoc choice,
an erratum and a resolution each refuse to be made without the fields a reader needs to weigh the verdict."""

from __future__ import annotations

import pytest

from verify.claims.base import Deviation, Erratum, PostHoc, Resolution

REASON = "the pilots showed it"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Deviation("lr", "1 (App. B.4.1)", " ", REASON), "a deviation needs"),
        (lambda: Deviation("", "1 (App. B.4.1)", "0.1", REASON), "a deviation needs"),
        (lambda: Deviation("lr", "1 (App. B.4.1)", "0.1", "faster"), "a deviation needs"),
        (lambda: PostHoc("level", "0.99", "", REASON), "a post-hoc choice needs"),
        (lambda: PostHoc("level", "0.99", "pilot 3", "two words"), "a post-hoc choice needs"),
        (lambda: Erratum("slip", "printed text", "p. 12, Eq. 3"), "erratum kind must be one of"),
        (lambda: Erratum("typo", "printed", "p. 12, Eq. 3"), "an erratum needs"),
        (lambda: Resolution(0.0, "a Monte Carlo standard error"), "a resolution needs"),
        (lambda: Resolution(0.5, "a Monte Carlo standard error", "entry 3"), "say which entries"),
    ],
)
def test_an_incomplete_declaration_is_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_complete_declarations_are_kept_as_given():
    dev = Deviation("learning rate eta", "1 (App. B.4.1)", "0.1", REASON)
    post = PostHoc("level", "0.99", "pilot run 3", REASON)
    assert (dev.value, post.when) == ("0.1", "pilot run 3")
