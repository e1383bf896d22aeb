package vmpi

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	mpirt "gmpi/runtime"
)

// mpichLib is Debian's MPICH, the vendor a singleton test can start
// without a launcher.
const mpichLib = "/usr/lib/x86_64-linux-gnu/libmpich.so.12"

// A waiting thread polls the vendor in a tight loop (Poll, and wait for a
// send); those polls must not allocate: garbage made per poll kept Go's
// collector running, whose workers took the cores the ranks spin on
// (bench/README.md, "vMPI bandwidth"). The vendor is loaded once per
// process, so the check runs in a child process of its own.
func TestPollDoesNotAllocate(t *testing.T) {
	if _, err := os.Stat(mpichLib); err != nil {
		t.Skipf("no MPICH: %v", err)
	}
	if os.Getenv("GMPI_VMPI_TEST_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPollDoesNotAllocate$", "-test.v")
		cmd.Env = append(os.Environ(), "GMPI_VMPI_TEST_CHILD=1")
		out, err := cmd.CombinedOutput()
		switch {
		case strings.Contains(string(out), "--- SKIP"):
			t.Skipf("child: %s", out)
		case err != nil || !strings.Contains(string(out), "--- PASS"):
			t.Errorf("child: %v\n%s", err, out)
		}
		return
	}
	v, err := Init("m", mpichLib, nil, nil)
	if err != nil {
		t.Skipf("MPICH as a singleton: %v", err)
	}
	d, err := New(Config{Vendor: v, Rank: 0, Size: 1, VendorRank: map[int]int{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(func(int, *mpirt.Header, []byte) {}); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n := testing.AllocsPerRun(1000, func() { d.Poll() }); n != 0 {
		t.Errorf("Poll allocates %v times per call, want 0", n)
	}
}
