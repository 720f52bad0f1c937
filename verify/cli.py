# PYTHON_ARGCOMPLETE_OK  (shell completion: eval "$(register-python-argcomplete tvk)"; docs/cli.md)
"""The ``tvk`` command.

    tvk report  [--scale quick|full] [--only PATTERN] [--device auto|cpu|cuda] [--out DIR] [-j N] [--json]
    tvk report  --plan [--scale full] [--only PATTERN] [--device cpu|cuda] [--json]   (estimated cost; nothing runs)
    tvk report  --from-archive DIR [--out DIR]   (report from the results archive alone)
    tvk report  --compare PREV [...]   (a "Changes since PREV" section: this run against the run PREV)
    tvk diff    OLD NEW [--rtol R] [--no-runtimes] [--json]
    tvk status  [--out DIR] [--json]   (a report directory read without writing to it)
    tvk derive  modular --p P --k K [--evaluate auto|always|never] [--json]
    tvk derive  parity --k K [--n N] [--evaluate auto|always|never] [--json]
    tvk derive  group --name NAME [--json]          (NAME like S4, D6, A5, Z2^3, S3xZ2)
    tvk derive  lsa --lambda 4,3,2,1 --N 20 --rank R [--json]
    tvk derive  majority --n N --k K [--json]
    tvk derive  signal --k K [--json]
    tvk derive  markov --k K --t T [--json]
    tvk certify modular --p P --k K | parity --n N --k K | group --name NAME  [--starts S] [--seed S] [--no-progress] [--json]
    tvk list    [--scale quick|full] [--only PATTERN] [--json]
    tvk sweep   status [--out DIR | --store FILE] [--json] | merge OUT SRC... [--json]
    tvk --version

``tvk report`` also takes the sweep options ``--executor auto|local|processes|ray``, ``--ray-address``, ``--workers``,
``--gpus-per-cell``, ``--shard I/N`` and ``--confirm-cost`` (docs/running_at_scale.md).

With ``--json`` a command prints exactly one JSON object on stdout; progress and logs go to stderr.
Errors print one line ``tvk: error: ...`` on stderr (and one object ``{"error": ...}`` on stdout with ``--json``,
argparse's usage errors included); the message names the option as typed (``--k``, ``--starts``), not the
parameter of the Python function behind it. Exit statuses (also in ``tvk --help`` and docs/cli.md): 0 done,
1 a claim failed or is inconclusive (unless declared underpowered or exploratory), 2 bad input or a refused size, 3 an internal
error, 74 stdout could not be written (disk full), 130 interrupted (Ctrl-C or SIGTERM), 141 the reader of stdout left (broken pipe).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1  # `tvk report`: a claim failed or is inconclusive (unless declared underpowered or exploratory)
EXIT_BAD_INPUT = 2  # bad option or value, a size above a limit, an unusable output directory
EXIT_INTERNAL = 3  # an unexpected exception: a bug of tvk
EXIT_OUTPUT = 74  # stdout could not be written (e.g. `> /dev/full`); sysexits' EX_IOERR
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), also for SIGTERM (handled as a Ctrl-C)
EXIT_BROKEN_PIPE = 141  # the reader of stdout left (128 + SIGPIPE), e.g. `tvk list | head -1`


def _interrupted_while_loading(exc_type: type, exc: BaseException, tb: Any) -> None:
    """``sys.excepthook`` of the ``tvk`` script: Ctrl-C while the modules below load is not a traceback."""
    if issubclass(exc_type, KeyboardInterrupt):
        if "--json" in sys.argv[1:]:
            print(json.dumps({"error": "interrupted", "exit_code": EXIT_INTERRUPTED}), flush=True)
        print("tvk: interrupted", file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)
    sys.__excepthook__(exc_type, exc, tb)


if os.path.basename(sys.argv[0] if sys.argv else "") == "tvk":  # only in the console script, not on import
    sys.excepthook = _interrupted_while_loading

from verify.runtime.interrupts import INTERRUPT_SIGNALS, raises_interrupt  # noqa: E402
from verify.runtime.jsonable import JSON_OPTION_HELP, approx_text, beyond_float, exact_text, to_float, to_jsonable  # noqa: E402
from verify.runtime.options import SEED_OFFSET_LIMIT, RunOptions  # noqa: E402
from verify.sweep import cli as sweep_cli  # noqa: E402

__all__ = ["main"]

# Above this many multiply-adds, `derive` does not evaluate the construction on every input by default.
EVALUATE_LIMIT = 3e9

CLAIMS_HELP = (
    "also load the claims of MODULE, a dotted module name or a path to a .py file (repeatable; "
    "docs/adding-a-claim.md); installed tvk.claims entry points are always loaded"
)


class _VersionAction(argparse.Action):
    """``--version``: prints ``tvk VERSION`` and exits, reading the version only when asked (argparse's own
    ``version`` action needs the string when the parser is built). With ``--json`` anywhere on the command line
    (``as_json``, which :func:`main` sets) it prints one JSON object ``{"version": ...}`` instead."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")
        self.as_json = False

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kw: Any) -> None:
        version = _version()
        # on stdout, as argparse's version action
        print(json.dumps({"version": version}) if self.as_json else f"{parser.prog} {version}")
        parser.exit()


def _version() -> str:
    """The installed distribution's version (importlib.metadata), else the package's ``__version__``."""
    from importlib import metadata  # deferred: ~0.1 s of imports, needed only by --version

    try:
        return metadata.version("theory-verification-kit")
    except metadata.PackageNotFoundError:
        return str(getattr(sys.modules.get("verify"), "__version__", "unknown"))


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _evaluates(mode: str, log10_cost: float) -> bool:
    """Whether ``derive`` evaluates the construction on every input: ``--evaluate always``, or ``auto`` when its
    ~10^log10_cost multiply-adds are within :data:`EVALUATE_LIMIT`."""
    return mode == "always" or (mode == "auto" and log10_cost <= math.log10(EVALUATE_LIMIT))


def _announce_forced(log10_cost: float, evaluated: str) -> None:
    """Say on stderr, before it starts, that a forced evaluation is above the limit of ``--evaluate auto`` (such a
    run takes minutes: ``derive parity --k 3 --n 26``, ~10^9.9, took over 100 s on a 2-core CPU, docs/cli.md)."""
    if log10_cost > math.log10(EVALUATE_LIMIT):
        _log(
            f"evaluating {evaluated}: ~10^{log10_cost:.1f} operations, above the limit {EVALUATE_LIMIT:.0e} of "
            "--evaluate auto (minutes on a laptop CPU) ..."
        )


def _skipped_evaluation(log10_cost: float, evaluated: str) -> str:
    return (
        f"evaluating {evaluated} costs ~10^{log10_cost:.1f} operations, above the limit {EVALUATE_LIMIT:.0e} of "
        "--evaluate auto; pass --evaluate always to force it"
    )


def _emit(obj: dict, as_json: bool, text: str) -> None:
    print(json.dumps(to_jsonable(obj)) if as_json else text)


def _load_external_claims(args: argparse.Namespace) -> None:
    """Register the claims of installed ``tvk.claims`` entry points and of ``--claims`` modules (a bad module is a
    ValueError: one ``tvk: error:`` line)."""
    from verify.claim_index import check_claim_paths
    from verify.claims.external import load_claim_modules, load_entry_points  # deferred: imports torch

    check_claim_paths(args.claims)
    load_entry_points()
    load_claim_modules(args.claims)


def _unexpected(records: list[dict]) -> dict[str, int]:
    """Verdicts that make ``tvk report`` exit 1, by verdict (:func:`verify.claims.base.unexpected_verdict` of the
    record's ``metadata.expected_verdict``): every ``fail``, every ``inconclusive`` that its claim did not declare
    beforehand (``Claim.underpowered`` at this scale), every erratum that the run did not refute; none of a claim
    declared exploratory at this scale (``metadata.exploratory``: reported, not presumed)."""
    from verify.claims.base import unexpected_verdict  # deferred: the claims import torch

    out: dict[str, int] = {}
    for r in records:
        if r["metadata"].get("exploratory"):
            continue
        if unexpected_verdict(r["verdict"], r["metadata"].get("expected_verdict", "pass")):
            out[r["verdict"]] = out.get(r["verdict"], 0) + 1
    return out


