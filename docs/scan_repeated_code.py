"""Measure issue 27's criterion on repeated code: the same-shape pairs of ``theory/``, ``numerics/`` and ``verify/``
outside the declarative ``register(Claim(...))`` blocks.

The packages are copied to a temporary folder with every ``register(...)`` call blanked (a claim's declaration is
meant to look like the others), and the ``duplicates`` command (runs of 6 or more identical or same-shape lines;
a developer tool of the workplace, not a dependency of the toolkit) is run over the copy with ``--most 200``.
``python docs/scan_repeated_code.py [--packages verify] [REPO]`` prints its summary line and its rows;
``--classify`` adds a count of the rows by what their longest shared run is (a row names only that run): numpy
docstring sections (half or more of the run's lines on both sides are docstring lines), code of a claim module whose
text is hashed into a record archived in ``results/full`` (an edit there stales the record), or other code.

Measured:
at the issue's filing (aa65c66) 51 same-shape pairs in ``verify/`` and 69 in the three packages (the whole tree's scan
then: 181 pairs, 170 by shape alone); on 2026-12-01 (04:00 UTC) 88 and 190, none verbatim, in twice the lines of code
(104k against 51k). The 190 rows read one by one (05:20 UTC): 58 docstring sections (the numpy sections and doctest
Examples the same issue asks for), 55 declarations (dataclass fields, configurations, ``Deviation``/``Grid``/checks,
registration helpers, tables), 50 keyword call sites of a helper already written once, 21 other shapes (verdict
messages, signatures, accessors, module headers) and 6 duplicated logic; four of the six were made one function
(``theory.sparse_variable._bit_patterns``, ``theory.polynet`` through ``_checks.as_list``,
``numerics.sparse_init._draw_init``, ``verify.claims.sparse_variable.lipschitz._ratio_observation``), which left 87
and 188 (a pair of files stays listed while it shares any other run). On 2026-12-01 (09:00 UTC) 86 and 187: the
Markdown and text cells of ``verify.report.archive``'s side-by-side table became one function. Of the 187, 113 lie
outside the claim modules of ``verify/claims/`` (whose code text is hashed into archived records: a change there
stales them, and the records of the rows left there take hours to days to re-run); the rest are the shapes above.
On 2026-12-01 (11:50 UTC) the same 86 and 187: the report's grouping of claims into work units became one function
(``verify.report.pool.work_units``), which the scan had not listed. On 2026-12-01 (13:40 UTC) 186: three reviewers,
one a layer, read every row of ``theory/``, ``numerics/`` and ``verify/`` outside the claim modules with archived
records, with the other runs of each pair (``+N more runs``); they found six checks written twice, now each one private
helper (``numerics.markov_gradients._check_node_work``, ``MarginReport._per_norm_power``,
``theory.parity._check_expansion_terms``, ``_check_paired_width``, ``_check_thm55_eps``,
``theory.local_signal._check_limits``), which removed one row (the others' pairs share docstring runs too), and judged
every other row a shape. ``--classify`` then counts 59 docstring sections, 68 code of claim modules with archived
records and 59 other code (keyword call sites of helpers written once, declarations, dict literals).
On 2026-12-02 (00:45 UTC) a reviewer read the 68 rows in claim modules with archived records, with every other run
their pairs of files share: all shapes (dataclass fields of unrelated configurations, ``Observation(...)`` and
``Grid(...)`` literals, verdict messages and ``describe`` bodies, keyword call sites, blanked registrations). One
borderline: a two-line ``_offset(ctx)`` (the run's seed offset) in three ``sparse_init_*`` claim modules. Every row of
the scan has now been read, and none is duplicated logic.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def _blank_registrations(text: str) -> str:
    """``text`` with the lines of every top-level expression statement that calls ``register`` made empty."""
    lines = text.splitlines()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name == "register":
                for i in range(node.lineno - 1, node.end_lineno or node.lineno):
                    lines[i] = ""
    return "\n".join(lines) + "\n"


#: A row of ``duplicates``: ``D12 a.py:10-24 ~ b.py:40-54 ...``.
_ROW = re.compile(r"^D\d+ (?P<a>\S+):(?P<a1>\d+)-(?P<a2>\d+) ~ (?P<b>\S+):(?P<b1>\d+)-(?P<b2>\d+)")


def _hashed_files(repo: Path) -> set[str]:
    """The files (relative to ``repo``) whose code text is hashed into a full-scale record of ``repo/results/full``
    (``repo``'s own ``verify`` is imported: :func:`_classify` puts it first on the path)."""
    from verify.claims import registry
    from verify.report import archive

    claims = registry()
    out: set[str] = set()
    for path in sorted((repo / "results" / "full").glob("*.json")):
        claim = claims.get(json.loads(path.read_text())["id"])
        if claim is not None:
            out.update(
                f.relative_to(repo.resolve()).as_posix() for f in archive._code_files(*archive.claim_modules(claim))
            )
    return out


def _classify(rows: list[str], repo: Path) -> dict[str, int]:
    """Count ``rows`` as docstring sections, claim-module code hashed into archived records, or other code."""
    sys.path.insert(0, str(repo.resolve()))  # before the first import of verify: the scanned checkout's, not another
    from verify.report.archive import _docstring_lines

    hashed = _hashed_files(repo)
    docs: dict[str, set[int]] = {}

    def doc_share(file: str, first: int, last: int) -> float:
        if file not in docs:
            text = (repo / file).read_text()
            docs[file] = _docstring_lines(ast.parse(text), text.splitlines())
        return sum(i in docs[file] for i in range(first, last + 1)) / (last - first + 1)

    counts = {"docstring sections": 0, "code of claim modules with archived records": 0, "other code": 0}
    for row in rows:
        m = _ROW.match(row)
        if m is None:
            continue
        sides = [(m["a"], int(m["a1"]), int(m["a2"])), (m["b"], int(m["b1"]), int(m["b2"]))]
        if min(doc_share(*side) for side in sides) >= 0.5:
            counts["docstring sections"] += 1
        elif any(side[0] in hashed for side in sides):
            counts["code of claim modules with archived records"] += 1
        else:
            counts["other code"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--packages", nargs="+", default=["theory", "numerics", "verify"])
    parser.add_argument("--classify", action="store_true", help="count the rows by the kind of their longest run")
    args = parser.parse_args(argv)
    if shutil.which("duplicates") is None:
        print("the `duplicates` command is not on PATH (a tool of the development workplace)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="scan_") as tmp:
        copy = Path(tmp)
        for package in args.packages:
            for src in (args.repo / package).rglob("*.py"):
                out = copy / src.relative_to(args.repo)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(_blank_registrations(src.read_text()))
        result = subprocess.run(
            ["duplicates", "--repo", str(copy), "--most", "200", "--seconds", "300"],
            capture_output=True,
            text=True,
            check=False,
        )
        out = result.stdout.replace(f"{copy}/", "")
    print(out, end="")
    if args.classify:
        counts = _classify(out.splitlines(), args.repo)
        print("rows by their longest run: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
