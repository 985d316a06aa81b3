"""The v1 -> internal -> v1 round trip of built-in kinds (reference_impl/ssa/conversion.py): exact
outcomes, and inputs left as they were."""

from __future__ import annotations

import copy

import pytest

from patchconf.reference_impl.govalue.gotypes import InvalidBytes, go_bytes
from patchconf.reference_impl.ssa import codec
from patchconf.reference_impl.ssa.conversion import (
    ConversionError,
    go_bytes_json,
    through_internal_version,
)


def converted(obj: dict, api_version: str, kind: str, release: tuple[int, int] | None = None) -> dict:
    """The conversion of ``obj``, checking that ``obj`` is not changed."""
    before = copy.deepcopy(obj)
    out = through_internal_version(obj, api_version, kind, release)
    assert obj == before
    return out


def secret(**members: object) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **members}


def test_string_data_is_merged_into_data_and_dropped():
    out = converted(secret(stringData={"username": "admin", "password": "p"}), "v1", "Secret")
    assert out == secret(data={"username": "YWRtaW4=", "password": "cA=="})
    assert list(out) == ["apiVersion", "kind", "metadata", "data"]


def test_string_data_wins_over_data_and_data_keeps_the_other_keys():
    obj = secret(data={"password": "eA==", "other": "eQ=="}, stringData={"password": "p"}, type="Opaque")
    out = converted(obj, "v1", "Secret")
    assert out == secret(data={"password": "cA==", "other": "eQ=="}, type="Opaque")
    assert list(out) == ["apiVersion", "kind", "metadata", "data", "type"]


def test_empty_string_data_adds_nothing_and_is_dropped():
    assert converted(secret(stringData={}), "v1", "Secret") == secret()
    assert converted(secret(data={"a": "eA=="}, stringData={}), "v1", "Secret") == secret(data={"a": "eA=="})


def test_empty_and_non_ascii_values_are_their_utf8_bytes_in_base64():
    out = converted(secret(stringData={"empty": "", "greeting": "héllo ✓", "key": "🔑"}), "v1", "Secret")
    assert out["data"] == {"empty": "", "greeting": "aMOpbGxvIOKckw==", "key": "8J+UkQ=="}


def test_a_lone_surrogate_is_encoded_as_go_reads_it():
    assert go_bytes_json("\ud800") == "77+9"  # U+FFFD's bytes EF BF BD


def test_a_secret_without_string_data_is_returned_as_it_is():
    obj = secret(data={"a": "eA=="})
    assert converted(obj, "v1", "Secret") is obj


def test_decode_of_a_secret_stores_string_data_as_data():
    obj = secret(stringData={"username": "admin"})
    decoded = codec.decode(obj, "v1", "Secret", (1, 33))
    assert decoded == {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s", "creationTimestamp": None},
                       "data": {"username": "YWRtaW4="}, "type": "Opaque"}
    assert obj == secret(stringData={"username": "admin"})


def deployment(template_spec: dict, annotations: dict | None = None, template_annotations: dict | None = None) -> dict:
    metadata: dict = {"name": "d"}
    if annotations is not None:
        metadata["annotations"] = annotations
    template_metadata: dict = {"labels": {"a": "b"}}
    if template_annotations is not None:
        template_metadata["annotations"] = template_annotations
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
            "spec": {"template": {"metadata": template_metadata, "spec": template_spec}}}


@pytest.mark.parametrize(("spec", "expected"), [
    ({"serviceAccount": "robot"}, {"serviceAccountName": "robot", "serviceAccount": "robot"}),
    ({"serviceAccountName": "builder"}, {"serviceAccountName": "builder", "serviceAccount": "builder"}),
    ({"serviceAccountName": "builder", "serviceAccount": "robot"},
     {"serviceAccountName": "builder", "serviceAccount": "builder"}),
    ({"dnsPolicy": "Default"}, {"dnsPolicy": "Default"}),
])
def test_a_pod_template_service_account_alias(spec, expected):
    out = converted(deployment(spec), "apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"] == expected


def test_the_alias_keeps_the_struct_order():
    spec = {"dnsPolicy": "Default", "serviceAccount": "robot", "nodeName": "n"}
    out = converted(deployment(spec), "apps/v1", "Deployment")
    assert list(out["spec"]["template"]["spec"]) == ["dnsPolicy", "serviceAccountName", "serviceAccount", "nodeName"]


