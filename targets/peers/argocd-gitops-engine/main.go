// Command argocd-gitops-engine is a patchconf peer target (harness/PROTOCOL.md): it answers
// `apply` cases with Argo CD's diffing, github.com/argoproj/gitops-engine/pkg/diff, as Argo CD's
// default (legacy, client-side three-way) diff calls it: diff.Diff(config, live) with no
// options, which reads the last-applied configuration from the live object's annotation and
// runs diff.ThreeWayDiff(lastApplied, config, live), or, without the annotation, its two-way
// fallback. The answer's `document` is the diff's PredictedLive: the live object Argo CD
// expects once the config is applied, the state it compares the live object against to decide
// whether an application is out of sync. Argo CD compares it with NormalizedLive, the live
// object normalized the same way (its scheme's defaults, Normalize), so the peer renders an
// expected document through that same normalization (protocol "render"): the tool is judged on
// what it compares. It is a peer for the compliance matrix, not a judge: where the prediction
// departs from what kubectl apply makes of the object, that is its answer.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/argoproj/gitops-engine/pkg/diff"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	kubectlutil "k8s.io/kubectl/pkg/util"

	"patchconf.dev/targets/peerkit"
)

const (
	libraryModule = "github.com/argoproj/gitops-engine"
	lastApplied   = "kubectl.kubernetes.io/last-applied-configuration"
)

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	kubernetes := peerkit.ModuleVersion("k8s.io/kubernetes")
	peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "argocd-gitops-engine", Version: version, Language: "go",
			Homepage: "https://github.com/argoproj/gitops-engine/tree/master/pkg/diff", Category: "tool",
			Kubernetes: trimV(kubernetes)},
		// Built-in kinds through client-go's scheme (strategic merge, the scheme's defaults);
		// any other kind as unstructured JSON (a three-way JSON merge patch). "named" and "none":
		// a custom kind's case may name a schema or none, and gitops-engine needs neither.
		// It predicts the object only: gitops-engine never returns the patch it computes.
		Capabilities: peerkit.Capabilities{PatchTypes: []string{"apply"},
			Schemas: []string{"builtin", "named", "none"}, Profile: "kubernetes", Messages: false,
			Answers: []string{"document"}},
		Answer: answer,
		Render: render,
	}.Main(fmt.Sprintf("%s %s (diff.Diff, Kubernetes %s)", libraryModule, version, kubernetes))
}

type applyCase struct {
	Original json.RawMessage `json:"original"`
	Modified json.RawMessage `json:"modified"`
	Current  json.RawMessage `json:"current"`
}

func answer(raw json.RawMessage) peerkit.Answer {
	var c applyCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return peerkit.Fail("unclassified", err)
	}
	config, err := object(c.Modified)
	if err != nil {
		return peerkit.Fail("invalid-document", fmt.Errorf("modified: %w", err))
	}
	live, err := object(c.Current)
	if err != nil {
		return peerkit.Fail("invalid-document", fmt.Errorf("current: %w", err))
	}
	if live != nil {
		if err := carryLastApplied(live, c.Original); err != nil {
			return peerkit.Fail("invalid-document", err)
		}
	}
	// Argo CD's controller passes its own logger; a discarding one keeps stderr for the peer.
	result, err := diff.Diff(config, live, diff.WithLogr(logr.Discard()))
	if err != nil {
		return peerkit.Fail("unclassified", err)
	}
	document, err := decode(result.PredictedLive)
	if err != nil {
		return peerkit.Fail("unclassified", fmt.Errorf("PredictedLive: %w", err))
	}
	return peerkit.Result(map[string]interface{}{"document": document})
}

// render is an expected live object as Argo CD shows the object it compares its prediction
// with, by its own code: with a live object, the NormalizedLive of diff.Diff on the expected
// object (remarshalled through client-go's scheme, Normalize, the scheme's defaults; it does
// not depend on the config, so the object is its own); without one, Argo CD's prediction is
// the config as diff.Diff(config, nil) remarshals and normalizes it, undefaulted, and the
// expected object is shown the same way.
func render(raw json.RawMessage, document json.RawMessage) (interface{}, error) {
	var c applyCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	expected, err := object(document)
	if err != nil || expected == nil || expected.GetKind() == "" {
		// Not an object Argo CD would hold: shown as it is.
		return decode(document)
	}
	live, err := object(c.Current)
	if err != nil {
		return nil, err
	}
	if live == nil {
		result, err := diff.Diff(expected, nil, diff.WithLogr(logr.Discard()))
		if err != nil {
			return nil, err
		}
		return decode(result.PredictedLive)
	}
	result, err := diff.Diff(expected.DeepCopy(), expected, diff.WithLogr(logr.Discard()))
	if err != nil {
		return nil, err
	}
	return decode(result.NormalizedLive)
}

// carryLastApplied puts `original` on the live object as its last-applied annotation, where
// Argo CD reads it, in kubectl's own text (kubectl's util.GetModifiedConfiguration with the
// codec kubectl apply uses, as the kubectl-apply target has kubectl write it: Argo CD syncs with
// kubectl apply); a null `original` is a live object without one, the case of an object never
// applied client-side; a case without `original` leaves the live object as it is.
func carryLastApplied(live *unstructured.Unstructured, original json.RawMessage) error {
	if len(original) == 0 {
		return nil // no `original` in the case: the live object as it is
	}
	annotations := live.GetAnnotations()
	if bytes.Equal(bytes.TrimSpace(original), []byte("null")) {
		if _, ok := annotations[lastApplied]; ok {
			delete(annotations, lastApplied)
			live.SetAnnotations(annotations)
		}
		return nil
	}
	text, err := kubectlText(original)
	if err != nil {
		return fmt.Errorf("original: %w", err)
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[lastApplied] = text
	live.SetAnnotations(annotations)
	return nil
}

// kubectlText is the annotation kubectl writes for a configuration; where kubectl could not
// encode it (not an object), its JSON and a newline, as the kubectl-apply target falls back.
func kubectlText(original json.RawMessage) (string, error) {
	config, err := object(original)
	if err == nil && config != nil {
		if text, err := kubectlutil.GetModifiedConfiguration(config, false, unstructured.UnstructuredJSONScheme); err == nil {
			return string(text), nil
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, original); err != nil {
		return "", err
	}
	return compact.String() + "\n", nil
}

// object reads a case's object as the unstructured value Argo CD holds, integers as int64 as
// Kubernetes' decoders give them (nil when absent or null).
func object(raw json.RawMessage) (*unstructured.Unstructured, error) {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	var fields map[string]interface{}
	if err := utiljson.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: fields}, nil
}

// decode reads the prediction keeping each number's text (it is Go's encoding of Argo CD's values).
func decode(data []byte) (interface{}, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	return value, nil
}

func trimV(version string) string {
	if len(version) > 1 && version[0] == 'v' {
		return version[1:]
	}
	return version
}
