"""Defaulting of batch/v1: Job and CronJob.

Go twin: k8s.io/kubernetes/pkg/apis/batch/v1/defaults.go. A CronJob's job template is a
JobTemplateSpec, not a Job: it gets only the pod template's defaults, not SetDefaults_Job.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct, is_empty
from .core_v1 import Defaulter
from .features import Release, enabled

BATCH = "io.k8s.api.batch.v1."
MAX_INT32 = 2**31 - 1
PATTERN_DEFAULTER_SINCE = (1, 34)


def set_defaults_job(job: GoStruct, release: Release) -> None:
    """SetDefaults_Job: completions and parallelism 1, backoffLimit 6 (MaxInt32 with a per-index
    limit, from 1.28), labels from the template's, completionMode NonIndexed, suspend false, pod
    condition patterns' status True (until 1.33; a defaulter of the pattern type from 1.34),
    podReplacementPolicy (behind JobPodReplacementPolicy until 1.36, ungated from 1.37),
    manualSelector false (from 1.29)."""
    spec = job["spec"]
    if spec["completions"] is None and spec["parallelism"] is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec["parallelism"] is None:
        spec["parallelism"] = 1
    if spec["backoffLimit"] is None:
        per_index = release >= (1, 28) and spec["backoffLimitPerIndex"] is not None
        spec["backoffLimit"] = MAX_INT32 if per_index else 6
    labels = spec["template"]["metadata"]["labels"]
    if labels is not None and is_empty(job["metadata"]["labels"]):
        job["metadata"]["labels"] = labels
    if spec["completionMode"] is None:
        spec["completionMode"] = "NonIndexed"
    if spec["suspend"] is None:
        spec["suspend"] = False
    failure_policy = spec["podFailurePolicy"]
    if failure_policy is not None and release < PATTERN_DEFAULTER_SINCE:
        for rule in failure_policy["rules"] or []:
            for pattern in rule["onPodConditions"] or []:
                if pattern["status"] == "":
                    pattern["status"] = "True"
    replacement_gated = release < (1, 37)  # the gate, GA and locked on since 1.34, is gone in 1.37
    if (not replacement_gated or enabled("JobPodReplacementPolicy", release)) and spec["podReplacementPolicy"] is None:
        spec["podReplacementPolicy"] = "Failed" if failure_policy is not None else "TerminatingOrFailed"
    if release >= (1, 29) and spec["manualSelector"] is None:
        spec["manualSelector"] = False


def set_defaults_pod_failure_policy_on_pod_conditions_pattern(pattern: GoStruct, release: Release) -> None:
    """SetDefaults_PodFailurePolicyOnPodConditionsPattern (from 1.34): status True. Registered on
    the type, it reaches every pattern the walk meets: a CronJob's job template's too, which
    SetDefaults_Job (that did it until 1.33) never saw."""
    if release >= PATTERN_DEFAULTER_SINCE and pattern["status"] == "":
        pattern["status"] = "True"


def set_defaults_cron_job(cron_job: GoStruct, release: Release) -> None:
    """SetDefaults_CronJob: concurrencyPolicy Allow, suspend false, history limits 3 and 1."""
    spec = cron_job["spec"]
    if spec["concurrencyPolicy"] == "":
        spec["concurrencyPolicy"] = "Allow"
    if spec["suspend"] is None:
        spec["suspend"] = False
    if spec["successfulJobsHistoryLimit"] is None:
        spec["successfulJobsHistoryLimit"] = 3
    if spec["failedJobsHistoryLimit"] is None:
        spec["failedJobsHistoryLimit"] = 1


DEFAULTERS: dict[str, Defaulter] = {
    BATCH + "Job": set_defaults_job,
    BATCH + "CronJob": set_defaults_cron_job,
    BATCH + "PodFailurePolicyOnPodConditionsPattern": set_defaults_pod_failure_policy_on_pod_conditions_pattern,
}
