//go:build !patchconf_patch

package main

// op kubectl-apply: kubectl's client-side apply against the emulated server, as kubectl runs it
// (k8s.io/kubectl pkg/cmd/apply/apply.go, applyOneObject without --server-side; patcher.go,
// Patcher.patchSimple): the object read; none, it is created (a POST) carrying the annotation
// util.CreateApplyAnnotation writes; else kubectl warns when the object has no last-applied
// annotation and sends the three-way patch of util.GetModifiedConfiguration,
// util.GetOriginalConfiguration and the live object (a strategic merge patch for kinds of the
// client's scheme, a JSON merge patch with preconditions for others), unless it is "{}". Every
// request carries the step's manager as fieldManager, so the server records an Update entry.

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubectl/pkg/util"
)

// kubectlMissingAnnotation is apply.go's warningNoLastAppliedConfigAnnotation (unexported
// there), without the "Warning: " prefix and the newline, for kubectl's command name.
const kubectlMissingAnnotation = "resource %[1]s is missing the %[2]s annotation which is required by %[3]s apply. " +
	"%[3]s apply should only be used on resources created declaratively by either %[3]s create --save-config or " +
	"%[3]s apply. The missing annotation will be patched automatically."

// kubectlApply answers the step with the warnings kubectl printed.
func (r *ssaRun) kubectlApply(n int, s ssaStep) interface{} {
	warnings := []string{}
	answer := r.kubectlApplyRequests(n, s, &warnings)
	switch typed := answer.(type) {
	case ssaDone:
		typed.Warnings = &warnings
		return typed
	case ssaFailed:
		typed.Warnings = &warnings
		return typed
	}
	return answer
}

func (r *ssaRun) kubectlApplyRequests(n int, s ssaStep, warnings *[]string) interface{} {
	manager := managerOf(s)
	codec := unstructured.UnstructuredJSONScheme
	config, err := decodeObject(s.Object)
	if err != nil {
		return ssaFail(&ssaError{Class: "invalid-document", Message: err.Error()})
	}
	if r.live == nil {
		if err := util.CreateApplyAnnotation(config, codec); err != nil {
			return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
		}
		if kubectlPrunesNullsOnCreate() {
			pruneNulls(config.Object)
		}
		body, err := runtime.Encode(codec, config)
		if err != nil {
			return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
		}
		return r.step(n, ssaStep{Op: "create", Manager: &manager, Object: body})
	}
	if _, found := r.live.GetAnnotations()[corev1.LastAppliedConfigAnnotation]; !found {
		// resource.Info.ObjectName: the resource and the name
		objectName := r.kind.resource.Resource + "/" + r.live.GetName()
		*warnings = append(*warnings, fmt.Sprintf(kubectlMissingAnnotation, objectName, corev1.LastAppliedConfigAnnotation, "kubectl"))
	}
	modified, err := util.GetModifiedConfiguration(config, true, codec)
	if err != nil {
		return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
	}
	current, err := runtime.Encode(codec, r.live)
	if err != nil {
		return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
	}
	original, err := util.GetOriginalConfiguration(r.live)
	if err != nil {
		return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
	}
	patchType := "strategic"
	var patch []byte
	if typed, terr := builtinObject(r.kind.gvk); terr == nil && !r.kind.custom {
		// Patcher.buildStrategicMergeFromBuiltins (overwrite: kubectl apply's default)
		lookup, err := strategicpatch.NewPatchMetaFromStruct(typed)
		if err == nil {
			patch, err = strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup, true)
		}
		if err != nil {
			return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
		}
	} else {
		// Patcher.buildMergePatch: kinds kubectl's scheme does not know
		patchType = "merge-patch"
		patch, err = jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current, kubectlApplyPreconditions()...)
		if err != nil {
			return ssaFail(&ssaError{Class: classify(err), Message: err.Error()})
		}
	}
	if string(patch) == "{}" {
		return r.done(n, false) // kubectl sends nothing: "unchanged"
	}
	return r.step(n, ssaStep{Op: "patch", Manager: &manager, PatchType: patchType, Patch: patch})
}

// create: POST (handlers/create.go): the body decoded as the handler decodes it, the field
// manager's UpdateNoErrors over the creater's new object; an existing object is a conflict.
func (r *ssaRun) create(fm *managedfields.FieldManager, s ssaStep, manager string) (runtime.Object, bool, *ssaError) {
	if manager == "" {
		manager = ssaDefaultManager
	}
	if r.live != nil {
		return nil, false, statusFailure(apierrors.NewAlreadyExists(r.kind.resource, r.name))
	}
	body, err := decodeJSONObject(s.Object)
	if err != nil {
		return nil, false, statusFailure(apierrors.NewBadRequest(err.Error()))
	}
	next, failure := r.kind.requestObject(body)
	if failure != nil {
		return nil, false, failure
	}
	if failure := r.checkName(next); failure != nil {
		return nil, false, failure
	}
	return fm.UpdateNoErrors(r.kind.newForCreate(), next, manager), true, nil
}

// validateObjectMeta: the part of the kind's validation (ValidateObjectMeta, run by every
// create and update) this target runs: apimachinery's ValidateAnnotations, whose total size
// limit (TotalAnnotationSizeLimitB, 256 KiB) refuses a client-side apply whose last-applied
// annotation is too large.
func (r *ssaRun) validateObjectMeta(object runtime.Object) *ssaError {
	accessor, err := meta.Accessor(object)
	if err != nil {
		return &ssaError{Class: "unclassified", Status: http.StatusInternalServerError, Message: err.Error()}
	}
	errs := apimachineryvalidation.ValidateAnnotations(accessor.GetAnnotations(), field.NewPath("metadata", "annotations"))
	if len(errs) == 0 {
		return nil
	}
	return statusFailure(apierrors.NewInvalid(r.kind.gvk.GroupKind(), r.name, errs))
}
