"""Measure issue 27's criterion on repeated code: the same-shape pairs of ``theory/``, ``numerics/`` and ``verify/``
outside the declarative ``register(Claim(...))`` blocks.

The packages are copied to a temporary folder with every ``register(...)`` call blanked (a claim's declaration is
meant to look like the others), and the ``duplicates`` command (runs of 6 or more identical or same-shape lines;
a developer tool of the workplace, not a dependency of the toolkit) is run over the copy with ``--most 200``.
``python docs/scan_repeated_code.py [--packages verify] [REPO]`` prints its summary line and its rows.

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
(``verify.report.pool.work_units``), which the scan had not listed.
"""

from __future__ import annotations

import argparse
import ast
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--packages", nargs="+", default=["theory", "numerics", "verify"])
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
        print(result.stdout.replace(f"{copy}/", ""), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
