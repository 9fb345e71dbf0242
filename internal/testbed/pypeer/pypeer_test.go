package pypeer

import (
	"errors"
	"strings"
	"testing"
)

// A venv deps-python.sh never made fails with the one command that makes it.
func TestMissingVenvNamesTheFix(t *testing.T) {
	_, _, err := Python(SDK("no-such-venv"))
	if !errors.Is(err, ErrMissingDeps) || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("error %v, want ErrMissingDeps naming `make deps`", err)
	}
}

// The venvs make deps builds are there and run their SDK.
func TestVenvsAreInstalled(t *testing.T) {
	for _, sdk := range []SDK{SDK1, SDK2} {
		if _, _, err := Python(sdk); err != nil {
			t.Errorf("%s: %v", sdk, err)
		}
	}
}
