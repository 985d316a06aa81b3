// Command flux-ssa is a patchconf peer target (harness/PROTOCOL.md): it answers
// server-side-apply cases with Flux's resource manager, github.com/fluxcd/pkg/ssa, the code
// kustomize-controller and helm-controller apply manifests with. Each `apply` step on an
// object is ssa.ResourceManager.Apply with the step's manager as Flux's field owner (Flux's
// drift detection first: a forced server-side dry-run apply compared with the live object; the
// apply itself only when they differ, always with force). The other steps are what the
// cluster's other clients send (an update, a patch, a write to /status), sent as plain
// requests with controller-runtime's client. Everything runs against a real kube-apiserver
// (patchconf's control plane), each case in a namespace of its own, removed after it
// (targets/peerkit/clusterkit, shared with helm-v4).
// It is a peer for the compliance matrix, not a judge: where Flux's apply departs from a
// client's server-side apply, that is its answer.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/clusterkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

const libraryModule = "github.com/fluxcd/pkg/ssa"

// flux is what Flux brings to clusterkit: its apply, and documents without status unless the
// case is about it, as on the live target.
var flux = clusterkit.Tool{Name: "Flux", NamespacePrefix: "pcg-flux-", Apply: apply, StatusOnlyWhenStated: true}

// apply is Flux's: ResourceManager.Apply with the step's manager as its field owner and its
// default options (no force-recreate, no selectors, no cleanup, no drift ignore rules). Flux
// applies with force whatever the step says.
func apply(o *clusterkit.Object, s ssafake.Step, u *unstructured.Unstructured) error {
	manager := ssa.NewResourceManager(o.Client, nil, ssa.Owner{Field: s.FieldManager(), Group: "patchconf.dev"})
	_, err := manager.Apply(o.Ctx, u, ssa.DefaultApplyOptions())
	return err
}

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	clientGo := peerkit.ModuleVersion("k8s.io/client-go")
	kubeconfig, stop, err := clusterkit.ControlPlane("flux-ssa")
	if err != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: flux-ssa: %v\n", err)
		os.Exit(1)
	}
	cluster, err := clusterkit.Connect(kubeconfig, flux)
	if err != nil {
		stop()
		fmt.Fprintf(os.Stderr, "patchconf peer: flux-ssa: %v\n", err)
		os.Exit(1)
	}
	peer := peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "flux-ssa", Version: version, Language: "go",
			Homepage: "https://pkg.go.dev/github.com/fluxcd/pkg/ssa", Category: "tool",
			Kubernetes: peerkit.KubernetesRelease("k8s.io/client-go")},
		// Built-in kinds the server serves; "none": a case that starts with no object names
		// its kind only in its steps. Custom kinds would need a CRD of the case; they skip.
		Capabilities: ssafake.Capabilities("builtin", "none"),
		Answer: func(raw json.RawMessage) peerkit.Answer {
			return ssafake.Answer("flux-ssa", raw, cluster.Run)
		},
	}
	fmt.Fprintf(os.Stderr, "patchconf peer: %s %s (ResourceManager.Apply; client-go %s; %s)\n",
		libraryModule, version, clientGo, kubeconfig)
	serveErr := peer.Serve(os.Stdin, os.Stdout)
	stop()
	if serveErr != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: %v\n", serveErr)
		os.Exit(1)
	}
}
