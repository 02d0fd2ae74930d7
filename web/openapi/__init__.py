"""The OpenAPI 3.1 description of the JSON API, served at /api/openapi.json.

Modules: document.py (the document and its paths, built from the app's caps) · schemas.py
(the bodies' JSON Schemas: a new response field is described here) · data.py (the export and
estimate paths) · puzzle.py (the puzzle language: grammar, limits, an example of each kind).
"""