def _integer(text: str, expected: str) -> int:
    """``text`` as an integer, for an argparse type; anything else raises ``ArgumentTypeError("must be
    {expected}, got '...'")`` with the text cut to 20 characters (argparse names the option in its error)."""
    try:
        return int(text)
    except ValueError:
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise argparse.ArgumentTypeError(f"must be {expected}, got {shown!r}") from None


def _jobs(text: str) -> int:
    """``-j/--jobs``: an integer >= 1 (argparse names the option in its error)."""
    value = _integer(text, "an integer >= 1 (worker processes)")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1 (worker processes), got {value}")
    return value


def _run_options(args: argparse.Namespace) -> RunOptions:
    """The :class:`verify.runtime.options.RunOptions` of ``tvk report``'s options."""
    return RunOptions(
        device=args.device,
        dtype=args.dtype,
        progress=not args.no_progress,
        seed_offset=args.seed_offset,
        ignore_memory_check=args.ignore_memory_check,
    )


def _seed_offset(text: str) -> int:
    """``--seed-offset``: an integer in [0, 2^31)."""
    value = _integer(text, "an integer >= 0")
    if not 0 <= value < SEED_OFFSET_LIMIT:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2^31), got {value}")
    return value


#: ``--within`` durations: a number with an optional unit (s, m, h, d), e.g. ``2h``, ``90m``, ``3600``.
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhd]?)\s*$")


def _duration(text: str) -> float:
    """``--within``: a duration such as ``2h``, ``90m``, ``45s`` or ``7200`` (seconds), > 0, in seconds."""
    m = _DURATION.match(text)
    seconds = float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)] if m else 0.0
    if not (math.isfinite(seconds) and seconds > 0):
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise argparse.ArgumentTypeError(f"must be a duration > 0 such as 2h, 90m or 3600, got {shown!r}")
    return seconds


def _planned(args: argparse.Namespace) -> tuple[list[Any], dict[str, Any], str]:
    """The plan of the selected claims on ``--device`` (``auto``: CUDA when present), reading ``--archive`` and
    ``--out``: its rows, its facts and the device."""
    from verify.claims import select  # deferred: imports torch
    from verify.report.plan import make_plan

    device = "cpu" if args.device == "auto" else args.device
    if args.device == "auto":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    claims = select(args.only, args.scale)
    if not claims:
        raise ValueError(f"no claim matches {args.only!r} at scale {args.scale!r}; `tvk list` shows the claim ids")
    rows, facts = make_plan(claims, args.scale, device, archive=args.archive, out=args.out)
    return rows, facts, device


def _cmd_plan(args: argparse.Namespace) -> int:
    """``tvk report --plan``: the estimated cost of the selected claims (verify.report.plan); nothing runs."""
    from verify.report.plan import format_plan, plan_document

    rows, facts, device = _planned(args)
    _emit(plan_document(rows, facts, args.scale, device), args.json, format_plan(rows, facts, args.scale, device))
    return 0


def _within(args: argparse.Namespace) -> str | None:
    """``--within DURATION``: plan the selected claims (as ``--plan``, with ``--archive``), say on stderr which will
    run and why the others will not, and return the ids to run, comma-separated (None: nothing to run)."""
    from verify.report.plan import affordable, once_seconds
    from verify.runtime.memory import format_seconds

    rows, _, device = _planned(args)
    run, left = affordable(rows, args.within)
    planned = once_seconds(run)  # a run that several of them share is trained once
    why: dict[str, int] = {}
    for _, reason in left:
        key = "over the limit" if reason.startswith("planned") else reason
        why[key] = why.get(key, 0) + 1
    lines = [
        f"--within {format_seconds(args.within)} on {device}: {len(run)} of {len(rows)} claim(s) to run, planned at "
        f"{format_seconds(planned)} together (the plan's times are for this machine's load now)"
    ]
    lines += [f"  run   {r.id}: {format_seconds(r.seconds or 0.0)} ({r.basis})" for r in run]
    if why:
        lines.append("  left out: " + ", ".join(f"{n} {k}" for k, n in sorted(why.items())))
    print("\n".join(lines), file=sys.stderr, flush=True)
    return ",".join(r.id for r in run) or None


def _cmd_from_archive(args: argparse.Namespace) -> int:
    """``tvk report --from-archive DIR``: the report rendered from the results archive alone (no claim runs)."""
    from verify.report.archive import report_from_archive

    records, _ = report_from_archive(
        args.from_archive, args.out, scale=args.scale, only=args.only, output=_report_output(args)
    )
    counts: dict[str, int] = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    obj = {
        "out": str(args.out),
        "archive": str(args.from_archive),
        "summary": counts,
        "claims": [{"id": r["id"], "scale": r["scale"], "verdict": r["verdict"]} for r in records],
    }
    text = "\n".join(f"{r['verdict']:>12}  {r['id']} ({r['scale']})" for r in records)
    text += (
        f"\nwrote {args.out}/results.json, results.csv, report.md, report.html from the archive {args.from_archive} "
        "(nothing ran)"
    )
    _emit(obj, args.json, text)
    return 0


def _report_output(args: argparse.Namespace) -> Any:
    """The :class:`verify.report.run.ReportOutput` of ``--self-contained`` and ``--figure-formats`` (every
    comma-separated entry checked by :func:`verify.report.figures.check_formats`: an empty one is refused)."""
    from verify.report.figures import check_formats
    from verify.report.run import ReportOutput

    formats = tuple(f.strip() for f in args.figure_formats.split(","))
    check_formats(formats)
    return ReportOutput(self_contained=args.self_contained, figure_formats=formats)


def _cmd_report(args: argparse.Namespace) -> int:
    from verify.report.run import run_report  # deferred: imports torch

    if args.compare is not None and (args.plan or args.from_archive):
        raise ValueError(f"--compare needs a run of the claims: not with {'--plan' if args.plan else '--from-archive'}")
    _load_external_claims(args)
    if args.plan and args.from_archive:
        raise ValueError("--plan and --from-archive exclude each other")
    if args.within is not None and (args.plan or args.from_archive):
        raise ValueError(f"--within chooses claims to run: not with {'--plan' if args.plan else '--from-archive'}")
    if args.plan:
        return _cmd_plan(args)
    if args.from_archive:
        return _cmd_from_archive(args)
    settings: dict[str, Any] = {
        "scale": args.scale,
        "options": _run_options(args),
        "sweep": sweep_cli.sweep_options(args),
        "output": _report_output(args),
        "jobs": args.jobs,
        "archive": args.archive,
        "compare": args.compare,
    }
    only = args.only
    if args.within is not None:
        only = _within(args)
        if only is None:  # never the whole selection: nothing is within the limit
            from verify.report.directory import prepare_directory
            from verify.report.run import check_report_settings

            check_report_settings(args.out, **settings)  # a bad option fails as it would with claims to run
            prepare_directory(args.out)
            _emit({"out": str(args.out), "claims": [], "within_s": args.within}, args.json, "nothing to run")
            return 0
    with contextlib.redirect_stdout(sys.stderr):  # stdout is the result's: what claim code prints goes to stderr
        records, meta = run_report(args.out, only=only, **settings)
    counts: dict[str, int] = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    obj = {
        "out": str(args.out),
        "files": ["results.json", "results.csv", "results.jsonl", "report.md", "report.html", "figures/"],
        "summary": counts,
        "claims": [{"id": r["id"], "verdict": r["verdict"]} for r in records],
        "runtime_s": round(meta["runtime_s"], 2),
    }
    text = "\n".join(f"{r['verdict']:>12}  {r['id']}" for r in records)
    if meta.get("compare"):  # --compare PREV: the comparison in short (the report's "Changes since" section)
        cmp = meta["compare"]
        flips = [c["id"] for c in cmp["changes"] if c.get("verdict")]
        obj["compare"] = {k: cmp[k] for k in ("old", "same_results", "added", "removed")} | {"verdict_changes": flips}
        text += (
            f"\nchanges since {cmp['old']}: {len(flips)} verdict change(s), {len(cmp['added'])} added, "
            f"{len(cmp['removed'])} removed, {len(cmp['changes'])} claim(s) with changes (report.md, 'Changes since')"
        )
    text += (
        f"\nwrote {args.out}/results.json, results.csv, report.md, report.html, figures/  "
        f"({', '.join(f'{k}: {v}' for k, v in counts.items())})"
    )
    if args.shard is not None:  # a shard's grids are incomplete until the stores are merged: not a failure
        records = [r for r in records if r["metadata"].get("sweep", {}).get("complete", True)]
    bad = _unexpected(records)
    obj["unexpected"] = bad
    _emit(obj, args.json, text)
    return 0 if not bad else 1


