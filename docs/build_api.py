"""Build the API reference from the docstrings: ``python docs/build_api.py`` writes ``docs/api/`` (HTML, offline).

The reference is generated with pdoc (``pip install -c constraints.txt -e ".[docs]"``), numpy-style docstrings,
one page per module of the three layers (``theory``, ``numerics``, ``verify``) and a search index; it needs no
network to read. ``docs/api/`` is not committed (about 25 MB); rebuild it after changing a docstring.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

PACKAGES = ("theory", "numerics", "verify")
DEFAULT_OUT = Path(__file__).resolve().parent / "api"


def build(out: Path = DEFAULT_OUT, packages: tuple[str, ...] = PACKAGES) -> Path:
    """Render the API reference of ``packages`` into ``out`` (replacing what was there) and return its index.

    Raises
    ------
    SystemExit
        If pdoc is not installed (the message names the extra that installs it).
    """
    try:
        import pdoc  # deferred: only this script needs pdoc
        import pdoc.render
    except ImportError:
        raise SystemExit('docs/build_api.py needs pdoc: pip install -c constraints.txt -e ".[docs]"') from None
    if out.exists():
        shutil.rmtree(out)
    pdoc.render.configure(docformat="numpy", footer_text="theory-verification-kit API reference")
    pdoc.pdoc(*packages, output_directory=out)
    return out / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: docs/api)")
    parser.add_argument(
        "packages",
        nargs="*",
        default=list(PACKAGES),
        help="packages or modules to document (default: all three layers)",
    )
    args = parser.parse_args(argv)
    index = build(args.out, tuple(args.packages))
    print(f"API reference written: {index}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
