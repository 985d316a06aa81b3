//go:build !patchconf_patch

package main

// The registry strategies of the commonest built-in kinds (k8s.io/kubernetes pkg/registry), run
// as the generic store runs them around a write (registry/generic/registry/store.go): a create
// gets rest.FillObjectMetaSystemFields and rest.BeforeCreate (PrepareForCreate - status reset,
// generation, a DaemonSet's templateGeneration, a Pod's phase and QoS class -, Validate and
// the ObjectMeta checks), an update rest.BeforeUpdate (PrepareForUpdate, ValidateUpdate).
// Their validation errors are the server's 422 Invalid. Kinds without an entry keep the
// emulation of ssa_kind.go's builtinStrategies.

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericrequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
)

// writeStrategy is what the generic store needs of a kind's strategy for creates and updates.
type writeStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// registryStrategies: the main resource's and the status subresource's strategy of each kind
// run here (the same variables in every release from 1.27). A Service's strategy runs without
// its validation (unvalidated): its REST storage allocates cluster IPs and IP families before
// validation, which this target does not do, but its PrepareForUpdate (dropTypeDependentFields:
// a type change drops externalTrafficPolicy, node ports, ...) is the server's. A Job is not
// among them: its PrepareForCreate labels the object and its selector with its uid, which a
// case cannot state.
var registryStrategies = map[schema.GroupKind][2]writeStrategy{
	{Group: "apps", Kind: "Deployment"}:  {deployment.Strategy, deployment.StatusStrategy},
	{Group: "apps", Kind: "ReplicaSet"}:  {replicaset.Strategy, replicaset.StatusStrategy},
	{Group: "apps", Kind: "StatefulSet"}: {statefulset.Strategy, statefulset.StatusStrategy},
	{Group: "apps", Kind: "DaemonSet"}:   {daemonset.Strategy, daemonset.StatusStrategy},
	{Group: "batch", Kind: "CronJob"}:    {cronjob.Strategy, cronjob.StatusStrategy},
	{Group: "", Kind: "Pod"}:             {pod.Strategy, pod.StatusStrategy},
	{Group: "", Kind: "ConfigMap"}:       {configmap.Strategy, nil},
	{Group: "", Kind: "Secret"}:          {secret.Strategy, nil},
	{Group: "", Kind: "ServiceAccount"}:  {serviceaccount.Strategy, nil},
	{Group: "", Kind: "Service"}:         {unvalidated{service.Strategy}, unvalidated{service.StatusStrategy}},
}

// unvalidated is a strategy whose preparation runs and whose validation does not (see above).
type unvalidated struct{ writeStrategy }

func (unvalidated) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

func (unvalidated) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// ssaRequestNamespace: the namespace of the request when the case states none (the live target
// runs every case in a namespace of its own).
const ssaRequestNamespace = "default"

// strategyFor: the kind's registry strategy for the main resource or /status (nil: none here).
func (k *ssaKind) strategyFor(subresource string) writeStrategy {
	if !k.goTypes {
		return nil
	}
	strategies, ok := registryStrategies[k.gvk.GroupKind()]
	if !ok {
		return nil
	}
	if subresource == "status" {
		return strategies[1]
	}
	return strategies[0]
}

// requestContext: what the handlers put in a request's context that strategies read (its
// namespace, and RequestInfo, by which some pick validation options).
func (r *ssaRun) requestContext(subresource, verb string) context.Context {
	ctx := genericrequest.WithNamespace(context.Background(), r.requestNamespace())
	return genericrequest.WithRequestInfo(ctx, &genericrequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIPrefix: "apis", APIGroup: r.kind.gvk.Group, APIVersion: r.kind.gvk.Version,
		Namespace: r.requestNamespace(), Resource: r.kind.resource.Resource, Subresource: subresource, Name: r.name,
	})
}

func (r *ssaRun) requestNamespace() string {
	if r.namespace != "" {
		return r.namespace
	}
	return ssaRequestNamespace
}

// beforeWrite runs the kind's strategy on the object a request produced (internal version):
// BeforeCreate for a create, BeforeUpdate against the stored object otherwise. Without a
// strategy here it does nothing; ran tells.
func (r *ssaRun) beforeWrite(obj runtime.Object, created bool, subresource string) (ran bool, failure *ssaError) {
	strategy := r.kind.strategyFor(subresource)
	if strategy == nil {
		return false, nil
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return true, storedFailure(err)
	}
	if strategy.NamespaceScoped() && accessor.GetNamespace() == "" {
		accessor.SetNamespace(r.requestNamespace()) // EnsureObjectNamespaceMatchesRequestNamespace
	}
	if created {
		ctx := r.requestContext(subresource, "create")
		rest.FillObjectMetaSystemFields(accessor)
		accessor.SetUID(ssaUID) // the uid every object of a case gets (ssa.go)
		err = rest.BeforeCreate(strategy, ctx, obj)
	} else {
		ctx := r.requestContext(subresource, "update")
		var old runtime.Object
		if old, err = liveObject(r.live, r.kind.gvk); err != nil {
			return true, storedFailure(err)
		}
		if oldAccessor, err := meta.Accessor(old); err == nil && oldAccessor.GetNamespace() == "" && strategy.NamespaceScoped() {
			oldAccessor.SetNamespace(r.requestNamespace())
		}
		err = rest.BeforeUpdate(strategy, ctx, obj, old)
	}
	if err == nil {
		return true, nil
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		return true, statusFailure(&apierrors.StatusError{ErrStatus: status.Status()})
	}
	return true, &ssaError{Class: "unclassified", Status: http.StatusInternalServerError, Message: err.Error()}
}
