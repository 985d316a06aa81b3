package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

const widgetSchema = `{"named":"widget","root":"Widget","definitions":{` +
	`"Widget":{"type":"object","properties":{"spec":{"$ref":"#/definitions/WidgetSpec"}}},` +
	`"WidgetSpec":{"type":"object","properties":{` +
	`"items":{"type":"array","items":{"$ref":"#/definitions/Item"},` +
	`"x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id"},` +
	`"tags":{"type":"array","items":{"type":"string"}}}},` +
	`"Item":{"type":"object","properties":{"id":{"type":"string"},"v":{"type":"integer"}}}}}`

// Each request line and the exact line the program must answer (k8s.io/apimachinery v0.32.4).
type exchange struct {
	name, request, answer string
}

var exchanges = []exchange{
	{
		name: "strategic: a container added to a Deployment merges by name",
		request: `{"cmd":"run","seq":1,"case":{"id":"t::add-container","type":"strategic",` +
			`"original":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},` +
			`"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"}]}}}},` +
			`"patch":{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:1"}]}}}},` +
			`"schema":{"apiVersion":"apps/v1","kind":"Deployment","version":"1.32"}}}`,
		answer: `{"seq":1,"result":{"document":{"apiVersion":"apps/v1","kind":"Deployment",` +
			`"metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":` +
			`[{"image":"b:1","name":"b"},{"image":"a:1","name":"a"}]}}}}}}`,
	},
	{
		name: "json-patch: an index past the end is json-patch's ErrInvalidIndex",
		request: `{"cmd":"run","seq":2,"case":{"id":"t::index","type":"json-patch",` +
			`"original":{"foo":["bar"]},"patch":[{"op":"add","path":"/foo/2","value":"x"}]}}`,
		answer: `{"seq":2,"error":{"class":"invalid-index","message":` +
			`"error in add for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced"}}`,
	},
	{
		name: "json-patch: a failed test is ErrTestFailed",
		request: `{"cmd":"run","seq":3,"case":{"id":"t::test","type":"json-patch",` +
			`"original":{"a":1},"patch":[{"op":"test","path":"/a","value":2}]}}`,
		answer: `{"seq":3,"error":{"class":"test-failed","message":"testing value /a failed: test failed"}}`,
	},
	{
		name: "json-patch: numbers travel as their text (no float64 on the way)",
		request: `{"cmd":"run","seq":4,"case":{"id":"t::big","type":"json-patch",` +
			`"original":{"n":12345678901234567890123},"patch":[{"op":"copy","from":"/n","path":"/m"}]}}`,
		answer: `{"seq":4,"result":{"document":{"m":12345678901234567890123,"n":12345678901234567890123}}}`,
	},
	{
		name: "merge-patch: null deletes, the rest merges",
		request: `{"cmd":"run","seq":5,"case":{"id":"t::merge","type":"merge-patch",` +
			`"original":{"a":{"b":1,"c":2}},"patch":{"a":{"b":null,"d":[1]}}}}`,
		answer: `{"seq":5,"result":{"document":{"a":{"c":2,"d":[1]}}}}`,
	},
	{
		name: "strategic: named schema merges a list by its declared merge key",
		request: `{"cmd":"run","seq":6,"case":{"id":"t::named","type":"strategic",` +
			`"original":{"spec":{"items":[{"id":"a","v":1},{"id":"b","v":2}],"tags":["x"]}},` +
			`"patch":{"spec":{"items":[{"id":"b","v":3},{"id":"c","v":4}],"tags":["y"]}},` +
			`"schema":` + widgetSchema + `}}`,
		answer: `{"seq":6,"result":{"document":{"spec":{"items":` +
			`[{"id":"a","v":1},{"id":"b","v":3},{"id":"c","v":4}],"tags":["y"]}}}}`,
	},
	{
		name: "strategic: named schema, element without the merge key",
		request: `{"cmd":"run","seq":7,"case":{"id":"t::named-key","type":"strategic",` +
			`"original":{"spec":{"items":[{"id":"a","v":1}]}},"patch":{"spec":{"items":[{"v":3}]}},` +
			`"schema":` + widgetSchema + `}}`,
		answer: `{"seq":7,"error":{"class":"merge-key-missing","message":` +
			`"map: map[v:3] does not contain declared merge key: id"}}`,
	},
	{
		name: "strategic: a kind kubectl's scheme does not know",
		request: `{"cmd":"run","seq":8,"case":{"id":"t::crd","type":"strategic",` +
			`"original":{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"f"}},"patch":{"a":1}}}`,
		answer: `{"seq":8,"error":{"class":"no-strategic-schema","message":` +
			`"strategic merge patch is not supported for example.com/v1, Kind=Foo locally, try --type merge"}}`,
	},
	{
		name: "strategic-2way: patch with $setElementOrder and $patch: delete, and the patched document",
		request: `{"cmd":"run","seq":9,"case":{"id":"t::2way","type":"strategic-2way",` +
			`"original":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},` +
			`"spec":{"containers":[{"name":"a","image":"a"},{"name":"b","image":"b"}]}},` +
			`"modified":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},` +
			`"spec":{"containers":[{"name":"b","image":"b2"}]}}}}`,
		answer: `{"seq":9,"result":{"patch":{"spec":{"$setElementOrder/containers":[{"name":"b"}],` +
			`"containers":[{"image":"b2","name":"b"},{"$patch":"delete","name":"a"}]}},` +
			`"document":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},` +
			`"spec":{"containers":[{"image":"b2","name":"b"}]}}}}`,
	},
	{
		name: "strategic-2way: renaming the object fails kubectl's precondition",
		request: `{"cmd":"run","seq":10,"case":{"id":"t::rename","type":"strategic-2way",` +
			`"original":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}},` +
			`"modified":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}}}`,
		answer: `{"seq":10,"error":{"class":"precondition-failed","message":"precondition failed for: map[metadata:map[name:b]]"}}`,
	},
	{
		name: "merge-patch-3way: deletions from last-applied, changes against live",
		request: `{"cmd":"run","seq":11,"case":{"id":"t::3way","type":"merge-patch-3way",` +
			`"original":{"a":1,"b":2},"modified":{"a":1,"c":3},"current":{"a":5,"b":2,"x":9}}}`,
		answer: `{"seq":11,"result":{"patch":{"a":1,"b":null,"c":3}}}`,
	},
	{
		name: "merge-patch-3way: a changed kind fails the precondition kubectl apply passes",
		request: `{"cmd":"run","seq":12,"case":{"id":"t::3way-kind","type":"merge-patch-3way",` +
			`"original":{"kind":"A"},"modified":{"kind":"B"},"current":{"kind":"A"}}}`,
		answer: `{"seq":12,"error":{"class":"precondition-failed","message":"precondition failed for: map[kind:B]"}}`,
	},
	{
		// The library's bytes pass through verbatim: encoding/json's \u003c escapes included.
		name: "merge-patch-2way: created patch and the original with it applied",
		request: `{"cmd":"run","seq":13,"case":{"id":"t::create","type":"merge-patch-2way",` +
			`"original":{"a":1,"b":{"c":[1,2]}},"modified":{"b":{"c":[1]},"e":"<&>"}}}`,
		answer: `{"seq":13,"result":{"patch":{"a":null,"b":{"c":[1]},"e":"\u003c\u0026\u003e"},` +
			`"document":{"b":{"c":[1]},"e":"\u003c\u0026\u003e"}}}`,
	},
	{
		name: "apply: config wins, a field dropped from the config is deleted, a sidecar survives",
		request: `{"cmd":"run","seq":14,"case":{"id":"t::apply","type":"apply",` +
			`"original":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},` +
			`"modified":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"3"}},` +
			`"current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2","x":"9"}}}}`,
		answer: `{"seq":14,"result":{"patch":{"data":{"a":"3","b":null},"metadata":{"annotations":` +
			`{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"3\"},` +
			`\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n"}}},` +
			`"document":{"apiVersion":"v1","data":{"a":"3","x":"9"},"kind":"ConfigMap","metadata":{"annotations":` +
			`{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"3\"},` +
			`\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n"},"name":"c"}}}}`,
	},
	{
		name: "strategic-3way: list merged by key, a removed element deleted, a live-only element kept",
		request: `{"cmd":"run","seq":16,"case":{"id":"t::3way","type":"strategic-3way",` +
			`"original":{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}},` +
			`"modified":{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"a:2"}]}},` +
			`"current":{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"},{"name":"s","image":"s:1"}]}}}}`,
		answer: `{"seq":16,"result":{"patch":{"spec":{"$setElementOrder/containers":[{"name":"a"}],` +
			`"containers":[{"image":"a:2","name":"a"},{"$patch":"delete","name":"b"}]}},` +
			`"document":{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"image":"a:2","name":"a"},{"image":"s:1","name":"s"}]}}}}`,
	},
	{
		name: "strategic-3way: overwrite=false, a field changed in the config and differently live is a conflict",
		request: `{"cmd":"run","seq":17,"case":{"id":"t::3way-conflict","type":"strategic-3way","options":{"overwrite":false},` +
			`"original":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2}},` +
			`"modified":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3}},` +
			`"current":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":5}}}}`,
		answer: `{"seq":17,"error":{"class":"conflict","message":"patch:\nspec:\n  replicas: 3\n\n` +
			`conflicts with changes made from original to current:\nspec:\n  replicas: 5\n\n"}}`,
	},
	{
		name: "strategic-3way: overwrite=false, a live change to a field the config does not own is no conflict",
		request: `{"cmd":"run","seq":18,"case":{"id":"t::3way-no-conflict","type":"strategic-3way","options":{"overwrite":false},` +
			`"original":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2}},` +
			`"modified":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3}},` +
			`"current":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2,"paused":true}}}}`,
		answer: `{"seq":18,"result":{"patch":{"spec":{"replicas":3}},` +
			`"document":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"paused":true,"replicas":3}}}}`,
	},
	{
		name: "apply: overwrite=false conflicts on the last-applied annotation itself when the config changed",
		request: `{"cmd":"run","seq":19,"case":{"id":"t::apply-conflict","type":"apply","options":{"overwrite":false},` +
			`"original":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}},` +
			`"modified":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},` +
			`"current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}}}`,
		answer: `{"seq":19,"error":{"class":"conflict","message":"patch:\ndata:\n  b: \"2\"\nmetadata:\n  annotations:\n` +
			`    kubectl.kubernetes.io/last-applied-configuration: |\n` +
			`      {\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n\n` +
			`conflicts with changes made from original to current:\nmetadata:\n  annotations:\n` +
			`    kubectl.kubernetes.io/last-applied-configuration: |\n` +
			`      {\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n\n"}}`,
	},
	{
		name: "apply: overwrite=false with an unchanged config and others' additions sends nothing",
		request: `{"cmd":"run","seq":20,"case":{"id":"t::apply-unchanged","type":"apply","options":{"overwrite":false},` +
			`"original":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}},` +
			`"modified":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}},` +
			`"current":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","x":"9"}}}}`,
		answer: `{"seq":20,"result":{"patch":{},"document":{"apiVersion":"v1","data":{"a":"1","x":"9"},"kind":"ConfigMap",` +
			`"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
			`"{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n"},"name":"c"}}}}`,
	},
	{
		name: "apply: overwrite=false does not apply to kinds without a strategic schema (three-way JSON merge patch)",
		request: `{"cmd":"run","seq":21,"case":{"id":"t::apply-crd","type":"apply","options":{"overwrite":false},` +
			`"original":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}},` +
			`"modified":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2}},` +
			`"current":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":5}}}}`,
		answer: `{"seq":21,"result":{"patch":{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
			`"{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"annotations\":{},\"name\":\"w\"},\"spec\":{\"size\":2}}\n"}},` +
			`"spec":{"size":2}},"document":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":` +
			`{"kubectl.kubernetes.io/last-applied-configuration":` +
			`"{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"annotations\":{},\"name\":\"w\"},\"spec\":{\"size\":2}}\n"},` +
			`"name":"w"},"spec":{"size":2}}}}`,
	},
	{
		name: "options of the wrong type are a protocol error",
		request: `{"cmd":"run","seq":22,"case":{"id":"t::bad-options","type":"strategic-3way","options":{"overwrite":"no"},` +
			`"original":{},"modified":{},"current":{}}}`,
		answer: `{"seq":22,"error":{"class":"unclassified","message":"patchconf-upstream: case member \"options\": ` +
			`json: cannot unmarshal string into Go struct field .overwrite of type bool"}}`,
	},
	{
		// kubectl >= 1.31 (the pinned 1.32): nulls stay in the annotation, not in the created object.
		name: "apply: create drops explicit nulls from the object but not from the annotation",
		request: `{"cmd":"run","seq":23,"case":{"id":"t::create-null","type":"apply","original":null,"current":null,` +
			`"modified":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"},"binaryData":null}}}`,
		answer: `{"seq":23,"result":{"document":{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":` +
			`{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"binaryData\":null,\"data\":{\"a\":\"1\"},` +
			`\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"c\"}}\n"},"name":"c"}}}}`,
	},
	{
		name: "strategic: an unknown $patch is an invalid directive, though its map holds $retainKeys",
		request: `{"cmd":"run","seq":24,"case":{"id":"t::bogus-patch","type":"strategic",` +
			`"original":{"apiVersion":"v1","kind":"ConfigMap"},"patch":{"$patch":"bogus","$retainKeys":[]}}}`,
		answer: `{"seq":24,"error":{"class":"invalid-directive","message":` +
			`"unknown patch type: bogus in map: map[$patch:bogus $retainKeys:[]]"}}`,
	},
	{
		name: "a case type upstream has no function for is skipped",
		request: `{"cmd":"run","seq":15,"case":{"id":"t::put","type":"update",` +
			`"original":{},"modified":{}}}`,
		answer: `{"seq":15,"skipped":"patch type \"update\" is not served by the upstream target"}`,
	},
}

