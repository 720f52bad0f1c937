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
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_time

from verify.claims import registry
from verify.report import archive
from verify.runtime.jsonable import HASH_DIGITS, config_hash, to_jsonable


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--archive", default=str(Path(__file__).resolve().parents[1] / "results"))
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    claims = registry()
    pairs = [(rec, claims[cid]) for (_, cid), rec in archive.load_archive(a.archive).items() if cid in claims]

    def before() -> list[str | None]:
        out = []
        for rec, claim in pairs:
            config_hash(claim.configs[rec["scale"]])  # the plan's own hash, to match the record
            archive._imports_of.cache_clear()  # every module parsed again, as before
            out.append(archive.staleness(rec, claim))
        return out

    def now() -> list[str | None]:
        archive._imports_of.cache_clear()  # a fresh process: the cache starts empty
        return [archive.staleness(rec, claim, config_hash(claim.configs[rec["scale"]])) for rec, claim in pairs]

    t_before, v_before = best_time(before, a.repeats)
    t_now, v_now = best_time(now, a.repeats)
    assert v_before == v_now, "the two ways must agree on every record"
    print(f"{len(pairs)} archived records; load average {os.getloadavg()[0]:.2f}")
    print(f"  before (hash twice, parse every time): {t_before:7.2f} s")
    print(f"  now (hash once, parse once)          : {t_now:7.2f} s   ratio {t_before / t_now:.2f}x")

    # the configuration hash itself: to_jsonable walked dataclasses.asdict's deep copy before 2026-11-29 21:10 UTC
    configs = [cfg for claim in claims.values() for cfg in claim.configs.values()]

    def hashes_asdict() -> list[str]:
        return [
            hashlib.sha256(
                json.dumps(
                    to_jsonable(dataclasses.asdict(c) if dataclasses.is_dataclass(c) else c),
                    sort_keys=True,
                    separators=(",", ":"),
                    default=str,
                ).encode()
            ).hexdigest()[:HASH_DIGITS]
            for c in configs
        ]

    def hashes_now() -> list[str]:
        return [config_hash(c) for c in configs]

    t_old, h_old = best_time(hashes_asdict, a.repeats)
    t_new, h_new = best_time(hashes_now, a.repeats)
    assert h_old == h_new, "the configuration hashes must not change (archived records are keyed by them)"
    print(f"{len(configs)} claim configurations hashed")
    print(f"  asdict, then the walk (before): {t_old:7.2f} s")
    print(f"  the walk by field (now)       : {t_new:7.2f} s   ratio {t_old / t_new:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
