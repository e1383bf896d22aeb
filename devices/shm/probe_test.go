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
		// a copy of n/10 ns once n/10 > 800 ns (8 KB), and by
		// eagerMargin from 16 KiB (8 KiB: read 1619 ns against eager
		// 1638). Split beats read once n/20 > 800 ns: 16 KiB.
		{"cma as fast as memcpy", copyCost{memNS: 0.1, cmaNS: 0.1, sysNS: 400}, 16 << 10, 16 << 10},
		// readv at a third of memcpy: it never beats streaming (n·mem
		// against n/2·cma = 1.5 n·mem) at large sizes. Split beats read
		// from 2·sys < n/2·cma: n > 10.7 KB.
		{"slow cma", copyCost{memNS: 0.05, cmaNS: 0.15, sysNS: 400}, math.MaxInt, 16 << 10},
		// The two answers of one 2-vCPU VM from launch to launch
		// (bench/README.md, p2p9b): memmove 13.5 GB/s against readv
		// 6 GB/s + 350 ns, and 9.8 against 5.5 + 550 ns. Split
		// (n/2·cma per byte) is within streamMargin of streaming (n·mem)
		// in both, and at 32 KiB split beats eager (2n·mem) by more than
		// eagerMargin, at 16 KiB not: both take the same thresholds,
		// single copy from 32 KiB, shared from 16 KiB. An exact
		// comparison gave "never" for the first (stream 0.074 ns/B
		// against split 0.083).
		{"close call, fast memmove", copyCost{memNS: 1 / 13.5, cmaNS: 1 / 6.0, sysNS: 350}, 32 << 10, 16 << 10},
		{"close call, slow memmove", copyCost{memNS: 1 / 9.8, cmaNS: 1 / 5.5, sysNS: 550}, 32 << 10, 16 << 10},
	} {
		rma, push := tc.c.thresholds(64<<10, 64<<10)
		if rma != tc.rma || push != tc.push {
			t.Errorf("%s: thresholds %d, %d; want %d, %d", tc.name, rma, push, tc.rma, tc.push)
		}
	}
}
