"""Where the report's code and docs links lead (verify/report/links.py): a claim's registration line (its
``register(Claim(...))``, never a mere mention of its id), the web address of a file at a commit, the docs page of a
claim's task and the parts of its source line. Small modules and CITATION.cff files are written by the tests."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from verify.report import links


def _fake_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> Any:
    """A claim-like object whose ``observe`` belongs to the module ``name``, whose file (never imported) is
    ``source``; the module is found on ``sys.path``."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))

    def observe() -> None: ...

    observe.__module__ = name
    return SimpleNamespace(observe=observe, predict=observe)


MODULE = """\
    MENTIONED = ("zz-qa-claim", "other")  # line 1: the id mentioned before its claim
    X = Claim(id="zz-qa-a", corrected_by="zz-qa-grid")  # line 2: a reference to the grid claim
    GRID = Grid(claim_id="zz-qa-grid")  # line 3: the grid claim's id, written where the grid is defined


    register(  # line 6: the registration of zz-qa-claim
        Claim(
            id="zz-qa-claim",
            statement="about zz-qa-grid",
        )
    )
    """


def test_a_claim_links_to_its_registration_not_to_a_mention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The code link of a claim is the line of the ``register(...)`` around its ``Claim(id=...)``, even when its id
    is written as a string earlier in the module."""
    monkeypatch.setattr(links, "_claim_files", lambda: ())  # this module alone: no parse of every claim module
    claim = _fake_claim(tmp_path, monkeypatch, "zz_qa_claims_one", MODULE)
    loc = links.claim_location("zz-qa-claim", claim)
    assert loc is not None and loc.line == 6 and loc.file == str(tmp_path / "zz_qa_claims_one.py")
    assert loc.module == "zz_qa_claims_one"


def test_a_grid_claim_links_to_its_grid_not_to_a_correction_pointing_at_it(tmp_path, monkeypatch) -> None:
    """An id built another way (a grid's ``claim_id``) is found where it is written as the grid's id; a
    ``corrected_by`` (or ``statement``) naming it is a reference, not its definition."""
    monkeypatch.setattr(links, "_claim_files", lambda: ())
    claim = _fake_claim(tmp_path, monkeypatch, "zz_qa_claims_two", MODULE)
    loc = links.claim_location("zz-qa-grid", claim)
    assert loc is not None and loc.line == 3


def test_a_location_without_a_line_is_its_path() -> None:
    """``path:line`` when the line is known, the path alone otherwise (never ``path:None``)."""
    assert links.ClaimLocation("verify/claims/x.py", None, "/r/verify/claims/x.py", None).text == "verify/claims/x.py"
    assert links.ClaimLocation("verify/claims/x.py", 7, "/r/verify/claims/x.py", None).text == "verify/claims/x.py:7"


@pytest.fixture
def web_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout whose CITATION.cff names its repository with a ``.git`` suffix."""
    (tmp_path / "CITATION.cff").write_text('cff-version: 1.2.0\nrepository-code: "https://example.org/o/tvk.git"\n')
    monkeypatch.setattr(links, "REPO_ROOT", tmp_path)
    links.repository_url.cache_clear()
    yield tmp_path
    links.repository_url.cache_clear()


def test_a_web_link_names_the_repository_page_the_commit_and_the_line(web_repo: Path) -> None:
    """CITATION.cff's address without ``.git``, the file at the commit, ``#L<line>`` only when the line is known."""
    rev = "0123456789abcdef0123456789abcdef01234567"
    assert links.repository_url() == "https://example.org/o/tvk"
    assert links.file_href("verify/claims/x.py", 12, rev, None) == (
        f"https://example.org/o/tvk/blob/{rev}/verify/claims/x.py#L12"
    )
    assert links.file_href("docs/x.md", None, rev, None) == f"https://example.org/o/tvk/blob/{rev}/docs/x.md"


@pytest.mark.parametrize("revision", ["0123abc-dirty", "unknown", "main", None])
def test_a_revision_that_is_not_a_commit_links_to_the_local_file(web_repo: Path, revision: str | None) -> None:
    """Only a commit hash makes a web link (a ``-dirty`` or unknown revision has no page): the local file instead."""
    href = links.file_href("verify/claims/x.py", 3, revision, None)
    assert href == (web_repo / "verify/claims/x.py").as_uri()


def test_a_claims_docs_page_is_its_tasks_page() -> None:
    """A claim of ``verify/claims/<task>/...`` or ``verify/claims/<task>.py`` links to ``docs/<task>.md``."""
    for path, page in (("verify/claims/lsa/optimal.py", "docs/lsa.md"), ("verify/claims/parity.py", "docs/parity.md")):
        loc = links.ClaimLocation(path, 1, str(links.REPO_ROOT / path), None)
        assert (links.REPO_ROOT / page).is_file()
        assert links.docs_page(loc, "no docs named here", "") == page


def test_the_source_line_without_its_document_and_chapter() -> None:
    """``where`` is the source after its document's name and chapter: what the report's source column shows."""
    parts = links.source_parts("Shi thesis (2024), Ch. 4, Theorem 4.9 (p. 57)", "Shi thesis (2024)", "Chapter 4")
    assert parts["where"] == "Theorem 4.9 (p. 57)" and parts["pages"] == "p. 57"


def test_a_claim_registered_in_a_package_init_names_the_package(tmp_path: Path, monkeypatch) -> None:
    """A claim found in ``verify/claims/<task>/__init__.py`` (not its observe's module) has the package's dotted
    name as its module, never ``...__init__``."""
    package = tmp_path / "verify" / "claims" / "zzqa"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('register(Claim(id="zz-qa-pkg"))\n')
    monkeypatch.setattr(links, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(links, "CLAIMS_DIR", tmp_path / "verify" / "claims")
    links._claim_files.cache_clear()
    try:
        claim = _fake_claim(tmp_path, monkeypatch, "zz_qa_elsewhere", "pass\n")
        loc = links.claim_location("zz-qa-pkg", claim)
    finally:
        links._claim_files.cache_clear()
    assert loc is not None and loc.path == "verify/claims/zzqa/__init__.py" and loc.line == 1
    assert loc.module == "verify.claims.zzqa"
