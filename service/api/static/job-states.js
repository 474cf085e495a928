// Made by `python -m service.api.job_states` from JobStatus (service/domain/job.py),
// the API's JobStatus enum: do not edit.
const NARRATE_JOB_STATES = Object.freeze({ states: ["queued", "running", "succeeded", "failed", "canceled"], terminal: ["succeeded", "failed", "canceled"] });