func TestExchanges(t *testing.T) {
	logOutput = &bytes.Buffer{}
	for _, ex := range exchanges {
		t.Run(ex.name, func(t *testing.T) {
			answer, stop := handleLine([]byte(ex.request + "\n"))
			if stop {
				t.Fatalf("run request stopped the program")
			}
			if got := string(answer); got != ex.answer+"\n" {
				t.Errorf("request %s\n got: %s\nwant: %s", ex.request, got, ex.answer)
			}
		})
	}
}

// wantPatchTypes: what every build answers; full_test.go adds what a full build adds.
var wantPatchTypes = []string{"json-patch", "merge-patch", "merge-patch-2way", "merge-patch-3way",
	"strategic", "strategic-2way", "strategic-3way", "apply"}

func TestHandshake(t *testing.T) {
	answer, stop := handleLine([]byte(`{"cmd":"start","protocol":1}`))
	if stop {
		t.Fatal("start stopped the program")
	}
	version := kubernetesVersion()
	if !regexp.MustCompile(`^1\.[0-9]+\.[0-9]+`).MatchString(version) {
		t.Errorf("version %q is not a Kubernetes release (from k8s.io/apimachinery's module version)", version)
	}
	types, _ := json.Marshal(wantPatchTypes)
	want := `{"ready":true,"protocol":1,"implementation":{"name":"upstream","version":"` + version +
		`","language":"go"},"capabilities":{"patch_types":` + string(types) + `,"schemas":["builtin","named","none"],` +
		`"profile":"kubernetes","messages":true}}` + "\n"
	if string(answer) != want {
		t.Errorf("handshake\n got: %s\nwant: %s", answer, want)
	}
}

