"""README: the two commands up front, and every environment variable the code reads documented."""

from __future__ import annotations

from tests.support.compose import ROOT, env_names_read_by

README = (ROOT / "README.md").read_text()
# Variables of Python or the OS that the code passes on to subprocesses, not settings of ours.
NOT_SETTINGS = {"PATH", "HOME", "PYTHONPATH", "PYTHONUNBUFFERED"}


def test_the_two_commands_come_first() -> None:
    """`make run` and `make test` appear before any other section."""
    first_section = README.index("\n## ", README.index("## Two commands") + 1)
    assert "make run" in README[:first_section] and "make test" in README[:first_section]


def test_every_environment_variable_is_in_the_settings_table() -> None:
    """Each name worker/, web/ or scripts/ looks up has a row in the table (none undocumented)."""
    table = README[README.index("## Settings") :]
    rows = {line.split("|")[1] for line in table.splitlines() if line.startswith("| `")}
    documented = {name.strip(" `") for row in rows for name in row.split(",")}
    missing = sorted(env_names_read_by() - documented - NOT_SETTINGS)
    assert not missing, f"add a row for each of {missing} to the Settings table in README.md"


def test_screenshot_is_there_and_small() -> None:
    """The job-page screenshot the README shows exists and stays small."""
    shot = ROOT / "docs" / "screenshot.png"
    assert shot.stat().st_size < 200_000
    assert "(docs/screenshot.png)" in README
