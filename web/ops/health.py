"""Liveness and readiness probes."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from alphametic.linear.native import EngineError, describe
from jobstore import QUEUES, Unavailable
from web.store import store

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    """Answer 200 as long as the process serves requests."""
    return jsonify(status="ok")


@bp.get("/readyz")
def readyz() -> Response:
    """Answer 200 when Redis answers, takes writes (replicas at their floor) and every queue
    has a worker, else 503."""
    try:
        health = dict(store().health())
    except Unavailable:
        health = {"redis": False, "workers": {}}
    workers = health.get("workers") or {}
    replicas = health.get("replicas") or {"connected": 0, "floor": 0}
    ready = bool(health.get("redis")) and all(workers.get(q, 0) >= 1 for q in QUEUES)
    ready = ready and replicas["connected"] >= replicas["floor"]
    try:
        engine = describe()  # which engine this process runs: native or python (and why)
    except EngineError as exc:
        engine, ready = f"unavailable: {exc}", False
    response = jsonify(status="ready" if ready else "not ready", engine=engine, **health)
    if not ready:
        response.status_code = 503
        response.headers["Retry-After"] = "5"
    return response
