"""The archive checks of ``tvk report --plan --archive results/`` (issue 29: the plan in under a minute): for every
archived record of a registered claim, is it current? (:func:`verify.report.archive.staleness`: the configuration
hash and the claim code hash). The baseline, in the same run, is the check as it was before 2026-11-29 20:00 UTC:
every record hashed its claim's configuration again (the plan had already hashed it to match the record) and parsed
its claim modules again; now the plan passes its hash in and the module imports are kept by path and text.

Usage::

    python benchmarks/bench_plan_archive.py [--archive results] [--repeats 3]

Prints the best wall time of ``repeats`` passes over the archive for each way, their ratio, and the load average
(timings on a shared machine are not comparable across runs; the ratio within one run is).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time, summary

from verify.claims import registry
from verify.report import archive
from verify.runtime.jsonable import HASH_DIGITS, canonical_json, config_hash


def _compare(what: str, before: tuple[str, Any], now: tuple[str, Any], a: argparse.Namespace) -> None:
    """Time both ways (best of ``a.repeats``), check that they give the same values, print the times and the ratio."""
    (label_0, fn_0), (label_1, fn_1) = before, now
    (t_0, v_0), (t_1, v_1) = best_time(fn_0, a.repeats), best_time(fn_1, a.repeats)
    assert v_0 == v_1, f"{what}: the two ways must agree"
    print(f"{what}\n  before ({label_0}): {t_0:7.2f} s\n  now ({label_1}): {t_1:7.2f} s   ratio {t_0 / t_1:.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--archive", default=str(Path(__file__).resolve().parents[1] / "results"))
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    claims = registry()
    pairs = [(rec, claims[cid]) for (_, cid), rec in archive.load_archive(a.archive).items() if cid in claims]

    def before() -> list[str | None]:
        out = []
        for rec, claim in pairs:
            config_hash(claim.configs[rec["scale"]])  # the plan's own hash, to match the record
            archive._imported_modules.cache_clear()  # every module parsed again, as before
            out.append(archive.staleness(rec, claim))
        return out

    def now() -> list[str | None]:
        archive._imported_modules.cache_clear()  # a fresh process: the cache starts empty
        return [archive.staleness(rec, claim, config_hash(claim.configs[rec["scale"]])) for rec, claim in pairs]

    print(f"load average {os.getloadavg()[0]:.2f}")
    _compare(f"{len(pairs)} archived records checked", ("hash twice, parse every time", before), ("once each", now), a)

    # the configuration hash itself: to_jsonable walked dataclasses.asdict's deep copy before 2026-11-29 21:10 UTC
    configs = [cfg for claim in claims.values() for cfg in claim.configs.values()]

    def hashes_asdict() -> list[str]:
        old = (dataclasses.asdict(c) if dataclasses.is_dataclass(c) else c for c in configs)
        return [hashlib.sha256(canonical_json(c).encode()).hexdigest()[:HASH_DIGITS] for c in old]

    def hashes_now() -> list[str]:
        return [config_hash(c) for c in configs]

    _compare(
        f"{len(configs)} claim configurations hashed", ("asdict first", hashes_asdict), ("by field", hashes_now), a
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
