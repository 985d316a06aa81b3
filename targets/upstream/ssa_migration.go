//go:build !patchconf_patch

package main

// Steps of several requests: a program calling client-go's managedFields upgrade
// (k8s.io/client-go/util/csaupgrade), and `kubectl apply --server-side` as kubectl runs it
// (k8s.io/kubectl pkg/cmd/apply/apply.go, applyOneObject: the apply,
// saveLastApplyAnnotationIfNecessary, migrateToSSAIfNecessary, the apply again). Each
// request goes through the same emulated endpoint as a step of its own, at the step's time.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
)

// kubectl's managers (apply.go: fieldManagerServerSideApply, fieldManagerLastAppliedAnnotation).
const (
	kubectlServerSideManager  = "kubectl"
	kubectlLastAppliedManager = "kubectl-last-applied"
)

// lastAppliedField is apply.go's lastAppliedAnnotationFieldPath, as fieldsV1.
var lastAppliedField = `{"f:metadata":{"f:annotations":{"f:` + corev1.LastAppliedConfigAnnotation + `":{}}}}`

func isMigrationOp(op string) bool {
	return op == "csa-upgrade" || op == "kubectl-apply-server-side"
}

// migrationStep runs one step of several requests; it changed the object if any of them did.
func (r *ssaRun) migrationStep(n int, s ssaStep) interface{} {
	before := ""
	if r.live != nil {
		before = r.live.GetResourceVersion()
	}
	r.answer = r.live
	var failure *ssaError
	if s.Op == "csa-upgrade" {
		failure = r.csaUpgrade(n, s)
	} else {
		failure = r.kubectlApplyServerSide(n, s)
	}
	if failure != nil {
		return ssaFail(failure)
	}
	if s.DryRun {
		return answerOf(r.answer, false) // what kubectl prints: the last answer it took
	}
	return r.done(n, r.live.GetResourceVersion() != before)
}

// csaUpgrade: csaupgrade.UpgradeManagedFieldsPatch on the live object and, unless it answers
// nil (nothing to upgrade), that JSON patch sent by the applier.
func (r *ssaRun) csaUpgrade(n int, s ssaStep) *ssaError {
	if r.live == nil {
		return statusFailure(r.notFound())
	}
	var names []string
	if err := json.Unmarshal(s.CSAManagers, &names); err != nil {
		return &ssaError{Class: "unclassified", Message: fmt.Sprintf("csa_managers: %v", err)}
	}
	_, failure := r.upgrade(n, r.live, sets.New(names...), managerOf(s), s.Subresource, false)
	return failure
}

// upgrade sends the managedFields upgrade's patch, if there is one, to the object itself (a
// subresource only selects the entries: managedFields sent to /status are ignored), as kubectl
// does, with the applier as fieldManager. It answers whether a patch was sent.
func (r *ssaRun) upgrade(n int, from *unstructured.Unstructured, csaManagers sets.Set[string], ssaManager,
	subresource string, dryRun bool) (bool, *ssaError) {
	patch, err := upgradeManagedFieldsPatch(from.DeepCopy(), csaManagers, ssaManager, subresource)
	if err != nil {
		return false, &ssaError{Class: "invalid-document", Message: err.Error()}
	}
	if patch == nil {
		return false, nil
	}
	manager := ssaManager
	if result, failed := r.step(n, ssaStep{Op: "patch", Manager: &manager, PatchType: "json-patch", Patch: patch,
		DryRun: dryRun}).(ssaFailed); failed {
		return false, result.Error
	}
	return true, nil
}

// kubectlApplyServerSide: applyOneObject's server-side branch. Only the first apply's failure
// fails the step; kubectl reports later failures as warnings and goes no further. kubectl
// reads each request's answer (info.Refresh) and computes the next request from it: with
// --dry-run=server every request is a dry run against the stored object, so the migration is
// computed but never takes effect, and the last apply answers as the first (kubernetes#125607).
func (r *ssaRun) kubectlApplyServerSide(n int, s ssaStep) *ssaError {
	manager := managerOf(s)
	force := s.Force != nil && *s.Force
	apply := ssaStep{Op: "apply", Manager: &manager, Force: &force, Object: s.Object, DryRun: s.DryRun}
	if result, failed := r.step(n, apply).(ssaFailed); failed {
		return result.Error
	}
	if manager == kubectlServerSideManager && !r.saveLastApplied(n, s.DryRun) {
		return nil
	}
	owners := findFieldsOwners(r.answer.GetManagedFields(), metav1.ManagedFieldsOperationUpdate, lastAppliedField)
	csaManagers := sets.New[string]()
	for _, entry := range owners {
		csaManagers.Insert(entry.Manager)
	}
	if sent, failure := r.upgrade(n, r.answer, csaManagers, manager, "", s.DryRun); sent && failure == nil {
		r.step(n, apply)
	}
	return nil
}

// saveLastApplied: saveLastApplyAnnotationIfNecessary on the last answer. Unless no
// annotation is there or an Apply entry owns it, the annotation alone is applied by
// kubectl-last-applied, so that the applier's next apply (which does not send it) leaves it.
// False: that apply failed.
func (r *ssaRun) saveLastApplied(n int, dryRun bool) bool {
	info := r.answer
	annotation, found := info.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	if !found || len(findFieldsOwners(info.GetManagedFields(), metav1.ManagedFieldsOperationApply, lastAppliedField)) > 0 {
		return true
	}
	justAnnotation := &unstructured.Unstructured{}
	justAnnotation.SetGroupVersionKind(info.GroupVersionKind())
	justAnnotation.SetName(info.GetName())
	justAnnotation.SetNamespace(info.GetNamespace())
	justAnnotation.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: annotation})
	body, err := json.Marshal(justAnnotation.Object)
	if err != nil {
		return false
	}
	manager := kubectlLastAppliedManager
	_, failed := r.step(n, ssaStep{Op: "apply", Manager: &manager, Object: body, DryRun: dryRun}).(ssaFailed)
	return !failed
}

func managerOf(s ssaStep) string {
	if s.Manager == nil {
		return ""
	}
	return *s.Manager
}

// findFieldsOwners calls csaupgrade.FindFieldsOwners with the fields given as fieldsV1. Its
// *fieldpath.Set comes from structured-merge-diff, whose import path depends on the release
// (/v4 up to 1.33, /v6 from 1.34): the set is made through reflection so that neither is named.
func findFieldsOwners(entries []metav1.ManagedFieldsEntry, operation metav1.ManagedFieldsOperationType, fieldsV1 string) []metav1.ManagedFieldsEntry {
	find := reflect.ValueOf(csaupgrade.FindFieldsOwners)
	set := reflect.New(find.Type().In(2).Elem())
	decoded := set.MethodByName("FromJSON").Call([]reflect.Value{reflect.ValueOf(strings.NewReader(fieldsV1))})
	if !decoded[0].IsNil() {
		panic(fmt.Sprintf("fieldsV1 %s: %v", fieldsV1, decoded[0].Interface()))
	}
	found := find.Call([]reflect.Value{reflect.ValueOf(entries), reflect.ValueOf(operation), set})
	return found[0].Interface().([]metav1.ManagedFieldsEntry)
}
