"""The dependency direction of the three layers (docs/architecture.md)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "theory": {"numerics", "verify", "numpy", "scipy", "cvxpy", "torch", "matplotlib"},
    "numerics": {"verify", "torch", "matplotlib"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_down_only(layer):
    for path in (ROOT / layer).rglob("*.py"):
        bad = _imports(path) & FORBIDDEN[layer]
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_theory_imports_without_torch_or_numpy():
    code = "import sys, theory.modular; assert 'torch' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# ------------------------------------------------------------------------------------------- the rooms of verify/

#: The rooms of verify/ from the bottom up (docs/architecture.md): a module may import its own room and the rooms
#: below it, never one above, at run time or under TYPE_CHECKING (every import statement of the file counts,
#: including those inside functions).
ROOMS = {
    "runtime": 0,  # run options, protocol, device, memory, loop, checkpoints, provenance, JSON, divergence
    "train": 1,  # torch models and their trainers
    "compare": 1,  # learned against predicted weights (numpy)
    "sweep": 2,  # grids of cells, executors, the results store
    "claims": 3,  # the claims and their judges
    "report": 4,  # the report application: run, pool, render, figures, directory, diff
    "": 5,  # the command line, the pytest plugin, the claim index
}


def _room(module: str) -> str:
    """The room of a dotted module name inside verify ('' for the top-level modules)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ROOMS) else ""


def _verify_imports(path: Path) -> set[str]:
    """Every ``verify.*`` module ``path`` imports (absolute or relative)."""
    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "verify"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] == "verify":
                out.add(name)
                out |= {f"{name}.{a.name}" for a in node.names}  # `from verify import report` names a module
    return out


def test_verify_rooms_import_downwards_only():
    bad = []
    for path in sorted((ROOT / "verify").rglob("*.py")):
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        here = ROOMS[_room(mod)]
        for target in _verify_imports(path):
            room = _room(target)
            if room in ROOMS and ROOMS[room] > here and (room or target.count(".") == 1):
                bad.append(f"{path.relative_to(ROOT)} ({_room(mod) or 'top'}) imports {target} ({room or 'top'})")
    assert not bad, "imports from a lower room to a higher one:\n" + "\n".join(bad)


def test_every_verify_module_is_in_a_room():
    rooms = {p.name for p in (ROOT / "verify").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOMS) - {""}, (
        f"verify/ has rooms {sorted(rooms)}; docs/architecture.md and ROOMS list {sorted(ROOMS)}"
    )
    top = sorted(p.name for p in (ROOT / "verify").glob("*.py"))
    assert top == ["__init__.py", "claim_index.py", "cli.py", "pytest_plugin.py"], top


def test_listing_claims_does_not_import_torch():
    """`tvk list` and the JSON conversion stay light: the runtime's torch-free modules and the claim index."""
    code = (
        "import sys, verify.runtime.jsonable, verify.runtime.options, verify.runtime.protocol, "
        "verify.runtime.provenance, verify.runtime.memory, verify.claim_index, verify.sweep.cli; "
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.startswith('torch'))[:3]"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