def test_init_container_annotations_are_dropped_from_templates_and_pods():
    out = converted(deployment({}, template_annotations={"pod.beta.kubernetes.io/init-containers": "[]", "k": "v"}),
                    "apps/v1", "Deployment")
    assert out["spec"]["template"]["metadata"] == {"labels": {"a": "b"}, "annotations": {"k": "v"}}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "annotations": {"pod.alpha.kubernetes.io/init-container-statuses": "[]"}},
           "spec": {"serviceAccount": "robot"}}
    assert converted(pod, "v1", "Pod") == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                           "spec": {"serviceAccountName": "robot", "serviceAccount": "robot"}}


def test_a_cron_job_template_is_converted_too():
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {"serviceAccount": "r"}}}}}}
    out = converted(cron, "batch/v1", "CronJob")
    assert out["spec"]["jobTemplate"]["spec"]["template"]["spec"] == {"serviceAccountName": "r", "serviceAccount": "r"}


def test_a_pod_negative_grace_period_is_one_a_template_keeps_it():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"terminationGracePeriodSeconds": -5}}
    assert converted(pod, "v1", "Pod")["spec"] == {"terminationGracePeriodSeconds": 1}
    out = converted(deployment({"terminationGracePeriodSeconds": -5}), "apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"] == {"terminationGracePeriodSeconds": -5}


@pytest.mark.parametrize(("status", "expected"), [
    ({"podIP": "10.0.0.1"}, {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}),
    ({"podIPs": [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}]},
     {"podIP": "10.0.0.2", "podIPs": [{"ip": "10.0.0.2"}, {"ip": "fd00::2"}]}),
    ({"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.2"}]}, {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}),
    ({"phase": "Running"}, {"phase": "Running"}),
])
def test_pod_ip_and_pod_ips(status, expected):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": status}
    assert converted(pod, "v1", "Pod")["status"] == expected


def test_node_pod_cidr_and_pod_cidrs():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"podCIDR": "10.0.0.0/24"}}
    assert converted(node, "v1", "Node")["spec"] == {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]}


@pytest.mark.parametrize(("value", "expected"), [("007", {"deprecated.deployment.rollback.to": "7"}),
                                                 ("+3", {"deprecated.deployment.rollback.to": "3"}), ("", None)])
def test_deployment_rollback_annotation(value, expected):
    out = converted(deployment({}, annotations={"deprecated.deployment.rollback.to": value}), "apps/v1", "Deployment")
    assert out["metadata"].get("annotations") == expected


@pytest.mark.parametrize(("value", "message"), [
    ("abc", 'failed to parse annotation[deprecated.deployment.rollback.to]=abc as int64: '
            'strconv.ParseInt: parsing "abc": invalid syntax'),
    ("99999999999999999999", 'failed to parse annotation[deprecated.deployment.rollback.to]=99999999999999999999 '
                             'as int64: strconv.ParseInt: parsing "99999999999999999999": value out of range'),
])
def test_a_rollback_annotation_that_is_no_integer_fails(value, message):
    obj = deployment({}, annotations={"deprecated.deployment.rollback.to": value})
    with pytest.raises(ConversionError) as caught:
        converted(obj, "apps/v1", "Deployment")
    assert str(caught.value) == message


@pytest.mark.parametrize(("value", "message"), [("", 'strconv.ParseInt: parsing "": invalid syntax'),
                                                ("1\n", 'strconv.ParseInt: parsing "1\\n": invalid syntax')])
def test_a_template_generation_that_is_no_integer_fails(value, message):
    daemon_set = {"apiVersion": "apps/v1", "kind": "DaemonSet",
                  "metadata": {"name": "ds", "annotations": {"deprecated.daemonset.template.generation": value}}}
    with pytest.raises(ConversionError) as caught:
        converted(daemon_set, "apps/v1", "DaemonSet")
    assert str(caught.value) == message


def test_stateful_set_claim_templates_say_what_they_are():
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"},
           "spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}},
                                             {"apiVersion": "v2", "kind": "Other", "metadata": {"name": "x"}}]}}
    out = converted(sts, "apps/v1", "StatefulSet")
    assert out["spec"]["volumeClaimTemplates"] == [
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "x"}}]


LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"


@pytest.mark.parametrize(("selector", "expected"), [
    ({"matchLabels": {"a": "b"}, "matchExpressions": [{"key": LABEL, "operator": "DoesNotExist"}]},
     {"matchLabels": {"a": "b"}}),
    ({"matchExpressions": [{"key": LABEL, "operator": "Exists"}]},
     {"matchExpressions": [{"key": LABEL, "operator": "Exists"}]}),
    ({"matchExpressions": [{"key": LABEL, "operator": "Exists"}, {"key": "k", "operator": "Exists"}]},
     {"matchExpressions": [{"key": "k", "operator": "Exists"}]}),
])
def test_pdb_selector_loses_the_v1beta1_label(selector, expected):
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
           "spec": {"selector": selector}}
    assert converted(pdb, "policy/v1", "PodDisruptionBudget")["spec"]["selector"] == expected


def test_hpa_round_trip_annotations_dropped_tolerances_from_1_33():
    annotations = {"autoscaling.alpha.kubernetes.io/metrics": "[]", "k": "v",
                   "autoscaling.alpha.kubernetes.io/scale-up-tolerance": "0.1"}
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "h", "annotations": annotations}}
    assert converted(hpa, "autoscaling/v2", "HorizontalPodAutoscaler", (1, 33))["metadata"]["annotations"] == {"k": "v"}
    assert converted(hpa, "autoscaling/v2", "HorizontalPodAutoscaler", (1, 32))["metadata"]["annotations"] == {
        "k": "v", "autoscaling.alpha.kubernetes.io/scale-up-tolerance": "0.1"}


def test_kinds_without_a_conversion_come_back_as_they_are():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    assert converted(obj, "v1", "ConfigMap") is obj


@pytest.mark.parametrize(("text", "expected"), [
    ("YWRt\naW4=", "YWRtaW4="), ("Y\r\nQ==", "YQ=="), ("cB==", "cA=="), ("cA=\n=", "cA=="), ("", ""), ("YWJj", "YWJj"),
])
def test_bytes_are_read_and_written_as_go_does(text, expected):
    assert go_bytes(text) == expected


@pytest.mark.parametrize(("text", "position"), [("cA", 0), ("c A==", 1), ("cA==cA==", 4), ("cA=", 3), ("\u00e9", 0),
                                                ("Y===", 1), ("YQ=\n", 4)])
def test_bytes_go_cannot_read_fail_where_go_says(text, position):
    with pytest.raises(InvalidBytes) as caught:
        go_bytes(text)
    assert str(caught.value) == f"illegal base64 data at input byte {position}"


def test_decode_of_a_secret_writes_its_data_canonically():
    obj = secret(data={"a": "YWRt\naW4="})
    assert codec.decode(obj, "v1", "Secret", (1, 33))["data"] == {"a": "YWRtaW4="}
    assert obj == secret(data={"a": "YWRt\naW4="})


def test_a_put_of_data_go_cannot_read_is_refused_by_the_decoder_and_nothing_changes():
    # kube-apiserver 1.33.13 answered this PUT "Secret in version "v1" cannot be handled as a Secret:
    # illegal base64 data at input byte 4" (a 400), and the Secret kept its data
    from patchconf.reference_impl.releases import LIVE_RELEASE
    from patchconf.reference_impl.ssa import apiserver
    from patchconf.reference_impl.ssa.schema import builtin

    steps = [{"op": "apply", "manager": "gitops", "object": secret(data={"a": "cA=="})},
             {"op": "update", "manager": "u", "object": secret(data={"a": "cA==cA=="})},
             {"op": "apply", "manager": "gitops", "object": secret(data={"a": "cA=="})}]
    before = copy.deepcopy(steps)
    created, refused, again = apiserver.run_case(builtin("v1", "Secret", LIVE_RELEASE), "v1", "Secret", None, steps)
    assert steps == before
    assert refused == {"error": {"class": "invalid-document", "status": 400, "reason": "BadRequest",
                                 "message": 'Secret in version "v1" cannot be handled as a Secret: '
                                            "illegal base64 data at input byte 4"}}
    assert created["document"]["data"] == {"a": "cA=="}
    assert again["changed"] is False and again["document"] == created["document"]
