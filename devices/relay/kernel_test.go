package relay

import (
	"testing"
)

func TestKernelAvailable(t *testing.T) {
	if err := KernelError(); err != nil {
		t.Skipf("in-kernel forwarding refused here: %v", err)
	}
}
