// Package helmupgrade is what the helm-v3 and helm-v4 peers share: one case as a `helm
// upgrade` of one object, against a loopback endpoint in the peer's process. The previous
// release's manifest is the case's `original` (null: the object was not in it), the new
// manifest its `modified`, the live object its `current` (absent: not on the cluster). The
// peer's Update makes its Helm major's calls (Client.Build of both manifests, Client.Update)
// against the endpoint; the answer is what Helm sent: the PATCH body as `patch`, the live
// object after it as `document`; a POST (Helm created the object) answers with the created
// object. Nothing here imports Helm: its two majors differ only in the peer's Update.
package helmupgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"patchconf.dev/targets/peerkit"
)

// CaseTypes are the case types Answer runs: Helm's createPatch is a three-way strategic
// merge patch (overwrite=true) for kinds of its scheme and a two-way JSON merge patch for the
// others, judged as `apply` too (kubectl apply's request).
var CaseTypes = []string{"apply", "strategic-3way", "merge-patch-3way"}

// threeWayCase is an `apply`, `strategic-3way` or `merge-patch-3way` request.
type threeWayCase struct {
	ID       string                 `json:"id"`
	Type     string                 `json:"type"`
	Original json.RawMessage        `json:"original"`
	Modified json.RawMessage        `json:"modified"`
	Current  json.RawMessage        `json:"current"`
	Options  map[string]interface{} `json:"options"`
}

// objectHead is what locates an object.
type objectHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

func headOf(raw json.RawMessage) (objectHead, bool) {
	var head objectHead
	if !isObject(raw) || json.Unmarshal(raw, &head) != nil {
		return head, false
	}
	return head, head.APIVersion != "" && head.Kind != "" && head.Metadata.Name != ""
}

func isObject(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// loopbackGetter is the kubeconfig Helm's factory reads: the loopback endpoint, namespace
// default, discovery kept in memory for the one case (the kinds served change per case).
type loopbackGetter struct{ host string }

func (g loopbackGetter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: g.host, QPS: -1}, nil
}

func (g loopbackGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	config, _ := g.ToRESTConfig()
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	return memory.NewMemCacheClient(client), nil
}

func (g loopbackGetter) ToRESTMapper() (meta.RESTMapper, error) {
	client, err := g.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	return restmapper.NewDeferredDiscoveryRESTMapper(client), nil
}

func (g loopbackGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	config := clientcmdapi.NewConfig()
	config.Clusters["loopback"] = &clientcmdapi.Cluster{Server: g.host}
	config.AuthInfos["loopback"] = &clientcmdapi.AuthInfo{}
	config.Contexts["loopback"] = &clientcmdapi.Context{Cluster: "loopback", AuthInfo: "loopback", Namespace: "default"}
	config.CurrentContext = "loopback"
	return clientcmd.NewDefaultClientConfig(*config, &clientcmd.ConfigOverrides{})
}

var _ genericclioptions.RESTClientGetter = loopbackGetter{}

// Update is the peer's Helm update of one object: Client.Build of the new manifest (and of
// the previous one when originalGiven) through getter, then Client.Update as its Helm
// major's `helm upgrade` calls it.
type Update func(getter genericclioptions.RESTClientGetter, original, modified json.RawMessage, originalGiven bool) error

