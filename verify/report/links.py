"""Where a claim lives: the file and line of its registration, its docs page and its source, for the report's links.

Nothing here runs a claim. :func:`claim_location` answers at render time from the registered claim and the source
files: the module that defines the claim's ``observe`` (or ``predict``), then every module under
``verify/claims``, is parsed (:mod:`ast`, once per file) for the ``Claim(...)`` whose ``id`` is the claim's id (a
string, or an f-string whose fixed parts match), and the line of the ``register(...)`` call around it (else of the
``Claim(...)`` itself) is returned. An id built another way (``id=GRID.claim_id``) is found where the id is
written as a string (the grid's definition); a claim found nowhere gets its module's file without a line.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["REPO_ROOT", "ClaimLocation", "claim_location", "docs_page", "repository_url", "source_parts"]

#: The checkout (or installation) root: the folder holding the ``verify`` package.
REPO_ROOT = Path(__file__).resolve().parents[2]
CLAIMS_DIR = REPO_ROOT / "verify" / "claims"
DOCS_DIR = REPO_ROOT / "docs"


@dataclass(frozen=True)
class ClaimLocation:
    """A claim's registration: ``path`` (relative to :data:`REPO_ROOT` when inside it, else absolute), ``line``
    (1-based, None when unknown), ``file`` (absolute) and ``module``."""

    path: str
    line: int | None
    file: str
    module: str | None

    @property
    def text(self) -> str:
        """``path:line`` (``path`` alone without a line)."""
        return f"{self.path}:{self.line}" if self.line else self.path


def _module_file(module: str | None) -> Path | None:
    if not module:
        return None
    mod = sys.modules.get(module)
    file = getattr(mod, "__file__", None)
    if file is None and module != "__main__":
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        file = spec.origin if spec is not None else None
    return Path(file).resolve() if file and str(file).endswith(".py") else None


@lru_cache(maxsize=256)
def _registrations(file: str) -> tuple[tuple[str, int, bool], ...]:
    """(id pattern, line, is a ``Claim(id=...)``) of ``file``: one per ``Claim(...)`` call with a literal or
    f-string id (the line of the ``register(...)`` around it, if any), then one per other string literal that
    looks like a claim id (``claim_id="..."`` of a grid definition), not counting ``corrected_by`` / ``refutes``
    references."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return ()
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out: list[tuple[str, int, bool]] = []
    skip: set[int] = set()
    named = _named_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in ("corrected_by", "refutes", "statement", "source"):
                    skip.update(id(n) for n in ast.walk(kw.value))
        if not (isinstance(node, ast.Call) and _name(node.func) == "Claim"):
            continue
        value = next((k.value for k in node.keywords if k.arg == "id"), node.args[0] if node.args else None)
        pattern = _pattern(value, named)
        if pattern is None:
            continue
        line, up = node.lineno, parents.get(id(node))
        while up is not None and not isinstance(up, ast.stmt):
            if isinstance(up, ast.Call) and _name(up.func) == "register":
                line = up.lineno
                break
            up = parents.get(id(up))
        out.append((pattern, line, True))
        skip.update(id(n) for n in ast.walk(value))  # type: ignore[arg-type]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and re.fullmatch(r"[a-z]+-[\w.+-]+", node.value)
        ):
            out.append((re.escape(node.value), node.lineno, False))
    return tuple(out)