def _cmd_diff(args: argparse.Namespace) -> int:
    from verify.report.diff import diff_runs  # torch-free

    result = diff_runs(args.old, args.new, rtol=args.rtol, runtimes=not args.no_runtimes)
    _emit(result.to_json(), args.json, result.text())
    return EXIT_OK if result.same_results() else EXIT_FAILED


def _cmd_status(args: argparse.Namespace) -> int:
    from verify.report.status import report_status, status_text  # reading a checkpoint imports torch

    status = report_status(args.out)
    _emit(status, args.json, status_text(status))
    return EXIT_OK


def _cmd_list(args: argparse.Namespace) -> int:
    from verify.claim_index import list_claims  # imports torch only for external claims
    from verify.runtime.selection import no_match_message

    claims = list_claims(args.only, args.scale, modules=args.claims)
    other_scale = "full" if args.scale == "quick" else "quick"
    here = {c.id for c in claims}
    elsewhere = [c for c in list_claims(args.only, other_scale, modules=args.claims) if c.id not in here]
    if not claims and not elsewhere:
        raise ValueError(no_match_message(args.only, args.scale))
    obj = {
        "scale": args.scale,
        "claims": [{"id": c.id, "kind": c.kind, "source": c.source} for c in claims],
        "not_at_this_scale": [
            {"id": c.id, "kind": c.kind, "source": c.source, "scale": other_scale} for c in elsewhere
        ],
    }
    lines = [f"{c.id:40s} {c.kind:9s} {c.source}" for c in claims]
    if elsewhere:
        lines.append(f"not run at this scale ({args.scale}; defined only at --scale {other_scale}):")
        lines += [f"  {c.id:38s} {c.kind:9s} {c.source}" for c in elsewhere]
    _emit(obj, args.json, "\n".join(lines))
    return 0


def _with_cli_hint(exc: Any, hint: str) -> Any:
    """``exc`` (a :class:`theory._checks.LimitError`) with its closing hint, written for the Python API (``pass sympy
    symbols``, ``max_margin(p, k) ... gives``), replaced by ``hint``, what to do on the command line."""
    from theory._checks import LimitError

    text = str(exc)
    head = text[: -len(exc.hint)].rstrip("; ") if exc.hint and text.endswith(exc.hint) else text
    return LimitError(f"{head}; {hint}" if hint else head, param=exc.param, value=exc.value, limit=exc.limit, hint=hint)


def _cmd_derive_modular(args: argparse.Namespace) -> int:
    from numerics import modular as nm
    from numerics.margins import check_forward, evaluate
    from theory import modular as tm
    from theory._checks import LimitError, format_count

    p, k = args.p, args.k
    try:
        gamma = tm.max_margin(p, k)
    except LimitError as e:  # its hint's "pass sympy symbols" is the Python API's, not an option of this command
        raise _with_cli_hint(e, e.hint.replace("; pass sympy symbols for the symbolic formula", "")) from None
    width = tm.min_width(p, k)
    obj: dict[str, Any] = {
        "task": "modular",
        "p": p,
        "k": k,
        "source": "Shi thesis Thm 4.9 / C.22 (Edelman Thm 7.7 for k = 2)",
        "gamma_star": _num(gamma),
        "min_width": width,
        "optimal_amplitude": _num(tm.optimal_amplitude(p, k)),
        "frequencies": _range_length(tm.frequencies(p)),
        "single_frequency_conclusion_holds": k >= 2,
    }
    # width neurons x p^k inputs x (k + p) entries, in log space: p^k has ~k log10 p digits (k = 400 overflows a
    # float, and forming p^k for k = 10^6 would take a while)
    log10_cost = math.log10(width) + k * math.log10(p) + math.log10(k + p)
    evaluated = f"{format_count(width)} neurons on {p}^{k} inputs"
    if _evaluates(args.evaluate, log10_cost):
        t0 = time.perf_counter()
        task = nm.ModularTask(p, k)  # its size check first: the network of a refused task takes seconds to build
        try:
            net = nm.construction_network(p, k)
            check_forward(net, task)  # every refusal before the announcement of a long run
            _announce_forced(log10_cost, evaluated)
            rep = evaluate(net, task)
        except LimitError as e:  # the forward pass's limit names the task: say which options make it
            if e.param != "task":  # the construction's limit: its hint names the Python API
                hint = "without --evaluate always, tvk derive modular prints gamma* and the width in closed form"
                raise _with_cli_hint(e, hint) from None
            raise LimitError(
                f"--evaluate always at p = {p}, k = {k} is too large: {str(e).split('is too large: ', 1)[-1]}",
                param="evaluate",
                value=e.value,
                limit=e.limit,
                hint=e.hint,
            ) from None
        obj["construction"] = {
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "wrong_logit_spread": rep.wrong_logit_spread,
            "accuracy": rep.accuracy,
            "points": rep.n_points,
            "seconds": round(time.perf_counter() - t0, 3),
        }
    else:
        obj["construction"] = {"skipped": _skipped_evaluation(log10_cost, evaluated)}
    c = obj["construction"]
    text = (
        f"modular addition, p = {p}, k = {k}  ({obj['source']})\n"
        f"  gamma*            = {gamma} ≈ {approx_text(gamma, '.12e')}\n"
        f"  width bound       = 2^(2k-2)(p-1) = {width}\n"
        f"  optimal amplitude = {tm.optimal_amplitude(p, k)} ≈ {float(tm.optimal_amplitude(p, k)):.10f}\n"
        + (
            f"  construction      = normalized margin {c['normalized_margin']:.12e} (ratio {c['ratio_to_gamma_star']:.15f}) "
            f"on all {c['points']} inputs, wrong-logit spread {c['wrong_logit_spread']:.1e}"
            if "normalized_margin" in c
            else f"  construction      = {c['skipped']}"
        )
        + ("" if k >= 2 else "\n  note: for k = 1 the value is exact but optimal neurons need not be single-frequency")
    )
    _emit(obj, args.json, text)
    return 0


