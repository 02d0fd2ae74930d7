"""The `alphametic` command line, run as a real subprocess."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from alphametic.cli.main import main
from tests.support.cli import SCRIPT, default_sigint, json_lines, reaped, run

# Every test here runs on both engines (tests/engine/conftest.py).
pytestmark = pytest.mark.usefixtures("engine")

SEND = {"D": 7, "E": 5, "M": 1, "N": 6, "O": 0, "R": 8, "S": 9, "Y": 2}


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
    assert (first["mode"], first["found"], first["solutions"]) == ("first", 1, [SEND])
    assert "count" not in first  # one solution found proves one exists, not that it is alone
    odd = json.loads(run("solve", "--json", "ODD + ODD = EVEN").stdout)
    # The search did what first mode asks (complete), but one found is not every solution.
    assert (odd["found"], odd["complete"], "count" in odd) == (1, True, False)
    assert odd["exhaustive"] is False
    counted = json.loads(run("solve", "--count", "--json", "ODD + ODD = EVEN").stdout)
    assert (counted["count"], counted["complete"], counted["exhaustive"]) == (2, True, True)
    none = json.loads(run("solve", "--json", "AB + DC = CBB").stdout)  # none exists: proved
    assert (none["found"], none["complete"], none["exhaustive"]) == (0, True, True)
    assert first["options"] == {"base": 10, "leading_zeros": "multi-letter", "fixed": {}}
    every = run("solve", "--all", "--json", "--base", "16", "SEND+MORE=MONEY")
    lines = json_lines(every.stdout)  # JSON Lines: one letter -> digit object per solution
    assert every.returncode == 0 and len(lines) == 28 == len({json.dumps(x) for x in lines})
    assert all(set(x) == set(SEND) and x["M"] == 1 for x in lines)
    assert run("solve", "--all", "--json", "AB + DC = CBB").stdout == ""
    none = run("solve", "--json", "AB + DC = CBB")
    assert none.returncode == 1 and json.loads(none.stdout)["solutions"] == []


def test_fix_restricts_and_repeats() -> None:
    fixed = run("solve", "--json", "--fix", "E=5", "--fix", "s=9", "SEND + MORE = MONEY")
    assert fixed.returncode == 0
    assert json.loads(fixed.stdout)["options"]["fixed"] == {"E": 5, "S": 9}
    assert run("solve", "--fix", "E=4", "SEND + MORE = MONEY").returncode == 1


def test_fix_reads_full_width_as_the_form_does() -> None:
    """'い＝２' as a Japanese IME types it: the form's known digits take it, so does --fix."""
    kana = run(
        "solve", "--json", "--fix", "い＝２", "--fix", "ち\u3000＝\u3000１", "いち＋いち＝にい"
    )
    assert kana.returncode == 0, kana.stderr
    found = json.loads(kana.stdout)
    assert found["options"]["fixed"] == {"い": 2, "ち": 1}
    assert found["solutions"] == [{"い": 2, "ち": 1, "に": 4}]
    latin = run("solve", "--json", "--fix", "Ｅ＝５", "--fix", "ｓ=９", "SEND + MORE = MONEY")
    assert json.loads(latin.stdout)["options"]["fixed"] == {"E": 5, "S": 9}
    twice = run("solve", "--fix", "E=5", "--fix", "ｅ＝６", "SEND + MORE = MONEY")
    assert "--fix gives E two digits: 5 and 6" in twice.stderr
    # A superscript is not folded to a digit (as in the puzzle): E=² is refused, not E=2.
    assert "expected LETTER=DIGIT" in run("solve", "--fix", "E=²", "A + E = B").stderr


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
        (["solve", "A + + B = C"], "empty term before '+' at character 5"),
        (["solve", "ABCDEFGHIJ = K"], "11 distinct letters but base 10 has only 10 digits"),
        (["solve", "A = = B"], "at character 5"),
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
    batch.write_text(
        "# classics\nSEND + MORE = MONEY\n\n  A + ? = B  \n  # no solution:\nAB + DC = CBB\n"
        "I + BB == ILL\n"
    )
    out = run("solve", "--batch", str(batch))
    assert out.returncode == 2  # one line was bad
    results = json_lines(out.stdout)
    assert [r["puzzle"] for r in results] == [
        "SEND + MORE = MONEY",
        "A + ? = B",
        "AB + DC = CBB",
        "I + BB = ILL",
    ]
    assert results[0]["solutions"] == [SEND] and results[0]["found"] == 1
    assert "unexpected character '?'" in results[1]["error"] and "found" not in results[1]
    assert results[1]["error"].endswith("at character 5")  # as people count, from 1
    assert results[2]["found"] == 0 and results[2]["solutions"] == []
    assert [r.get("exhaustive") for r in results] == [False, None, True, False]
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
    assert results[1]["exhaustive"] is True


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
        preexec_fn=default_sigint,
    )
    os.close(follower)
    with reaped(proc):
        shown = _read_until(leader, b"[#")  # the bar fills as the lazy runs go out
        proc.send_signal(signal.SIGINT)
        shown += _read_until(leader, None)
        assert proc.wait(timeout=60) == 130
        os.close(leader)
    assert b"%" in shown and b"[#" in shown and b"ETA " in shown
    assert b"\r\x1b[Kalphametic: interrupted after " in shown  # bar erased, then the message
    assert b"Traceback" not in shown


