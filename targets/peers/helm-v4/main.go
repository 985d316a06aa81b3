// Command helm-v4 is a patchconf peer target (harness/PROTOCOL.md): Helm 4's own kube client
// (helm.sh/helm/v4/pkg/kube) in both of its modes. Server-side apply, Helm 4's default:
// `server-side-apply` cases on a real kube-apiserver (serverside.go, through
// targets/peerkit/clusterkit), each apply step Helm's Client.Update with server-side apply.
// Client-side (`helm upgrade --server-side=false`): `apply`, `strategic-3way` and
// `merge-patch-3way` cases as for helm-v3, against a loopback endpoint in this process that
// records the PATCH Helm sends (targets/peerkit/helmupgrade; helm.go is Helm 4's calls).
// Nothing of Helm's computation is reimplemented here. See README.md.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/clusterkit"
	"patchconf.dev/targets/peerkit/helmupgrade"
	"patchconf.dev/targets/peerkit/ssafake"
)

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	loopback := helmupgrade.NewEndpoint()
	defer loopback.Close()
	server := &lazyCluster{}
	peer := peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "helm-v4", Version: version, Language: "go",
			Homepage: homepage, Category: "tool", Kubernetes: peerkit.KubernetesRelease("k8s.io/apimachinery")},
		// Server-side apply errors are the server's own words (Helm wraps them); client-side
		// errors are Helm's wrapping of apimachinery's, classed by pattern.
		Capabilities: peerkit.Capabilities{PatchTypes: append([]string{"server-side-apply"}, helmupgrade.CaseTypes...),
			Schemas: []string{"builtin", "none"}, Profile: "kubernetes", Messages: true},
		Answer: func(raw json.RawMessage) peerkit.Answer {
			var head struct{ Type string }
			_ = json.Unmarshal(raw, &head)
			if head.Type != "server-side-apply" {
				return loopback.Answer(raw, updateObjects)
			}
			k, err := server.get()
			if err != nil {
				return peerkit.Fail("unclassified", err)
			}
			return ssafake.Answer("helm-v4", raw, k.Run)
		},
	}
	fmt.Fprintf(os.Stderr, "patchconf peer: %s %s (kube.Client.Update: server-side apply on a control plane, client-side against a loopback endpoint)\n",
		libraryModule, version)
	serveErr := peer.Serve(os.Stdin, os.Stdout)
	server.stop()
	if serveErr != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: %v\n", serveErr)
		os.Exit(1)
	}
}

// lazyCluster connects to the control plane on the first server-side apply case, so a run
// of client-side cases needs none.
type lazyCluster struct {
	once    sync.Once
	cluster *clusterkit.Cluster
	err     error
	stopper func()
}

func (l *lazyCluster) get() (*clusterkit.Cluster, error) {
	l.once.Do(func() {
		kubeconfig, stop, err := clusterkit.ControlPlane("helm-v4")
		if err != nil {
			l.err = err
			return
		}
		l.stopper = stop
		l.cluster, l.err = serverSide(kubeconfig)
	})
	return l.cluster, l.err
}

func (l *lazyCluster) stop() {
	if l.stopper != nil {
		l.stopper()
	}
}
