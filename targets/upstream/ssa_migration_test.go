//go:build !patchconf_patch

package main

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An object applied client-side: csa-upgrade turns kubectl-client-side-apply's Update entry into
// kubectl's Apply entry (time and fields kept), then has nothing left to do (no patch, no
// write); kubectl apply --server-side then finds an Apply owner of the annotation, saves
// nothing, and its apply without b and without the annotation removes both.
func TestCSAUpgradeThenKubectlApply(t *testing.T) {
	input := `{"id":"t","type":"server-side-apply","current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":0,"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}]},"data":{"a":"1","b":"2"}},` +
		`"steps":[{"op":"csa-upgrade","manager":"kubectl","csa_managers":["kubectl-client-side-apply"]},{"op":"csa-upgrade","manager":"kubectl","csa_managers":["kubectl-client-side-apply"]},{"op":"kubectl-apply-server-side","manager":"kubectl","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}}}]}`
	want := []string{
		`{"document":{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"},"name":"cm","namespace":"default"}},"managed_fields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":0,"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}],"changed":true}`,
		`{"document":{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"},"name":"cm","namespace":"default"}},"managed_fields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":0,"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}],"changed":false}`,
		`{"document":{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}},"managed_fields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":3,"fieldsV1":{"f:data":{"f:a":{}}}}],"changed":true}`,
	}
	steps := runSSACase(t, input)
	if len(steps) != len(want) {
		t.Fatalf("%d step answers, want %d", len(steps), len(want))
	}
	for i := range want {
		if got := string(steps[i]); got != want[i] {
			t.Errorf("step %d\n got: %s\nwant: %s", i+1, got, want[i])
		}
	}
}

// findFieldsOwners reaches csaupgrade.FindFieldsOwners through reflection: owners must own
// every field asked about, and only entries of the operation count.
func TestFindFieldsOwnersThroughReflection(t *testing.T) {
	entries := []metav1.ManagedFieldsEntry{
		{Manager: "csa", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)}},
		{Manager: "other", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}},
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)}},
	}
	for operation, want := range map[metav1.ManagedFieldsOperationType]string{
		metav1.ManagedFieldsOperationUpdate: "csa", metav1.ManagedFieldsOperationApply: "kubectl"} {
		owners := findFieldsOwners(entries, operation, lastAppliedField)
		if len(owners) != 1 || owners[0].Manager != want {
			t.Errorf("%s owners: %v, want [%s]", operation, owners, want)
		}
	}
}
