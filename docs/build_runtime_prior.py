"""Write ``verify/report/quick_runtimes.json``: each claim's runtime in one quick report, the scheduling prior.

``python docs/build_runtime_prior.py REPORT_DIR`` reads ``REPORT_DIR/results.json`` of a default quick report
(``tvk report``) and writes every claim's ``metadata.runtime_s`` (rounded to 0.1 s) with the report's date,
hardware and jobs. :func:`verify.report.pool.expected_runtimes` starts from these times, so a first report into a
new directory hands out its longest claims first (docs/report.md, "Scheduling"); only their order matters, so
the file need not be rewritten for every change, only when claims are added or their cost moves a lot.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verify.report.pool import RUNTIME_PRIOR  # noqa: E402


def prior(results: dict) -> dict:
    """The prior's document from a quick report's ``results.json`` (its header and claims)."""
    header = results["header"]
    if header.get("scale") != "quick":
        raise SystemExit(f"need a quick report, got scale {header.get('scale')!r}")
    hw = header.get("hardware") or {}
    return {
        "measured": f"{header.get('generated')}, {hw.get('cpu')}, {hw.get('threads')} threads, -j {header.get('jobs')}",
        "claims": {r["id"]: round(float(r["metadata"]["runtime_s"]), 1) for r in results["claims"]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report_dir", type=Path)
    args = ap.parse_args(argv)
    doc = prior(json.loads((args.report_dir / "results.json").read_text(encoding="utf-8")))
    RUNTIME_PRIOR.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {RUNTIME_PRIOR.relative_to(ROOT)}: {len(doc['claims'])} claims ({doc['measured']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
