//go:build !patchconf_patch

package main

// PATCH of a built-in kind as handlers/patch.go runs it on the typed object the handler holds
// (jsonPatcher and smpPatcher, applyPatchToCurrentObject), with the server's default field
// validation (Warn: strict decoding errors are only warnings).

import (
	"encoding/json"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	kjson "sigs.k8s.io/json"
)

// patchGoType: a JSON patch or merge patch applied to the versioned JSON encoding of the live
// object, decoded back through the defaulting codec into the internal type; a strategic merge
// patch as strategicPatchGoType.
func (r *ssaRun) patchGoType(live runtime.Object, patchType types.PatchType, patch []byte) (runtime.Object, *ssaError) {
	if patchType == types.StrategicMergePatchType {
		return r.strategicPatchGoType(live, patch)
	}
	gvk := r.kind.gvk
	original, err := encodeVersioned(live, gvk)
	if err != nil {
		return nil, storedFailure(err)
	}
	patched, failure := r.patchedJSON(patchType, original, patch)
	if failure != nil {
		return nil, failure
	}
	data := patched
	if object, err := decodeJSONObject(patched); err == nil {
		logicalTimesToClock(object)
		if data, err = json.Marshal(object); err != nil {
			return nil, storedFailure(err)
		}
	}
	into, err := serverScheme.New(internalKind(gvk))
	if err != nil {
		return nil, storedFailure(err)
	}
	decoder := legacyscheme.Codecs.DecoderToVersion(jsonSerializers.StrictSerializer, internalKind(gvk).GroupVersion())
	if err := runtime.DecodeInto(decoder, data, into); err != nil {
		if _, strict := runtime.AsStrictDecodingError(err); !strict {
			return nil, statusFailure(apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
				field.Invalid(field.NewPath("patch"), string(patched), err.Error())}), patchResultClass)
		}
	}
	return into, nil
}

// strategicPatchGoType is smpPatcher's strategicPatchObject: the live object converted to its
// version and to unstructured, StrategicMergeMapPatch with the versioned Go type as the schema,
// the result read into the versioned type, defaulted, converted to the internal version.
func (r *ssaRun) strategicPatchGoType(live runtime.Object, patch []byte) (runtime.Object, *ssaError) {
	gvk := r.kind.gvk
	versioned, err := serverScheme.ConvertToVersion(live, gvk.GroupVersion())
	if err != nil {
		return nil, storedFailure(err)
	}
	originalMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(versioned)
	if err != nil {
		return nil, storedFailure(err)
	}
	patchMap := map[string]interface{}{}
	if _, err := kjson.UnmarshalStrict(patch, &patchMap); err != nil {
		return nil, statusFailure(apierrors.NewBadRequest(err.Error()), "invalid-patch")
	}
	reference, err := serverScheme.New(gvk)
	if err != nil {
		return nil, storedFailure(err)
	}
	patchedMap, err := strategicpatch.StrategicMergeMapPatch(originalMap, patchMap, reference)
	if err != nil {
		original, _ := json.Marshal(originalMap)
		return nil, strategicFailure(err, original, patch)
	}
	logicalTimesToClock(patchedMap)
	target, err := serverScheme.New(gvk)
	if err != nil {
		return nil, storedFailure(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patchedMap, target, true); err != nil {
		if _, strict := runtime.AsStrictDecodingError(err); !strict {
			return nil, statusFailure(apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
				field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), err.Error())}), patchResultClass)
		}
	}
	serverScheme.Default(target)
	internal, err := serverScheme.ConvertToVersion(target, internalKind(gvk).GroupVersion())
	if err != nil {
		return nil, storedFailure(err)
	}
	return internal, nil
}

// patchResultClass: a 422 against the field patch (the patch applied, but its result is no Go
// value of the kind, e.g. data that is not base64) is the live target's invalid-document.
const patchResultClass = "invalid-document"

// storedFailure: an object the server holds that its codec cannot handle (500).
func storedFailure(err error) *ssaError {
	return &ssaError{Class: "invalid-document", Status: http.StatusInternalServerError,
		Reason: string(metav1.StatusReasonInternalError), Message: err.Error()}
}