def _name(func: ast.AST) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _named_ids(tree: ast.AST) -> dict[str, str]:
    """{name: id} of the module-level ``NAME = Something(..., claim_id="...")`` definitions (a grid claim's)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            for kw in node.value.keywords:
                if kw.arg == "claim_id" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    out.update({t.id: kw.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def _pattern(value: ast.AST | None, named: dict[str, str]) -> str | None:
    """A regular expression for the ids a ``Claim(id=...)`` value can take: a string literally, an f-string with
    each replacement field as ``.*?``, ``NAME.claim_id`` of a grid defined in the module; None for anything else."""
    if isinstance(value, ast.Attribute) and value.attr == "claim_id" and isinstance(value.value, ast.Name):
        return re.escape(named[value.value.id]) if value.value.id in named else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return re.escape(value.value)
    if isinstance(value, ast.JoinedStr):
        return "".join(
            re.escape(v.value) if isinstance(v, ast.Constant) and isinstance(v.value, str) else ".*?"
            for v in value.values
        )
    return None


def _shown_path(file: Path) -> str:
    try:
        return file.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(file)


@lru_cache(maxsize=1)
def _claim_files() -> tuple[str, ...]:
    return tuple(str(p) for p in sorted(CLAIMS_DIR.rglob("*.py")) if "__pycache__" not in p.parts)


def claim_location(claim_id: str, claim: Any = None) -> ClaimLocation | None:
    """The file and line where ``claim_id`` is registered (see the module docstring); None when the claim is not
    registered in this process (and not given as ``claim``)."""
    if claim is None:
        from verify.claims.base import registry

        claim = registry().get(claim_id)
        if claim is None:
            return None
    from verify.claims.external import claim_module

    module = claim_module(claim)
    own = _module_file(module)
    files = ([str(own)] if own else []) + [f for f in _claim_files() if f != str(own)]
    for literal in (True, False):  # a Claim(id=...) anywhere first, then the id written as a string
        for file in files:
            for pattern, line, is_claim in _registrations(file):
                if is_claim == literal and re.fullmatch(pattern, claim_id):
                    path = Path(file)
                    return ClaimLocation(_shown_path(path), line, str(path), _module_name(path, module, own))
    if own is None:
        return None
    return ClaimLocation(_shown_path(own), None, str(own), module)


def _module_name(path: Path, module: str | None, own: Path | None) -> str | None:
    if own is not None and path == own:
        return module
    try:
        rel = path.relative_to(REPO_ROOT).with_suffix("")
    except ValueError:
        return None
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def docs_page(location: ClaimLocation | None, source: str = "", claim_id: str = "") -> str | None:
    """The docs page of a claim (relative to :data:`REPO_ROOT`): ``docs/<task>.md`` for a claim of
    ``verify/claims/<task>/...`` or ``verify/claims/<task>.py`` when that page exists, else the first existing
    ``docs/*.md`` its ``source`` names, else the first docs page that mentions ``claim_id``; None when none does."""
    if location is not None and location.path.startswith("verify/claims/"):
        task = Path(location.path).relative_to("verify/claims").parts[0].removesuffix(".py")
        if (DOCS_DIR / f"{task}.md").is_file():
            return f"docs/{task}.md"
    for name in re.findall(r"docs/([\w.-]+\.md)", source):
        if (DOCS_DIR / name).is_file():
            return f"docs/{name}"
    if claim_id:
        for name, text in _docs_texts():
            if claim_id in text:
                return f"docs/{name}"
    return None


@lru_cache(maxsize=1)
def _docs_texts() -> tuple[tuple[str, str], ...]:
    try:
        return tuple((p.name, p.read_text(encoding="utf-8")) for p in sorted(DOCS_DIR.glob("*.md")))
    except OSError:
        return ()


def source_parts(source: str, document: str, chapter: str) -> dict[str, str]:
    """The claim's ``source`` field as the report lists it: ``document`` (e.g. "Shi thesis (2024)"), ``chapter``
    (from :func:`verify.report.render.group_of`), ``where`` (the rest: theorem, section, figure, without the
    document's name and chapter) and ``pages`` ("p. 12" when the source gives a page, else ""). The document is
    what stands before the first comma outside parentheses ("Edelman thesis (2024) Ch. 6 / App. C.3 (Edelman et
    al. 2023, Pareto frontiers), Lemma C.5" names Lemma C.5)."""
    head, rest = _first_top_level_comma(source)
    named = " thesis" in head or head.strip() == document.strip()  # the source begins with its document's name
    where = rest.strip() if rest and named else source.strip()
    where = re.sub(r"^Ch\. ?\d+,?\s*", "", where)
    m = re.search(r"\b(pp?\. ?\d+(?:\s*[-\u2013]\s*\d+)?|pages? \d+(?:\s*[-\u2013]\s*\d+)?)", source)
    return {"document": document, "chapter": chapter, "where": where, "pages": m.group(1) if m else ""}


def _first_top_level_comma(text: str) -> tuple[str, str]:
    """``text`` split at its first comma outside parentheses: (before, after); (text, "") without one."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth <= 0:
            return text[:i], text[i + 1 :]
    return text, ""


@lru_cache(maxsize=1)
def repository_url() -> str | None:
    """The repository's web address, from ``CITATION.cff`` (``repository-code``) when it has one, else None."""
    try:
        text = (REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"^repository-code:\s*[\"']?(https://[^\s\"']+?)[\"']?\s*$", text, re.MULTILINE)
    return m.group(1).removesuffix(".git").rstrip("/") if m else None


def file_href(path: str, line: int | None, revision: str | None, report_dir: str | os.PathLike | None) -> str | None:
    """Where a link to ``path`` (relative to :data:`REPO_ROOT`, or absolute) points: the repository's page of the
    file at ``revision`` (with ``#L<line>``) when :func:`repository_url` is known and the revision is a commit,
    else the local file relative to ``report_dir`` (``file://`` absolute without one); None for a file outside
    the repository when only the web address would do."""
    url = repository_url()
    inside = not Path(path).is_absolute()
    if url and inside and revision and re.fullmatch(r"[0-9a-f]{7,40}", revision):
        return f"{url}/blob/{revision}/{path}" + (f"#L{line}" if line else "")
    file = (REPO_ROOT / path) if inside else Path(path)
    if report_dir is None:
        return file.as_uri()
    return Path(os.path.relpath(file, Path(report_dir).resolve())).as_posix()
