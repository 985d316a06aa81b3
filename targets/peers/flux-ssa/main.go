// Command flux-ssa is a patchconf peer target (harness/PROTOCOL.md): it answers
// server-side-apply cases with Flux's resource manager, github.com/fluxcd/pkg/ssa, the code
// kustomize-controller and helm-controller apply manifests with. Each `apply` step on an
// object is ssa.ResourceManager.Apply with the step's manager as Flux's field owner (Flux's
// drift detection first: a forced server-side dry-run apply compared with the live object; the
// apply itself only when they differ, always with force). The other steps are what the
// cluster's other clients send (an update, a patch, a write to /status), sent as plain
// requests with controller-runtime's client. Everything runs against a real kube-apiserver
// (patchconf's control plane), each case in a namespace of its own, deleted after it.
// It is a peer for the compliance matrix, not a judge: where Flux's apply departs from a
// client's server-side apply, that is its answer.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"encoding/json"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

const libraryModule = "github.com/fluxcd/pkg/ssa"

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	clientGo := peerkit.ModuleVersion("k8s.io/client-go")
	kubeconfig, stop, err := controlPlane()
	if err != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: flux-ssa: %v\n", err)
		os.Exit(1)
	}
	cluster, err := connect(kubeconfig)
	if err != nil {
		stop()
		fmt.Fprintf(os.Stderr, "patchconf peer: flux-ssa: %v\n", err)
		os.Exit(1)
	}
	peer := peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "flux-ssa", Version: version, Language: "go",
			Homepage: "https://pkg.go.dev/github.com/fluxcd/pkg/ssa", Category: "tool",
			Kubernetes: kubernetesRelease(clientGo)},
		// Built-in kinds the server serves; "none": a case that starts with no object names
		// its kind only in its steps. Custom kinds would need a CRD of the case; they skip.
		Capabilities: ssafake.Capabilities("builtin", "none"),
		Answer: func(raw json.RawMessage) peerkit.Answer {
			return ssafake.Answer("flux-ssa", raw, cluster.run)
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

// controlPlane is the kubeconfig of the server the cases run on: $PATCHCONF_KUBECONFIG, or a
// private control plane started with `patchconf apiserver start` and stopped by stop.
func controlPlane() (kubeconfig string, stop func(), err error) {
	if path := os.Getenv("PATCHCONF_KUBECONFIG"); path != "" {
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "patchconf-flux-ssa-")
	if err != nil {
		return "", nil, err
	}
	kubeconfig = filepath.Join(dir, "kubeconfig")
	start := exec.Command("patchconf", "apiserver", "start", "--kubeconfig", kubeconfig)
	start.Stdout, start.Stderr = os.Stderr, os.Stderr
	if err := start.Run(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("no PATCHCONF_KUBECONFIG, and `patchconf apiserver start` failed: %v", err)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		end := exec.Command("patchconf", "apiserver", "stop", "--kubeconfig", kubeconfig)
		end.Stdout, end.Stderr = os.Stderr, os.Stderr
		_ = end.Run()
		_ = os.RemoveAll(dir)
	}
	// The harness ends a peer that overran a deadline with a signal: the server goes with it.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		<-signals
		stop()
		os.Exit(1)
	}()
	return kubeconfig, stop, nil
}

// kubernetesRelease is client-go v0.X.Y's Kubernetes release, 1.X.Y.
func kubernetesRelease(clientGo string) string {
	var minor, patch int
	if _, err := fmt.Sscanf(clientGo, "v0.%d.%d", &minor, &patch); err != nil {
		return ""
	}
	return fmt.Sprintf("1.%d.%d", minor, patch)
}
