"""Request bodies: read whole within a cap and a deadline before any view runs, JSON kept shallow.

The request line and each header line are capped here too (check_head, the app's first hook:
414 and 431 answered by the app, problem+json under /api/): gunicorn's own limits sit above
these caps (scripts/webserver.py), so it is the app, not gunicorn's HTML page, that refuses.

A WSGI middleware (BodyGuard) reads every request body into memory before Flask sees it, so
that a client sending its body slowly cannot hold a request for longer than BODY_SECONDS of
wall clock (408), a chunked body over MAX_CONTENT_LENGTH is refused (413: Werkzeug would cut it
at the cap and accept what it read), and any one read or write of the socket waits at most
IO_SECONDS (a client that never reads its answer is dropped). What is left of a refused body
gunicorn's gevent worker drains before the next request within its keep-alive deadline, then
closes. The wall-clock deadline needs that worker (scripts/webserver.py); under threads only
IO_SECONDS bounds each read.
check_json_depth keeps a nested body away from the JSON parser's recursion (422, not 500), and
the app's JSON provider (GuardedJSON) says which field holds an integer too long to convert.
whole_number reads a number typed into a query or a form: ASCII digits only.
"""

from __future__ import annotations

import importlib
import io
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import (
    HTTPException,
    RequestHeaderFieldsTooLarge,
    RequestTimeout,
    RequestURITooLarge,
)

from web.errors.problems import ApiProblem

BODY_SECONDS = 10.0  # a request body must arrive whole within this many seconds
IO_SECONDS = 10.0  # any one read or write of a client's socket may wait this long
MAX_JSON_DEPTH = 32  # nesting of a JSON body; a job request needs 3
PIECE = 64 * 1024  # bytes asked of the server's input stream at a time
# gunicorn's default caps, now the app's: "GET /path?query HTTP/1.1" without its CRLF, and one
# header line with its CRLF.
MAX_REQUEST_LINE = 4094
MAX_HEADER_FIELD = 8190

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")
_WHOLE = re.compile(r"-?[0-9]+")

WSGIApp = Any  # a WSGI callable (Werkzeug's own types are not part of its API)


class _Refusing(io.RawIOBase):
    """An input stream whose every read raises the HTTP error the body earned (408)."""

    def __init__(self, error: HTTPException) -> None:
        """Keep the error to raise."""
        super().__init__()
        self.error = error

    def readable(self) -> bool:
        """It is an input stream."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Raise the error: the view's read becomes Flask's error answer."""
        raise self.error


def _gevent_timeout() -> Any:
    """gevent's Timeout when this process runs under gevent's patched sockets, else None."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("socket"):
        return None
    return importlib.import_module("gevent").Timeout


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError here after `seconds` of wall clock (only under gevent)."""
    timeout = _gevent_timeout()
    if timeout is None:
        yield
        return
    with timeout(seconds, TimeoutError(f"the body did not arrive within {seconds:g} s")):
        yield


def _read_upto(stream: Any, limit: int, seconds: float) -> bytes:
    """Read the stream to its end or `limit` bytes, giving up (TimeoutError) after `seconds`."""
    started = time.monotonic()
    parts: list[bytes] = []
    total = 0
    with _deadline(seconds):
        while total < limit:
            piece = stream.read(min(PIECE, limit - total))
            if not piece:
                break
            parts.append(piece)
            total += len(piece)
            if time.monotonic() - started > seconds:  # without gevent: checked between reads
                raise TimeoutError(f"the body did not arrive within {seconds:g} s")
    return b"".join(parts)


def _content_length(wsgi_vars: Mapping[str, Any]) -> int | None:
    """The declared Content-Length, or None when absent or not a number."""
    try:
        return max(0, int(wsgi_vars.get("CONTENT_LENGTH") or ""))
    except ValueError:
        return None


