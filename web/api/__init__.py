"""The JSON API under /api/.

Modules: jobs.py (create, inspect, page through, cancel and delete jobs: a new endpoint or
request field goes here) · explain.py (GET /api/jobs/{id}/explain, also the job page's
section) · export.py (CSV and JSON Lines downloads) · estimates.py (how big an enumeration
would be, for /api/estimate and the form's warning).
"""
