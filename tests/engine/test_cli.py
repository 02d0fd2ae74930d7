"""The `alphametic` command line, run as a real subprocess."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from alphametic.cli import main

SCRIPT = Path(sys.executable).with_name("alphametic")
SEND = {"D": 7, "E": 5, "M": 1, "N": 6, "O": 0, "R": 8, "S": 9, "Y": 2}


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """Run the console script with args and return the finished process."""
    result = subprocess.run(
        [str(SCRIPT), *args], input=stdin, capture_output=True, timeout=60, check=False
    )
    out = subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )
    assert "Traceback" not in out.stderr
    return out


def json_lines(text: str) -> list[dict[str, Any]]:
    """Parse one JSON object per line."""
    return [json.loads(line) for line in text.splitlines()]


def test_solve_prints_the_column_sum_and_the_line() -> None:
    out = run("solve", "send + more == money")
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        "  S E N D      9 5 6 7",
        "+ M O R E    + 1 0 8 5",
        "---------    ---------",
        "M O N E Y    1 0 6 5 2",
        "",
        "SEND + MORE = MONEY | 9567 + 1085 = 10652",
    ]


def test_python_dash_m_runs_the_same_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "alphametic", "solve", "AB + DC = CBB"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (out.returncode, out.stdout) == (1, "AB + DC = CBB: no solution\n")


def test_all_lists_every_solution_then_the_count() -> None:
    out = run("solve", "--all", "--leading-zeros", "allow", "BASE + BALL = GAMES")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[-1] == "3 solutions"
    assert "BASE + BALL = GAMES | 2461 + 2455 = 04916" in lines[:-1]
    assert len(lines) == 4


def test_count_and_json() -> None:
    out = run("solve", "--count", "--json", "A + B + C + D + E = F + G + H + I")
    assert out.returncode == 0
    result = json.loads(out.stdout)
    assert result["count"] == 141_120 and "solutions" not in result
    assert result["elapsed_ms"] >= 0
    assert run("solve", "--count", "NUM + BER = PLAY").stdout == "96 solutions\n"


def test_json_first_and_all_modes() -> None:
    first = json.loads(run("solve", "--json", "SEND+MORE=MONEY").stdout)
    assert first["puzzle"] == "SEND + MORE = MONEY"
    assert (first["count"], first["solutions"]) == (1, [SEND])
    assert first["options"] == {"base": 10, "leading_zeros": "multi-letter", "fixed": {}}
    every = json.loads(run("solve", "--all", "--json", "--base", "16", "SEND+MORE=MONEY").stdout)
    assert every["count"] == 28 == len(every["solutions"])
    none = run("solve", "--json", "AB + DC = CBB")
    assert none.returncode == 1 and json.loads(none.stdout)["solutions"] == []


def test_fix_restricts_and_repeats() -> None:
    fixed = run("solve", "--json", "--fix", "E=5", "--fix", "s=9", "SEND + MORE = MONEY")
    assert fixed.returncode == 0
    assert json.loads(fixed.stdout)["options"]["fixed"] == {"E": 5, "S": 9}
    assert run("solve", "--fix", "E=4", "SEND + MORE = MONEY").returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fix", "Z=5"], "fixed letter Z does not occur in the puzzle"),
        (["--fix", "E=10"], "digit 10 fixed for E is outside base 10"),
        (["--fix", "E=9", "--fix", "N=9"], "both fixed to 9"),
        (["--fix", "E5"], "expected LETTER=DIGIT"),
        (["--fix", "E=5", "--fix", "e=6"], "--fix gives E two digits: 5 and 6"),
        (["--fix", "E=x"], "expected LETTER=DIGIT"),
        (["--base", "37"], "base must be from 2 to 36"),
        (["--base", "ten"], "invalid int value"),
        (["--leading-zeros", "never"], "invalid choice"),
        (["--all", "--count"], "not allowed with"),
    ],
)
def test_bad_options_exit_2_with_a_message(args: list[str], message: str) -> None:
    out = run("solve", *args, "SEND + MORE = MONEY")
    assert out.returncode == 2
    assert message in out.stderr
    assert out.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "A + + B = C"], "empty term before '+' at position 4"),
        (["solve", "ABCDEFGHIJ = K"], "11 distinct letters but base 10 has only 10 digits"),
        (["solve", "A = B = C"], "more than one '='"),
        (["solve"], "give a PUZZLE"),
        (["solve", "--batch", "-", "A = B"], "not both"),
        ([], "required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_without_a_traceback(args: list[str], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr


def test_batch_file_goes_on_past_a_bad_line(tmp_path: Path) -> None:
    batch = tmp_path / "puzzles.txt"
    batch.write_text("SEND + MORE = MONEY\n\n  A + 1 = B  \nAB + DC = CBB\nI + BB == ILL\n")
    out = run("solve", "--batch", str(batch))
    assert out.returncode == 2  # one line was bad
    results = json_lines(out.stdout)
    assert [r["puzzle"] for r in results] == [
        "SEND + MORE = MONEY",
        "A + 1 = B",
        "AB + DC = CBB",
        "I + BB = ILL",
    ]
    assert results[0]["solutions"] == [SEND] and results[0]["count"] == 1
    assert "unexpected character '1'" in results[1]["error"] and "count" not in results[1]
    assert results[2]["count"] == 0 and results[2]["solutions"] == []
    assert results[3]["solutions"] == [{"B": 9, "I": 1, "L": 0}]
    assert all(r["elapsed_ms"] >= 0 for r in results if "error" not in r)


def test_batch_from_stdin_in_count_mode() -> None:
    out = run("solve", "--batch", "-", "--count", stdin=b"NUM + BER = PLAY\nTWO + TWO = FOUR\n")
    assert out.returncode == 0
    results = json_lines(out.stdout)
    assert [(r["puzzle"], r["count"]) for r in results] == [
        ("NUM + BER = PLAY", 96),
        ("TWO + TWO = FOUR", 7),
    ]
    assert all("solutions" not in r for r in results)


def test_batch_with_undecodable_bytes_reports_the_line() -> None:
    out = run("solve", "--batch", "-", "--all", stdin=b"A\xff + B = C\nA + B = CD\n")
    results = json_lines(out.stdout)
    assert "unexpected character" in results[0]["error"]
    assert results[1]["count"] == len(results[1]["solutions"]) > 0


def test_batch_file_that_cannot_be_read(tmp_path: Path) -> None:
    out = run("solve", "--batch", str(tmp_path / "missing.txt"))
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_main_returns_exit_codes_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--count", "ODD + ODD = EVEN"]) == 0
    assert capsys.readouterr().out == "2 solutions\n"
    assert main(["solve", "--help"]) == 0
    assert main(["solve", "--base", "x", "A = B"]) == 2


def test_progress_bar_on_a_terminal_and_ctrl_c() -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--all", "ABCDE + FGHIJ = ABCDE + FGHIJ"],  # 2.9 million
        stdout=subprocess.DEVNULL,
        stderr=follower,
        preexec_fn=_default_sigint,
    )
    os.close(follower)
    try:
        shown = _read_until(leader, b"[#")  # the bar fills as the lazy runs go out
        proc.send_signal(signal.SIGINT)
        shown += _read_until(leader, None)
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    assert b"%" in shown and b"[#" in shown
    assert b"\r\x1b[K\r\nalphametic: interrupted" in shown  # bar erased, then the message
    assert b"Traceback" not in shown


def _default_sigint() -> None:
    """Let the child take Ctrl-C even when this test runs in a background job that ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _read_until(fd: int, marker: bytes | None) -> bytes:
    """Read the pty until marker shows up, or until it closes when marker is None."""
    shown = b""
    while marker is None or marker not in shown:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the pty closes when the process exits
            break
        if not chunk:
            break
        shown += chunk
    return shown
