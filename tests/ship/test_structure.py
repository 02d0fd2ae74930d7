"""The layout's rules, checked statically: arrows point one way and no import cycle exists.

Every import counts, also one inside a function body: web -> jobstore <- worker,
jobstore -> alphametic, the engine on the standard library alone, tests import no test module.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("alphametic", "jobstore", "worker", "web", "scripts")
# What each package may import of the others (a package may always import itself).
ALLOWED = {
    "alphametic": set(),
    "jobstore": {"alphametic"},
    "worker": {"alphametic", "jobstore"},
    "web": {"alphametic", "jobstore"},
    "scripts": set(),
}
# Third-party libraries a package must never import.
FORBIDDEN = {
    "alphametic": {"celery", "kombu", "redis", "flask", "werkzeug"},
    "jobstore": {"flask", "werkzeug"},
}


# The job store owns Redis: its layout (keys) and transitions (Lua) are its own, so the worker
# and the web import neither redis nor those modules (nor the key builder re-exported).
REDIS_OWNED = {"redis", "jobstore.lua", "jobstore.keys", "jobstore.Keys"}


def module_name(path: Path) -> str:
    """The dotted name of a source file under ROOT."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources(*tops: str) -> dict[str, Path]:
    """Module name -> file of every .py file under the given top-level folders, and the stub of
    every compiled module (alphametic/linear/_native.pyi: what it imports is what its stub says)."""
    files = {module_name(p): p for top in tops for p in sorted((ROOT / top).rglob("*.py"))}
    for top in tops:
        for stub in sorted((ROOT / top).rglob("*.pyi")):
            files.setdefault(module_name(stub), stub)
    return files


def imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module a file imports, anywhere in it (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in known else base


def graph(*tops: str) -> dict[str, set[str]]:
    """Module -> first-party modules it imports."""
    files = sources(*tops)
    known = set(files)
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for target in imports(name, path, known):
            while target and target not in known:
                target = target.rpartition(".")[0]  # `import a.b.c` of a module a.b
            if target and target != name:
                targets.add(target)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert cycles(graph(*PACKAGES, "tests", "bench")) == []


def test_the_checker_sees_a_cycle_and_imports_in_functions(tmp_path: Path) -> None:
    """A cycle closed by an import inside a function body is found (the check can fail)."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    source = ROOT / "worker" / "__init__.py"  # imports celery_app inside __getattr__
    known = set(sources("worker"))
    assert "worker.celery_app" in set(imports("worker", source, known))


@pytest.mark.parametrize("package", PACKAGES)
def test_arrows_point_one_way(package: str) -> None:
    edges = graph(*PACKAGES)
    wrong = {
        (module, target)
        for module, targets in edges.items()
        if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] not in ALLOWED[package] | {package}
    }
    assert not wrong, f"{package} imports what it must not: {sorted(wrong)}"


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_forbidden_libraries(package: str) -> None:
    files = sources(package)
    names = {
        target.split(".")[0]
        for name, path in files.items()
        for target in imports(name, path, set(files))
    }
    assert not names & FORBIDDEN[package]


def redis_imports(name: str, path: Path) -> set[str]:
    """What a file imports of Redis or of the job store's Redis layout (REDIS_OWNED)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue  # a relative import stays inside its own package
        for target in targets:
            found |= {owned for owned in REDIS_OWNED if f"{target}.".startswith(f"{owned}.")}
    return found


@pytest.mark.parametrize("package", ["worker", "web"])
def test_only_the_job_store_touches_redis(package: str) -> None:
    """No redis, no Lua scripts, no keys outside the job store: it owns every Redis access."""
    wrong = {
        (name, target)
        for name, path in sources(package).items()
        for target in redis_imports(name, path)
    }
    assert not wrong, f"{package} reaches into Redis itself: {sorted(wrong)}"


def test_the_redis_check_sees_redis(tmp_path: Path) -> None:
    """Each way of importing what the job store owns is seen (the check can fail)."""
    path = tmp_path / "m.py"
    path.write_text(
        "import redis.exceptions\nfrom jobstore.lua import scripts_for\n"
        "from jobstore import Keys, Job\nfrom jobstore import keys\nfrom . import lua\n"
    )
    assert redis_imports("m", path) == {"redis", "jobstore.lua", "jobstore.Keys", "jobstore.keys"}


def test_tests_import_no_test_module() -> None:
    """Shared helpers live in tests/support; a test module is never imported by another."""
    edges = graph(*PACKAGES, "tests", "bench")
    wrong = {
        (module, target)
        for module, targets in edges.items()
        for target in targets
        if target.rpartition(".")[2].startswith(("test_", "conftest"))
    }
    assert not wrong


def test_no_test_helper_ships() -> None:
    """Nothing in an installed package imports pytest or the tests' support package."""
    files = sources(*PACKAGES)
    names = {target for name, path in files.items() for target in imports(name, path, set(files))}
    assert not {n for n in names if n.split(".")[0] in ("pytest", "tests")}


def packages(*tops: str) -> dict[str, Path]:
    """Package name -> folder of every package (a folder with __init__.py) under the tops."""
    return {
        module_name(p): p.parent for top in tops for p in sorted((ROOT / top).rglob("__init__.py"))
    }


def rooms(folder: Path) -> list[str]:
    """What a package holds: its modules as name.py and its subpackages as name/."""
    modules = [p.name for p in sorted(folder.glob("*.py")) if p.name != "__init__.py"]
    return modules + [f"{p.parent.name}/" for p in sorted(folder.glob("*/__init__.py"))]


@pytest.mark.parametrize("package", sorted(packages(*PACKAGES)))
def test_every_package_docstring_names_its_modules(package: str) -> None:
    """A newcomer reads a folder's docstring and knows each room in it."""
    folder = packages(*PACKAGES)[package]
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    missing = [room for room in rooms(folder) if room not in doc]
    assert not missing, f"{package}'s docstring does not name {missing}"


def families(names: list[str]) -> list[list[str]]:
    """Groups of module names sharing a prefix before '_' (explain_*, cli_* ...): a folder's job."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.removesuffix(".py").split("_")[0], []).append(name)
    return [sorted(g) for g in groups.values() if len(g) > 1 and any("_" in n for n in g)]


def test_the_family_check_sees_a_family() -> None:
    assert families(["explain.py", "explain_ja.py", "plan.py", "celery_app.py"]) == [
        ["explain.py", "explain_ja.py"]
    ]


@pytest.mark.parametrize("package", sorted(packages(*PACKAGES)))
def test_no_prefix_family_of_modules(package: str) -> None:
    """A family of modules sharing a prefix is a folder, not names side by side."""
    folder = packages(*PACKAGES)[package]
    names = [p.name for p in folder.glob("*.py") if not p.name.startswith("_")]
    assert families(names) == []
