package cli

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the tests at the module's root, where the documents they
// check (docs/), the golden files (testdata/golden, testdata/delays), the
// libraries' files (libconfig/testdata) and the cluster's manifests
// (deploy/k8s) are: the commands are checked against what the repository
// says of them.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m)
}
