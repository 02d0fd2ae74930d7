"""The operator's API and page, behind ALPHAMETIC_ADMIN_TOKEN.

Modules: api.py (/admin/api/: jobs, queues, workers; cancel, delete, re-queue) · page.py
(/admin: the same for a person, with a session login).
"""
