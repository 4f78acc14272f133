package scene

import (
	"testing"

	"github.com/backofflab/backofflab/web/internal/webtest"
)

func TestMain(m *testing.M) { webtest.Main(m) }
