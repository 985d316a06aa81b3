package main

// The server-side mode: each case on a real kube-apiserver (patchconf's control plane), its
// object in a namespace of its own, removed after it (targets/peerkit/clusterkit, shared with
// flux-ssa). An `apply` step is Helm's: Build, then Client.Update with server-side apply, the
// step's manager as Helm's field manager (the CLI names itself "helm"). The other steps are
// clusterkit's plain requests with controller-runtime's client (a module Helm 4 requires).

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/kube"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"patchconf.dev/targets/peerkit/clusterkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

// serverSide connects clusterkit to the server kubeconfig names, with Helm as the tool; Helm's
// factory reads the same kubeconfig (discovery cached for the process).
func serverSide(kubeconfig string) (*clusterkit.Cluster, error) {
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &kubeconfig
	helm := clusterkit.Tool{Name: "Helm", NamespacePrefix: "pch-helm-",
		Apply: func(o *clusterkit.Object, s ssafake.Step, u *unstructured.Unstructured) error {
			return helmApply(flags, o, s, u)
		},
		DeclineApply: func(s ssafake.Step) string {
			if s.FieldManager() == "" {
				return "applies without a field manager; Helm always names one (the CLI: helm)"
			}
			return ""
		},
	}
	return clusterkit.Connect(kubeconfig, helm)
}

// helmManager guards kube.ManagedFieldsManager, Helm's process-wide field manager name.
var helmManager sync.Mutex

// helmApply is Helm's server-side upgrade of the step's object: Client.Build (validation on, as
// helm upgrade builds the new manifest), then Client.Update with the options `helm upgrade
// --server-side=true` passes (ForceReplace(false), ServerSideApply(true, --force-conflicts =
// the step's force), UpgradeClientSideFieldManager(false)); the step's manager is Helm's
// field manager. An object that does not exist is created by the same Update (an apply
// patch).
func helmApply(flags *genericclioptions.ConfigFlags, o *clusterkit.Object, s ssafake.Step, u *unstructured.Unstructured) error {
	manifest, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	helmManager.Lock()
	defer helmManager.Unlock()
	kube.ManagedFieldsManager = s.FieldManager()
	helm := kube.New(flags)
	helm.Namespace = o.Namespace
	target, err := helm.Build(bytes.NewReader(manifest), true)
	if err != nil {
		return err
	}
	// The previous release held the same object: nothing for Helm to delete.
	previous, err := helm.Build(bytes.NewReader(manifest), true)
	if err != nil {
		return err
	}
	_, err = helm.Update(previous, target,
		kube.ClientUpdateOptionForceReplace(false),
		kube.ClientUpdateOptionServerSideApply(true, s.Force),
		kube.ClientUpdateOptionUpgradeClientSideFieldManager(false))
	if err != nil {
		// Helm names the object in its words: in the case's namespace, not the peer's.
		caseNamespace := o.CaseNamespace
		if caseNamespace == "" {
			caseNamespace = "default"
		}
		return inCaseNamespace{err: err, text: strings.ReplaceAll(err.Error(), o.Namespace+"/", caseNamespace+"/")}
	}
	return nil
}

// inCaseNamespace is Helm's error with its text in the case's namespace; the server's
// Status stays reachable (errors.As) for the error's class and conflicts.
type inCaseNamespace struct {
	err  error
	text string
}

func (e inCaseNamespace) Error() string { return e.text }
func (e inCaseNamespace) Unwrap() error { return e.err }
