package main

// The steps through controller-runtime's fake client, called as a controller calls it:
// client.Apply with an apply configuration (client.ApplyConfigurationFromUnstructured),
// Update with a typed object, Patch with client.RawPatch, each with client.FieldOwner (and
// client.ForceOwnership), or the same on Status(); Get reads the object back.

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapplyconfigurations "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"patchconf.dev/targets/peerkit/ssafake"
)

func run(c *ssafake.Case) ([]ssafake.StepResult, string, error) {
	id, err := c.ObjectID()
	if err != nil {
		return nil, "", err
	}
	open := func(id ssafake.ObjectID, seed []byte) (ssafake.Store, string, error) {
		return openClient(c.Schema, id, seed)
	}
	return ssafake.Run(c, id, open)
}

type clientStore struct {
	client    client.WithWatch
	scheme    *runtime.Scheme
	gvk       schema.GroupVersionKind
	custom    bool
	namespace string
	name      string
}

// openClient builds the fake client as a test does: client-go's scheme (plus the custom
// kind as unstructured), WithReturnManagedFields, `current` through WithObjects; for a
// named schema a type converter built from its definitions (WithTypeConverters) and, when
// the schema has a status, WithStatusSubresource, as a CRD with a status subresource is set up.
func openClient(ref *ssafake.SchemaRef, id ssafake.ObjectID, seed []byte) (_ ssafake.Store, skip string, err error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	store := &clientStore{scheme: scheme, gvk: id.GVK, namespace: id.Namespace, name: id.Name}
	builder := fake.NewClientBuilder().WithReturnManagedFields()
	named := ref != nil && ref.Named != ""
	if !scheme.Recognizes(id.GVK) {
		store.custom = true
		scheme.AddKnownTypeWithName(id.GVK, &unstructured.Unstructured{})
		scheme.AddKnownTypeWithName(id.GVK.GroupVersion().WithKind(id.GVK.Kind+"List"), &unstructured.UnstructuredList{})
	} else if named {
		return nil, fmt.Sprintf("named schema %q for %s, a kind of client-go's scheme: the fake types it by its Go type", ref.Named, id.GVK), nil
	}
	builder = builder.WithScheme(scheme)
	if named {
		converter, hasStatus, err := namedTypeConverter(ref, id.GVK)
		if err != nil {
			return nil, fmt.Sprintf("named schema %q: no type converter can be built from it: %v", ref.Named, err), nil
		}
		goTypes := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(goTypes); err != nil {
			return nil, "", err
		}
		builder = builder.WithTypeConverters(converter, clientgoapplyconfigurations.NewTypeConverter(goTypes))
		if hasStatus {
			builder = builder.WithStatusSubresource(store.emptyObject())
		}
	}
	if seed != nil {
		object, err := store.decode(seed)
		if err != nil {
			return nil, fmt.Sprintf("current cannot be decoded into its Go type: %v", err), nil
		}
		builder = builder.WithObjects(object)
	}
	defer func() {
		if recovered := recover(); recovered != nil { // Build panics when it cannot add an object
			err = fmt.Errorf("the fake client refused current: %v", recovered)
		}
	}()
	store.client = builder.Build()
	return store, "", nil
}

// namedTypeConverter is managedfields.NewTypeConverter over the case's definitions, the
// root one marked with the kind's x-kubernetes-group-version-kind.
func namedTypeConverter(ref *ssafake.SchemaRef, gvk schema.GroupVersionKind) (managedfields.TypeConverter, bool, error) {
	models := map[string]*spec.Schema{}
	for name, raw := range ref.Definitions {
		definition := &spec.Schema{}
		if err := json.Unmarshal(raw, definition); err != nil {
			return nil, false, fmt.Errorf("definition %s: %v", name, err)
		}
		models[name] = definition
	}
	root, ok := models[ref.Root]
	if !ok {
		return nil, false, fmt.Errorf("no root definition %q", ref.Root)
	}
	root.AddExtension("x-kubernetes-group-version-kind", []interface{}{
		map[string]interface{}{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
	})
	_, hasStatus := root.Properties["status"]
	converter, err := managedfields.NewTypeConverter(models, false)
	return converter, hasStatus, err
}

func (s *clientStore) emptyObject() client.Object {
	if s.custom {
		object := &unstructured.Unstructured{}
		object.SetGroupVersionKind(s.gvk)
		return object
	}
	object, err := s.scheme.New(s.gvk)
	if err != nil {
		panic(err)
	}
	return object.(client.Object)
}

// decode is a JSON object as a controller holds it: its Go type, or unstructured for a
// custom kind.
func (s *clientStore) decode(data []byte) (client.Object, error) {
	if s.custom {
		object := &unstructured.Unstructured{}
		if err := object.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		return object, nil
	}
	object, _, err := serializer.NewCodecFactory(s.scheme).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	typed, ok := object.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not a client.Object", object)
	}
	return typed, nil
}