def _range_length(r: range) -> int:
    """len(r) for ranges longer than sys.maxsize (len() raises OverflowError there)."""
    return max(0, (r.stop - r.start + r.step - 1) // r.step)


def _num(x: Any) -> dict:
    """An exact value for ``--json``: its text and float, and where the float does not carry it (an overflow to inf,
    an underflow of a non-zero value to 0 or a subnormal: :func:`verify.runtime.jsonable.beyond_float`),
    ``"float": null`` with ``"approx"``, its leading digits (:func:`verify.runtime.jsonable.approx_text`)."""
    if not beyond_float(x):
        return {"exact": exact_text(x), "float": to_float(x)}
    return {"exact": exact_text(x), "float": None, "approx": approx_text(x, ".16e")}


def _cmd_derive_group(args: argparse.Namespace) -> int:
    from numerics import groups as ng
    from numerics.margins import evaluate
    from theory import finite_groups as fg
    from theory import groups as tg

    G = fg.group(args.name)
    table = fg.character_table(G)
    obj: dict[str, Any] = {
        "task": "group",
        "name": args.name,
        "order": G.order,
        "source": "Edelman thesis Thm 7.9 (App. D.8-D.9)",
        "irreps": list(table.names),
        "dims": [int(d) for d in table.dims],
        "frobenius_schur": [int(i) for i in table.indicators],
        "all_irreps_real": fg.is_totally_real(G),
    }
    if not obj["all_irreps_real"]:
        obj["closed_form"] = "not applicable: not every irrep is real (Frobenius-Schur indicator != +1)"
        if args.name.upper().startswith("Z") and "X" not in args.name.upper() and "^" not in args.name:
            obj["closed_form"] += "; for Z_p use `tvk derive modular --p P --k 2`"
        _emit(obj, args.json, f"{args.name} (|G| = {G.order}): {obj['closed_form']}")
        return 0
    cond = tg.condition_values(G)
    obj["condition_values"] = [_num(v) for v in cond[1:]]
    obj["condition_holds"] = tg.condition_holds(G)
    lp = ng.character_lp(G)
    obj["character_lp"] = {
        "value": lp.value,
        "dual_value": lp.dual_value,
        "used_irreps": [table.names[i] for i in lp.used_irreps],
    }
    if obj["condition_holds"]:
        gamma = tg.max_margin(G)
        obj["gamma_star"] = _num(gamma)
        obj["min_width"] = tg.min_width(G)
        obj["tau"] = [_num(t) for t in tg.tau(G)[1:]]
        net = ng.construction_network(G)
        rep = evaluate(net, ng.GroupTask(G))
        obj["construction"] = {
            "width": net.width,
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "wrong_logit_spread": rep.wrong_logit_spread,
        }
        text = (
            f"{args.name} (|G| = {G.order}), Edelman Thm 7.9: condition holds\n"
            f"  gamma*       = {gamma} ≈ {approx_text(gamma, '.12e')}  (character LP: {lp.value:.12e})\n"
            f"  width bound  = 2 sum d_R^3 = {obj['min_width']}\n"
            f"  tau_C        = {', '.join(f'{float(t):.6g}' for t in tg.tau(G)[1:])}\n"
            f"  construction = normalized margin {rep.normalized_margin:.12e} (ratio {rep.normalized_margin / float(gamma):.12f})"
        )
    else:
        bad = [table.class_labels[i + 1] for i, v in enumerate(cond[1:]) if not float(v) < 0]
        obj["closed_form"] = f"not applicable: the condition fails at classes {bad}; gamma* is the character-LP value"
        obj["gamma_star"] = {"float": lp.value, "method": "character-level LP (Edelman App. D.9.2)"}
        text = (
            f"{args.name} (|G| = {G.order}): Thm 7.9's condition fails at classes {bad}\n"
            f"  gamma* (character LP) = {lp.value:.12e}, dual bound {lp.dual_value:.12e}"
        )
    _emit(obj, args.json, text)
    return 0


def _cmd_derive_parity(args: argparse.Namespace) -> int:
    from numerics import parity as npar
    from numerics.margins import check_forward, evaluate
    from theory import parity as tp
    from theory._checks import format_count

    k = args.k
    n = args.n if args.n is not None else k
    gamma = tp.max_margin(k)  # checks k (>= 1, the closed form's limit) before n, which defaults to k
    tp.check_nk(n, k)
    width = tp.min_width(k)
    # width neurons x 2^n inputs x (n + 2) entries, in log space
    log10_cost = math.log10(width) + n * math.log10(2) + math.log10(n + 2)
    evaluated = f"{format_count(width)} neurons on 2^{n} inputs"
    if _evaluates(args.evaluate, log10_cost):
        support = tuple(range(k))
        t0 = time.perf_counter()
        net, task = npar.construction_network(n, support), npar.SparseParityTask(n, support)
        check_forward(net, task)  # every refusal before the announcement of a long run
        _announce_forced(log10_cost, evaluated)
        rep = evaluate(net, task)
        construction: dict[str, Any] = {
            "normalized_margin": rep.normalized_margin,
            "ratio_to_gamma_star": rep.normalized_margin / float(gamma),
            "points": rep.n_points,
            "seconds": round(time.perf_counter() - t0, 3),
        }
        check = (
            f"  construction normalized margin on all 2^{n} inputs: {rep.normalized_margin:.12e} "
            f"(ratio {rep.normalized_margin / float(gamma):.12f})"
        )
    else:
        construction = {"skipped": _skipped_evaluation(log10_cost, evaluated)}
        check = f"  construction: {construction['skipped']}"
    obj = {
        "task": "parity",
        "n": n,
        "k": k,
        "source": "Edelman thesis Thm 7.8 (App. D.7)",
        "gamma_star": _num(gamma),
        "min_width": width,
        "independent_of_n": True,
        "construction": construction,
    }
    text = (
        f"({n},{k})-sparse parity (Edelman Thm 7.8)\n  gamma*      = {gamma} ≈ {approx_text(gamma, '.12e')} (independent of n)\n"
        f"  width bound = 2^(k-1) = {width}\n{check}"
    )
    _emit(obj, args.json, text)
    return 0


MAX_LAMBDA_TEXT = 10_000
"""Longest --lambda string (the API refuses more than 64 eigenvalues anyway)."""


def parse_eigenvalues(text: str) -> list[Any]:
    """The eigenvalues of ``--lambda 4,3,2,1``: comma-separated decimals or fractions (``1/2``, ``0.25``, ``1e-3``),
    parsed by :func:`theory._checks.as_number` (``fractions.Fraction``; a string is never evaluated).

    Raises
    ------
    InputError
        Naming ``--lambda`` and the entry: an empty list or entry, a non-number, a division by zero.
    """
    from theory._checks import InputError, as_number

    if len(text) > MAX_LAMBDA_TEXT:
        raise InputError(f"--lambda is {len(text):,} characters long, above the limit {MAX_LAMBDA_TEXT:,}")
    entries = text.split(",")
    if not text.strip():
        raise InputError("--lambda needs at least one eigenvalue, e.g. --lambda 4,3,2,1")
    values = []
    for i, entry in enumerate(entries, start=1):
        if not entry.strip():
            raise InputError(f"--lambda entry {i} is empty in {text[:80]!r}; e.g. --lambda 4,3,2,1")
        try:
            values.append(as_number(entry.strip(), "x", symbolic=False))
        except InputError as exc:
            raise InputError(
                f"--lambda entry {i} {str(exc).removeprefix('x ')}; --lambda takes comma-separated numbers such as "
                "4,3,2,1 or 1/2,0.25"
            ) from None
    return values


def _cmd_derive_lsa(args: argparse.Namespace) -> int:
    import sympy

    from theory import lsa as tl

    eig = parse_eigenvalues(args.lambda_)
    Lam = sympy.diag(*eig)
    opt = tl.optimal_rank_r(Lam, args.N, args.rank)
    exact = all(isinstance(v, sympy.Basic) and v.is_Rational for v in opt.lam)
    method = "exact (rational eigenvalues, sympy)" if exact else "float64 fallback (mpmath, 30 digits)"
    obj = {
        "task": "lsa",
        "source": "Shi thesis Thm 5.4.1 (App. D)",
        "lambda": [exact_text(v) for v in eig],
        "N": args.N,
        "rank": args.rank,
        "method": method,
        "T": [_num(t) for t in opt.T],
        "v_star": [_num(v) for v in opt.v],
        "U_star": [[exact_text(x) for x in row] for row in opt.U.tolist()],
        "reduced_loss": _num(opt.reduced_loss),
        "L_r": _num(opt.loss),
        "unique": bool(opt.unique),
    }
    text = (
        f"optimal rank-{args.rank} linear self-attention (Shi Thm 5.4.1), Lambda = diag({', '.join(map(str, eig))}), N = {args.N}\n"
        f"  method  = {method}\n"
        f"  T_i     = {', '.join(exact_text(t) for t in opt.T)}\n"
        f"  v*      = {', '.join(exact_text(v) for v in opt.v)}\n"
        f"  U*      = Q diag(v*) Q^T = [{', '.join('[' + ', '.join(exact_text(x) for x in row) + ']' for row in opt.U.tolist())}]\n"
        f"  L_r     = {exact_text(opt.loss)} ≈ {approx_text(opt.loss)}"
        + (
            ""
            if opt.unique
            else "\n  note: tied eigenvalues at the cut; any r-dim subspace of the tied eigenspace is optimal"
        )
    )
    _emit(obj, args.json, text)
    return 0


def _cmd_derive_majority(args: argparse.Namespace) -> int:
    from theory import boolean as tb

    n, k = args.n, args.k
    coef = tb.majority_coefficient(n, k)
    # W^k[Maj_n] is an integer over 4^n: exact only up to n = MAX_LEVEL_WEIGHT_N (docs/limits.md); above it the
    # coefficient and the gap (integers over 2^n) are still exact, and the weight is left out with the reason.
    weight = tb.majority_level_weight(n, k) if n <= tb.MAX_LEVEL_WEIGHT_N else None
    no_weight = f"not computed above n = {tb.MAX_LEVEL_WEIGHT_N} (an integer over 4^n; docs/limits.md)"
    gap = tb.majority_gap(n, k) if 1 <= k <= n - 1 else None  # the gap |Maj(k-1)| - |Maj(k+1)| needs both levels
    obj = {
        "task": "majority",
        "n": n,
        "k": k,
        "source": "Edelman thesis Lemma B.1 / Definition 5.4 / Lemma B.2",
        "coefficient": _num(coef),
        "level_weight": None if weight is None else _num(weight),
        "fourier_gap": None if gap is None else _num(gap),
    }
    if weight is None:
        obj["level_weight_note"] = no_weight
    text = (
        f"Majority_{n}, level k = {k} (Edelman Lemma B.1)\n"
        f"  coefficient Maj_n(S), |S| = k = {exact_text(coef)} ≈ {approx_text(coef)}\n"
        + (
            f"  level weight W^k[Maj_n]        = {exact_text(weight)} ≈ {approx_text(weight)}"
            if weight is not None
            else f"  level weight W^k[Maj_n]        : {no_weight}"
        )
    )
    if gap is not None:
        text += f"\n  Fourier gap (Definition 5.4)   = {exact_text(gap)} ≈ {approx_text(gap)}" + (
            "  (0 for odd k)" if k % 2 else ""
        )
    else:
        text += f"\n  Fourier gap (Definition 5.4)   : defined for 1 <= k <= n-1 only (k = {k}, n = {n})"
    _emit(obj, args.json, text)
    return 0


def _certificate_output(
    task: dict[str, Any], title: str, gamma: Any, cert: Any, origin: str = "theory"
) -> tuple[dict[str, Any], str]:
    """The JSON object and the text of `tvk certify`: gamma* (from theory, or where no closed form holds the
    ``origin`` named), the bracket, which end is rigorous."""
    verdict, why = cert.verdict(gamma)
    obj = {
        **task,
        "gamma_star": {**_num(gamma), "origin": origin},
        "certificate": cert.summary(),
        "verdict": verdict,
        "reason": why,
    }
    text = f"{title}: gamma* = {gamma} ≈ {approx_text(gamma, '.12e')} ({origin})\n{cert.text()}\n  verdict: {verdict} ({why})"
    return obj, text


def _cmd_derive_signal(args: argparse.Namespace) -> int:
    from theory import local_signal as tls

    summary = tls.derive_signal(args.k)
    _emit(summary, args.json, tls.format_signal(summary))
    return 0


def _cmd_derive_markov(args: argparse.Namespace) -> int:
    from numerics import markov_gradients as nmg  # deferred: only this command needs the Markov quadratures

    obj, text = nmg.derive_markov(args.k, args.t)
    _emit(obj, args.json, text)
    return 0


@contextlib.contextmanager
def _certifying(what: str, args: argparse.Namespace) -> Iterator[Callable[[int], None]]:
    """The stderr side of `tvk certify`: a line naming the work, a bar over the multi-start search (the part that
    grows with ``--starts``: 27 of the 29 s of ``modular --p 3 --k 2 --starts 10000``, docs/cli.md), then a line when
    the SOS relaxation starts. Yields the ``progress`` hook of :class:`numerics.certificates.Certifier`."""
    from numerics.certificates import check_certify_settings  # deferred: imports cvxpy
    from verify.runtime.progress import counter  # deferred: tqdm, needed only while certifying

    check_certify_settings(n_starts=args.starts, seed=args.seed)  # a bad setting is refused alone, before the line
    _log(f"certifying {what} (forward pass, {args.starts} starts, SOS relaxation) ...")
    start = time.monotonic()

    def searched() -> None:
        _log(f"  multi-start search done ({time.monotonic() - start:.1f} s); solving the SOS relaxation ...")

    with counter(args.starts, "multi-start search", enabled=not args.no_progress, unit="start", done=searched) as hook:
        yield hook


def _cmd_certify_modular(args: argparse.Namespace) -> int:
    from numerics.certificates import Certifier  # deferred: imports cvxpy
    from theory import modular as tm
    from theory._checks import format_count

    p, k = args.p, args.k
    gamma = tm.max_margin(p, k)  # checks p and k before any solver runs
    what = f"modular addition p = {format_count(p)}, k = {format_count(k)}"
    with _certifying(what, args) as progress:
        cert = Certifier(args.starts, args.seed, progress=progress).modular(p, k)
    obj, text = _certificate_output(
        {"task": "modular", "p": p, "k": k}, f"modular addition, p = {p}, k = {k}", gamma, cert
    )
    _emit(obj, args.json, text)
    return 0


def _cmd_certify_parity(args: argparse.Namespace) -> int:
    from numerics.certificates import Certifier  # deferred: imports cvxpy
    from theory import parity as tp
    from theory._checks import InputError, format_count

    n, k = args.n, args.k
    if not 1 <= k <= n:
        raise InputError(f"--k must satisfy 1 <= k <= n (--n), got --k {format_count(k)}, --n {format_count(n)}")
    gamma = tp.max_margin(k)
    what = f"({format_count(n)}, {format_count(k)})-sparse parity"
    with _certifying(what, args) as progress:
        cert = Certifier(args.starts, args.seed, progress=progress).parity(n, k)
    obj, text = _certificate_output({"task": "parity", "n": n, "k": k}, f"({n}, {k})-sparse parity", gamma, cert)
    _emit(obj, args.json, text)
    return 0


def _cmd_certify_group(args: argparse.Namespace) -> int:
    from numerics import groups as ng
    from numerics.certificates import Certifier  # deferred: imports cvxpy
    from theory import finite_groups as fg
    from theory import groups as tg

    G = fg.group(args.name)
    if fg.is_totally_real(G) and not tg.condition_holds(G):  # no closed form (A5): gamma* is the LP's, as in derive
        gamma, origin = ng.character_lp(G).value, "the character LP of Edelman App. D.9.2; Thm 7.9's condition fails"
    else:
        gamma, origin = tg.max_margin(args.name), "theory"  # checks the name and real irreps before any solver
    with _certifying(f"the group {args.name}", args) as progress:
        cert = Certifier(args.starts, args.seed, progress=progress).group(args.name)
    title = f"group {args.name}"
    obj, text = _certificate_output({"task": "group", "name": args.name}, title, gamma, cert, origin)
    _emit(obj, args.json, text)
    return 0


EPILOG = f"""\
exit status:
  {EXIT_OK}    done (report: every claim passed or was refuted as expected; certify: the certificate was
       computed, its verdict is in the output)
  {EXIT_FAILED}    report: a claim failed, is inconclusive (unless declared underpowered or exploratory) or is an
       erratum that the run did not refute
  {EXIT_BAD_INPUT}    bad input: unknown option, bad value, a size above a limit (the message names the option
       and the limit), an unusable output directory or device (--device cuda without CUDA), a report
       directory locked by another run, a report worker process that died (-j)
  {EXIT_INTERNAL}    internal error (a bug of tvk; TVK_DEBUG=1 shows the traceback)
  {EXIT_OUTPUT}   stdout could not be written (e.g. disk full)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C or SIGTERM)
  {EXIT_BROKEN_PIPE}  the reader of stdout left (broken pipe)
With --json every outcome, errors included, prints exactly one JSON object on stdout
({{"error": ...}} on failure); logs and progress go to stderr. See docs/cli.md.
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``tvk`` parser: one builder per command below."""
    parser = _Parser(
        prog="tvk",
        description="Theory verification toolkit",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)

    _add_report(sub)
    _add_list(sub)
    _add_diff(sub)
    _add_status(sub)
    sweep_cli.add_sweep_commands(sub)
    _add_derive(sub)
    _add_certify(sub)
    _name_subcommands(parser)
    return parser


def _subcommand_actions(parser: argparse.ArgumentParser) -> list[argparse._SubParsersAction]:
    """The subcommand actions of ``parser`` (argparse keeps them among its actions)."""
    return [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]


def _name_subcommands(parser: argparse.ArgumentParser) -> None:
    """Name each subcommand position by its choices (``{modular,parity,...}``, as the usage line shows it), so a
    missing one is reported as those choices and not as the internal ``dest`` (``task``, ``sweep_command``)."""
    for action in _subcommand_actions(parser):
        if action.metavar is None:
            action.metavar = "{" + ",".join(action.choices) + "}"
        for child in action.choices.values():
            _name_subcommands(child)


def _subcommand_prog(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str:
    """The ``prog`` of the (sub)command ``argv`` names (``tvk list``, ``tvk derive parity``): options are skipped,
    the walk stops at the first word that is not a subcommand."""
    for token in argv:
        if token.startswith("-"):
            continue
        actions = _subcommand_actions(parser)
        if not actions or token not in actions[0].choices:
            break
        parser = actions[0].choices[token]
    return parser.prog


def _add_report(sub: Any) -> None:
    """``tvk report``: run the claims and write the report (or plan its cost, or render the archive)."""
    rep = sub.add_parser("report", help="run the claims and write results.json, report.md, report.html and figures/")
    rep.add_argument(
        "--scale",
        choices=["quick", "full"],
        default="quick",
        help="quick: a 2-core CPU in minutes (default); full: the papers' settings, meant for a GPU",
    )
    rep.add_argument("--only", default=None, help="shell pattern(s) on claim ids, comma-separated (e.g. 'shi-*')")
    rep.add_argument("--claims", action="append", default=[], metavar="MODULE", help=CLAIMS_HELP)
    rep.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    rep.add_argument("--out", default="tvk-report", help="output directory (default: tvk-report)")
    rep.add_argument("--no-progress", action="store_true", help="no progress bars")
    rep.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    rep.add_argument(
        "--dtype",
        choices=["float64", "float32", "tf32"],
        default=None,
        help="training dtype of every trainer (default: each trainer's own policy, e.g. float64 on CPU and float32 "
        "on CUDA for the polynomial networks; tf32: CUDA only); every judged quantity is evaluated in float64, and "
        "each record states the dtype each run used",
    )
    rep.add_argument(
        "--seed-offset",
        type=_seed_offset,
        default=0,
        metavar="N",
        help="run every training claim on the disjoint seed set i + N (default 0); each record lists the seeds",
    )
    rep.add_argument(
        "--ignore-memory-check",
        action="store_true",
        help="start runs whose estimated peak memory exceeds the device's free memory",
    )
    rep.add_argument(
        "--self-contained", action="store_true", help="embed the figures in report.html (one file to mail or attach)"
    )
    rep.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="run the claims in N worker processes (default: the number of cores for --scale quick on the CPU, "
        "else 1; 1 runs them one after another in this process); grid claims too with --executor auto (with an "
        "executor named, in this process afterwards)",
    )
    rep.add_argument(
        "--figure-formats",
        default="png",
        metavar="LIST",
        help="comma-separated figure formats among png, pdf, svg (default png; PNG is always written for the HTML)",
    )
    rep.add_argument(
        "--plan",
        action="store_true",
        help="print each selected claim's estimated wall time and peak memory on --device, whether it fits, and the "
        "totals; nothing runs (docs/running_at_scale.md)",
    )
    rep.add_argument(
        "--within",
        type=_duration,
        default=None,
        metavar="DURATION",
        help="run only the selected claims that the plan (--plan, on --device) puts at DURATION or less each (e.g. 2h, "
        "90m) and that have no current record in --archive; prints which run and why the others do not",
    )
    rep.add_argument(
        "--archive",
        default=None,
        metavar="DIR",
        help="merge every finished record into the results archive DIR (e.g. results/); newer records replace "
        "older ones, never the reverse; with --plan, measured runtimes are read from it",
    )
    rep.add_argument(
        "--compare",
        default=None,
        metavar="PREV",
        help="add a 'Changes since PREV' section to report.md and report.html: this run compared with the run PREV "
        "(a report directory, results.json or results.jsonl, as tvk diff takes; read before any claim runs)",
    )
    rep.add_argument(
        "--from-archive",
        default=None,
        metavar="DIR",
        help="render report.md and report.html from the results archive DIR alone: no claim runs",
    )
    sweep_cli.add_report_options(rep)
    rep.set_defaults(func=_cmd_report)


def _add_list(sub: Any) -> None:
    """``tvk list``: the registered claims."""
    lst = sub.add_parser("list", help="list the registered claims")
    lst.add_argument("--scale", choices=["quick", "full"], default="quick")
    lst.add_argument("--only", default=None, help="shell pattern(s) on claim ids, comma-separated")
    lst.add_argument("--claims", action="append", default=[], metavar="MODULE", help=CLAIMS_HELP)
    lst.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    lst.set_defaults(func=_cmd_list)


#: ``tvk status --help``'s description (verify/report/status.py).
STATUS_DESCRIPTION = (
    "Read a report directory without writing to it: whether a report is running in it, the records finished so far, "
    "and each training run's checkpoint (its claim, step of steps, dtype, when it was saved, and whether this code "
    "resumes it or sets it aside). Grid cells: tvk sweep status."
)


def _add_status(sub: Any) -> None:
    """``tvk status``: where a report directory stands while its claims run."""
    help_ = "where a report directory stands: the running report, records so far, training runs' checkpoints"
    st = sub.add_parser("status", help=help_, description=STATUS_DESCRIPTION)
    st.add_argument("--out", default="tvk-report", help="the report directory (default tvk-report)")
    st.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    st.set_defaults(func=_cmd_status)


def _add_diff(sub: Any) -> None:
    """``tvk diff OLD NEW``: two runs compared claim by claim."""
    dif = sub.add_parser(
        "diff",
        help="compare two runs claim by claim: verdict changes, exact values, drift, errors, runtimes",
        description="Compare the run OLD with the run NEW (report directories, results.json or results.jsonl files). "
        "Exit status 0 when both have the same claims, verdicts and exact values, 1 when they differ.",
    )
    dif.add_argument("old", help="the earlier run (a report directory or a results file)")
    dif.add_argument("new", help="the later run")
    dif.add_argument(
        "--rtol", type=float, default=1e-9, help="relative change of a float value reported as drift (default 1e-9)"
    )
    dif.add_argument("--no-runtimes", action="store_true", help="do not report runtime changes")
    dif.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    dif.set_defaults(func=_cmd_diff)


def _add_task(tasks: Any, name: str, help_text: str, func: Callable[[argparse.Namespace], int] | None = None) -> Any:
    """A task of ``tvk derive`` or ``tvk certify``: the subcommand ``name`` with ``--json``, run by ``func`` (None: the
    caller sets it)."""
    parser = tasks.add_parser(name, help=help_text)
    parser.add_argument("--json", action="store_true", help=JSON_OPTION_HELP)
    if func is not None:
        parser.set_defaults(func=func)
    return parser


def _add_modular_task(tasks: Any, func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    """The ``modular`` task of ``tvk derive`` and ``tvk certify``: ``--p``, ``--k``, ``--json``."""
    mod = _add_task(tasks, "modular", "modular addition with k inputs (Shi Ch. 4; Edelman Ch. 7 for k = 2)", func)
    _Option("--p", "odd modulus p >= 3").add_to(mod)
    _Option("--k", "number of inputs k >= 1").add_to(mod)
    return mod


def _add_evaluate(parser: argparse.ArgumentParser, inputs: str) -> None:
    """``--evaluate auto|always|never``: whether ``tvk derive`` checks the construction on all ``inputs`` points."""
    parser.add_argument(
        "--evaluate",
        choices=["auto", "always", "never"],
        default="auto",
        help=f"evaluate the construction on all {inputs} inputs (auto: when cheap)",
    )


@dataclass(frozen=True)
class _Option:
    """One option of a ``tvk derive`` / ``tvk certify`` task: ``flag`` (``--name``), its type, help and default
    (``required`` when it has none); ``dest`` when the flag is a Python keyword."""

    flag: str
    help: str
    type: Callable[[str], Any] = int
    required: bool = True
    default: Any = None
    dest: str | None = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        extra = {"dest": self.dest, "metavar": self.flag.lstrip("-").upper()} if self.dest else {}
        parser.add_argument(
            self.flag, type=self.type, required=self.required, default=self.default, help=self.help, **extra
        )


@dataclass(frozen=True)
class _Task:
    """A task of ``tvk derive`` or ``tvk certify``: the subcommand ``name`` (``help``) run by ``func`` with ``options`` (and
    ``--json``), and ``--evaluate`` over the inputs ``evaluate`` names when it has a construction to check."""

    name: str
    help: str
    func: Callable[[argparse.Namespace], int]
    options: tuple[_Option, ...]
    evaluate: str | None = None


#: The tasks of ``tvk derive`` after ``modular`` (which ``tvk certify`` shares).
_DERIVE_TASKS: tuple[_Task, ...] = (
    _Task(
        "parity",
        "(n, k)-sparse parity (Edelman Thm 7.8)",
        _cmd_derive_parity,
        (
            _Option("--k", "parity degree k >= 1"),
            _Option("--n", "input bits n >= k for the construction check (default k)", required=False),
        ),
        evaluate="2^n",
    ),
    _Task(
        "group",
        "finite group composition (Edelman Thm 7.9)",
        _cmd_derive_group,
        (_Option("--name", "Sn (n <= 6), An (n <= 6), Dn, Zn, Z2^k, Q8, products like S3xZ2; |G| <= 720", type=str),),
    ),
    _Task(
        "lsa",
        "optimal rank-r linear self-attention for in-context regression (Shi Thm 5.4.1)",
        _cmd_derive_lsa,
        (
            _Option("--lambda", "eigenvalues of Lambda, e.g. 4,3,2,1", type=str, dest="lambda_"),
            _Option("--N", "prompt length N >= 1"),
            _Option("--rank", "rank r, 0 <= r <= d"),
        ),
    ),
    _Task(
        "majority",
        "Majority_n Fourier coefficient, level weight and Fourier gap (Edelman App. B)",
        _cmd_derive_majority,
        (_Option("--n", "number of bits n >= 1"), _Option("--k", "level 0 <= k <= n")),
    ),
    _Task(
        "signal",
        "local signal adaptivity: sigma, linear classifier error, tau*, err(tau*) (Karp Ch. 3)",
        _cmd_derive_signal,
        (_Option("--k", "number of patches k >= 2"),),
    ),
    _Task(
        "markov",
        "in-context Markov chains: strategy KLs and step-1/step-2 gradient coefficients (Edelman Ch. 8)",
        _cmd_derive_markov,
        (_Option("--k", "number of states 2 <= k <= 10"), _Option("--t", "context length 2 <= t <= 2000")),
    ),
)


def _add_derive(sub: Any) -> None:
    """``tvk derive TASK``: exact derivations (theory/), one subcommand per task (:data:`_DERIVE_TASKS`)."""
    cmd = sub.add_parser("derive", help="exact derivations")
    tasks = cmd.add_subparsers(dest="task", required=True)
    _add_evaluate(_add_modular_task(tasks, _cmd_derive_modular), "p^k")
    for task in _DERIVE_TASKS:
        parser = _add_task(tasks, task.name, task.help, task.func)
        for option in task.options:
            option.add_to(parser)
        if task.evaluate is not None:
            _add_evaluate(parser, task.evaluate)


#: The tasks of ``tvk certify`` after ``modular``; each also takes ``--starts`` and ``--seed``.
_CERTIFY_TASKS: tuple[_Task, ...] = (
    _Task(
        "parity",
        "(n, k)-sparse parity (Edelman Thm 7.8)",
        _cmd_certify_parity,
        (_Option("--n", "input bits n >= k"), _Option("--k", "parity degree k >= 1")),
    ),
    _Task(
        "group",
        "finite group composition (Edelman Thm 7.9)",
        _cmd_certify_group,
        (_Option("--name", "a small group: S3, D4, D5, Z2^3, ...", type=str),),
    ),
)


def _add_certify(sub: Any) -> None:
    """``tvk certify TASK``: convex certificates of the max margin (numerics.certificates), each with a multi-start
    heuristic (``--starts``, ``--seed``)."""
    cmd = sub.add_parser("certify", help="convex certificates")
    tasks = cmd.add_subparsers(dest="task", required=True)
    parsers = [_add_modular_task(tasks, _cmd_certify_modular)]
    for task in _CERTIFY_TASKS:
        parsers.append(_add_task(tasks, task.name, task.help, task.func))
        for option in task.options:
            option.add_to(parsers[-1])
    for cmd_parser in parsers:
        cmd_parser.add_argument(
            "--starts", type=int, default=8, help="multi-start count of the heuristic single-neuron maximum"
        )
        cmd_parser.add_argument("--seed", type=int, default=0, help="seed of the multi-start points")
        cmd_parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


class UsageError(Exception):
    """An argparse error (unknown option, bad value, missing argument) of the (sub)command ``prog``."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class _OutputError(Exception):
    """Writing to stdout failed (disk full, closed pipe): ``cause`` is the OSError."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are exceptions, so that :func:`main` reports them (as JSON under --json)."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(self.prog, _QUOTED.sub(_shortened, message))


_QUOTED = re.compile(r"'([^']{81,})'")  # a value argparse quotes in its message, when long


def _shortened(match: re.Match[str]) -> str:
    """A long quoted value of an argparse message (``invalid int value: '999...'``, 5000 digits) as its first 40
    characters and its length."""
    value = match[1]
    return f"'{value[:40]}...' ({len(value):,} characters)"


class _CheckedStdout:
    """sys.stdout during :func:`main`: a failed write or flush raises :class:`_OutputError` (not an OSError that
    could be mistaken for one of the command's own files)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _OutputError(exc) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _OutputError(exc) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


# The options of each command that carry the parameters of the Python functions it calls: an error whose
# InputError.param (or leading word) is a key is reported with the option instead. A value (option, True) means
# the option *is* that parameter (the leading "k = 5" becomes "--k 5"); (option, False) that the parameter is
# derived from it (the message is prefixed "--name: "). "*" covers any other parameter of the command, "?" an error
# that names no parameter (for the group commands: the group name's grammar, the theorem's hypotheses on G).
_Options = dict[str, tuple[str, bool]]
_OPTION_NAMES: dict[tuple[str, ...], _Options] = {
    ("derive", "modular"): {"p": ("--p", True), "k": ("--k", True), "width": ("--p/--k", False)},
    ("derive", "parity"): {"k": ("--k", True), "n": ("--n", True), "width": ("--k", False)},
    ("derive", "group"): {
        "group": ("--name", True),
        "name": ("--name", True),
        "*": ("--name", False),
        "?": ("--name", False),
    },
    ("derive", "lsa"): {"Lambda": ("--lambda", True), "N": ("--N", True), "r": ("--rank", True)},
    ("derive", "majority"): {"n": ("--n", True), "k": ("--k", True)},
    ("derive", "signal"): {"k": ("--k", True)},
    ("derive", "markov"): {"k": ("--k", True), "t": ("--t", True)},
    ("report",): {"out": ("--out", True), "scale": ("--scale", True), "device": ("--device", True)},
    ("diff",): {"rtol": ("--rtol", True)},
}
# ``tvk certify TASK`` takes the options of ``tvk derive TASK`` and the multi-start search's ``--starts`` and
# ``--seed`` (:func:`_add_certify`), so its names are derive's and these two.
_MULTI_START: _Options = {"n_starts": ("--starts", True), "seed": ("--seed", True)}
_OPTION_NAMES.update(
    {("certify", task): {**_OPTION_NAMES[("derive", task)], **_MULTI_START} for task in ("modular", "parity", "group")}
)

_LEADING_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?= = | must | is | should | needs | has | \()")


def _command_key(args: argparse.Namespace | None) -> tuple[str, ...]:
    if args is None:
        return ()
    return tuple(v for v in (getattr(args, "command", None), getattr(args, "task", None)) if v)


def _option_names(args: argparse.Namespace | None) -> _Options:
    names = dict(_OPTION_NAMES.get(_command_key(args), {}))
    if _command_key(args) == ("derive", "parity") and getattr(args, "n", None) is None:
        names["n"] = ("--k", True)  # n defaults to k
    return names


def option_message(exc: BaseException, args: argparse.Namespace | None) -> str:
    """The message of a bad-input error with the API's parameter replaced by the option the user typed.

    ``InputError.param`` names the parameter (a plain ValueError: the message's first word, when it is one of the
    command's parameters). ``k = 30 is too large: ...`` of ``tvk derive parity --k 30`` becomes
    ``--k 30 is too large: ...``; ``n_starts must be an integer >= 1, got 0`` becomes ``--starts must be ...``.
    """
    msg = " ".join(str(exc).split())  # one line
    names = _option_names(args)
    if not names:
        return msg
    param = getattr(exc, "param", None)
    if param is None:
        lead = _LEADING_NAME.match(msg)
        param = lead.group(1) if lead and lead.group(1) in names else None
    if param is None:
        return f"{names['?'][0]}: {msg}" if "?" in names and not msg.startswith("--") else msg
    option, same = names.get(param, names.get("*", ("", False)))
    if not option:
        return msg
    if not same:
        return f"{option}: {msg}"
    lead = re.match(rf"{re.escape(param)}(?: = | )", msg)
    msg = f"{option}: {msg}" if lead is None else f"{option} {msg[lead.end() :]}"
    # "..., got k = 5, n = 3" and a leading "--k 3 > n = 2: ..." name what the user typed: "got --k 5, --n 3",
    # "--k 3 > --n 2: ..." (only the tail and the first clause: the body speaks of the theorem's symbols, e.g.
    # "2^n points").
    cut, first = msg.rfind("got "), msg.find(": ")
    pieces = [(0, first)] if lead is not None and first > 0 else []
    pieces += [(cut, len(msg))] if cut >= 0 else []
    for start, end in reversed(pieces):
        part = msg[start:end]
        for name, (opt, is_same) in names.items():
            if is_same and name not in ("*", "?"):
                part = re.sub(rf"(?<![\w^*-]){re.escape(name)} = ", f"{opt} ", part)
        msg = msg[:start] + part + msg[end:]
    return re.sub(rf"the limit {re.escape(param)} <=", f"the limit {option} <=", msg)


def _overflow_message(exc: BaseException, args: argparse.Namespace | None) -> str | None:
    """An OverflowError names no parameter: name the integer options above the float range (~10^308) instead."""
    from theory._checks import format_count

    if not isinstance(exc, OverflowError) or args is None:
        return None
    huge = [
        f"--{name} {format_count(value)}"
        for name, value in vars(args).items()
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**300
    ]
    if not huge:
        return None
    return (
        f"{', '.join(huge)} {'is' if len(huge) == 1 else 'are'} too large for this command: its size estimates are floating point, which ends near "
        f"10^308 ({' '.join(str(exc).split())})"
    )


_OWN_PACKAGES = ("verify", "theory", "numerics")


def _environment_message(exc: BaseException) -> str:
    """The one-line message of an OSError or RuntimeError that ends a command with exit 2: the text alone for the
    project's own errors (their messages are written for users: ReportError, ReportDirectoryError, a device that
    does not exist), ``'PATH': reason`` for an operating-system error on a file, else the class name and the text
    (an error of a library, e.g. ``PermissionError: ...`` without a file name)."""
    text = " ".join(str(exc).split())
    if type(exc).__module__.split(".")[0] in _OWN_PACKAGES:
        return text
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{str(exc.filename)!r}: {exc.strerror or text}"
    return f"{type(exc).__name__}: {text}"


JSON_TRUE, JSON_FALSE = ("yes", "true", "1", "on"), ("no", "false", "0", "off")


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether the answer, or the error, goes to stdout as JSON: ``--json`` in any of its forms (``--json=yes``
    too; an unknown value is an error, reported as JSON)."""
    return any(a == "--json" or (a.startswith("--json=") and a[7:].lower() not in JSON_FALSE) for a in argv)


def _report_error(message: str, as_json: bool, prefix: str = "tvk: error: ", **extra: Any) -> None:
    """One JSON object on stdout under --json (when stdout still works), one line on stderr."""
    if as_json:
        with contextlib.suppress(OSError, _OutputError):
            print(json.dumps({"error": message, **extra}), flush=True)
    _log(f"{prefix}{message}")


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that the interpreter's final flush of text still buffered for a
    broken or full stdout neither fails nor prints 'Exception ignored'."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.__stdout__.fileno())
        os.close(fd)
    except (OSError, AttributeError, ValueError):  # no real file descriptor (e.g. under pytest's capture)
        pass


def _preprocess(argv: list[str]) -> list[str]:
    """``--lambda -1,2`` (a value starting with '-') would read as an option: pass it as ``--lambda=-1,2``;
    ``--json=yes`` (true, 1, on) is ``--json`` and ``--json=no`` (false, 0, off) is dropped."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i].startswith("--json=") and argv[i][7:].lower() in JSON_TRUE + JSON_FALSE:
            if argv[i][7:].lower() in JSON_TRUE:
                out.append("--json")
            i += 1
            continue
        if argv[i] == "--lambda" and i + 1 < len(argv) and re.match(r"^-[\d.]", argv[i + 1]):
            out.append(f"--lambda={argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def _autocomplete(parser: argparse.ArgumentParser) -> None:
    """Answer a shell's completion request (argcomplete, when the shell set ``_ARGCOMPLETE``; enable it with
    ``eval "$(register-python-argcomplete tvk)"``): prints the candidates and exits. Otherwise nothing."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete  # deferred: only a completion request needs it
    except ImportError:
        return
    argcomplete.autocomplete(parser)


class _SigintWatch:
    """Remembers that SIGINT or SIGTERM arrived while :func:`main` ran (then raises KeyboardInterrupt as Python's
    default SIGINT handler does): a Ctrl-C during an extension's import reaches :func:`main` as that import's
    ImportError, and must still end with the interrupted status (exit 130), not as an internal error; a SIGTERM is
    handled as a Ctrl-C (without it, the process died at once and lost the progress since the last checkpoint)."""

    def __init__(self) -> None:
        self.received = False
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        self.received = False
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handle) for sig in INTERRUPT_SIGNALS}

    def restore(self) -> None:
        for sig, previous in self._previous.items():
            if previous is not None:
                signal.signal(sig, previous)
        self._previous = {}

    @raises_interrupt  # a training loop may defer it to the end of an update and save a checkpoint first
    def _handle(self, signum: int, frame: Any) -> None:
        self.received = True
        raise KeyboardInterrupt


