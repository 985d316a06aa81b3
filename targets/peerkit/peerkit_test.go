package peerkit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func testPeer() Peer {
	return Peer{
		Implementation: Implementation{Name: "kit-test", Version: "v1", Language: "go"},
		Capabilities:   Capabilities{PatchTypes: []string{"json-patch"}, Schemas: []string{"none"}, Profile: "rfc"},
		Answer: func(raw json.RawMessage) Answer {
			var c struct{ ID string }
			_ = json.Unmarshal(raw, &c)
			switch c.ID {
			case "panics":
				panic("boom")
			case "skips":
				return Skip("not mine")
			case "fails":
				return Fail("invalid-patch", errors.New("bad op"))
			case "not-json":
				return Result(map[string]json.RawMessage{"document": json.RawMessage("{oops")})
			case "silent":
				return Answer{}
			}
			return Result(map[string]json.RawMessage{"document": json.RawMessage(`{"n":1.0e400}`)})
		},
	}
}

func converse(t *testing.T, input string) []string {
	t.Helper()
	var out strings.Builder
	if err := testPeer().Serve(strings.NewReader(input), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func TestConversation(t *testing.T) {
	lines := converse(t, strings.Join([]string{
		`{"cmd":"start","protocol":1}`,
		`{"cmd":"run","seq":1,"case":{"id":"ok"}}`,
		`{"cmd":"run","seq":2,"case":{"id":"panics"}}`,
		`{"cmd":"run","seq":3,"case":{"id":"skips"}}`,
		`{"cmd":"run","seq":4,"case":{"id":"fails"}}`,
		`{"cmd":"run","seq":5,"case":{"id":"not-json"}}`,
		`{"cmd":"run","seq":6,"case":{"id":"silent"}}`,
		`{"cmd":"dance","seq":7}`,
		`not json`,
		``,
		`{"cmd":"stop"}`,
		`{"cmd":"run","seq":8,"case":{"id":"ok"}}`,
	}, "\n")+"\n")
	want := []string{
		`{"ready":true,"protocol":1,"implementation":{"name":"kit-test","version":"v1","language":"go"},` +
			`"capabilities":{"patch_types":["json-patch"],"schemas":["none"],"profile":"rfc","messages":false}}`,
		`{"seq":1,"result":{"document":{"n":1.0e400}}}`,
		`{"seq":2,"error":{"class":"unclassified","message":"panic: boom"}}`,
		`{"seq":3,"skipped":"not mine"}`,
		`{"seq":4,"error":{"class":"invalid-patch","message":"bad op"}}`,
		`{"seq":5,"error":{"class":"unclassified","message":"the library's output is not JSON: ` +
			`json: error calling MarshalJSON for type json.RawMessage: invalid character 'o' looking for beginning of object key string"}}`,
		`{"seq":6,"error":{"class":"unclassified","message":"the peer gave no answer"}}`,
		`{"seq":7,"error":{"class":"unclassified","message":"unknown command \"dance\""}}`,
		`{"seq":null,"error":{"class":"unclassified","message":"unreadable request: invalid character 'o' in literal null (expecting 'u')"}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], want[i])
		}
	}
}

func TestEndOfInputWithoutStop(t *testing.T) {
	lines := converse(t, `{"cmd":"run","seq":"a","case":{"id":"skips"}}`)
	if len(lines) != 1 || lines[0] != `{"seq":"a","skipped":"not mine"}` {
		t.Fatalf("got %q", lines)
	}
}

func TestRender(t *testing.T) {
	peer := testPeer()
	peer.Capabilities.Answers = []string{"document"}
	peer.Render = func(raw, document json.RawMessage) (interface{}, error) {
		var c struct{ ID string }
		_ = json.Unmarshal(raw, &c)
		switch c.ID {
		case "fails":
			return nil, errors.New("cannot read it")
		case "panics":
			panic("boom")
		}
		var shown map[string]interface{}
		if err := json.Unmarshal(document, &shown); err != nil {
			return nil, err
		}
		shown["normalized"] = true
		return shown, nil
	}
	var out strings.Builder
	input := strings.Join([]string{
		`{"cmd":"start","protocol":1}`,
		`{"cmd":"render","seq":1,"case":{"id":"ok"},"document":{"a":1}}`,
		`{"cmd":"render","seq":2,"case":{"id":"fails"},"document":{}}`,
		`{"cmd":"render","seq":3,"case":{"id":"panics"},"document":{}}`,
	}, "\n") + "\n"
	if err := peer.Serve(strings.NewReader(input), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"ready":true,"protocol":1,"implementation":{"name":"kit-test","version":"v1","language":"go"},` +
			`"capabilities":{"patch_types":["json-patch"],"schemas":["none"],"profile":"rfc","messages":false,` +
			`"answers":["document"],"renders":true}}`,
		`{"seq":1,"document":{"a":1,"normalized":true}}`,
		`{"seq":2,"error":{"class":"unclassified","message":"render: cannot read it"}}`,
		`{"seq":3,"error":{"class":"unclassified","message":"render: panic: boom"}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func TestKubernetesReleaseOfAStagingModuleVersion(t *testing.T) {
	for version, want := range map[string]string{"v0.37.1": "1.37.1", "v0.33.13": "1.33.13", "unknown": "", "v1.2.3": ""} {
		if got := kubernetesRelease(version); got != want {
			t.Errorf("kubernetesRelease(%q) = %q, want %q", version, got, want)
		}
	}
}
