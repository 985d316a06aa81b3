package main

// Helm 3's calls: Client.Build for both manifests (validation off, as `helm upgrade
// --disable-openapi-validation`: the endpoint publishes no OpenAPI), then
// Client.Update(original, target, force=false), the call `helm upgrade` makes
// (pkg/action/upgrade.go) — its createPatch is Helm's answer.

import (
	"bytes"
	"encoding/json"

	"helm.sh/helm/v3/pkg/kube"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

const (
	libraryModule = "helm.sh/helm/v3"
	homepage      = "https://pkg.go.dev/helm.sh/helm/v3/pkg/kube"
	callName      = "kube.Client.Update(original, target, force=false)"
)

// updateObjects is helmupgrade.Update with Helm 3's client.
func updateObjects(getter genericclioptions.RESTClientGetter, original, modified json.RawMessage, originalGiven bool) error {
	client := kube.New(getter)
	target, err := client.Build(bytes.NewReader(modified), false)
	if err != nil {
		return err
	}
	var previous kube.ResourceList
	if originalGiven {
		if previous, err = client.Build(bytes.NewReader(original), false); err != nil {
			return err
		}
	}
	_, err = client.Update(previous, target, false)
	return err
}
