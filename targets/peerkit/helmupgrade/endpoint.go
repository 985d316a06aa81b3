package helmupgrade

// The loopback endpoint Helm's kube client talks to: for one case at a time it serves
// legacy discovery for the case's kinds, the live object (GET), the namespaces the objects
// name, and records every write Helm sends (PATCH, POST, DELETE). A PATCH is answered with
// the live object with that patch applied as an API server applies it (apimachinery's
// strategicpatch with the kind's Go type, or a JSON merge patch), which is the answer's
// `document`; the endpoint neither defaults nor validates, like patchconf's kubectl-apply
// endpoint (harness/targets/kubectl_apply.py).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"

	jsonmergepatch "gopkg.in/evanphx/json-patch.v4"
)

// clusterScopedKinds are the built-in kinds kube-apiserver serves outside namespaces; every
// other kind, custom kinds included, is namespaced (as the kubectl-apply endpoint says).
var clusterScopedKinds = map[string]bool{
	"APIService": true, "CertificateSigningRequest": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"ClusterTrustBundle": true, "ComponentStatus": true, "CSIDriver": true, "CSINode": true,
	"CustomResourceDefinition": true, "FlowSchema": true, "IngressClass": true,
	"MutatingWebhookConfiguration": true, "Namespace": true, "Node": true, "PersistentVolume": true,
	"PriorityClass": true, "PriorityLevelConfiguration": true, "RuntimeClass": true,
	"SelfSubjectAccessReview": true, "SelfSubjectReview": true, "SelfSubjectRulesReview": true,
	"StorageClass": true, "SubjectAccessReview": true, "TokenReview": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"ValidatingWebhookConfiguration": true, "VolumeAttachment": true,
}

// kindResource is a kind as discovery serves it.
type kindResource struct {
	GVK        schema.GroupVersionKind
	Namespaced bool
}

func resourceOf(apiVersion, kind string) (kindResource, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" || gv.Version == "" {
		return kindResource{}, fmt.Errorf("apiVersion %q, kind %q: not a kind discovery can serve", apiVersion, kind)
	}
	custom := strings.Contains(gv.Group, ".") && !strings.HasSuffix(gv.Group, ".k8s.io")
	return kindResource{GVK: gv.WithKind(kind), Namespaced: custom || !clusterScopedKinds[kind]}, nil
}

func (r kindResource) plural() string {
	if r.GVK.Kind == "Endpoints" {
		return "endpoints"
	}
	lower := strings.ToLower(r.GVK.Kind)
	switch {
	case strings.HasSuffix(lower, "y") && len(lower) > 1 && !strings.ContainsAny(lower[len(lower)-2:len(lower)-1], "aeiou"):
		return lower[:len(lower)-1] + "ies"
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return lower + "es"
	}
	return lower + "s"
}

func (r kindResource) groupVersionPath() string {
	if r.GVK.Group == "" {
		return "/api/" + r.GVK.Version
	}
	return "/apis/" + r.GVK.Group + "/" + r.GVK.Version
}

// collectionPattern matches the paths of the kind's objects (or, with collection, of its
// collection) in any namespace.
func (r kindResource) pattern(collection bool) *regexp.Regexp {
	scope := ""
	if r.Namespaced {
		scope = "/namespaces/[^/]+"
	}
	name := "/[^/]+"
	if collection {
		name = ""
	}
	return regexp.MustCompile("^" + regexp.QuoteMeta(r.groupVersionPath()) + scope + "/" + regexp.QuoteMeta(r.plural()) + name + "$")
}

// objectPath is where the object named name lives (namespace "" for a namespaced kind: default).
func (r kindResource) objectPath(name, namespace string) string {
	if !r.Namespaced {
		return r.groupVersionPath() + "/" + r.plural() + "/" + name
	}
	if namespace == "" {
		namespace = "default"
	}
	return r.groupVersionPath() + "/namespaces/" + namespace + "/" + r.plural() + "/" + name
}

type recorded struct {
	Method, Path, ContentType string
	Body                      []byte
}

