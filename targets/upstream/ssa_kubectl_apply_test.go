//go:build !patchconf_patch

package main

import (
	"strings"
	"testing"
)

// kubectl's client-side apply: a create carrying the annotation, a patch deleting the key the
// manifest dropped, both Updates of kubectl's manager (kube-apiserver 1.33.13 and kubectl 1.32
// answered the same: cases/server-side-apply/kubectl-apply.yaml).
func TestKubectlApplyCreatesThenDeletesADroppedKey(t *testing.T) {
	input := `{"id":"t","type":"server-side-apply","steps":[` +
		`{"op":"kubectl-apply","manager":"kubectl-client-side-apply","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1","b":"2"}}},` +
		`{"op":"kubectl-apply","manager":"kubectl-client-side-apply","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}}}]}`
	want := []string{
		`{"document":{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"cm\",\"namespace\":\"default\"}}\n"},"name":"cm","namespace":"default"}},"managed_fields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}],"changed":true,"warnings":[]}`,
		`{"document":{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"cm\",\"namespace\":\"default\"}}\n"},"name":"cm","namespace":"default"}},"managed_fields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":2,"fieldsV1":{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}}],"changed":true,"warnings":[]}`,
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

// An object without the annotation: kubectl warns; a manifest whose annotation would take the
// annotations past 262,144 bytes is refused by ValidateAnnotations (422).
func TestKubectlApplyWarnsAndHitsTheAnnotationLimit(t *testing.T) {
	big := strings.Repeat("x", 262144)
	input := `{"id":"t","type":"server-side-apply","current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}},"steps":[` +
		`{"op":"kubectl-apply","manager":"m","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}}},` +
		`{"op":"kubectl-apply","manager":"m","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"` + big + `"}}}]}`
	steps := runSSACase(t, input)
	if len(steps) != 2 {
		t.Fatalf("%d step answers, want 2", len(steps))
	}
	warning := `"warnings":["resource configmaps/cm is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically."]`
	if got := string(steps[0]); !strings.HasSuffix(got, `"changed":true,`+warning+`}`) {
		t.Errorf("step 1: %s\nwant it to end with the change and %s", got, warning)
	}
	refused := `{"error":{"class":"invalid","message":"ConfigMap \"cm\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes","status":422,"reason":"Invalid"},"warnings":[]}`
	if got := string(steps[1]); got != refused {
		t.Errorf("step 2\n got: %s\nwant: %s", got, refused)
	}
}
