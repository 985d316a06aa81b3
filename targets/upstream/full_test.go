//go:build !patchconf_patch

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func init() {
	wantPatchTypes = append(wantPatchTypes, "server-side-apply")
	exchanges = append(exchanges, exchange{
		name: "a server-side-apply case without steps is skipped",
		request: `{"cmd":"run","seq":16,"case":{"id":"t::ssa","type":"server-side-apply",` +
			`"original":{},"modified":{}}}`,
		answer: `{"seq":16,"skipped":"a server-side-apply case needs \"steps\""}`,
	})
}

// `upstream decode`: the object as the apiserver stores a create or update body, with the
// server's defaults (k8s.io/kubernetes v1.32.4; the same as kube-apiserver 1.33.13 answers).
func TestDecodeDefaultsAsTheServerStores(t *testing.T) {
	deployment := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{}},` +
		`"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},` +
		`"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}},"status":{"replicas":3}}`
	defaulted := `"spec":{"progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,` +
		`"selector":{"matchLabels":{"app":"x"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},` +
		`"type":"RollingUpdate"},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"x"}},` +
		`"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c",` +
		`"ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},` +
		`"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],` +
		`"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",` +
		`"securityContext":{},"terminationGracePeriodSeconds":30}}}`
	head := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"creationTimestamp":null,"name":"d"},`
	for _, tc := range []struct {
		name, object, operation, answer string
		code                            int
	}{
		{"a create defaults and resets the status", deployment, "create", head + defaulted + `,"status":{}}`, 0},
		{"an update defaults and keeps the status", deployment, "update", head + defaulted + `,"status":{"replicas":3}}`, 0},
		{"an unknown field is dropped (field validation Warn)",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"},"bogus":1}`, "create",
			`{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"creationTimestamp":null,"name":"x"}}`, 0},
		{"a create runs the kind's strategy: a Pod is Pending with its QoS class",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}`, "create",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":null,"name":"p"},"spec":{"containers":[{"image":"nginx:1.25",` +
				`"imagePullPolicy":"IfNotPresent","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log",` +
				`"terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"restartPolicy":"Always",` +
				`"schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30},` +
				`"status":{"phase":"Pending","qosClass":"BestEffort"}}`, 0},
		{"a create the kind's validation refuses is a 422",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"x"}},` +
				`"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, "create",
			"{\"error\":{\"class\":\"invalid\",\"message\":\"Deployment.apps \\\"d\\\" is invalid: spec.template.metadata.labels: " +
				"Invalid value: map[string]string(nil): `selector` does not match template `labels`\",\"status\":422,\"reason\":\"Invalid\"}}", 1},
		{"a value of the wrong type is a 400",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":1}}`, "create",
			`{"error":{"class":"invalid-patch","message":"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: ` +
				`json: cannot unmarshal number into Go struct field ConfigMap.data of type string","status":400,"reason":"BadRequest"}}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := t.TempDir() + "/object.json"
			if err := os.WriteFile(path, []byte(tc.object), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := runDecode([]string{"--object", path, "--operation", tc.operation}, &stdout, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tc.code, stderr.String())
			}
			if got := strings.TrimSpace(stdout.String()); got != tc.answer {
				t.Errorf("got  %s\nwant %s", got, tc.answer)
			}
		})
	}
}

func TestDecodeRejectsMissingArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runDecode([]string{"--operation", "create"}, &stdout, &stderr); code != 2 {
		t.Errorf("no --object: exit %d, want 2", code)
	}
	if code := runDecode([]string{"--object", "x.json", "--operation", "delete"}, &stdout, &stderr); code != 2 {
		t.Errorf("--operation delete: exit %d, want 2", code)
	}
}