// served is what the endpoint serves for one case and what it saw.
type served struct {
	resources  []kindResource
	objects    map[string][]byte // object path -> the live object's JSON
	namespaces map[string]bool
	requests   []recorded
	unexpected []string
	patched    map[string][]byte // object path -> the object after its PATCH
}

func (s *served) sent(method string) []recorded {
	var found []recorded
	for _, r := range s.requests {
		if r.Method == method {
			found = append(found, r)
		}
	}
	return found
}

// Endpoint is one loopback HTTP server, serving one case at a time; a peer makes one for
// its process (NewEndpoint) and answers its cases through it (Answer).
type Endpoint struct {
	server *httptest.Server
	mu     sync.Mutex
	state  *served
}

// NewEndpoint starts the loopback server; Close stops it.
func NewEndpoint() *Endpoint {
	e := &Endpoint{}
	e.server = httptest.NewServer(http.HandlerFunc(e.handle))
	return e
}

// Close stops the loopback server.
func (e *Endpoint) Close() { e.server.Close() }

// serve makes state the one the endpoint answers with, until the returned function is called.
func (e *Endpoint) serve(state *served) func() {
	e.mu.Lock()
	e.state = state
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.state = nil
		e.mu.Unlock()
	}
}

func statusBody(code int, reason, message string) map[string]interface{} {
	return map[string]interface{}{"kind": "Status", "apiVersion": "v1", "metadata": map[string]interface{}{},
		"status": "Failure", "message": message, "reason": reason, "code": code}
}

