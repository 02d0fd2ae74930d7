"""Every error answer: problem+json for the API and probes, the error page for people.

Modules: answers.py (the handlers that turn an error into an answer) · problems.py (RFC 9457
problem details: one helper builds each) · puzzle.py (the engine's puzzle errors in the
page's language).
"""