func owner(st ssafake.Step) []string {
	if st.Manager == nil {
		return nil
	}
	return []string{*st.Manager}
}

func (s *clientStore) Apply(st ssafake.Step, name string) error {
	configuration := &unstructured.Unstructured{}
	if err := configuration.UnmarshalJSON(st.Object); err != nil {
		return fmt.Errorf("the apply configuration cannot be built: %w", err)
	}
	ctx := context.Background()
	if st.Subresource != "" {
		var options []client.SubResourceApplyOption
		for _, manager := range owner(st) {
			options = append(options, client.FieldOwner(manager))
		}
		if st.Force {
			options = append(options, client.ForceOwnership)
		}
		return s.client.SubResource(st.Subresource).Apply(ctx, client.ApplyConfigurationFromUnstructured(configuration), options...)
	}
	var options []client.ApplyOption
	for _, manager := range owner(st) {
		options = append(options, client.FieldOwner(manager))
	}
	if st.Force {
		options = append(options, client.ForceOwnership)
	}
	return s.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(configuration), options...)
}

func (s *clientStore) Update(st ssafake.Step) error {
	object, err := s.decode(st.Object)
	if err != nil {
		return fmt.Errorf("the object cannot be decoded into its Go type (a typed client cannot send it): %w", err)
	}
	ctx := context.Background()
	if st.Subresource != "" {
		var options []client.SubResourceUpdateOption
		for _, manager := range owner(st) {
			options = append(options, client.FieldOwner(manager))
		}
		return s.client.SubResource(st.Subresource).Update(ctx, object, options...)
	}
	var options []client.UpdateOption
	for _, manager := range owner(st) {
		options = append(options, client.FieldOwner(manager))
	}
	return s.client.Update(ctx, object, options...)
}

func (s *clientStore) Patch(st ssafake.Step, name string, patchType types.PatchType) error {
	object := s.emptyObject()
	object.SetName(name)
	object.SetNamespace(s.namespace)
	ctx := context.Background()
	patch := client.RawPatch(patchType, st.Patch)
	if st.Subresource != "" {
		var options []client.SubResourcePatchOption
		for _, manager := range owner(st) {
			options = append(options, client.FieldOwner(manager))
		}
		return s.client.SubResource(st.Subresource).Patch(ctx, object, patch, options...)
	}
	var options []client.PatchOption
	for _, manager := range owner(st) {
		options = append(options, client.FieldOwner(manager))
	}
	return s.client.Patch(ctx, object, patch, options...)
}

func (s *clientStore) Get() (runtime.Object, error) {
	object := s.emptyObject()
	err := s.client.Get(context.Background(), client.ObjectKey{Namespace: s.namespace, Name: s.name}, object)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A typed object comes back without apiVersion and kind, from the fake as from a real
	// server through the real client (both decode into the Go type): the object's own are
	// reported.
	if object.GetObjectKind().GroupVersionKind().Empty() {
		object.GetObjectKind().SetGroupVersionKind(s.gvk)
	}
	return object, nil
}

// wrote: the fake keeps a resourceVersion per object; a write is a new one.
func (s *clientStore) Wrote(before, after runtime.Object) bool {
	if before == nil {
		return after != nil
	}
	old, errOld := meta.Accessor(before)
	now, errNow := meta.Accessor(after)
	return errOld == nil && errNow == nil && old.GetResourceVersion() != now.GetResourceVersion()
}
