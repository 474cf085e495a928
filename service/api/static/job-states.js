// Made by `python -m service.api.job_states` from JobStatus (service/domain/job.py),
// the API's JobStatus enum: do not edit.
export const STATES = Object.freeze(["queued", "running", "succeeded", "failed", "canceled"]);
export const TERMINAL = Object.freeze(["succeeded", "failed", "canceled"]);
