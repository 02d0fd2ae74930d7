"""Helpers that read docker-compose.yml and the code it must agree with."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
OUR_PACKAGES = ("jobstore", "worker", "web", "scripts")
_DEFAULTED = re.compile(r"\$\{(\w+):?-([^}]*)\}")


def load_compose(path: Path = COMPOSE) -> dict[str, Any]:
    """The compose file as data (YAML merge keys resolved by the loader)."""
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Service name -> definition."""
    result = compose["services"]
    assert isinstance(result, dict)
    return result


def command(service: dict[str, Any]) -> list[str]:
    """A service's command as a list, with ${VAR:-default} replaced by its default."""
    raw = service.get("command", [])
    words = raw.split() if isinstance(raw, str) else [str(word) for word in raw]
    return [_DEFAULTED.sub(lambda m: m.group(2), word) for word in words]


def environment(service: dict[str, Any]) -> dict[str, Any]:
    """A service's environment as a mapping (list form KEY=VALUE converted)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    assert isinstance(env, dict)
    return env


def _reads_environment(tree: ast.AST) -> bool:
    """Whether a module touches os.environ / os.getenv / Settings.from_env at all."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "from_env"}:
            return True
        if isinstance(node, ast.Name) and node.id in {"environ", "getenv"}:
            return True
    return False


def _names_env_reader(node: ast.AST) -> bool:
    """Whether an expression's source names the environment (os.environ, env.get, _int_env)."""
    return "env" in ast.unparse(node).lower()


def _is_env_name_use(node: ast.Constant, parent: ast.AST, grandparent: ast.AST | None) -> bool:
    """Whether a string literal sits where an env-var name is used: a lookup, or a name table."""
    if isinstance(parent, ast.Call):
        return node in parent.args and _names_env_reader(parent.func)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node and _names_env_reader(parent.value)
    if isinstance(parent, ast.Dict):
        return node in parent.values  # e.g. ENV_NAMES = {"ttl": "ALPHAMETIC_TTL"}
    if isinstance(parent, ast.Tuple) and isinstance(grandparent, ast.Dict):
        return parent in grandparent.values  # e.g. {"KEY": ("ALPHAMETIC_KEY", default)}
    return False


def env_names_read_by(packages: tuple[str, ...] = OUR_PACKAGES, root: Path = ROOT) -> set[str]:
    """Names of environment variables the code looks up, from modules that read the env."""
    names: set[str] = set()
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            if not _reads_environment(tree):
                continue
            parents = {
                child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)
            }
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                    continue
                if not re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", node.value):
                    continue
                parent = parents.get(node)
                if parent is not None and _is_env_name_use(node, parent, parents.get(parent)):
                    names.add(node.value)
    return names


def literal_in_package_source(package_dir: Path, name: str) -> bool:
    """Whether a third-party tool's own source mentions name as a quoted string."""
    pattern = re.compile(rf"""['"]{re.escape(name)}['"]""")
    return any(pattern.search(p.read_text(errors="replace")) for p in package_dir.rglob("*.py"))
