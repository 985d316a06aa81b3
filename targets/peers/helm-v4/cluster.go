package main

// The server-side mode: each case on a real kube-apiserver (patchconf's control plane), its
// object in a namespace of its own, deleted after it. An `apply` step is Helm's: Build, then
// Client.Update with server-side apply, the step's manager as Helm's field manager (the CLI
// names itself "helm"). The other steps are what the cluster's other clients send (an update,
// a patch, a write to /status), sent as plain requests with controller-runtime's client (a
// module Helm 4 requires). Adapted from the flux-ssa peer's cluster.go.

import (
	"bytes"
	"sync"

	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/kube"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"patchconf.dev/targets/peerkit/ssafake"
)

// The label `patchconf live cleanup` finds an interrupted run's namespaces by.
const runLabel = "patchconf.dev/run"

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// requestTimeout bounds one case's requests; the harness's deadline is the case's.
const requestTimeout = 50 * time.Second

// allocatedKinds hold values the server allocates or generates per object (a Service's
// cluster IPs and node ports, a Pod's status, a Job's selector and labels), which the live
// target maps back and this peer does not.
var allocatedKinds = map[schema.GroupKind]string{
	{Group: "", Kind: "Service"}:  "cluster IPs and node ports",
	{Group: "", Kind: "Pod"}:      "the Pod's status",
	{Group: "batch", Kind: "Job"}: "the Job's generated selector and labels",
}

type cluster struct {
	client client.Client
	// helm is the kubeconfig Helm's factory reads (discovery cached for the process).
	helm *genericclioptions.ConfigFlags
}

func connect(kubeconfig string) (*cluster, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %v", kubeconfig, err)
	}
	// A step without a manager is named after the client, as on the live target.
	config.UserAgent = "patchconf"
	config.QPS, config.Burst = 200, 400
	c, err := client.New(config, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("a client for %s: %v", config.Host, err)
	}
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &kubeconfig
	return &cluster{client: c, helm: flags}, nil
}

// run answers one case: its object in a namespace of its own, deleted afterwards.
func (k *cluster) run(c *ssafake.Case) ([]ssafake.StepResult, string, error) {
	id, err := c.ObjectID()
	if err != nil {
		return nil, "", err
	}
	if skip := k.declined(c, id); skip != "" {
		return nil, skip, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	namespace, err := k.namespace(ctx)
	if err != nil {
		return nil, "", err
	}
	o := &object{ctx: ctx, client: k.client, helm: k.helm, gvk: id.GVK, name: id.Name, namespace: namespace,
		caseNamespace: id.Namespace}
	defer k.removeNamespace(o)
	return ssafake.Run(c, id, o.open)
}

// removeNamespace deletes the case's object and its namespace, and finalizes the namespace:
// patchconf's control plane runs no kube-controller-manager, which would otherwise empty and
// finalize it (a namespace only deleted stays Terminating, its objects with it).
func (k *cluster) removeNamespace(o *object) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if live, err := o.live(); err == nil {
		if len(live.GetFinalizers()) > 0 {
			_ = k.client.Patch(ctx, live, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		}
		_ = k.client.Delete(ctx, live, client.GracePeriodSeconds(0))
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.namespace}}
	if err := k.client.Delete(ctx, namespace); err != nil {
		return
	}
	if err := k.client.Get(ctx, client.ObjectKey{Name: o.namespace}, namespace); err != nil {
		return
	}
	namespace.Spec.Finalizers = nil
	_ = k.client.SubResource("finalize").Update(ctx, namespace)
}

// declined says why the case is not one this peer runs ("" when it is).
func (k *cluster) declined(c *ssafake.Case, id ssafake.ObjectID) string {
	gk := id.GVK.GroupKind()
	if strings.Contains(gk.Group, ".") && !strings.HasSuffix(gk.Group, ".k8s.io") {
		return fmt.Sprintf("%s is a custom kind: it needs a CustomResourceDefinition, which this peer does not create", gk)
	}
	if what, ok := allocatedKinds[gk]; ok {
		return fmt.Sprintf("%s: %s are the server's per object, and this peer does not map them back", gk.Kind, what)
	}
	mapping, err := k.client.RESTMapper().RESTMapping(gk, id.GVK.Version)
	if err != nil {
		return fmt.Sprintf("the server does not serve %s: %v", id.GVK, err)
	}
	if mapping.Scope.Name() != "namespace" {
		return fmt.Sprintf("%s is cluster-scoped; this peer runs each case in a namespace of its own", gk)
	}
	helm := false
	for index, step := range c.Steps {
		switch step.Op {
		case "csa-upgrade", "kubectl-apply-server-side":
			return fmt.Sprintf("step %d: op %s is a client's sequence of requests (kubectl's), not Helm's", index+1, step.Op)
		case "apply":
			if step.Subresource == "" && step.FieldManager() == "" {
				return fmt.Sprintf("step %d applies without a field manager; Helm always names one (the CLI: helm)", index+1)
			}
			helm = helm || step.Subresource == ""
		}
	}
	if !helm {
		return "no step applies the object: nothing in the case is Helm's"
	}
	return ""
}

