//go:build !patchconf_patch

package main

// The kube-apiserver's request pipeline for built-in kinds, with the scheme the server itself
// registers (k8s.io/kubernetes/pkg/api/legacyscheme and the API groups' install packages):
// request bodies are decoded by the scope's codec into the kind's versioned Go type,
// defaulted (the SetDefaults_* functions registered in the scheme) and converted to the
// internal version; objects are stored as their versioned encoding and read back through the
// same defaulting decoder (the storage codec). Custom kinds have no Go types and stay
// unstructured (ssa.go).

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The API groups every release from 1.27 installs (pkg/controlplane/import_known_versions.go,
	// less storagemigration, new in 1.30).
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// serverScheme is the apiserver's scheme: versioned and internal types, conversions, defaults.
var serverScheme = legacyscheme.Scheme

// jsonSerializers: the JSON serializer and its strict twin, as the handlers negotiate them.
var jsonSerializers, _ = runtime.SerializerInfoForMediaType(legacyscheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)

// servesGoType: whether the server decodes this kind into a Go type (its API group installed).
func servesGoType(gvk schema.GroupVersionKind) bool {
	return serverScheme.Recognizes(gvk) && serverScheme.Recognizes(internalKind(gvk))
}

// internalKind: the hub version the handlers convert to (installer.go, HubGroupVersion).
func internalKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: gvk.Group, Version: runtime.APIVersionInternal, Kind: gvk.Kind}
}

// decodeRequest decodes a create or update body as handlers/create.go and update.go do with
// the server's default field validation (Warn): the strict JSON serializer through
// DecoderToVersion (versioned type, defaults, internal version); strict errors (unknown or
// duplicate fields) are only warnings, any other error a 400; a body of another group
// version is a 400.
func decodeRequest(body []byte, gvk schema.GroupVersionKind) (runtime.Object, *apierrors.StatusError) {
	decoder := legacyscheme.Codecs.DecoderToVersion(jsonSerializers.StrictSerializer, internalKind(gvk).GroupVersion())
	into, err := serverScheme.New(internalKind(gvk))
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	defaultGVK := gvk
	obj, actual, err := decoder.Decode(body, &defaultGVK, into)
	if err != nil {
		if _, strict := runtime.AsStrictDecodingError(err); !strict || obj == nil {
			return nil, decodeFailure(err, gvk, actual, body)
		}
	}
	if actual.GroupVersion() != gvk.GroupVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)",
			actual.GroupVersion(), gvk.GroupVersion()))
	}
	return obj, nil
}

// decodeFailure is handlers/rest.go's transformDecodeError.
func decodeFailure(err error, gvk schema.GroupVersionKind, actual *schema.GroupVersionKind, body []byte) *apierrors.StatusError {
	if actual != nil && actual.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", actual.Kind, actual.Version, gvk.Kind, err))
	}
	summary := string(body)
	if len(summary) > 30 {
		summary = summary[:30] + "..."
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", gvk.Kind, err, summary))
}

// encodeVersioned is the object's JSON in the kind's version (the handlers' and the storage's
// encoder, EncoderForVersion).
func encodeVersioned(obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	return runtime.Encode(legacyscheme.Codecs.EncoderForVersion(jsonSerializers.Serializer, gvk.GroupVersion()), obj)
}

// decodeStored reads stored bytes as the storage codec does: the (non-strict) serializer through
// the defaulting decoder into the internal version.
func decodeStored(data []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	into, err := serverScheme.New(internalKind(gvk))
	if err != nil {
		return nil, err
	}
	decoder := legacyscheme.Codecs.DecoderToVersion(jsonSerializers.Serializer, internalKind(gvk).GroupVersion())
	obj, _, err := decoder.Decode(data, &gvk, into)
	return obj, err
}

var storageSerializer = protobuf.NewSerializer(legacyscheme.Scheme, legacyscheme.Scheme)

// storeObject is what etcd holds and hands back after a write: the object encoded in its
// version, read back through the storage codec (which defaults again) and encoded once more,
// as the response is; the answer is that JSON as an unstructured object.
func storeObject(obj runtime.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	// etcd holds a built-in object as protobuf (the storage media type), which has no empty
	// list or map apart from nil: one that is not omitempty is read back null
	data, err := runtime.Encode(legacyscheme.Codecs.EncoderForVersion(storageSerializer, gvk.GroupVersion()), obj)
	if err != nil {
		return nil, err
	}
	into, err := serverScheme.New(internalKind(gvk))
	if err != nil {
		return nil, err
	}
	decoder := legacyscheme.Codecs.DecoderToVersion(storageSerializer, internalKind(gvk).GroupVersion())
	read, _, err := decoder.Decode(data, &gvk, into)
	if err != nil {
		return nil, err
	}
	if data, err = encodeVersioned(read, gvk); err != nil {
		return nil, err
	}
	content, err := decodeJSONObject(data)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// liveObject is the stored object as a request handler holds it: decoded from storage into the
// internal version.
func liveObject(stored *unstructured.Unstructured, gvk schema.GroupVersionKind) (runtime.Object, error) {
	data, err := stored.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return decodeStored(data, gvk)
}