def _read_until(fd: int, marker: bytes | None, limit: int | None = None) -> bytes:
    """Read the pty until marker shows up (and limit bytes), or until it closes (marker None)."""
    shown = b""
    while marker is None or marker not in shown or (limit is not None and len(shown) < limit):
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the pty closes when the process exits
            break
        if not chunk:
            break
        shown += chunk
    return shown


# --- explain ---------------------------------------------------------------------------------


def test_explain_prints_the_steps_and_the_difficulty() -> None:
    out = run("explain", "SEND + MORE = MONEY")
    assert out.returncode == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0] == "M and S start words, so none of them is 0."
    assert lines[2].endswith("so M = 1 and c4 = 1.")
    assert lines[-2] == "The solution, and the only one, is 9567 + 1085 = 10652."
    assert lines[-1].startswith("Difficulty: ")


def test_explain_json_and_options() -> None:
    out = run("explain", "--json", "--base", "16", "--fix", "E=5", "SEND + MORE = MONEY")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["options"] == {"base": 16, "leading_zeros": "multi-letter", "fixed": {"E": 5}}
    assert data["solution"]["E"] == 5 and data["steps"][0]["key"] == "given"
    assert data["difficulty"]["label"] in ("easy", "medium", "hard", "fiendish")
    zeros = json.loads(run("explain", "--json", "--leading-zeros", "allow", "AB + C = DE").stdout)
    assert zeros["options"]["leading_zeros"] == "allow"
    assert not any(step["key"].startswith("leading") for step in zeros["steps"])
    none = run("explain", "--json", "AB + DC = CBB")
    assert none.returncode == 1 and json.loads(none.stdout)["solution"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["A + + B = C"], "alphametic: error: empty term before '+' at character 5"),
        (["ABCDEFGHIJ = K"], "11 distinct letters but base 10 has only 10 digits"),
        (["--fix", "Z=1", "A + B = C"], "fixed letter Z does not occur in the puzzle"),
        (["--base", "40", "A = B"], "base must be from 2 to 36"),
        ([], "the following arguments are required: PUZZLE"),
    ],
)
def test_explain_bad_input_exits_2(args: list[str], message: str) -> None:
    out = run("explain", *args)
    assert (out.returncode, out.stdout) == (2, "")
    assert message in out.stderr


# --- streaming, progress and Ctrl-C ------------------------------------------------------------

