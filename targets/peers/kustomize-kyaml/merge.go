package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"patchconf.dev/targets/peerkit"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge2"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// Only `strategic`: merge3 computes a merged document, never the patch that a three-way
// type (`strategic-3way`, `apply`) must answer, so those are left out rather than failed.
var patchTypes = []string{"strategic"}

func (c *patchCase) run() peerkit.Answer {
	if c.Type != "strategic" {
		return peerkit.Skip(fmt.Sprintf("patch type %q is not served by %s", c.Type, libraryModule))
	}
	if c.Original == nil || c.Patch == nil {
		return peerkit.Skip("a strategic case needs original and patch")
	}
	if c.Schema != nil && c.Schema.Named != "" {
		return peerkit.Skip("named schemas are not loaded into kyaml by this peer")
	}
	// JSON is YAML: kyaml parses both inputs as kustomize reads resource files.
	dest, err := yaml.Parse(string(c.Original))
	if err != nil {
		return peerkit.Fail("invalid-document", err)
	}
	patch, err := yaml.Parse(string(c.Patch))
	if err != nil {
		return peerkit.Fail("invalid-patch", err)
	}
	// merge2.Merge's walk with kustomize's patchesStrategicMerge options
	// (api/filters/patchstrategicmerge); the schema is the case's kind when it names one,
	// which is what merge2.Merge would look up from the document's own apiVersion/kind.
	walker := walk.Walker{
		Sources:      []*yaml.RNode{dest, patch},
		Visitor:      merge2.Merger{},
		MergeOptions: yaml.MergeOptions{ListIncreaseDirection: yaml.MergeOptionsListPrepend},
	}
	if c.Schema != nil && c.Schema.Kind != "" {
		walker.Schema = openapi.SchemaForResourceType(yaml.TypeMeta{APIVersion: c.Schema.APIVersion, Kind: c.Schema.Kind})
	}
	merged, err := walker.Walk()
	if err != nil {
		return peerkit.Fail(classify(err), err)
	}
	document, err := nodeJSON(merged)
	if err != nil {
		return peerkit.Fail("unclassified", fmt.Errorf("cannot write kyaml's result as JSON: %v", err))
	}
	return peerkit.Result(&result{Document: document})
}

// classify maps kyaml's errors (plain fmt/go-errors wording, no error values) where the
// wording clearly names the class; everything else is "unclassified".
func classify(err error) string {
	message := err.Error()
	switch {
	case strings.Contains(message, "unknown patch strategy"):
		return "invalid-directive"
	case strings.Contains(message, "no merge key found"):
		return "merge-key-missing"
	case strings.HasPrefix(message, "wrong node kind"):
		return "type-mismatch" // kyaml refuses a patch value whose kind differs from the original's
	}
	return "unclassified"
}

// nodeJSON writes kyaml's result node tree as JSON, keeping each number's own text (the
// inputs were JSON, so every scalar is JSON text again); a removed root (nil) is null.
func nodeJSON(node *yaml.RNode) (json.RawMessage, error) {
	var buf bytes.Buffer
	if node == nil || node.YNode() == nil {
		return json.RawMessage("null"), nil
	}
	if err := writeNode(&buf, node.YNode()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeNode(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return writeNode(buf, n.Content[0])
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			key, _ := json.Marshal(n.Content[i].Value)
			buf.Write(key)
			buf.WriteByte(':')
			if err := writeNode(buf, n.Content[i+1]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeNode(buf, item); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case yaml.NodeTagNull:
			buf.WriteString("null")
		case yaml.NodeTagBool, yaml.NodeTagInt, yaml.NodeTagFloat:
			if !json.Valid([]byte(n.Value)) {
				return fmt.Errorf("scalar %q (%s) is not JSON", n.Value, n.ShortTag())
			}
			buf.WriteString(n.Value)
		default:
			text, _ := json.Marshal(n.Value)
			buf.Write(text)
		}
	default:
		return fmt.Errorf("unexpected YAML node kind %v", n.Kind)
	}
	return nil
}
