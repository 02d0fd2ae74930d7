"""The OpenAPI 3.1 description of the JSON API, served at /api/openapi.json.

Modules: document.py (the document and its paths, built from the app's caps) · schemas.py
(the bodies' JSON Schemas, one per concept: a new response field is described here) ·
responses.py (the pieces of every path: job id, problem and JSON answers, 414/431) · data.py
(the export and estimate paths) · admin.py (the operator's API, its bodies and bearer token) ·
puzzle.py (the puzzle language: grammar, limits, an example of each kind).
"""