PEAK = (
    "import resource, sys\n"
    "from alphametic.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


def peak_kib(*args: str) -> tuple[int, int]:
    """Run the CLI in a fresh interpreter; return (valid JSON lines, peak RSS in KiB)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", PEAK, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    lines = sum(1 for line in proc.stdout if isinstance(json.loads(line), dict))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0
    return lines, int(err.decode().split()[-1])


def test_all_json_streams_with_memory_independent_of_the_count() -> None:
    few, few_peak = peak_kib("solve", "--all", "--json", "NUM + BER = PLAY")
    many, many_peak = peak_kib("solve", "--all", "--json", "A + B + C + D + E = F + G + H + I")
    assert (few, many) == (96, 141_120)
    # Holding 141,120 solutions as dicts (and one JSON text) took ~70 MB more; streaming, none.
    assert many_peak - few_peak < 8 * 1024, (few_peak, many_peak)


def test_no_progress_on_a_pipe_unless_asked() -> None:
    args = ["solve", "--all", "--json", "ABCDE + FGHIJ = ABCDE + FGHIJ"]  # 3 s: a bar would show
    quiet = subprocess.run(
        [str(SCRIPT), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300
    )
    assert (quiet.returncode, quiet.stderr) == (0, b"")
    loud = subprocess.Popen(
        [str(SCRIPT), args[0], "--progress", *args[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert loud.stderr is not None
        line = loud.stderr.readline().decode()  # the first progress line, after 0.5 s
        assert "%" in line and "ETA " in line and "\r" not in line and "\x1b" not in line
    finally:
        loud.kill()
        loud.wait()


def test_ctrl_c_during_count_prints_the_count_so_far() -> None:
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--count", "--progress", "--base", "16", "ABC + DEF + GHI = JKLM"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    with reaped(proc):
        assert proc.stderr is not None
        proc.stderr.readline()  # counting is under way
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    text = out.decode()
    assert text.endswith(" solutions so far (interrupted)\n"), text
    assert int(text.split()[0].replace(",", "")) > 0
    assert "alphametic: interrupted after" in err.decode() and b"Traceback" not in err


def test_ctrl_c_during_json_count_says_incomplete() -> None:
    proc = subprocess.Popen(
        [
            str(SCRIPT),
            "solve",
            "--count",
            "--json",
            "--progress",
            "--base",
            "16",
            "ABC + DEF + GHI = JKLM",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    with reaped(proc):
        assert proc.stderr is not None
        proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    result = json.loads(out)
    assert proc.returncode == 130 and result["complete"] is False and result["count"] > 0
    assert result["exhaustive"] is False


def visible_lines(raw: bytes) -> list[str]:
    """Return the lines a terminal would show: '\\r' goes to column 0, ESC[K erases the rest."""
    shown = []
    for physical in raw.decode(errors="replace").replace("\r\n", "\n").split("\n"):
        cells: list[str] = []
        cursor = 0
        for part in re.split(r"(\r|\x1b\[K)", physical):
            if part == "\r":
                cursor = 0
            elif part == "\x1b[K":
                del cells[cursor:]
            else:
                for char in part:
                    if cursor < len(cells):
                        cells[cursor] = char
                    else:
                        cells.append(char)
                    cursor += 1
        shown.append("".join(cells))
    return shown


def test_bar_and_solution_lines_never_share_a_terminal_line() -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(SCRIPT), "solve", "--all", "ABCDE + FGHIJ = ABCDE + FGHIJ"],  # 2.9 million
        stdout=follower,
        stderr=follower,
        preexec_fn=default_sigint,
    )
    os.close(follower)
    with reaped(proc):
        shown = _read_until(leader, b"ETA ")
        shown += _read_until(leader, b"\n", limit=200_000)  # some solution lines after the bar
        proc.send_signal(signal.SIGINT)
        shown += _read_until(leader, None)
        assert proc.wait(timeout=60) == 130
        os.close(leader)
    lines = [line for line in visible_lines(shown) if line]
    solution = re.compile(r"ABCDE \+ FGHIJ = ABCDE \+ FGHIJ \| \d{5} \+ \d{5} = \d{5} \+ \d{5}$")
    bar = re.compile(r"\[[#-]{30}\] +\d+\.\d%  [\d,]+ found  [\d.]+ s  ETA .*$")
    for line in lines[:-2]:
        assert solution.match(line) or bar.match(line), line
    assert sum(1 for line in lines if solution.match(line)) > 100
    assert lines[-2].endswith(" solutions so far (interrupted)")
    assert lines[-1].startswith("alphametic: interrupted after ")


def test_batch_quotes_at_most_80_characters_of_a_bad_line() -> None:
    bad = "A + B = C" + " + D" * 750_000 + " ?"  # 3 MB
    out = run("solve", "--batch", "-", stdin=f"{bad}\nA + B = CD\n".encode())
    assert out.returncode == 2
    first, second = json_lines(out.stdout)
    assert first["puzzle"] == bad[:80] + "…" and "longer than" in first["error"]
    assert len(out.stdout) < 1000 and second["found"] == 1


def test_solve_keeps_the_typed_symbols_and_aligns_wide_ones() -> None:
    out = run("solve", "--json", "いち＋いち＝にい")
    assert out.returncode == 0
    result = json.loads(out.stdout)
    assert result["puzzle"] == "いち + いち = にい"
    assert result["solutions"] == [{"い": 2, "ち": 1, "に": 4}]
    assert '"い": 2' in out.stdout  # the symbols as typed, not \\u escapes
    shown = run("solve", "SEND＋MORE＝MONEY").stdout.splitlines()
    assert shown[:4] == [
        "  S E N D      9 5 6 7",
        "+ M O R E    + 1 0 8 5",
        "---------    ---------",
        "M O N E Y    1 0 6 5 2",
    ]


def test_the_caret_sits_under_the_typed_character_by_display_width() -> None:
    out = run("solve", "いち＋いち！＝にい")
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert "'！' (U+FF01)" in lines[0] and lines[0].endswith("at character 6")
    assert lines[1:] == ["  いち＋いち！＝にい", "            ^"]


def test_explain_speaks_the_asked_language_or_the_locales(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run("explain", "--lang", "ja", "いち＋いち＝にい")
    assert out.returncode == 0
    assert "この覆面算には解が 4 個あります。最初の解は 21 + 21 = 42 です。" in out.stdout
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "th_TH.UTF-8")
    assert main(["explain", "AB + BA = CC"]) == 0
    assert "ปริศนานี้มี 32 คำตอบ" in capsys.readouterr().out
    monkeypatch.setenv("LANG", "de_DE.UTF-8")  # no German: English
    assert main(["explain", "AB + BA = CC"]) == 0
    assert "The puzzle has 32 solutions" in capsys.readouterr().out
    assert run("explain", "--lang", "xx", "A = B").returncode == 2
