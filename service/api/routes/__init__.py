"""One router per resource: jobs, artifacts, voices, health (and metrics)."""
