//go:build patchconf_patch

package main

import "testing"

// The patch build names what it leaves out instead of answering it half.
func TestPatchBuildLeavesServerSideApplyOut(t *testing.T) {
	request := `{"cmd":"run","seq":1,"case":{"id":"t::ssa","type":"server-side-apply","steps":[]}}`
	answer, _ := handleLine([]byte(request + "\n"))
	want := `{"seq":1,"skipped":"patch type \"server-side-apply\" is not served by the upstream target"}` + "\n"
	if string(answer) != want {
		t.Errorf("got  %s\nwant %s", answer, want)
	}
	if _, ok := modes["decode"]; ok {
		t.Errorf("the patch build has the decode mode")
	}
}
