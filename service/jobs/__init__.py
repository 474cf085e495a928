"""Jobs as the service runs them. ``JobService`` is what the API talks to (submit, read,
cancel); ``WorkerSteps`` are the two steps the Celery tasks run (segment, finalize);
``Reconciler`` bounds every job's time to a terminal state. All three share ``Lifecycle``
(fail a job, clean up its files). service/wiring.py builds them."""

from service.jobs.lifecycle import Lifecycle
from service.jobs.reconcile import Reconciler
from service.jobs.service import JobService, Submission
from service.jobs.steps import WorkerSteps

__all__ = ["JobService", "Lifecycle", "Reconciler", "Submission", "WorkerSteps"]