// Answer runs one `apply`, `strategic-3way` or `merge-patch-3way` case through update
// against the endpoint.
func (e *Endpoint) Answer(raw json.RawMessage, update Update) peerkit.Answer {
	var c threeWayCase
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&c); err != nil {
		return peerkit.Fail("unclassified", fmt.Errorf("unreadable case: %v", err))
	}
	if overwrite, stated := c.Options["overwrite"]; stated && overwrite == false {
		return peerkit.Skip("Helm computes its three-way patch with overwrite=true always (createPatch): it has no setting that reports conflicts")
	}
	target, ok := headOf(c.Modified)
	if !ok {
		return peerkit.Skip("Helm's manifests are objects with apiVersion, kind and metadata.name; `modified` is not one")
	}
	originalGiven := isObject(c.Original)
	if originalGiven {
		if _, ok := headOf(c.Original); !ok {
			return peerkit.Skip("Helm's previous manifest would be an object with apiVersion, kind and metadata.name; `original` is not one")
		}
	}
	state := &served{objects: map[string][]byte{}, namespaces: map[string]bool{"default": true}, patched: map[string][]byte{}}
	addKind := func(head objectHead) (kindResource, error) {
		resource, err := resourceOf(head.APIVersion, head.Kind)
		if err != nil {
			return resource, err
		}
		for _, known := range state.resources {
			if known.GVK == resource.GVK {
				return known, nil
			}
		}
		state.resources = append(state.resources, resource)
		return resource, nil
	}
	for _, head := range []objectHead{target} {
		resource, err := addKind(head)
		if err != nil {
			return peerkit.Skip(err.Error())
		}
		if resource.Namespaced && head.Metadata.Namespace != "" {
			state.namespaces[head.Metadata.Namespace] = true
		}
	}
	if originalGiven {
		head, _ := headOf(c.Original)
		if _, err := addKind(head); err != nil {
			return peerkit.Skip(err.Error())
		}
	}
	if isObject(c.Current) {
		head, ok := headOf(c.Current)
		if !ok {
			return peerkit.Skip("the endpoint serves only a live object with apiVersion, kind and metadata.name")
		}
		resource, err := addKind(head)
		if err != nil {
			return peerkit.Skip(err.Error())
		}
		live, err := inNamespace(c.Current, resource, head)
		if err != nil {
			return peerkit.Fail("unclassified", err)
		}
		state.objects[resource.objectPath(head.Metadata.Name, head.Metadata.Namespace)] = live
	}

	done := e.serve(state)
	updateErr := update(loopbackGetter{host: e.server.URL}, c.Original, c.Modified, originalGiven)
	done()

	if len(state.unexpected) > 0 {
		return peerkit.Fail("unclassified", fmt.Errorf("Helm made requests the loopback endpoint does not serve: %s",
			strings.Join(state.unexpected, "; ")))
	}
	patches, creates := state.sent("PATCH"), state.sent("POST")
	if updateErr != nil {
		return peerkit.Fail(classify(updateErr.Error()), updateErr)
	}
	if len(patches)+len(creates) > 1 {
		return peerkit.Fail("unclassified", fmt.Errorf("Helm sent more than one write for one object"))
	}
	switch {
	case len(creates) == 1:
		return peerkit.Result(map[string]json.RawMessage{"document": creates[0].Body})
	case len(patches) == 1:
		document, ok := state.patched[patches[0].Path]
		if !ok {
			return peerkit.Fail("unclassified", fmt.Errorf("the endpoint could not apply Helm's %s", patches[0].ContentType))
		}
		return peerkit.Result(map[string]json.RawMessage{"patch": patches[0].Body, "document": document})
	}
	// Helm sends no PATCH when its patch is {}: the live object stays as it was.
	if !isObject(c.Current) {
		return peerkit.Fail("unclassified", fmt.Errorf("Helm neither patched nor created anything"))
	}
	for _, live := range state.objects {
		return peerkit.Result(map[string]json.RawMessage{"patch": json.RawMessage("{}"), "document": live})
	}
	return peerkit.Fail("unclassified", fmt.Errorf("Helm neither patched nor created anything"))
}

// inNamespace is the live object as a server returns it: a namespaced object names the
// namespace it lives in (default when `current` states none). Helm reads the namespace
// back from the object it patched (Info.Refresh), and would otherwise take the object for
// another one and delete the previous release's.
func inNamespace(current json.RawMessage, resource kindResource, head objectHead) (json.RawMessage, error) {
	if !resource.Namespaced || head.Metadata.Namespace != "" {
		return current, nil
	}
	var object map[string]interface{}
	decoder := json.NewDecoder(bytes.NewReader(current))
	decoder.UseNumber()
	if err := decoder.Decode(&object); err != nil {
		return nil, fmt.Errorf("current: %v", err)
	}
	metadata, _ := object["metadata"].(map[string]interface{})
	metadata["namespace"] = "default"
	return json.Marshal(object)
}

// errorPatterns map Helm's error text (it wraps apimachinery's) onto patchconf's classes, as
// the kubectl targets read kubectl's.
var errorPatterns = []struct {
	pattern *regexp.Regexp
	class   string
}{
	{regexp.MustCompile(`precondition|at least one field was changed`), "precondition-failed"},
	{regexp.MustCompile(`unable to find api field|unable to find schema`), "no-strategic-schema"},
	{regexp.MustCompile(`does not contain declared merge key|cannot merge lists without merge key`), "merge-key-missing"},
	{regexp.MustCompile(`list element types are not identical|expected a .* but received|data type is not struct`), "type-mismatch"},
	{regexp.MustCompile(`unknown patch type: .* in map:`), "invalid-directive"},
	{regexp.MustCompile(`retainKeys`), "retain-keys-violation"},
	{regexp.MustCompile(`invalid patch format of|merging lists cannot yet be specified|doesn't match \$setElementOrder`), "invalid-directive"},
	{regexp.MustCompile(`is not a map`), "type-mismatch"},
	{regexp.MustCompile(`lists of lists|list of lists`), "list-of-lists"},
	{regexp.MustCompile(`Unknown patch type|unknown patch type|\$patch|directive`), "invalid-directive"},
	{regexp.MustCompile(`Object 'Kind' is missing`), "invalid-document"},
	{regexp.MustCompile(`cannot unmarshal|invalid JSON|unexpected end`), "invalid-patch"},
	{regexp.MustCompile(`invalid type|doesn't match|does not match|expected .* but got`), "type-mismatch"},
}

func classify(message string) string {
	for _, p := range errorPatterns {
		if p.pattern.MatchString(message) {
			return p.class
		}
	}
	return "unclassified"
}
