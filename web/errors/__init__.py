"""Every error answer: problem+json for the API and probes, the error page for people.

Modules: answers.py (the handlers that turn an error into an answer) · problems.py (RFC 9457
problem details with their stable codes: one helper builds each) · puzzle.py (the engine's
errors in the page's language, by code, a compose request's words and counts among them: a
new engine error code gets its sentence here).
"""
