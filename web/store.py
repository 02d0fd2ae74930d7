"""The app's job store, and a job looked up in it by the id a request names."""

from __future__ import annotations

import uuid

from flask import current_app

from jobstore import Job, JobStore


def store() -> JobStore:
    """Return the app's JobStore."""
    job_store: JobStore = current_app.extensions["alphametic.store"]
    return job_store


def valid_id(job_id: str) -> bool:
    """Tell whether the id looks like a uuid4 (anything else cannot name a job)."""
    return canonical_id(job_id) is not None


def canonical_id(job_id: str) -> str | None:
    """The id as the store keeps it (lower case), or None when it is not a job id at all."""
    # Ids are written in lower case, but a uuid is case-insensitive: an id typed or copied in
    # upper case names the same job, so every lookup goes through this spelling.
    try:
        canonical = str(uuid.UUID(job_id))
    except ValueError:
        return None
    return canonical if canonical == job_id.lower() else None


def job_or_none(job_id: str) -> Job | None:
    """Return the job with this id (in either case), or None when it is malformed or unknown."""
    canonical = canonical_id(job_id)
    return store().get(canonical) if canonical is not None else None
