"""The command line when its output cannot be written, and Ctrl-C in batch mode."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import IO

import pytest

from tests.support.cli import SCRIPT, default_sigint, json_lines, reaped, run

WRITERS = [
    ["solve", "ABC+DEF=GHI"],
    ["solve", "--all", "ABC+DEF=GHI"],
    ["solve", "--all", "--json", "ABC+DEF=GHI"],
    ["solve", "--count", "--json", "ABC+DEF=GHI"],
    ["explain", "SEND+MORE=MONEY"],
    ["solve", "--batch", "-"],
]
FAILED = "alphametic: error: cannot write the results: "


def run_raw(command: list[str], stdout: IO[bytes] | None = None) -> tuple[int, str]:
    """Run a command with stdin 'A + B = CD'; return its exit status and its stderr."""
    done = subprocess.run(
        command, input=b"A + B = CD\n", stdout=stdout, stderr=subprocess.PIPE, timeout=60
    )
    return done.returncode, done.stderr.decode()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", WRITERS)
def test_a_full_stdout_is_one_line_on_stderr_and_exit_74(args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        status, err = run_raw([str(SCRIPT), *args], stdout=full)
    assert status == 74
    assert err.startswith(FAILED) and err.count("\n") == 1, err  # "No space left on device"


@pytest.mark.parametrize("args", WRITERS)
def test_a_closed_stdout_is_one_line_on_stderr_and_exit_74(args: list[str]) -> None:
    status, err = run_raw(["sh", "-c", '"$0" "$@" >&-', str(SCRIPT), *args])
    assert (status, err) == (74, f"{FAILED}standard output is closed\n")


def test_a_reader_that_leaves_is_still_quiet() -> None:
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--all", "ABCDE + FGHIJ = ABCDE + FGHIJ"],  # 2.9 million lines
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (141, b"")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["solve", "-"],
            "'-' is not a puzzle: to read puzzles from stdin, one per line, use --batch -",
        ),
        (["explain", "-"], "'-' is not a puzzle: give the puzzle itself"),
    ],
)
def test_a_dash_puzzle_says_how_stdin_is_read(args: list[str], message: str) -> None:
    out = run(*args, stdin=b"SEND + MORE = MONEY\n")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith(f"alphametic: error: {message}")
    assert out.stderr.count("\n") == 1 and "position" not in out.stderr


def test_ctrl_c_in_a_batch_prints_the_puzzle_under_way_and_stops(tmp_path: Path) -> None:
    batch = tmp_path / "puzzles.txt"
    batch.write_text("SEND + MORE = MONEY\nABC + DEF + GHI = JKLM\nA + B = CD\n")
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--batch", str(batch), "--count", "--base", "16"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    with reaped(proc):
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())  # the second puzzle's count (minutes) starts
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert (first["count"], first["complete"]) == (28, True)
    [second] = json_lines(out.decode())  # the batch stops: A + B = CD is not started
    assert second["puzzle"] == "ABC + DEF + GHI = JKLM"
    assert second["complete"] is False and second["count"] > 0
    assert err == b"alphametic: interrupted\n"


def test_ctrl_c_while_a_batch_waits_for_stdin_stops_at_once() -> None:
    reader, writer = os.pipe()
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--batch", "-"],
        stdin=reader,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    os.close(reader)
    try:
        os.write(writer, b"SEND + MORE = MONEY\n")
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["found"] == 1
        proc.send_signal(signal.SIGINT)  # waiting for the next line, outside any search
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(writer)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err == b"\nalphametic: interrupted\n"


@pytest.mark.parametrize("seconds", ["-1", "nan", "inf", "-inf", "1e400", "0", "-0", "", "x"])
def test_explain_seconds_must_be_a_finite_number_above_0(seconds: str) -> None:
    out = run("explain", f"--seconds={seconds}", "SEND + MORE = MONEY")
    assert (out.returncode, out.stdout) == (2, "")
    assert "argument --seconds: expected a finite number of seconds above 0" in out.stderr


def test_explain_seconds_takes_a_small_or_large_finite_number() -> None:
    for seconds in ("0.5", "1e300"):
        assert run("explain", "--seconds", seconds, "SEND + MORE = MONEY").returncode == 0


def test_fix_takes_ascii_digits_only() -> None:
    out = run("solve", "--fix", "E=²", "SEND + MORE = MONEY")
    assert out.returncode == 2 and "expected LETTER=DIGIT such as E=5" in out.stderr
