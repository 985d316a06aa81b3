// Package clusterkit runs server-side-apply cases on a real kube-apiserver for the tool peers
// that apply with their own client (flux-ssa, helm-v4): each case's object in a namespace of
// its own, removed after the case. A step that applies the object is the tool's (Tool.Apply);
// every other step (an update, a patch, a write to /status) is another client of the cluster,
// sent as a plain request with controller-runtime's client. `current` is created as the live
// target creates it; steps, times and results are targets/peerkit/ssafake's.
package clusterkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"patchconf.dev/targets/peerkit/ssafake"
)

// The label `patchconf live cleanup` finds an interrupted run's namespaces by.
const runLabel = "patchconf.dev/run"

// requestTimeout bounds one case's requests; the harness's deadline is the case's.
const requestTimeout = 50 * time.Second

// removalTimeout bounds removing a case's object and namespace after it.
const removalTimeout = 20 * time.Second

// allocatedKinds hold values the server allocates or generates per object (a Service's
// cluster IPs and node ports, a Pod's status, a Job's selector and labels), which the live
// target maps back and these peers do not.
var allocatedKinds = map[schema.GroupKind]string{
	{Group: "", Kind: "Service"}:  "cluster IPs and node ports",
	{Group: "", Kind: "Pod"}:      "the Pod's status",
	{Group: "batch", Kind: "Job"}: "the Job's generated selector and labels",
}

// Tool is what a peer brings: its tool's apply and how the tool differs.
type Tool struct {
	// Name names the tool in the reasons a case is skipped ("Flux", "Helm").
	Name string
	// NamespacePrefix begins each case's namespace name (a random suffix follows).
	NamespacePrefix string
	// Apply is the tool's apply of a step's object (u: the step's object, in the case's
	// namespace on the server). An apply to /status is another controller's, not the tool's.
	Apply func(o *Object, s ssafake.Step, u *unstructured.Unstructured) error
	// DeclineApply, when set, says why the tool would never send an apply step as the case
	// states it ("" when it would), as words that follow "step N ".
	DeclineApply func(s ssafake.Step) string
	// StatusOnlyWhenStated: documents are read back without status unless the case is about
	// status (`current` or a step's object states one, or a step writes /status), as on the
	// live target; otherwise with it.
	StatusOnlyWhenStated bool
}

// Cluster is a controller-runtime client of the server the cases run on, and the tool.
type Cluster struct {
	Client client.Client
	tool   Tool
}

// Connect makes the client of the server kubeconfig names.
func Connect(kubeconfig string, tool Tool) (*Cluster, error) {
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
	return &Cluster{Client: c, tool: tool}, nil
}

// Run answers one case (an ssafake run function): its object in a namespace of its own,
// removed afterwards.
func (k *Cluster) Run(c *ssafake.Case) ([]ssafake.StepResult, string, error) {
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
	o := &Object{Ctx: ctx, Client: k.Client, GVK: id.GVK, Name: id.Name, Namespace: namespace,
		CaseNamespace: id.Namespace, apply: k.tool.Apply,
		keepStatus: !k.tool.StatusOnlyWhenStated || statesStatus(c)}
	defer k.remove(o)
	return ssafake.Run(c, id, o.open)
}

// declined says why the case is not one the tool runs here ("" when it is).
func (k *Cluster) declined(c *ssafake.Case, id ssafake.ObjectID) string {
	gk := id.GVK.GroupKind()
	if strings.Contains(gk.Group, ".") && !strings.HasSuffix(gk.Group, ".k8s.io") {
		return fmt.Sprintf("%s is a custom kind: it needs a CustomResourceDefinition, which this peer does not create", gk)
	}
	if what, ok := allocatedKinds[gk]; ok {
		return fmt.Sprintf("%s: %s are the server's per object, and this peer does not map them back", gk.Kind, what)
	}
	mapping, err := k.Client.RESTMapper().RESTMapping(gk, id.GVK.Version)
	if err != nil {
		return fmt.Sprintf("the server does not serve %s: %v", id.GVK, err)
	}
	if mapping.Scope.Name() != "namespace" {
		return fmt.Sprintf("%s is cluster-scoped; this peer runs each case in a namespace of its own", gk)
	}
	applied := false
	for index, step := range c.Steps {
		switch step.Op {
		case "csa-upgrade", "kubectl-apply-server-side", "kubectl-apply":
			return fmt.Sprintf("step %d: op %s is a client's sequence of requests (kubectl's), not %s's", index+1, step.Op, k.tool.Name)
		case "apply":
			if step.Subresource == "" && k.tool.DeclineApply != nil {
				if why := k.tool.DeclineApply(step); why != "" {
					return fmt.Sprintf("step %d %s", index+1, why)
				}
			}
			applied = applied || step.Subresource == ""
		}
	}
	if !applied {
		return fmt.Sprintf("no step applies the object: nothing in the case is %s's", k.tool.Name)
	}
	return ""
}

func (k *Cluster) namespace(ctx context.Context) (string, error) {
	suffix := make([]byte, 5)
	if _, err := rand.Read(suffix); err != nil {
		return "", err
	}
	name := k.tool.NamespacePrefix + hex.EncodeToString(suffix)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{runLabel: name}}}
	if err := k.Client.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("creating namespace %s: %v", name, err)
	}
	return name, nil
}

// remove deletes the case's object and its namespace, and finalizes the namespace:
// patchconf's control plane runs no kube-controller-manager, which would otherwise empty and
// finalize it (a namespace only deleted stays Terminating, its objects with it).
func (k *Cluster) remove(o *Object) {
	ctx, cancel := context.WithTimeout(context.Background(), removalTimeout)
	defer cancel()
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(o.GVK)
	if err := k.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, live); err == nil {
		if len(live.GetFinalizers()) > 0 {
			_ = k.Client.Patch(ctx, live, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		}
		_ = k.Client.Delete(ctx, live, client.GracePeriodSeconds(0))
	}
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Namespace}}
	if err := k.Client.Delete(ctx, namespace); err != nil {
		return
	}
	if err := k.Client.Get(ctx, client.ObjectKey{Name: o.Namespace}, namespace); err != nil {
		return
	}
	namespace.Spec.Finalizers = nil
	_ = k.Client.SubResource("finalize").Update(ctx, namespace)
}

// statesStatus tells whether the case is about status (`current` or a step's object states
// one, or a step writes /status).
func statesStatus(c *ssafake.Case) bool {
	if hasMember(c.Current, "status") {
		return true
	}
	for _, step := range c.Steps {
		if step.Subresource == "status" || hasMember(step.Object, "status") {
			return true
		}
	}
	return false
}

func hasMember(raw json.RawMessage, name string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	_, ok := fields[name]
	return ok
}
