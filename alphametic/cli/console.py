"""Command-line output: buffered result lines, a progress bar on stderr, Ctrl-C as a request."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from ..search import Search

__all__ = ["Console", "OutputError", "ProgressBar", "catch_interrupt", "emit", "silence_stdout"]

_BAR_WIDTH = 30
_BAR_DELAY = 0.5  # seconds before a bar appears, so quick searches print nothing extra
_BAR_EVERY = 0.1  # seconds between terminal redraws
_LINE_EVERY = 2.0  # seconds between progress lines when stderr is not a terminal
_BATCH = 1024  # result lines written at once


class OutputError(Exception):
    """The results cannot be written (stdout closed, or its disk full): the run cannot go on."""


def emit(out: TextIO, text: str) -> None:
    """Write text and flush it, a failed write raised as OutputError (unless the reader left)."""
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        raise  # the reader (say `| head`) left: not an error, main exits quietly with 141
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from exc


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again."""
    if sys.stdout is None:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no file descriptor behind stdout (say, a test's capture)
        pass


class ProgressBar:
    """Draws search progress with an ETA on stderr: in place on a terminal, else as lines."""

    def __init__(self, stream: TextIO, terminal: bool) -> None:
        self._stream = stream
        self._terminal = terminal
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._line = ""  # the bar on screen, "" when none is
        self._text = ""  # the bar as last drawn, kept across clear()
        self._eta: float | None = None

    def update(self, search: Search) -> None:
        """Redraw when due: after _BAR_DELAY, then every _BAR_EVERY (or _LINE_EVERY) seconds."""
        now = time.monotonic()
        every = _BAR_EVERY if self._terminal else _LINE_EVERY
        if now - self._started >= _BAR_DELAY and now - self._drawn_at >= every:
            self._drawn_at = now
            self._draw(self.text(search, now - self._started))

    def text(self, search: Search, elapsed: float) -> str:
        """Return the bar: [####------]  42.0%  1,234 found  3.1 s  ETA 4 s."""
        share = min(max(search.progress, 0.0), 1.0)
        filled = int(share * _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        eta = self._guess(share, elapsed)
        return f"[{bar}] {share:6.1%}  {search.found:,} found  {elapsed:.1f} s  ETA {eta}"

    def _guess(self, share: float, elapsed: float) -> str:
        """Return the smoothed time left, elapsed * (1 - f) / f, as text."""
        if share <= 0.0:
            return "?"
        raw = elapsed * (1.0 - share) / share
        self._eta = raw if self._eta is None else 0.7 * self._eta + 0.3 * raw
        return _duration(self._eta)

    def _draw(self, line: str) -> None:
        """Write the bar: in place on a terminal, as a new line elsewhere."""
        self._text = line
        if self._terminal:
            self._line = line  # first, so a Ctrl-C during the write still erases the bar
            self._stream.write(f"\r{line}\033[K")
        else:
            self._stream.write(f"{line}\n")
        self._stream.flush()

    def clear(self) -> bool:
        """Erase the bar from a terminal; return whether one was showing."""
        if not self._line:
            return False
        self._stream.write("\r\033[K")
        self._stream.flush()
        self._line = ""
        return True

    def restore(self) -> None:
        """Draw the bar again as it was before clear()."""
        if self._terminal and self._text:
            self._draw(self._text)


class Console:
    """Result lines for stdout, written in batches with the bar cleared around them."""

    def __init__(self, out: TextIO, bar: ProgressBar | None) -> None:
        self.out = out
        self.bar = bar
        self.stop_requested = False
        self._lines: list[str] = []

    def line(self, text: str) -> None:
        """Queue one result line."""
        self._lines.append(text)
        if len(self._lines) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the queued lines, the progress bar erased first and drawn again after."""
        if not self._lines:
            return
        # Taken before the write, so that close() after a failed write does not try them again.
        lines, self._lines = self._lines, []
        shown = self.bar.clear() if self.bar is not None else False
        emit(self.out, "\n".join(lines) + "\n")
        if shown and self.bar is not None:
            self.bar.restore()

    def check(self, search: Search) -> bool:
        """The search's check hook: write what is queued, update the bar, stop on Ctrl-C."""
        self.flush()
        if self.bar is not None:
            self.bar.update(search)
        return self.stop_requested

    def close(self) -> None:
        """Write what is left and erase the bar."""
        if self.bar is not None:
            self.bar.clear()
        self.flush()


@contextmanager
def catch_interrupt(console: Console) -> Iterator[None]:
    """Turn the first Ctrl-C into a stop request; a second one interrupts at once."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if console.stop_requested:
            raise KeyboardInterrupt
        console.stop_requested = True

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave Ctrl-C alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _duration(seconds: float) -> str:
    """Return 42 s, 3 min 5 s or 2 h 3 min."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole // 60 % 60} min"
