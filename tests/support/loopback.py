"""Clients of their own on this machine: HTTP sessions and sockets from a loopback address of
their choosing (127.0.0.0/8 is all loopback on Linux), so a server bound to 127.0.0.1 sees each
as a client address of its own without trusting a proxy's header."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter


class _FromAddress(HTTPAdapter):
    """A connection pool whose connections leave from one source address."""

    def __init__(self, source: str) -> None:
        """Connections from `source` (any free port)."""
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        """The pool, its connections bound to the source address."""
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)


def session(source: str) -> requests.Session:
    """A requests.Session whose connections come from `source` (e.g. "127.0.0.7")."""
    made = requests.Session()
    adapter = _FromAddress(source)
    made.mount("http://", adapter)
    made.mount("https://", adapter)
    return made


def connect(url: str, source: str, timeout: float = 10.0) -> socket.socket:
    """A TCP connection to the server of `url` from `source`."""
    parts = urlsplit(url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    return socket.create_connection(address, timeout=timeout, source_address=(source, 0))


def send_get(sock: socket.socket, url: str, path: str) -> None:
    """Send a GET of `path` on the socket (its answer is left unread)."""
    host = urlsplit(url).netloc
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\n\r\n".encode()
    )