func TestKubernetesVersionFromModule(t *testing.T) {
	if v := moduleVersion("k8s.io/apimachinery"); v != "" && kubernetesVersion() != "1."+strings.TrimPrefix(v, "v0.") {
		t.Errorf("apimachinery %s reported as Kubernetes %s", v, kubernetesVersion())
	}
}

func TestServeStopsAndAnswersEachLine(t *testing.T) {
	in := strings.Join([]string{
		`{"cmd":"start","protocol":1}`,
		`{"cmd":"run","seq":1,"case":{"id":"x","type":"merge-patch","original":{"a":1},"patch":{"a":null}}}`,
		`{"cmd":"run","seq":2,"case":{"id":"y","type":"merge-patch","original":{"a":1},"patch":null}}`,
		`{"cmd":"stop"}`,
		`{"cmd":"run","seq":3,"case":{"id":"z","type":"merge-patch","original":{},"patch":{}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 answer lines (nothing after stop), got %d: %q", len(lines), out.String())
	}
	if lines[1] != `{"seq":1,"result":{"document":{}}}` {
		t.Errorf("merge patch answer: %s", lines[1])
	}
	if lines[2] != `{"seq":2,"error":{"class":"invalid-patch","message":"Invalid JSON Patch"}}` {
		t.Errorf("null merge patch answer: %s", lines[2])
	}
	for _, line := range lines {
		if !json.Valid([]byte(line)) {
			t.Errorf("answer is not JSON: %s", line)
		}
	}
}
