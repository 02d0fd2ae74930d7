# One image for the web server and both worker pools (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY alphametic/ alphametic/
COPY worker/ worker/
COPY web/ web/
COPY scripts/ scripts/
# Flower is only started under the compose profile `monitoring`, but one image serves all.
RUN pip install . "flower>=2.0" \
    && useradd --system --create-home --uid 10001 app

USER app
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--threads", "4", "--no-control-socket", "--preload", \
     "web.wsgi:app"]