_SIGINT = _SigintWatch()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tvk``; returns the exit status (the module doc and ``tvk --help`` list them)."""
    from_command_line = argv is None
    argv = _preprocess(list(sys.argv[1:] if argv is None else argv))
    as_json = _wants_json(argv)
    args: argparse.Namespace | None = None
    real_stdout = sys.stdout
    sys.stdout = _CheckedStdout(real_stdout)
    _SIGINT.install()
    try:
        try:
            parser = build_parser()
            for action in parser._actions:  # `tvk --version --json`: the version as one JSON object
                if isinstance(action, _VersionAction):
                    action.as_json = as_json
            if from_command_line:
                _autocomplete(parser)
            args, unknown = parser.parse_known_args(argv)
            if unknown:  # named by the subcommand that was given them (`tvk list --bogus`: `tvk list --help`)
                command = _subcommand_prog(parser, sys.argv[1:] if argv is None else argv)
                raise UsageError(command, f"unrecognized arguments: {' '.join(unknown)}")
            as_json = bool(getattr(args, "json", as_json))
            code = int(args.func(args))
            sys.stdout.flush()
            return code
        finally:
            sys.stdout = real_stdout
            _SIGINT.restore()
    except SystemExit as exc:  # --help, --version
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_BAD_INPUT)
        try:
            sys.stdout.flush()
        except OSError:
            _silence_stdout()
            return EXIT_BROKEN_PIPE
        return code
    except UsageError as exc:
        hint = f"`{exc.prog} --help` lists the options"
        _report_error(f"{exc}; {hint}", as_json, prefix=f"{exc.prog}: error: ", usage=exc.prog)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _report_error("interrupted", as_json, prefix="tvk: ", exit_code=EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except _OutputError as exc:
        _silence_stdout()
        if exc.cause.errno == errno.EPIPE or isinstance(exc.cause, BrokenPipeError):
            return EXIT_BROKEN_PIPE  # e.g. `tvk list | head -1`: the reader left; say nothing more
        _log(f"tvk: error: cannot write the output to stdout: {exc.cause.strerror or exc.cause}")
        return EXIT_OUTPUT
    except (ValueError, ArithmeticError, RecursionError) as exc:
        _report_error(_overflow_message(exc, args) or option_message(exc, args), as_json)
        return EXIT_BAD_INPUT
    except MemoryError as exc:
        _report_error(f"out of memory ({exc or 'MemoryError'}); use smaller sizes", as_json)
        return EXIT_BAD_INPUT
    except (OSError, RuntimeError) as exc:
        _report_error(_environment_message(exc), as_json)
        return EXIT_BAD_INPUT
    except Exception as exc:  # a bug: one line, and the traceback on request
        if _SIGINT.received:  # Ctrl-C inside an import surfaces as that module's ImportError: still an interruption
            _report_error("interrupted", as_json, prefix="tvk: ", exit_code=EXIT_INTERRUPTED)
            return EXIT_INTERRUPTED
        if os.environ.get("TVK_DEBUG"):
            raise
        msg = f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}"
        _report_error(msg + " (a bug of tvk; TVK_DEBUG=1 shows the traceback)", as_json)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
