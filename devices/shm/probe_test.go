package shm

import (
	"math"
	"os"
	"testing"
)

// TestProbeCopy runs the probe here: it must succeed where
// process_vm_readv on this process works, and give positive costs.
func TestProbeCopy(t *testing.T) {
	c, err := probeCopy(os.Getpid())
	if err != nil {
		t.Skipf("no probe here: %v", err)
	}
	if !(c.memNS > 0 && c.cmaNS > 0 && c.sysNS > 0) {
		t.Fatalf("probe gave %+v", c)
	}
	rma, push := c.thresholds(64<<10, 64<<10)
	t.Logf("probe: memcpy %.1f GB/s, process_vm_readv %.1f GB/s + %.0f ns; single copy from %d, split from %d",
		1/c.memNS, 1/c.cmaNS, c.sysNS, rma, push)
}

// TestThresholds checks the choice on made-up machines.
func TestThresholds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		c         copyCost
		rma, push int
	}{
		// memcpy 10 GB/s, readv 10 GB/s + 400 ns: the single copy saves
		// a copy of n/10 ns once n/10 > 800 ns (8 KB): 8 KiB. Split
		// beats read once n/20 > 800 ns: 16 KiB.
		{"cma as fast as memcpy", copyCost{memNS: 0.1, cmaNS: 0.1, sysNS: 400}, 8 << 10, 16 << 10},
		// readv at a third of memcpy: it never beats streaming (n·mem
		// against n/2·cma = 1.5 n·mem) at large sizes. Split beats read
		// from 2·sys < n/2·cma: n > 10.7 KB.
		{"slow cma", copyCost{memNS: 0.05, cmaNS: 0.15, sysNS: 400}, math.MaxInt, 16 << 10},
	} {
		rma, push := tc.c.thresholds(64<<10, 64<<10)
		if rma != tc.rma || push != tc.push {
			t.Errorf("%s: thresholds %d, %d; want %d, %d", tc.name, rma, push, tc.rma, tc.push)
		}
	}
}
