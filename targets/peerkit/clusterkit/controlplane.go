package clusterkit

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// ControlPlane is the kubeconfig of the server the cases run on: $PATCHCONF_KUBECONFIG (the
// harness sets it), or a private control plane started with `patchconf apiserver start` for
// the peer named peer, stopped by stop.
func ControlPlane(peer string) (kubeconfig string, stop func(), err error) {
	if path := os.Getenv("PATCHCONF_KUBECONFIG"); path != "" {
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "patchconf-"+peer+"-")
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
