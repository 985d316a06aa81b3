package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Server-side apply scenarios and the exact step results the program answers (k8s.io/apimachinery
// v0.32.4). Each was also run against a real kube-apiserver v1.33.13, one second per step:
// managedFields, conflicts, errors and "changed" agree; the server's documents add its
// defaults, and so does its before-first-apply entry in the third scenario.
var ssaScenarios = []struct {
	name  string
	input string
	from  int // the first step whose answer is listed (0: all)
	steps []string
}{
	{
		name:  "an Update manager takes a field from the applier; the applier's next apply conflicts, force takes it back, the same apply again is a no-op",
		input: `{"id":"t","type":"server-side-apply","current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"gitops","operation":"Apply","apiVersion":"v1","time":0,"fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}},"steps":[{"op":"update","manager":"hpa","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"2"}}},{"op":"apply","manager":"gitops","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"1"}}},{"op":"apply","manager":"gitops","force":true,"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"1"}}},{"op":"apply","manager":"gitops","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"1"}}}]}`,
		steps: []string{
			`{"document":{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"cm"}},"managed_fields":[{"manager":"hpa","operation":"Update","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{"f:a":{}}}}],"changed":true}`,
			`{"error":{"class":"conflict","message":"Apply failed with 1 conflict: conflict with \"hpa\" using v1: .data.a","status":409,"reason":"Conflict","conflicts":[{"manager":"hpa","field":".data.a"}]}}`,
			`{"document":{"apiVersion":"v1","data":{"a":"1","b":"1"},"kind":"ConfigMap","metadata":{"name":"cm"}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"v1","time":3,"fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"v1","data":{"a":"1","b":"1"},"kind":"ConfigMap","metadata":{"name":"cm"}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"v1","time":3,"fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}],"changed":false}`,
		},
	},
	{
		name:  "two appliers own data.a together; when one stops applying it the value stays, when the other stops too it is removed",
		input: `{"id":"t","type":"server-side-apply","steps":[{"op":"apply","manager":"one","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"team":"x"}},"data":{"a":"1"}}},{"op":"apply","manager":"two","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}}},{"op":"apply","manager":"one","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"team":"x"}}}},{"op":"apply","manager":"two","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"b":"2"}}}]}`,
		steps: []string{
			`{"document":{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"team":"x"},"name":"cm"}},"managed_fields":[{"manager":"one","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:team":{}}}}}],"changed":true}`,
			`{"document":{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"labels":{"team":"x"},"name":"cm"}},"managed_fields":[{"manager":"one","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:team":{}}}}},{"manager":"two","operation":"Apply","apiVersion":"v1","time":2,"fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"labels":{"team":"x"},"name":"cm"}},"managed_fields":[{"manager":"one","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}},{"manager":"two","operation":"Apply","apiVersion":"v1","time":2,"fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"v1","data":{"b":"2"},"kind":"ConfigMap","metadata":{"labels":{"team":"x"},"name":"cm"}},"managed_fields":[{"manager":"one","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}},{"manager":"two","operation":"Apply","apiVersion":"v1","time":4,"fieldsV1":{"f:data":{"f:b":{}}}}],"changed":true}`,
		},
	},
	{
		name:  "an object without managedFields: an update is not tracked; an apply first records every field for before-first-apply (the server also records its defaults there) and conflicts with it",
		input: `{"id":"t","type":"server-side-apply","current":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"w","image":"nginx"}]}}}},"steps":[{"op":"update","manager":"hpa","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":4,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"w","image":"nginx"}]}}}}},{"op":"apply","manager":"gitops","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}},{"op":"apply","manager":"gitops","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"minReadySeconds":5}}}]}`,
		steps: []string{
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":4,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w"}]}}}},"managed_fields":[],"changed":true}`,
			`{"error":{"class":"conflict","message":"Apply failed with 1 conflict: conflict with \"before-first-apply\" using apps/v1: .spec.replicas","status":409,"reason":"Conflict","conflicts":[{"manager":"before-first-apply","field":".spec.replicas"}]}}`,
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"minReadySeconds":5,"replicas":4,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w"}]}}}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"apps/v1","time":3,"fieldsV1":{"f:spec":{"f:minReadySeconds":{}}}},{"manager":"before-first-apply","operation":"Update","apiVersion":"apps/v1","time":3,"fieldsV1":{"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"w\"}":{".":{},"f:image":{},"f:name":{}}}}}}}}],"changed":true}`,
		},
	},
	{
		name:  "apply creates a Deployment (status cleared to {}, ports keyed with the defaulted protocol TCP); a status apply owns only status (spec and labels are reset); a status apply changing only spec writes nothing; a main-resource patch keeps the stored status",
		input: `{"id":"t","type":"server-side-apply","steps":[{"op":"apply","manager":"gitops","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"w","image":"nginx","ports":[{"containerPort":80}]}]}}},"status":{"replicas":9}}},{"op":"apply","manager":"ctl","subresource":"status","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"l":"x"}},"spec":{"replicas":7},"status":{"replicas":3}}},{"op":"apply","manager":"ctl","subresource":"status","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":8},"status":{"replicas":3}}},{"op":"patch","manager":"scaler","patch_type":"merge-patch","patch":{"spec":{"replicas":2},"status":{"replicas":1}}}]}`,
		steps: []string{
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"w"}},"strategy":{},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w","ports":[{"containerPort":80}]}]}}},"status":{}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"apps/v1","time":1,"fieldsV1":{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"w\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}}],"changed":true}`,
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"w"}},"strategy":{},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w","ports":[{"containerPort":80}]}]}}},"status":{"replicas":3}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"apps/v1","time":1,"fieldsV1":{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"w\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}},{"manager":"ctl","operation":"Apply","apiVersion":"apps/v1","subresource":"status","time":2,"fieldsV1":{"f:status":{"f:replicas":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"w"}},"strategy":{},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w","ports":[{"containerPort":80}]}]}}},"status":{"replicas":3}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"apps/v1","time":1,"fieldsV1":{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"w\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}},{"manager":"ctl","operation":"Apply","apiVersion":"apps/v1","subresource":"status","time":2,"fieldsV1":{"f:status":{"f:replicas":{}}}}],"changed":false}`,
			`{"document":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"w"}},"strategy":{},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"w"}},"spec":{"containers":[{"image":"nginx","name":"w","ports":[{"containerPort":80}]}]}}},"status":{"replicas":3}},"managed_fields":[{"manager":"gitops","operation":"Apply","apiVersion":"apps/v1","time":1,"fieldsV1":{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"w\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}},{"manager":"ctl","operation":"Apply","apiVersion":"apps/v1","subresource":"status","time":2,"fieldsV1":{"f:status":{"f:replicas":{}}}},{"manager":"scaler","operation":"Update","apiVersion":"apps/v1","time":4,"fieldsV1":{"f:spec":{"f:replicas":{}}}}],"changed":true}`,
		},
	},
	{
		name:  "the server's errors: no fieldManager (422), managedFields in the body (400), an undeclared field (500), a stale resourceVersion (409), a missing subresource (404), a JSON patch that does not apply (bare 422)",
		input: `{"id":"t","type":"server-side-apply","current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}},"steps":[{"op":"apply","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}},{"op":"apply","manager":"m","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[]}}},{"op":"apply","manager":"m","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"bogus":1}},{"op":"update","manager":"m","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","resourceVersion":"1"},"data":{"a":"2"}}},{"op":"apply","manager":"m","subresource":"status","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}},{"op":"patch","manager":"m","patch_type":"json-patch","patch":[{"op":"remove","path":"/data/zz"}]}]}`,
		steps: []string{
			`{"error":{"class":"invalid","message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch","status":422,"reason":"Invalid"}}`,
			`{"error":{"class":"invalid-patch","message":"metadata.managedFields must be nil","status":400,"reason":"BadRequest"}}`,
			`{"error":{"class":"invalid-patch","message":"failed to create typed patch object (/cm; /v1, Kind=ConfigMap): .bogus: field not declared in schema","status":500}}`,
			`{"error":{"class":"conflict","message":"Operation cannot be fulfilled on configmaps \"cm\": the object has been modified; please apply your changes to the latest version and try again","status":409,"reason":"Conflict"}}`,
			`{"error":{"class":"unclassified","message":"the server could not find the requested resource","status":404,"reason":"NotFound"}}`,
			`{"error":{"class":"path-not-found","message":"the server rejected our request due to an error in our request","status":422,"reason":"Invalid"}}`,
		},
	},
	{
		name:  "an applier and twelve Update managers: beyond ten Update entries the oldest fold into ancient-changes, which takes the newest folded time",
		input: `{"id":"t","type":"server-side-apply","steps":[{"op":"apply","manager":"applier","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"base":"1"}}},{"op":"patch","manager":"u00","patch_type":"merge-patch","patch":{"data":{"k0":"0"}}},{"op":"patch","manager":"u01","patch_type":"merge-patch","patch":{"data":{"k1":"1"}}},{"op":"patch","manager":"u02","patch_type":"merge-patch","patch":{"data":{"k2":"2"}}},{"op":"patch","manager":"u03","patch_type":"merge-patch","patch":{"data":{"k3":"3"}}},{"op":"patch","manager":"u04","patch_type":"merge-patch","patch":{"data":{"k4":"4"}}},{"op":"patch","manager":"u05","patch_type":"merge-patch","patch":{"data":{"k5":"5"}}},{"op":"patch","manager":"u06","patch_type":"merge-patch","patch":{"data":{"k6":"6"}}},{"op":"patch","manager":"u07","patch_type":"merge-patch","patch":{"data":{"k7":"7"}}},{"op":"patch","manager":"u08","patch_type":"merge-patch","patch":{"data":{"k8":"8"}}},{"op":"patch","manager":"u09","patch_type":"merge-patch","patch":{"data":{"k9":"9"}}},{"op":"patch","manager":"u10","patch_type":"merge-patch","patch":{"data":{"k10":"10"}}},{"op":"patch","manager":"u11","patch_type":"merge-patch","patch":{"data":{"k11":"11"}}}]}`,
		from:  11,
		steps: []string{
			`{"document":{"apiVersion":"v1","data":{"base":"1","k0":"0","k1":"1","k10":"10","k2":"2","k3":"3","k4":"4","k5":"5","k6":"6","k7":"7","k8":"8","k9":"9"},"kind":"ConfigMap","metadata":{"name":"cm"}},"managed_fields":[{"manager":"applier","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{"f:base":{}}}},{"manager":"ancient-changes","operation":"Update","apiVersion":"v1","time":3,"fieldsV1":{"f:data":{"f:k0":{},"f:k1":{}}}},{"manager":"u02","operation":"Update","apiVersion":"v1","time":4,"fieldsV1":{"f:data":{"f:k2":{}}}},{"manager":"u03","operation":"Update","apiVersion":"v1","time":5,"fieldsV1":{"f:data":{"f:k3":{}}}},{"manager":"u04","operation":"Update","apiVersion":"v1","time":6,"fieldsV1":{"f:data":{"f:k4":{}}}},{"manager":"u05","operation":"Update","apiVersion":"v1","time":7,"fieldsV1":{"f:data":{"f:k5":{}}}},{"manager":"u06","operation":"Update","apiVersion":"v1","time":8,"fieldsV1":{"f:data":{"f:k6":{}}}},{"manager":"u07","operation":"Update","apiVersion":"v1","time":9,"fieldsV1":{"f:data":{"f:k7":{}}}},{"manager":"u08","operation":"Update","apiVersion":"v1","time":10,"fieldsV1":{"f:data":{"f:k8":{}}}},{"manager":"u09","operation":"Update","apiVersion":"v1","time":11,"fieldsV1":{"f:data":{"f:k9":{}}}},{"manager":"u10","operation":"Update","apiVersion":"v1","time":12,"fieldsV1":{"f:data":{"f:k10":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"v1","data":{"base":"1","k0":"0","k1":"1","k10":"10","k11":"11","k2":"2","k3":"3","k4":"4","k5":"5","k6":"6","k7":"7","k8":"8","k9":"9"},"kind":"ConfigMap","metadata":{"name":"cm"}},"managed_fields":[{"manager":"applier","operation":"Apply","apiVersion":"v1","time":1,"fieldsV1":{"f:data":{"f:base":{}}}},{"manager":"ancient-changes","operation":"Update","apiVersion":"v1","time":4,"fieldsV1":{"f:data":{"f:k0":{},"f:k1":{},"f:k2":{}}}},{"manager":"u03","operation":"Update","apiVersion":"v1","time":5,"fieldsV1":{"f:data":{"f:k3":{}}}},{"manager":"u04","operation":"Update","apiVersion":"v1","time":6,"fieldsV1":{"f:data":{"f:k4":{}}}},{"manager":"u05","operation":"Update","apiVersion":"v1","time":7,"fieldsV1":{"f:data":{"f:k5":{}}}},{"manager":"u06","operation":"Update","apiVersion":"v1","time":8,"fieldsV1":{"f:data":{"f:k6":{}}}},{"manager":"u07","operation":"Update","apiVersion":"v1","time":9,"fieldsV1":{"f:data":{"f:k7":{}}}},{"manager":"u08","operation":"Update","apiVersion":"v1","time":10,"fieldsV1":{"f:data":{"f:k8":{}}}},{"manager":"u09","operation":"Update","apiVersion":"v1","time":11,"fieldsV1":{"f:data":{"f:k9":{}}}},{"manager":"u10","operation":"Update","apiVersion":"v1","time":12,"fieldsV1":{"f:data":{"f:k10":{}}}},{"manager":"u11","operation":"Update","apiVersion":"v1","time":13,"fieldsV1":{"f:data":{"f:k11":{}}}}],"changed":true}`,
		},
	},
	{
		name:  "a named schema served as a CRD with status: metadata is ObjectMeta (finalizers a set), a list without list-type is atomic, a status apply's labels are owned but not kept, a PUT without resourceVersion and a strategic merge patch are refused",
		input: `{"id":"t","type":"server-side-apply","schema":{"named":"widget-ssa","root":"Widget","definitions":{"Widget":{"type":"object","properties":{"metadata":{"$ref":"#/definitions/Meta"},"spec":{"$ref":"#/definitions/Spec"},"status":{"$ref":"#/definitions/Status"}}},"Meta":{"type":"object","properties":{"name":{"type":"string"}}},"Spec":{"type":"object","properties":{"replicas":{"type":"integer"},"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"},"v":{"type":"integer"}}}},"args":{"type":"array","items":{"type":"string"}}}},"Status":{"type":"object","properties":{"phase":{"type":"string"}}}}},"steps":[{"op":"apply","manager":"a","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","finalizers":["example.com/a"]},"spec":{"replicas":1,"items":[{"name":"i1","v":1}],"args":["x"]},"status":{"phase":"dropped"}}},{"op":"apply","manager":"b","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","finalizers":["example.com/b"]},"spec":{"items":[{"name":"i2","v":2}],"args":["y"]}}},{"op":"apply","manager":"ctl","subresource":"status","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"from":"status"}},"spec":{"replicas":5},"status":{"phase":"Ready"}}},{"op":"patch","manager":"p","patch_type":"merge-patch","patch":{"spec":{"replicas":3},"status":{"phase":"ignored"}}},{"op":"update","manager":"u","object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}},{"op":"patch","manager":"s","patch_type":"strategic","patch":{"spec":{"replicas":4}}}]}`,
		steps: []string{
			`{"document":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"finalizers":["example.com/a"],"name":"w"},"spec":{"args":["x"],"items":[{"name":"i1","v":1}],"replicas":1}},"managed_fields":[{"manager":"a","operation":"Apply","apiVersion":"example.com/v1","time":1,"fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"example.com/a\"":{}}},"f:spec":{"f:args":{},"f:items":{"k:{\"name\":\"i1\"}":{".":{},"f:name":{},"f:v":{}}},"f:replicas":{}}}}],"changed":true}`,
			`{"error":{"class":"conflict","message":"Apply failed with 1 conflict: conflict with \"a\": .spec.args","status":409,"reason":"Conflict","conflicts":[{"manager":"a","field":".spec.args"}]}}`,
			`{"document":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"finalizers":["example.com/a"],"name":"w"},"spec":{"args":["x"],"items":[{"name":"i1","v":1}],"replicas":1},"status":{"phase":"Ready"}},"managed_fields":[{"manager":"a","operation":"Apply","apiVersion":"example.com/v1","time":1,"fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"example.com/a\"":{}}},"f:spec":{"f:args":{},"f:items":{"k:{\"name\":\"i1\"}":{".":{},"f:name":{},"f:v":{}}},"f:replicas":{}}}},{"manager":"ctl","operation":"Apply","apiVersion":"example.com/v1","subresource":"status","time":3,"fieldsV1":{"f:metadata":{"f:labels":{"f:from":{}}},"f:status":{"f:phase":{}}}}],"changed":true}`,
			`{"document":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"finalizers":["example.com/a"],"name":"w"},"spec":{"args":["x"],"items":[{"name":"i1","v":1}],"replicas":3},"status":{"phase":"Ready"}},"managed_fields":[{"manager":"a","operation":"Apply","apiVersion":"example.com/v1","time":1,"fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"example.com/a\"":{}}},"f:spec":{"f:args":{},"f:items":{"k:{\"name\":\"i1\"}":{".":{},"f:name":{},"f:v":{}}}}}},{"manager":"ctl","operation":"Apply","apiVersion":"example.com/v1","subresource":"status","time":3,"fieldsV1":{"f:metadata":{"f:labels":{"f:from":{}}},"f:status":{"f:phase":{}}}},{"manager":"p","operation":"Update","apiVersion":"example.com/v1","time":4,"fieldsV1":{"f:spec":{"f:replicas":{}}}}],"changed":true}`,
			`{"error":{"class":"invalid","message":"widgets.example.com \"w\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update","status":422,"reason":"Invalid"}}`,
			`{"error":{"class":"no-strategic-schema","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","status":415,"reason":"UnsupportedMediaType"}}`,
		},
	},
}

func TestServerSideApplyScenarios(t *testing.T) {
	for _, scenario := range ssaScenarios {
		t.Run(scenario.name, func(t *testing.T) {
			steps := runSSACase(t, scenario.input)
			if len(steps) < scenario.from+len(scenario.steps) {
				t.Fatalf("%d step answers, want %d", len(steps), scenario.from+len(scenario.steps))
			}
			for i, want := range scenario.steps {
				if got := string(steps[scenario.from+i]); got != want {
					t.Errorf("step %d\n got: %s\nwant: %s", scenario.from+i+1, got, want)
				}
			}
		})
	}
}

// runSSACase sends one server-side-apply case through the request handler and returns its
// step answers.
func runSSACase(t *testing.T, caseJSON string) []json.RawMessage {
	t.Helper()
	answer, _ := handleLine([]byte(`{"cmd":"run","seq":1,"case":` + caseJSON + "}\n"))
	var response struct {
		Result *struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &response); err != nil || response.Result == nil {
		t.Fatalf("no step results: %s", strings.TrimSpace(string(answer)))
	}
	return response.Result.Steps
}
