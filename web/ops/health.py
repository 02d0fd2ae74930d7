"""Liveness and readiness probes."""

from __future__ import annotations

from typing import Any

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
    """Answer 200 when Redis answers, the store's breaker is closed, writes are taken
    (replicas at their floor) and every queue has a worker, else 503 saying why."""
    try:
        health = dict(store().health())
    except Unavailable:
        health = {"redis": False, "workers": {}}
    reasons = not_ready(health)
    try:
        engine = describe()  # which engine this process runs: native or python (and why)
    except EngineError as exc:
        engine = f"unavailable: {exc}"
        reasons.append(f"engine {engine}")
    if not reasons:
        return jsonify(status="ready", engine=engine, **health)
    response = jsonify(status="not ready", reasons=reasons, engine=engine, **health)
    response.status_code = 503
    response.headers["Retry-After"] = "5"
    return response


def not_ready(health: dict[str, Any]) -> list[str]:
    """Why the store's health keeps this process from being ready (none: it is ready)."""
    if health.get("breaker") == "open":
        # Every API call of this process answers 503 at once until one gets through.
        return ["breaker open: a Redis call timed out and none has been answered since"]
    if not health.get("redis"):
        return ["redis: the job store did not answer"]
    workers = health.get("workers") or {}
    reasons = [f"workers: none for queue {q}" for q in QUEUES if workers.get(q, 0) < 1]
    replicas = health.get("replicas") or {"connected": 0, "floor": 0}
    if replicas["connected"] < replicas["floor"]:
        reasons.append(f"replicas: {replicas['connected']} connected, {replicas['floor']} needed")
    return reasons
