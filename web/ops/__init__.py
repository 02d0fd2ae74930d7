"""What operators and their tools read: probes, metrics and logs.

Modules: health.py (/healthz, /readyz) · metrics.py (/metrics for Prometheus) · logs.py (a
request id on every line, an access log, JSON on demand).
"""
