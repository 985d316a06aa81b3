"""kubectl's file reader wants an object's metadata to decode into ObjectMeta. Each expected
message is what kubectl 1.32.4 printed for `kubectl patch --local -f F.json --type merge -p {}`
on a ConfigMap with that metadata (after its 'unable to decode "F.json": ' prefix); None: it
read the file. Times: Go's time.Parse(time.RFC3339, …) messages."""

import pytest

from patchconf.reference_impl.errors import InvalidDocument
from patchconf.reference_impl.kubectl_apply import apply
from patchconf.reference_impl.object_meta import check_readable_metadata

FIELD = "json: cannot unmarshal {} into Go struct field {} of type {}"


@pytest.mark.parametrize(("metadata", "message"), [
    ({"name": "cm", "labels": {"a": 0}}, FIELD.format("number", "ObjectMeta.metadata.labels", "string")),
    (5, FIELD.format("number", "metadataOnlyObject.metadata", "v1.ObjectMeta")),
    ("x", FIELD.format("string", "metadataOnlyObject.metadata", "v1.ObjectMeta")),
    ([], FIELD.format("array", "metadataOnlyObject.metadata", "v1.ObjectMeta")),
    ({"name": "cm", "generation": 2.0}, FIELD.format("number 2.0", "ObjectMeta.metadata.generation", "int64")),
    ({"name": "cm", "generation": "2"}, FIELD.format("string", "ObjectMeta.metadata.generation", "int64")),
    ({"name": "cm", "generation": 9223372036854775808},
     FIELD.format("number 9223372036854775808", "ObjectMeta.metadata.generation", "int64")),
    ({"name": "cm", "finalizers": [1]}, FIELD.format("number", "ObjectMeta.metadata.finalizers", "string")),
    ({"name": "cm", "ownerReferences": [{"name": 1}]},
     FIELD.format("number", "OwnerReference.metadata.ownerReferences.name", "string")),
    ({"name": "cm", "ownerReferences": [{"controller": "x"}], "labels": {"a": 1}},
     FIELD.format("string", "OwnerReference.metadata.ownerReferences.controller", "bool")),
    ({"name": "cm", "labels": []}, FIELD.format("array", "ObjectMeta.metadata.labels", "map[string]string")),
    ({"name": "cm", "labels": {"a": {}}}, FIELD.format("object", "ObjectMeta.metadata.labels", "string")),
    ({"name": "cm", "labels": {"a": True}}, FIELD.format("bool", "ObjectMeta.metadata.labels", "string")),
    ({"name": "cm", "uid": [1]}, FIELD.format("array", "ObjectMeta.metadata.uid", "types.UID")),
    ({"name": "cm", "creationTimestamp": 5}, FIELD.format("number", "ObjectMeta.metadata.creationTimestamp", "string")),
    ({"name": "cm", "creationTimestamp": "bad"},
     'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'),
    # a time that fails stops decoding: its error wins over the label remembered before it
    ({"name": "cm", "labels": {"a": 0}, "creationTimestamp": "bad"},
     'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'),
    ({"name": "cm", "creationTimestamp": "2020-02-30T00:00:00Z"},
     'parsing time "2020-02-30T00:00:00Z": day out of range'),
    ({"name": "cm", "creationTimestamp": "2020-01-01t00:00:00z"},
     'parsing time "2020-01-01t00:00:00z" as "2006-01-02T15:04:05Z07:00": cannot parse "t00:00:00z" as "T"'),
    ({"name": "cm", "creationTimestamp": ""},
     'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'),
    ({"name": "cm", "creationTimestamp": "2020-01-01T24:00:00Z"},
     'parsing time "2020-01-01T24:00:00Z": hour out of range'),
    # read: names are matched case-sensitively, nulls and members ObjectMeta lacks are taken
    ({"name": "cm", "Labels": {"a": 1}}, None),
    ({"name": "cm", "labels": {"a": None}}, None),
    ({"name": "cm", "creationTimestamp": None, "labels": None}, None),
    ({"name": "cm", "managedFields": [{"fieldsV1": 5, "time": "2020-01-01T00:00:00.5+01:00"}]}, None),
    ({"name": "cm", "nameſpace": 3}, None),
    ({"name": "cm", "generation": -5, "deletionGracePeriodSeconds": None}, None),
    ({"name": "cm", "creationTimestamp": "2020-01-01T00:00:00,5Z"}, None),
])
def test_metadata_kubectl_reads_or_refuses(metadata, message):
    document = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}
    if message is None:
        check_readable_metadata(document)
        return
    with pytest.raises(InvalidDocument) as raised:
        check_readable_metadata(document)
    assert raised.value.message == message


def test_api_version_must_be_a_string():
    with pytest.raises(InvalidDocument) as raised:
        check_readable_metadata({"apiVersion": 5, "kind": "ConfigMap", "metadata": {"name": "cm"}})
    assert raised.value.message == FIELD.format("number", "metadataOnlyObject.apiVersion", "string")


def test_apply_refuses_a_configuration_kubectl_cannot_read():
    # kubectl-apply 1.32.4 (patchconf fuzz --seed 1618033, input 0): refused before anything is sent
    configuration = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"a": 0}}}
    with pytest.raises(InvalidDocument) as raised:
        apply(configuration, None, None)
    assert raised.value.message == FIELD.format("number", "ObjectMeta.metadata.labels", "string")


def test_apply_reads_the_configuration_as_written():
    # 2.0 is no int64 in the file, though Unstructured would make it 2
    configuration = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "generation": 2.0}}
    with pytest.raises(InvalidDocument):
        apply(configuration, None, None)
