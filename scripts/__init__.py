"""Developer scripts: `python -m scripts.run` is what `make run` runs.

Modules: run.py (start Redis unless REDIS_URL is set, both worker pools and gunicorn; stop
all) · supervisor.py (child processes in their own groups, all stopped) · embedded_redis.py
(the private Redis server) · console.py (what `make run` tells a person) · webserver.py
(gunicorn's settings) · webworker.py (gunicorn's worker, its refusals as problem+json) ·
gunicorn_logging.py (gunicorn's own lines in our log format) ·
flower.py (Flower on loopback behind a login).
"""