func (k *cluster) namespace(ctx context.Context) (string, error) {
	suffix := make([]byte, 5)
	if _, err := rand.Read(suffix); err != nil {
		return "", err
	}
	name := "pch-helm-" + hex.EncodeToString(suffix)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{runLabel: name}}}
	if err := k.client.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("creating namespace %s: %v", name, err)
	}
	return name, nil
}

// object is the case's object on the server, reached through Helm's kube client (applies)
// and controller-runtime's client (every other client's requests): an ssafake.Store.
type object struct {
	ctx           context.Context
	client        client.Client
	helm          *genericclioptions.ConfigFlags
	gvk           schema.GroupVersionKind
	name          string
	namespace     string // the case's namespace on the server
	caseNamespace string // the namespace the case's objects state
}

// open creates `current` (seed; nil: no object) as the live target does: created, its status
// written, then given exactly the managedFields it states (or none).
func (o *object) open(id ssafake.ObjectID, seed []byte) (ssafake.Store, string, error) {
	if seed == nil {
		return o, "", nil
	}
	current, err := o.parse(seed)
	if err != nil {
		return nil, "", fmt.Errorf("current: %v", err)
	}
	stated := current.GetManagedFields()
	status, hasStatus := current.Object["status"]
	created := current.DeepCopy()
	created.SetManagedFields(nil)
	if err := o.client.Create(o.ctx, created); err != nil {
		return nil, fmt.Sprintf("current rejected by the server: %v", err), nil
	}
	if hasStatus {
		created.Object["status"] = status
		if err := o.client.Status().Update(o.ctx, created); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("current's status rejected by the server: %v", err), nil
		}
	}
	if len(stated) > 0 {
		live, err := o.live()
		if err != nil {
			return nil, "", err
		}
		live.SetManagedFields(stated)
		if err := o.client.Update(o.ctx, live); err != nil {
			return nil, fmt.Sprintf("current's managedFields rejected by the server: %v", err), nil
		}
	} else {
		reset := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"managedFields":[{}]}}`))
		if err := o.client.Patch(o.ctx, created, reset); err != nil {
			return nil, "", fmt.Errorf("resetting current's managedFields: %v", err)
		}
	}
	live, err := o.live()
	if err != nil {
		return nil, "", err
	}
	if !sameEntries(stated, live.GetManagedFields()) {
		held, _ := json.Marshal(live.GetManagedFields())
		return nil, fmt.Sprintf("the server holds other managedFields than current states: %s", held), nil
	}
	return o, "", nil
}

func sameEntries(stated, held []metav1.ManagedFieldsEntry) bool {
	if len(stated) != len(held) {
		return false
	}
	for i := range stated {
		a, b := stated[i], held[i]
		if a.Manager != b.Manager || a.Operation != b.Operation || a.APIVersion != b.APIVersion ||
			a.Subresource != b.Subresource || !sameFields(a.FieldsV1, b.FieldsV1) {
			return false
		}
	}
	return true
}

func sameFields(a, b *metav1.FieldsV1) bool {
	if a == nil || b == nil {
		return a == b
	}
	var x, y interface{}
	return json.Unmarshal(a.Raw, &x) == nil && json.Unmarshal(b.Raw, &y) == nil && reflect.DeepEqual(x, y)
}

// parse reads a step's object as sent to the server: its namespace the case's on the server.
func (o *object) parse(raw []byte) (*unstructured.Unstructured, error) {
	var fields map[string]interface{}
	if err := utiljson.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: fields}
	if u.GetAPIVersion() == "" && u.GetKind() == "" {
		u.SetGroupVersionKind(o.gvk)
	}
	if u.GetName() == "" {
		u.SetName(o.name)
	}
	u.SetNamespace(o.namespace)
	return u, nil
}

func (o *object) live() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.gvk)
	err := o.client.Get(o.ctx, client.ObjectKey{Namespace: o.namespace, Name: o.name}, u)
	return u, err
}

func owner(s ssafake.Step) []client.PatchOption {
	var options []client.PatchOption
	if manager := s.FieldManager(); manager != "" {
		options = append(options, client.FieldOwner(manager))
	}
	if s.Force {
		options = append(options, client.ForceOwnership)
	}
	return options
}

func subresourceOptions(s ssafake.Step) []client.SubResourcePatchOption {
	var options []client.SubResourcePatchOption
	if manager := s.FieldManager(); manager != "" {
		options = append(options, client.FieldOwner(manager))
	}
	if s.Force {
		options = append(options, client.ForceOwnership)
	}
	return options
}

// helmManager guards kube.ManagedFieldsManager, Helm's process-wide field manager name.
var helmManager sync.Mutex

// Apply is Helm's server-side upgrade of the step's object: Client.Build (validation on, as
// helm upgrade builds the new manifest), then Client.Update with the options `helm upgrade
// --server-side=true` passes (ForceReplace(false), ServerSideApply(true, --force-conflicts =
// the step's force), UpgradeClientSideFieldManager(false)); the step's manager is Helm's
// field manager. An object that does not exist is created by the same Update (an apply
// patch). An apply to /status is another controller's.
func (o *object) Apply(s ssafake.Step, name string) error {
	u, err := o.parse(s.Object)
	if err != nil {
		return err
	}
	if s.Subresource == "status" {
		return o.client.Status().Patch(o.ctx, u, client.Apply, subresourceOptions(s)...)
	}
	manifest, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	helmManager.Lock()
	defer helmManager.Unlock()
	kube.ManagedFieldsManager = s.FieldManager()
	helm := kube.New(o.helm)
	helm.Namespace = o.namespace
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
		caseNamespace := o.caseNamespace
		if caseNamespace == "" {
			caseNamespace = "default"
		}
		return inCaseNamespace{err: err, text: strings.ReplaceAll(err.Error(), o.namespace+"/", caseNamespace+"/")}
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

// Update is another client's PUT of the step's object (with the live resourceVersion unless
// it states one).
func (o *object) Update(s ssafake.Step) error {
	u, err := o.parse(s.Object)
	if err != nil {
		return err
	}
	var options []client.UpdateOption
	if manager := s.FieldManager(); manager != "" {
		options = append(options, client.FieldOwner(manager))
	}
	if s.Subresource == "status" {
		var sub []client.SubResourceUpdateOption
		if manager := s.FieldManager(); manager != "" {
			sub = append(sub, client.FieldOwner(manager))
		}
		return o.client.Status().Update(o.ctx, u, sub...)
	}
	return o.client.Update(o.ctx, u, options...)
}

// Patch is another client's PATCH of the step's type.
func (o *object) Patch(s ssafake.Step, name string, patchType types.PatchType) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.gvk)
	u.SetName(name)
	u.SetNamespace(o.namespace)
	patch := client.RawPatch(patchType, s.Patch)
	if s.Subresource == "status" {
		return o.client.Status().Patch(o.ctx, u, patch, subresourceOptions(s)...)
	}
	return o.client.Patch(o.ctx, u, patch, owner(s)...)
}

// Get reads the object back in the case's namespace (nil: there is none), status included:
// the harness judges a step's object without the status its expectation does not state.
func (o *object) Get() (runtime.Object, error) {
	u, err := o.live()
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if o.caseNamespace == "" {
		unstructured.RemoveNestedField(u.Object, "metadata", "namespace")
	} else {
		u.SetNamespace(o.caseNamespace)
		// The server writes the applied configuration of manager kubectl into the
		// last-applied annotation, with the namespace it was sent to.
		annotations := u.GetAnnotations()
		if text, ok := annotations[lastApplied]; ok {
			annotations[lastApplied] = strings.ReplaceAll(text, quoted(o.namespace), quoted(o.caseNamespace))
			u.SetAnnotations(annotations)
		}
	}
	return u, nil
}

// Wrote: the resourceVersion moved.
func (o *object) Wrote(before, after runtime.Object) bool {
	if before == nil || after == nil {
		return before != after
	}
	return before.(*unstructured.Unstructured).GetResourceVersion() != after.(*unstructured.Unstructured).GetResourceVersion()
}

func quoted(namespace string) string {
	text, _ := json.Marshal(namespace)
	return `"namespace":` + string(text)
}
