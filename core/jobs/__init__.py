"""Heavy work off the request thread, with bounds: the job runner (worker processes for CPU-bound work,
threads for LLM calls; a time limit per job, caps per app and per teacher) and the teacher pages' tasks
cut into a worker half that computes and an app half that stores (tasks)."""
from core.jobs.runner import (CANCELLED, DONE, FAILED, RUNNING, TIMED_OUT, Job, JobBusy, JobCancelled, JobError,
                              JobFailed, JobProgress, JobRunner, JobTimeout)

__all__ = ["Job", "JobRunner", "JobProgress", "JobError", "JobBusy", "JobTimeout", "JobCancelled", "JobFailed",
           "RUNNING", "DONE", "FAILED", "TIMED_OUT", "CANCELLED"]
