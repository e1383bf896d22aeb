package vendorlib

import (
	"os"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	for _, c := range []struct {
		path string
		abi  ABI
	}{
		{"/usr/lib/x86_64-linux-gnu/libmpi.so.40", OpenMPI},
		{"/usr/lib/x86_64-linux-gnu/libmpich.so.12", MPICH},
	} {
		if _, err := os.Stat(c.path); err != nil {
			t.Logf("skip %s: %v", c.path, err)
			continue
		}
		abi, err := Inspect(c.path)
		if err != nil || abi != c.abi {
			t.Errorf("Inspect(%s) = %v, %v; want %v", c.path, abi, err, c.abi)
		}
	}
	for _, c := range []struct{ path, want string }{
		{"/nonexistent/libmpi.so", "cannot load /nonexistent/libmpi.so"},
		{"/etc/passwd", "cannot load /etc/passwd"},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", "unknown MPI ABI"},
	} {
		if _, err := os.Stat(c.path); err != nil && !strings.HasPrefix(c.path, "/nonexistent") {
			continue
		}
		if _, err := Inspect(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Inspect(%s) = %v; want an error with %q", c.path, err, c.want)
		}
	}
}
