package vmpi

import (
	"strings"
	"testing"
)

// A vendor library that cannot be used is refused with the machine and
// the path named, before anything is initialized. (Traffic through a real
// vendor needs its launcher: tests/scripts/grid_vmpi.sh and grid_local.sh.)
func TestInitRefuses(t *testing.T) {
	for _, c := range []struct{ lib, want string }{
		{"/nonexistent/libmpi.so.40", "machine m1: vendor MPI: cannot load /nonexistent/libmpi.so.40"},
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", "machine m1: vendor MPI: /usr/lib/x86_64-linux-gnu/libc.so.6: unknown MPI ABI"},
	} {
		v, err := Init("m1", c.lib, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Init(%s) = %v, %v; want an error with %q", c.lib, v, err, c.want)
		}
	}
}

func TestNewRankMap(t *testing.T) {
	v := &Vendor{Rank: 0, Size: 3}
	d, err := New(Config{Vendor: v, Rank: 4, Size: 6, VendorRank: map[int]int{5: 1, 2: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Peers(); len(got) != 2 || got[0] != 2 || got[1] != 5 {
		t.Errorf("Peers() = %v, want [2 5]", got)
	}
	for _, bad := range []map[int]int{{5: 0}, {5: 3}, {6: 1}, {1: 1, 2: 1}} {
		if _, err := New(Config{Vendor: v, Rank: 4, Size: 6, VendorRank: bad}); err == nil {
			t.Errorf("New accepted the rank map %v", bad)
		}
	}
}
