package main

// The steps through client-go's fake clientset. Requests are the actions client-go's typed
// fake clients build (k8s.io/client-go/gentype's FakeClient: Apply and Patch send a
// PatchActionImpl, Update and UpdateStatus an UpdateActionImpl) handed to the clientset's
// Invokes, so every kind of the scheme is reached without a typed client per kind.

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"

	"patchconf.dev/targets/peerkit/ssafake"
)

func run(c *ssafake.Case) ([]ssafake.StepResult, string, error) {
	if c.Schema != nil && c.Schema.Named != "" {
		return nil, fmt.Sprintf("named schema %q: the fake clientset types objects by client-go's built-in schema only", c.Schema.Named), nil
	}
	id, err := c.ObjectID()
	if err != nil {
		return nil, "", err
	}
	return ssafake.Run(c, id, openClientset)
}

type clientsetStore struct {
	clientset *fake.Clientset
	gvk       schema.GroupVersionKind
	gvr       schema.GroupVersionResource
	namespace string
	name      string
	watcher   watch.Interface
}

// openClientset is fake.NewClientset seeded with `current` (as tests seed it: an object
// handed to NewClientset keeps the managedFields it carries).
func openClientset(id ssafake.ObjectID, seed []byte) (_ ssafake.Store, skip string, err error) {
	if !scheme.Scheme.Recognizes(id.GVK) {
		return nil, fmt.Sprintf("%s is not a kind of client-go's scheme: the fake clientset serves built-in kinds only", id.GVK), nil
	}
	mapping, err := testrestmapper.TestOnlyStaticRESTMapper(scheme.Scheme).RESTMapping(id.GVK.GroupKind(), id.GVK.Version)
	if err != nil {
		return nil, "", err
	}
	var objects []runtime.Object
	if seed != nil {
		object, err := decodeTyped(seed)
		if err != nil {
			return nil, fmt.Sprintf("current cannot be decoded into client-go's Go type: %v", err), nil
		}
		objects = append(objects, object)
	}
	defer func() {
		if recovered := recover(); recovered != nil { // NewClientset panics when it cannot add an object
			err = fmt.Errorf("fake.NewClientset refused current: %v", recovered)
		}
	}()
	store := &clientsetStore{clientset: fake.NewClientset(objects...), gvk: id.GVK, gvr: mapping.Resource,
		namespace: id.Namespace, name: id.Name}
	if store.watcher, err = store.clientset.Tracker().Watch(store.gvr, store.namespace); err != nil {
		return nil, "", err
	}
	return store, "", nil
}

// decodeTyped decodes a JSON object into its Go type, as client-go's deserializer does.
func decodeTyped(data []byte) (runtime.Object, error) {
	object, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	return object, err
}

func (s *clientsetStore) empty() runtime.Object {
	object, err := scheme.Scheme.New(s.gvk)
	if err != nil {
		panic(err)
	}
	return object
}

func (s *clientsetStore) Apply(st ssafake.Step, name string) error {
	force := st.Force
	options := metav1.PatchOptions{FieldManager: st.FieldManager(), Force: &force}
	action := clienttesting.NewPatchSubresourceActionWithOptions(s.gvr, s.namespace, name, types.ApplyPatchType,
		st.Object, options, st.Subresources()...)
	_, err := s.clientset.Invokes(action, s.empty())
	return err
}

func (s *clientsetStore) Update(st ssafake.Step) error {
	object, err := decodeTyped(st.Object)
	if err != nil {
		return fmt.Errorf("the object cannot be decoded into client-go's Go type (a typed client cannot send it): %w", err)
	}
	options := metav1.UpdateOptions{FieldManager: st.FieldManager()}
	var action clienttesting.Action
	if st.Subresource != "" {
		action = clienttesting.NewUpdateSubresourceActionWithOptions(s.gvr, st.Subresource, s.namespace, object, options)
	} else {
		action = clienttesting.NewUpdateActionWithOptions(s.gvr, s.namespace, object, options)
	}
	_, err = s.clientset.Invokes(action, s.empty())
	return err
}

func (s *clientsetStore) Patch(st ssafake.Step, name string, patchType types.PatchType) error {
	options := metav1.PatchOptions{FieldManager: st.FieldManager()}
	action := clienttesting.NewPatchSubresourceActionWithOptions(s.gvr, s.namespace, name, patchType,
		st.Patch, options, st.Subresources()...)
	_, err := s.clientset.Invokes(action, s.empty())
	return err
}

func (s *clientsetStore) Get() (runtime.Object, error) {
	object, err := s.clientset.Invokes(clienttesting.NewGetActionWithOptions(s.gvr, s.namespace, s.name, metav1.GetOptions{}), s.empty())
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return object, err
}

// wrote: the fake keeps no resourceVersion, so a write is what its watch delivers (an
// Added or Modified event for the request), or a resourceVersion that changed.
func (s *clientsetStore) Wrote(before, after runtime.Object) bool {
	events := 0
	for {
		select {
		case <-s.watcher.ResultChan():
			events++
			continue
		default:
		}
		break
	}
	if events > 0 || before == nil {
		return true
	}
	old, errOld := meta.Accessor(before)
	now, errNow := meta.Accessor(after)
	return errOld == nil && errNow == nil && old.GetResourceVersion() != now.GetResourceVersion()
}
