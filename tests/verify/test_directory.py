"""The report directory's publication (verify/report/directory.py, docs/report.md): after a swap every report entry
reads the new run, whatever stood at its name before."""

from __future__ import annotations

from pathlib import Path

from verify.report import directory


def _stage(root: Path, text: str) -> Path:
    stage = root / f"{directory.STAGE_PREFIX}test"
    stage.mkdir()
    (stage / "report.html").write_text(text)
    return stage


def test_a_report_entry_that_links_elsewhere_is_replaced_by_the_new_run(tmp_path: Path) -> None:
    """``DIR/report.html`` as a link to another file (a hand-made link, or one of another layout) is moved aside
    and becomes the link to the published run: a reader opens the new report, never the other file."""
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.html"
    elsewhere.write_text("old report")
    (out / "report.html").symlink_to(elsewhere)
    directory.swap_in(_stage(out, "new report"), out, ["report.html"])
    assert (out / "report.html").read_text() == "new report"
    assert elsewhere.read_text() == "old report"  # the other file itself is left alone