func reply(w http.ResponseWriter, code int, body interface{}) {
	var data []byte
	if raw, ok := body.([]byte); ok {
		data = raw
	} else {
		data, _ = json.Marshal(body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func (e *Endpoint) handle(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	state := e.state
	if state == nil {
		reply(w, 503, statusBody(503, "ServiceUnavailable", "the loopback endpoint serves no case now"))
		return
	}
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	contentType := strings.TrimSpace(strings.Split(r.Header.Get("Content-Type"), ";")[0])
	state.requests = append(state.requests, recorded{r.Method, path, contentType, body})
	unexpected := func() {
		text := r.Method + " " + path
		if len(body) > 0 {
			text += fmt.Sprintf(" %.200s", body)
		}
		state.unexpected = append(state.unexpected, text)
		reply(w, 404, statusBody(404, "NotFound", "the loopback endpoint does not serve "+r.Method+" "+path))
	}
	switch r.Method {
	case http.MethodGet:
		if document := discoveryDocument(state, path); document != nil {
			reply(w, 200, document)
			return
		}
		if object, ok := state.objects[path]; ok {
			reply(w, 200, object)
			return
		}
		if name, ok := strings.CutPrefix(path, "/api/v1/namespaces/"); ok && state.namespaces[name] {
			reply(w, 200, map[string]interface{}{"apiVersion": "v1", "kind": "Namespace",
				"metadata": map[string]interface{}{"name": name}, "status": map[string]interface{}{"phase": "Active"}})
			return
		}
		if path == "/openapi/v2" || path == "/openapi/v3" || path == "/version" {
			reply(w, 404, statusBody(404, "NotFound", "the loopback endpoint publishes no "+path))
			return
		}
		for _, resource := range state.resources {
			if resource.pattern(false).MatchString(path) {
				reply(w, 404, statusBody(404, "NotFound", fmt.Sprintf("%s %q not found", resource.plural(), path[strings.LastIndex(path, "/")+1:])))
				return
			}
		}
		unexpected()
	case http.MethodPatch:
		live, ok := state.objects[path]
		if !ok {
			unexpected()
			return
		}
		code, answer := applyPatch(live, contentType, body)
		if code == 200 {
			state.patched[path] = answer
		}
		reply(w, code, answer)
	case http.MethodPost:
		for _, resource := range state.resources {
			if resource.pattern(true).MatchString(path) {
				if !json.Valid(body) {
					reply(w, 400, statusBody(400, "BadRequest", "the created object is not JSON"))
					return
				}
				reply(w, 201, body)
				return
			}
		}
		unexpected()
	case http.MethodDelete:
		// Helm deletes what the previous release had and the new manifest has not.
		if _, ok := state.objects[path]; ok {
			reply(w, 200, statusBody(200, "", "deleted"))
			return
		}
		for _, resource := range state.resources {
			if resource.pattern(false).MatchString(path) {
				reply(w, 404, statusBody(404, "NotFound", "not found"))
				return
			}
		}
		unexpected()
	default:
		unexpected()
	}
}

// discoveryDocument answers the legacy discovery documents of the served kinds (nil: not one).
func discoveryDocument(state *served, path string) interface{} {
	groups := map[string][]kindResource{} // group/version path -> kinds
	for _, resource := range state.resources {
		groups[resource.groupVersionPath()] = append(groups[resource.groupVersionPath()], resource)
	}
	switch path {
	case "/api":
		return map[string]interface{}{"kind": "APIVersions", "versions": []string{"v1"},
			"serverAddressByClientCIDRs": []map[string]string{{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}}}
	case "/apis":
		versionsOf := map[string][]string{}
		for _, resource := range state.resources {
			if resource.GVK.Group == "" {
				continue
			}
			known := false
			for _, v := range versionsOf[resource.GVK.Group] {
				known = known || v == resource.GVK.Version
			}
			if !known {
				versionsOf[resource.GVK.Group] = append(versionsOf[resource.GVK.Group], resource.GVK.Version)
			}
		}
		names := make([]string, 0, len(versionsOf))
		for name := range versionsOf {
			names = append(names, name)
		}
		sort.Strings(names)
		list := []map[string]interface{}{}
		for _, name := range names {
			var versions []map[string]string
			for _, v := range versionsOf[name] {
				versions = append(versions, map[string]string{"groupVersion": name + "/" + v, "version": v})
			}
			list = append(list, map[string]interface{}{"name": name, "versions": versions, "preferredVersion": versions[0]})
		}
		return map[string]interface{}{"kind": "APIGroupList", "apiVersion": "v1", "groups": list}
	}
	if path == "/api/v1" && groups[path] == nil {
		groups[path] = []kindResource{}
	}
	kinds, ok := groups[path]
	if !ok {
		return nil
	}
	resources := []map[string]interface{}{}
	for _, resource := range kinds {
		resources = append(resources, map[string]interface{}{"name": resource.plural(),
			"singularName": strings.ToLower(resource.GVK.Kind), "namespaced": resource.Namespaced,
			"kind": resource.GVK.Kind, "verbs": []string{"create", "delete", "get", "list", "patch", "update", "watch"}})
	}
	return map[string]interface{}{"kind": "APIResourceList", "apiVersion": "v1",
		"groupVersion": strings.TrimPrefix(strings.TrimPrefix(path, "/apis/"), "/api/"), "resources": resources}
}

// applyPatch is what an API server does with a PATCH body: a strategic merge patch with the
// kind's Go type (a kind without one: 415, as a server answers), a JSON merge patch as
// RFC 7396 (json-patch.v4, the server's library).
func applyPatch(live []byte, contentType string, patch []byte) (int, []byte) {
	var (
		patched []byte
		err     error
	)
	switch contentType {
	case "application/strategic-merge-patch+json":
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		_ = json.Unmarshal(live, &head)
		gv, _ := schema.ParseGroupVersion(head.APIVersion)
		typed, typeErr := scheme.Scheme.New(gv.WithKind(head.Kind))
		if typeErr != nil {
			body, _ := json.Marshal(statusBody(415, "UnsupportedMediaType", fmt.Sprintf(
				"the body of the request was in an unknown format - accepted media types include: "+
					"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")))
			return 415, body
		}
		patched, err = strategicpatch.StrategicMergePatch(live, patch, typed)
	case "application/merge-patch+json":
		patched, err = jsonmergepatch.MergePatch(live, patch)
	default:
		body, _ := json.Marshal(statusBody(415, "UnsupportedMediaType", "the endpoint does not apply "+contentType))
		return 415, body
	}
	if err != nil {
		body, _ := json.Marshal(statusBody(422, "Invalid", "applying the patch: "+err.Error()))
		return 422, body
	}
	return 200, patched
}
