"""The admin gate: a token long enough, wrong tokens throttled per address, nothing cached."""

from __future__ import annotations

import itertools
import logging
import re

import pytest
from flask.testing import FlaskClient

from jobstore import Settings
from jobstore.admin import TOKEN_TRIES
from jobstore.settings import ConfigError
from tests.support.web import assert_problem, make_app
from web.config import MIN_ADMIN_TOKEN, WebSettings

ADMIN_TOKEN = "test-admin-token-gate-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
WRONG = {"Authorization": "Bearer not-the-admin-token-at-all-0123456789"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
_addresses = (f"10.77.{n // 250}.{n % 250 + 1}" for n in itertools.count())


@pytest.fixture(scope="module")
def admin(web_settings: Settings) -> FlaskClient:
    """A test client of an app with the admin token set."""
    return make_app(web_settings, ADMIN_TOKEN=ADMIN_TOKEN).test_client()


def test_a_short_admin_token_refuses_to_start(web_settings: Settings) -> None:
    """Below MIN_ADMIN_TOKEN characters the app does not start, and says the minimum."""
    assert MIN_ADMIN_TOKEN >= 32
    short = "s" * (MIN_ADMIN_TOKEN - 1)
    with pytest.raises(ConfigError, match=f"at least {MIN_ADMIN_TOKEN} characters"):
        WebSettings.from_env({"ALPHAMETIC_ADMIN_TOKEN": short})
    with pytest.raises(ConfigError, match="ALPHAMETIC_ADMIN_TOKEN"):
        make_app(web_settings, ADMIN_TOKEN="changeme")
    assert WebSettings.from_env({"ALPHAMETIC_ADMIN_TOKEN": short + "s"}).admin_token
    assert WebSettings.from_env({}).admin_token == ""  # unset: admin off, no error


def test_a_flood_of_wrong_tokens_is_throttled_and_logged_in_few_lines(
    admin: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    """TOKEN_TRIES wrong tokens from one address, then 429 with Retry-After for whatever it
    sends (the right token too); another address is not affected; 300 tries, 3 log lines."""
    flooder, other = {"REMOTE_ADDR": next(_addresses)}, {"REMOTE_ADDR": next(_addresses)}
    caplog.set_level(logging.INFO, logger="alphametic.admin")
    answers = [admin.get("/admin/api/jobs", headers=WRONG, environ_base=flooder)
               for _ in range(300)]  # fmt: skip
    statuses = [answer.status_code for answer in answers]
    tries = TOKEN_TRIES.amount
    assert statuses == [401] * (tries - 1) + [429] * (300 - tries + 1)
    locked = assert_problem(answers[-1], 429)
    assert locked["field"] == "Authorization"
    assert locked["type"] == "/api/problems/too-many-wrong-tokens"
    assert 0 < int(answers[-1].headers["Retry-After"]) <= TOKEN_TRIES.seconds
    right = admin.get("/admin/api/jobs", headers=AUTH, environ_base=flooder)
    assert right.status_code == 429  # refused unheard: no guess is checked while locked
    assert admin.get("/admin/api/jobs", headers=AUTH, environ_base=other).status_code == 200
    lines = [r for r in caplog.records if r.name == "alphametic.admin"]
    assert len(lines) <= 3, [r.getMessage() for r in lines]
    assert "refused_in_window=100" in lines[-1].getMessage()


def test_the_login_form_counts_wrong_tokens_too(admin: FlaskClient) -> None:
    """The page's login: 401 per wrong token, then the login page with 429 and Retry-After."""
    address = {"REMOTE_ADDR": next(_addresses)}
    form = admin.get("/admin", environ_base=address)
    found = CSRF.search(form.get_data(as_text=True))
    assert form.status_code == 401 and found
    data = {"csrf_token": found.group(1), "token": "guess"}
    statuses = [admin.post("/admin/login", data=data, environ_base=address).status_code
                for _ in range(TOKEN_TRIES.amount)]  # fmt: skip
    assert statuses == [401] * (TOKEN_TRIES.amount - 1) + [429]
    data["token"] = ADMIN_TOKEN
    page = admin.post("/admin/login", data=data, environ_base=address)
    assert page.status_code == 429 and "Retry-After" in page.headers
    assert "Too many wrong admin tokens" in page.get_data(as_text=True)


def test_nothing_of_admin_is_stored_by_any_cache(admin: FlaskClient) -> None:
    """The page (logged in or not), the API and its refusals all say no-store."""
    answers = [admin.get("/admin"), admin.get("/admin/api/jobs", headers=AUTH),
               admin.get("/admin/api/queues"), admin.get("/admin", headers=AUTH)]  # fmt: skip
    for answer in answers:
        assert answer.headers.get("Cache-Control") == "no-store", answer.request.path
