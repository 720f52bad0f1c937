"""theory._docstrings: docstring sections written once (a decorator applied at import time)."""

MODULE = "theory._docstrings"

BASELINE: dict[str, dict[str, object]] = {}

REFUSED: list[tuple[str, dict[str, object], str]] = []

NO_SIZE = {
    "fill_doc": "a decorator over a mapping of docstring sections, applied at import time; no size to bound",
    "sections": "joins a few docstring entries written in the source; no size to bound",
}