def _limit_socket(wsgi_vars: Mapping[str, Any], seconds: float) -> None:
    """Bound each read and write of the client's socket (gunicorn hands it over blocking)."""
    sock = wsgi_vars.get("gunicorn.socket")
    if sock is not None and sock.gettimeout() is None:
        sock.settimeout(seconds)


class BodyGuard:
    """WSGI middleware: buffer each request body under the app's cap and a deadline."""

    def __init__(
        self,
        app: WSGIApp,
        config: Mapping[str, Any],
        body_seconds: float = BODY_SECONDS,
        io_seconds: float = IO_SECONDS,
    ) -> None:
        """Wrap `app`; the cap is config["MAX_CONTENT_LENGTH"], read at each request."""
        self.app = app
        self.config = config
        self.body_seconds = body_seconds
        self.io_seconds = io_seconds

    def __call__(self, wsgi_vars: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        """Buffer the body, then call the app."""
        _limit_socket(wsgi_vars, self.io_seconds)
        self._buffer(wsgi_vars)
        return self.app(wsgi_vars, start_response)  # type: ignore[no-any-return]

    def _buffer(self, wsgi_vars: dict[str, Any]) -> None:
        """Replace wsgi.input by the whole body in memory, or by one that raises 408/413."""
        limit = self.config.get("MAX_CONTENT_LENGTH")
        chunked = "chunked" in str(wsgi_vars.get("HTTP_TRANSFER_ENCODING", "")).lower()
        length = _content_length(wsgi_vars)
        if limit is None or not (chunked or length):
            return
        cap = int(limit)
        if not chunked and length is not None and length > cap:
            return  # Werkzeug answers 413 from the header alone
        try:
            body = _read_upto(wsgi_vars["wsgi.input"], cap + 1, self.body_seconds)
        except (TimeoutError, OSError):  # too slow, or the client went away
            wsgi_vars["wsgi.input"] = _Refusing(RequestTimeout(_too_slow(self.body_seconds)))
            return
        # Werkzeug now sees a plain body of known length; cap + 1 bytes make it answer 413.
        wsgi_vars["wsgi.input"] = io.BytesIO(b"" if len(body) > cap else body)
        wsgi_vars["CONTENT_LENGTH"] = str(len(body))
        wsgi_vars.pop("HTTP_TRANSFER_ENCODING", None)
        wsgi_vars.pop("wsgi.input_terminated", None)


def _too_slow(seconds: float) -> str:
    """The 408 detail."""
    return f"The request body did not arrive within {seconds:g} seconds; send it again."


def request_line_length(wsgi_vars: Mapping[str, Any]) -> int:
    """Bytes of the request line as sent: method, target and protocol with their two spaces."""
    target = wsgi_vars.get("RAW_URI") or wsgi_vars.get("REQUEST_URI")
    if target is None:  # another server: rebuild the target from the decoded path
        query = wsgi_vars.get("QUERY_STRING", "")
        target = quote(str(wsgi_vars.get("PATH_INFO", ""))) + (f"?{query}" if query else "")
    parts = (wsgi_vars.get("REQUEST_METHOD", ""), target, wsgi_vars.get("SERVER_PROTOCOL", ""))
    return sum(len(str(part)) for part in parts) + 2


def longest_header(wsgi_vars: Mapping[str, Any]) -> tuple[str, int]:
    """(name, bytes) of the longest header line, "Name: value" with its CRLF; ("", 0) if none.

    A header sent several times is measured as the server joined it (its values comma-separated).
    """
    longest = ("", 0)
    for key, value in wsgi_vars.items():
        if key.startswith("HTTP_") or key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            name = key.removeprefix("HTTP_").replace("_", "-").title()
            size = len(name) + len(": ") + len(str(value)) + len("\r\n")
            longest = max(longest, (name, size), key=lambda pair: pair[1])
    return longest


def check_head() -> None:
    """Refuse a request line over MAX_REQUEST_LINE (414) or a header line over MAX_HEADER_FIELD
    (431) bytes, as gunicorn would, but as the app's own error answer."""
    wsgi_vars = request.environ
    if request_line_length(wsgi_vars) > MAX_REQUEST_LINE:
        raise RequestURITooLarge(
            f"The request line is longer than {MAX_REQUEST_LINE} bytes: shorten the query, "
            "or send the puzzle in a job's JSON body."
        )
    name, size = longest_header(wsgi_vars)
    if size > MAX_HEADER_FIELD:
        raise RequestHeaderFieldsTooLarge(
            f"The header {name} is {size} bytes long; a header line may have {MAX_HEADER_FIELD}."
        )


def init_bodies(app: Flask) -> None:
    """Put the BodyGuard in front of the app (outermost, so no view waits on a socket), and
    check_head before every other hook."""
    app.wsgi_app = BodyGuard(app.wsgi_app, app.config)  # type: ignore[method-assign, assignment]
    app.json = GuardedJSON(app)
    app.before_request_funcs.setdefault(None, []).insert(0, check_head)


def whole_number(text: str) -> int | None:
    """The integer written in ASCII digits (with an optional minus), or None for anything else."""
    # int() also reads '1_0', Arabic-Indic or fullwidth digits and thousands of digits (then
    # fails): none of that is a number a client means here.
    written = text.strip()
    if not _WHOLE.fullmatch(written):
        return None
    try:
        return int(written)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return None


class _TooLong:
    """Stands in for a JSON integer with more digits than Python converts."""

    def __init__(self, digits: int) -> None:
        """Keep how many digits it had."""
        self.digits = digits


def _inside(item: Any) -> Iterable[tuple[Any, Any]]:
    """(key or index, value) of each member of a JSON object or array; nothing for the rest."""
    if isinstance(item, dict):
        return item.items()
    return enumerate(item) if isinstance(item, list) else ()


def _too_long(value: Any) -> ApiProblem:
    """The 422 problem naming where ("options.base") a body holds a too-long integer."""
    stack: list[tuple[str, Any]] = [("", value)]  # a loop: the body may nest a thousand deep
    while stack:
        path, item = stack.pop()
        if isinstance(item, _TooLong):
            field = path or "body"
            detail = f"'{field}' is a number of {item.digits} digits, far too long to be valid."
            return ApiProblem(422, detail, slug="invalid-request", field=field)
        stack.extend((f"{path}.{key}" if path else str(key), inner) for key, inner in _inside(item))
    raise AssertionError("no too-long integer in the body")


class GuardedJSON(DefaultJSONProvider):
    """Flask's JSON, except that an integer too long to convert is a 422 naming its field."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse JSON; an integer past Python's digit limit raises the 422 problem instead."""
        if "parse_int" in kwargs:
            return super().loads(s, **kwargs)
        # int() would raise mid-parse, with a message about sys.set_int_max_str_digits and
        # no word of where: a stand-in lets the whole body parse, then names the field.
        longs: list[_TooLong] = []

        def parse_int(text: str) -> int | _TooLong:
            """A JSON integer, or a stand-in where int() would refuse it."""
            limit, digits = sys.get_int_max_str_digits(), len(text.lstrip("-"))
            if not limit or digits <= limit:
                return int(text)
            longs.append(_TooLong(digits))
            return longs[-1]

        value = super().loads(s, parse_int=parse_int, **kwargs)
        if longs:
            raise _too_long(value)
        return value


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub(b"", raw)):
        depth += 1 if bracket in (b"[", b"{") else -1
        deepest = max(deepest, depth)
    return deepest


def check_json_depth(raw: bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse (422 naming "body") a JSON body nested deeper than `limit`, before parsing it."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return  # the common case costs two byte counts
    if json_depth(raw) > limit:
        detail = f"The body is nested more than {limit} levels deep; a job request needs 3."
        raise ApiProblem(422, detail, slug="invalid-request", field="body")
