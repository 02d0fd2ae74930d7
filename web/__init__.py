"""Flask front end: the JSON API and the HTML pages over the job store.

Folders: api/ (the JSON API) · openapi/ (its description) · pages/ (the form and job pages) ·
admin/ (the operator's API and page) · ops/ (probes, metrics, logs) · errors/ (every error
answer). Modules: config.py (the web's settings) · store.py (the app's job store; a job looked
up by id) · clients.py (the client's identity, rates and charging, cap and storage left) ·
waiting.py (long polls within this process's wait slots, a share per client) · slots.py (a cap
on CPU-heavy work running at once in this process: estimates) · drawings.py (a stored job's puzzle
parsed again and its solutions drawn) · paging.py (page numbers) · bodies.py (request bodies
read whole within caps) · security.py (headers, CSRF) · i18n.py (the page's language, numbers
and durations) · offload.py (CPU-heavy work off the event loop) · wsgi.py (gunicorn's entry
point) · templates/, static/. No puzzle logic and no Redis key here: the web talks to Redis
only through jobstore.JobStore.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from jobstore import JobStore, Settings
from web.admin.page import init_admin
from web.api import explain, jobs
from web.api.estimates import CPU_BUDGET
from web.bodies import init_bodies
from web.config import WebSettings
from web.errors.answers import register_errors
from web.i18n import init_i18n
from web.ops import health, metrics
from web.ops.logs import init_logging
from web.pages import compose, views
from web.security import init_security
from web.slots import Slots
from web.waiting import WaitSlots


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app: settings, job store, blueprints, headers and error handlers.

    `config` overrides settings by their Flask names (RATE_LIMIT, MAX_CONTENT_LENGTH, ...),
    adds Flask's own (TESTING) and may give the job store's Settings as SETTINGS.
    """
    config = dict(config or {})
    web = WebSettings.from_env(overrides=config)
    app = Flask(__name__)
    app.config.update(web.flask_config())
    app.config.update({k: v for k, v in config.items() if k != "SETTINGS"})
    app.config.update(SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_HTTPONLY=True)
    init_logging(app)  # first, so every later hook and line has the request id
    if web.proxy_hops > 0:
        hops = web.proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    settings = config.get("SETTINGS") or Settings.from_env()
    app.extensions["alphametic.settings"] = settings
    app.extensions["alphametic.store"] = JobStore(settings)
    app.extensions["alphametic.rates"] = web.rates()
    app.extensions["alphametic.read_rates"] = web.read_rates()
    app.extensions["alphametic.wait_slots"] = WaitSlots(web.max_waiters, web.client_waiters)
    app.extensions["alphametic.estimate_slots"] = Slots("estimate", web.max_estimates, CPU_BUDGET)
    app.register_blueprint(jobs.bp)
    app.register_blueprint(explain.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(compose.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(metrics.bp)
    init_admin(app)
    init_security(app)
    init_i18n(app)
    register_errors(app)
    init_bodies(app)
    return app
