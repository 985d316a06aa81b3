package clusterkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"patchconf.dev/targets/peerkit/ssafake"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Object is the case's object on the server, reached through the tool (applies) and
// controller-runtime's client (every other client's requests): an ssafake.Store.
type Object struct {
	Ctx           context.Context // the case's requests
	Client        client.Client
	GVK           schema.GroupVersionKind
	Name          string
	Namespace     string // the case's namespace on the server
	CaseNamespace string // the namespace the case's objects state ("": none)
	apply         func(o *Object, s ssafake.Step, u *unstructured.Unstructured) error
	keepStatus    bool
}

// open creates `current` (seed; nil: no object) as the live target does: created, its status
// written, then given exactly the managedFields it states (or none).
func (o *Object) open(id ssafake.ObjectID, seed []byte) (ssafake.Store, string, error) {
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
	if err := o.Client.Create(o.Ctx, created); err != nil {
		return nil, fmt.Sprintf("current rejected by the server: %v", err), nil
	}
	if hasStatus {
		created.Object["status"] = status
		if err := o.Client.Status().Update(o.Ctx, created); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("current's status rejected by the server: %v", err), nil
		}
	}
	if len(stated) > 0 {
		live, err := o.live()
		if err != nil {
			return nil, "", err
		}
		live.SetManagedFields(stated)
		if err := o.Client.Update(o.Ctx, live); err != nil {
			return nil, fmt.Sprintf("current's managedFields rejected by the server: %v", err), nil
		}
	} else {
		reset := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"managedFields":[{}]}}`))
		if err := o.Client.Patch(o.Ctx, created, reset); err != nil {
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
func (o *Object) parse(raw []byte) (*unstructured.Unstructured, error) {
	var fields map[string]interface{}
	if err := utiljson.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: fields}
	if u.GetAPIVersion() == "" && u.GetKind() == "" {
		u.SetGroupVersionKind(o.GVK)
	}
	if u.GetName() == "" {
		u.SetName(o.Name)
	}
	u.SetNamespace(o.Namespace)
	return u, nil
}

func (o *Object) live() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GVK)
	err := o.Client.Get(o.Ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, u)
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

// Apply is the tool's apply of the step's object; an apply to /status is another
// controller's, a plain server-side apply.
func (o *Object) Apply(s ssafake.Step, name string) error {
	u, err := o.parse(s.Object)
	if err != nil {
		return err
	}
	if s.Subresource == "status" {
		return o.Client.Status().Patch(o.Ctx, u, client.Apply, subresourceOptions(s)...)
	}
	return o.apply(o, s, u)
}

// Update is another client's PUT of the step's object (with the live resourceVersion unless
// it states one).
func (o *Object) Update(s ssafake.Step) error {
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
		return o.Client.Status().Update(o.Ctx, u, sub...)
	}
	return o.Client.Update(o.Ctx, u, options...)
}

// Patch is another client's PATCH of the step's type.
func (o *Object) Patch(s ssafake.Step, name string, patchType types.PatchType) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GVK)
	u.SetName(name)
	u.SetNamespace(o.Namespace)
	patch := client.RawPatch(patchType, s.Patch)
	if s.Subresource == "status" {
		return o.Client.Status().Patch(o.Ctx, u, patch, subresourceOptions(s)...)
	}
	return o.Client.Patch(o.Ctx, u, patch, owner(s)...)
}

// Get reads the object back as the case states it: in the case's namespace, with or without
// status as the tool says (nil: there is none).
func (o *Object) Get() (runtime.Object, error) {
	u, err := o.live()
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if o.CaseNamespace == "" {
		unstructured.RemoveNestedField(u.Object, "metadata", "namespace")
	} else {
		u.SetNamespace(o.CaseNamespace)
		// The server writes the applied configuration of manager kubectl into the
		// last-applied annotation, with the namespace it was sent to.
		annotations := u.GetAnnotations()
		if text, ok := annotations[lastApplied]; ok {
			annotations[lastApplied] = strings.ReplaceAll(text, quoted(o.Namespace), quoted(o.CaseNamespace))
			u.SetAnnotations(annotations)
		}
	}
	if !o.keepStatus {
		delete(u.Object, "status")
	}
	return u, nil
}

// Wrote: the resourceVersion moved.
func (o *Object) Wrote(before, after runtime.Object) bool {
	if before == nil || after == nil {
		return before != after
	}
	return before.(*unstructured.Unstructured).GetResourceVersion() != after.(*unstructured.Unstructured).GetResourceVersion()
}

func quoted(namespace string) string {
	text, _ := json.Marshal(namespace)
	return `"namespace":` + string(text)
}
