// Command helm-v4 is a patchconf peer target (harness/PROTOCOL.md): Helm 4's own kube client
// (helm.sh/helm/v4/pkg/kube) in both of its modes. Server-side apply, Helm 4's default:
// `server-side-apply` cases on a real kube-apiserver (cluster.go), each apply step Helm's
// Client.Update with server-side apply. Client-side (`helm upgrade --server-side=false`):
// `apply`, `strategic-3way` and `merge-patch-3way` cases as for helm-v3, against a loopback
// endpoint in this process that records the PATCH Helm sends (endpoint.go, upgrade.go).
// Nothing of Helm's computation is reimplemented here. See README.md.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	loopback = newEndpoint()
	defer loopback.server.Close()
	server := &lazyCluster{}
	peer := peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "helm-v4", Version: version, Language: "go",
			Homepage: homepage, Category: "tool", Kubernetes: kubernetesRelease()},
		// Server-side apply errors are the server's own words (Helm wraps them); client-side
		// errors are Helm's wrapping of apimachinery's, classed by pattern.
		Capabilities: peerkit.Capabilities{PatchTypes: append([]string{"server-side-apply"}, clientSideTypes...),
			Schemas: []string{"builtin", "none"}, Profile: "kubernetes", Messages: true},
		Answer: func(raw json.RawMessage) peerkit.Answer {
			var head struct{ Type string }
			_ = json.Unmarshal(raw, &head)
			if head.Type != "server-side-apply" {
				return answerThreeWay(raw)
			}
			k, err := server.get()
			if err != nil {
				return peerkit.Fail("unclassified", err)
			}
			return ssafake.Answer("helm-v4", raw, k.run)
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
	cluster *cluster
	err     error
	stopper func()
}

func (l *lazyCluster) get() (*cluster, error) {
	l.once.Do(func() {
		kubeconfig, stop, err := controlPlane()
		if err != nil {
			l.err = err
			return
		}
		l.stopper = stop
		l.cluster, l.err = connect(kubeconfig)
	})
	return l.cluster, l.err
}

func (l *lazyCluster) stop() {
	if l.stopper != nil {
		l.stopper()
	}
}

// controlPlane is the kubeconfig of the server the cases run on: $PATCHCONF_KUBECONFIG, or a
// private control plane started with `patchconf apiserver start` and stopped by stop.
func controlPlane() (kubeconfig string, stop func(), err error) {
	if path := os.Getenv("PATCHCONF_KUBECONFIG"); path != "" {
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "patchconf-helm-v4-")
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
