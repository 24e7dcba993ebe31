"""The import direction between the layers (pyproject.toml's import-linter contract): app above the
front ends and the simulation, above reading, above the tray, above the rules."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import dominotable

ROOT = Path(__file__).resolve().parents[2]


def lint_imports(package_parent: Path | None = None) -> subprocess.CompletedProcess:
    """Run the contract; with `package_parent`, against the copy of dominotable found there."""
    env = None
    if package_parent is not None:
        env = {"PYTHONPATH": str(package_parent), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_the_layers_contract_is_kept():
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_a_rules_module_importing_the_app_breaks_the_contract(tmp_path):
    """A throwaway module in a copy of the package, importing upwards, is caught and named."""
    copy = tmp_path / "dominotable"
    shutil.copytree(Path(dominotable.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "rules" / "upward.py").write_text("from dominotable.app import runtime  # noqa: F401\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "dominotable.rules is not allowed to import dominotable.app" in result.stdout
    assert "dominotable.rules.upward -> dominotable.app.runtime" in result.stdout


# -- no import circles (issue 30: a reader follows each import one way) -----------------------

HARDWARE = ROOT / "hardware"


def circles(graph) -> list[list[str]]:
    """The graph's import circles: each set of modules that reach one another (Tarjan's strongly
    connected components of more than one module, or a module importing itself), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:  # Tarjan's algorithm without recursion: a graph of hundreds of modules
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                elif target in stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                component = []
                while not component or component[-1] != module:
                    component.append(stack.pop())
                if len(component) > 1 or module in graph.find_modules_directly_imported_by(module):
                    found.append(sorted(component))
    return sorted(found)


def hardware_graph(tmp_path: Path):
    """hardware/'s modules as grimp sees a package: hardware/ is no package (its scripts put it on
    sys.path and import one another by top-level name, `import kicad`, `from rf import loops`), so
    a copy of its Python files becomes the package `hw`, its imports of its own modules prefixed."""
    import grimp

    files = [p for p in HARDWARE.rglob("*.py") if "__pycache__" not in p.parts]
    own = {p.relative_to(HARDWARE).parts[0].removesuffix(".py") for p in files}
    names = "|".join(sorted(own))
    plain = re.compile(rf"^(\s*)import ({names})\b(\S*)(?: as (\w+))?", re.M)
    dotted = re.compile(rf"^(\s*)from ({names})\b", re.M)
    package = tmp_path / "hw"
    for source in files:
        target = package / source.relative_to(HARDWARE)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = plain.sub(lambda m: f"{m[1]}import hw.{m[2]}{m[3]} as {m[4] or m[2]}", source.read_text())
        target.write_text(dotted.sub(r"\1from hw.\2", text))
    for folder in {package, *(p.parent for p in package.rglob("*.py"))}:
        (folder / "__init__.py").touch()
    sys.path.insert(0, str(tmp_path))
    try:
        return grimp.build_graph("hw", cache_dir=None)
    finally:
        sys.path.remove(str(tmp_path))


def test_no_import_circle_among_the_hosts_modules():
    import grimp

    graph = grimp.build_graph("dominotable", cache_dir=None)
    assert len(graph.modules) > 100  # the whole package was read
    assert circles(graph) == []


def test_no_import_circle_among_the_hardwares_modules(tmp_path):
    graph = hardware_graph(tmp_path)
    assert {"hw.circuit", "hw.kicad", "hw.rf.spice"} <= graph.modules
    assert "hw.kicad" in graph.find_modules_directly_imported_by("hw.circuit")  # its imports were read
    assert circles(graph) == []


def test_a_circle_is_found_and_named(tmp_path):
    """Two throwaway modules importing each other (one inside a function) are a circle."""
    import grimp

    package = tmp_path / "loop"
    package.mkdir()
    (package / "__init__.py").touch()
    (package / "a.py").write_text("from loop import b\n")
    (package / "b.py").write_text("def late():\n    import loop.a\n")
    (package / "c.py").write_text("import loop.a\n")
    sys.path.insert(0, str(tmp_path))
    try:
        graph = grimp.build_graph("loop", cache_dir=None)
    finally:
        sys.path.remove(str(tmp_path))
    assert circles(graph) == [["loop.a", "loop.b"]]


def test_every_room_is_small_enough_to_read():
    """Issue 30, item 2: no module of the host outside the rules engines over 500 lines, and the
    store's storage (the guarded writer) at most 450: one concept a module."""
    package = Path(dominotable.__file__).parent
    long = {str(path.relative_to(package)): lines for path in package.rglob("*.py")
            if "rules" not in path.relative_to(package).parts
            and (lines := len(path.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}
    assert len((package / "store" / "storage.py").read_text(encoding="utf-8").splitlines()) <= 450
