package shm

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The copy probe: which way a message between two local ranks should move
// (through the ring, or once with cross-memory attach) depends on how fast
// this machine copies memory and how much a process_vm_readv costs beyond
// its copy, and those differ a lot between machines (bench/README.md). New
// measures both once, in this process, and the runtime takes the single
// copy thresholds from the result (SingleCopyMin) unless GMPI_RMA_MIN or
// GMPI_PUSH_MIN are set.
//
// The data of a message between two ranks is in the other core's cache
// (its process wrote it), and so are the ring's lines, so the probe copies
// blocks another thread just wrote on another CPU, and takes the median
// block: a preemption spoils a few blocks, not the result.

// copyCost is what the probe measured.
type copyCost struct {
	memNS float64 // ns per byte of memmove of data another core just wrote
	cmaNS float64 // ns per byte of process_vm_readv, same source, beyond its fixed cost
	sysNS float64 // fixed cost of one process_vm_readv (64 bytes, cached)
}

const (
	probeBlock  = 64 << 10
	probeBlocks = 16  // blocks of the region the helper cycles through
	probeRounds = 128 // blocks copied, half each way
	probeBudget = 50 * time.Millisecond
)

// probeCopy measures c reading through pid (this process): a helper
// thread on another CPU writes a block, then this thread copies it out,
// by memmove or by process_vm_readv (alternating, so both see the same
// machine), as a receiver copies what the sender's core just wrote. The
// helper may run on a CPU outside this process's affinity (mpirun binds
// each rank to one core): New runs the probe in one rank of the host
// while the others wait in the KVS barrier, so their cores are idle. err
// says why there is no result: no second CPU, process_vm_readv fails, or
// the probe took longer than probeBudget (the helper did not get a CPU).
func probeCopy(pid int) (c copyCost, err error) {
	return measureCopy(pid, probeBlock, probeRounds)
}

// measureCopy is probeCopy with blocks of block bytes, rounds of them.
func measureCopy(pid, probeBlock, probeRounds int) (c copyCost, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		return c, err
	}
	// Any CPU but ours (the kernel keeps those the cpuset allows; none:
	// EINVAL). With several of ours, the helper gets all but the first
	// and we keep the first.
	var theirs unix.CPUSet
	first := -1
	for i := 0; i < 8*int(unsafe.Sizeof(theirs)); i++ {
		if mine.IsSet(i) && first < 0 {
			first = i
			continue
		}
		theirs.Set(i)
	}
	if first < 0 {
		return c, errors.New("no CPU")
	}
	if mine.Count() > 1 {
		var one unix.CPUSet
		one.Set(first)
		if err := unix.SchedSetaffinity(0, &one); err != nil {
			return c, err
		}
		defer unix.SchedSetaffinity(0, &mine)
	}

	// The helper needs a P of its own while we spin (a bound rank's
	// GOMAXPROCS is 1).
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	region := make([]byte, probeBlocks*probeBlock)
	dst := make([]byte, probeBlock)
	base := addrOf(region)
	var turn atomic.Int32 // odd: the helper writes block turn/2; even: ours
	var stop atomic.Bool
	helper := make(chan error)
	go func() {
		runtime.LockOSThread() // ends with the goroutine: the thread exits
		err := unix.SchedSetaffinity(0, &theirs)
		helper <- err
		if err != nil {
			return
		}
		for k := int32(1); ; k += 2 {
			for turn.Load() != k {
				if stop.Load() {
					return
				}
			}
			b := region[int(k/2)%probeBlocks*probeBlock:][:probeBlock]
			for i := 0; i < len(b); i += 8 {
				b[i] = byte(k)
			}
			turn.Store(k + 1)
		}
	}()
	defer stop.Store(true)
	if err := <-helper; err != nil {
		return c, fmt.Errorf("no other CPU for the helper thread: %w", err)
	}

	// Fixed cost: the best of a few small cached reads.
	sys := math.Inf(1)
	for range 32 {
		t := time.Now()
		if n, err := readv(pid, dst[:64], base); err != nil || n != 64 {
			return c, fmt.Errorf("process_vm_readv: %d, %v", n, err)
		}
		sys = min(sys, float64(time.Since(t)))
	}
	var mem, cma []float64
	deadline := time.Now().Add(probeBudget)
	for k := int32(1); k < 2*int32(probeRounds); k += 2 {
		turn.Store(k)
		for turn.Load() != k+1 {
			if time.Now().After(deadline) {
				return c, errors.New("over its time budget (busy machine)")
			}
		}
		off := int(k/2) % probeBlocks * probeBlock
		t := time.Now()
		if k&2 == 0 {
			copy(dst, region[off:off+probeBlock])
			mem = append(mem, float64(time.Since(t)))
		} else {
			if n, err := readv(pid, dst, base+uintptr(off)); err != nil || n != probeBlock {
				return c, fmt.Errorf("process_vm_readv: %d, %v", n, err)
			}
			cma = append(cma, float64(time.Since(t)))
		}
	}
	slices.Sort(mem)
	slices.Sort(cma)
	m, r := mem[len(mem)/2], cma[len(cma)/2]
	if m <= 0 || r <= 0 || math.IsInf(sys, 0) {
		return c, errors.New("the clock did not move")
	}
	c.sysNS = sys
	c.memNS = m / float64(probeBlock)
	c.cmaNS = max(r-sys, r/4) / float64(probeBlock)
	return c, nil
}

// Protocol costs of one message of n bytes between two otherwise idle
// cores, in ns, under the probe's model. A control frame (RTS, CTS, the
// single copy's done and push frames) is taken to cost about one
// process_vm_readv's fixed cost: both are a few hundred ns of crossing
// (a system call, a cache line between cores).
//
//	eager  (n <= eager limit)  sender copies into the ring, then the receiver
//	                           copies out: 2n·mem
//	stream (rendezvous)        RTS/CTS, then frames whose two copies overlap:
//	                           2·ctl + n·mem + min(n, frame)·mem
//	read   (single copy)       the receiver reads it all, then the done frame:
//	                           sys + ctl + n·cma
//	split  (single copy)       push request to the sender, both copy half,
//	                           push-done and done frames: 3·ctl + sys + n/2·cma
func (c copyCost) eager(n float64) float64 { return 2 * n * c.memNS }
func (c copyCost) stream(n, frame float64) float64 {
	return 2*c.sysNS + n*c.memNS + min(n, frame)*c.memNS
}
func (c copyCost) read(n float64) float64  { return 2*c.sysNS + n*c.cmaNS }
func (c copyCost) split(n float64) float64 { return 4*c.sysNS + n/2*c.cmaNS }

// Limits of the sizes the thresholds are chosen among (powers of two).
const (
	minSingleCopy = 4 << 10
	maxSingleCopy = 64 << 20
)

// Margins of the choice. The comparison of single copy with the ring is
// close on some machines (on the 2-vCPU VMs we measure on, memmove 9.5-13.5
// GB/s against process_vm_readv 5-6.3 GB/s, from launch to launch), and
// then an exact comparison flips with the probe's noise: half the
// launches streamed every rendezvous message (10-12 GB/s one way at
// 128 KiB-1 MiB), the others shared its copy (20-30 GB/s). So a close
// call keeps one answer:
//
//   - streaming is taken only when it beats a single copy by
//     streamMargin. The probe errs against the single copy at these
//     sizes: it reads blocks another core wrote a moment ago, which
//     streaming's ring lines always are but most of a large message's
//     data is not (reads of whole messages in bibw ran 1.4-2x faster
//     than the probe's number), and the model does not count that the
//     sender's half of a shared copy reads its own, local data. Where
//     process_vm_readv is much slower (the machine of session 2: a third
//     of memcpy's speed) streaming still wins.
//   - a message up to the eager limit goes single copy only when that
//     beats the eager copies by eagerMargin: a small message's data is
//     as fresh in the sender's cache as the probe's, and eager needs no
//     round trip.
//
// bench/README.md ("Both directions at once", p2p9b) has the numbers.
const (
	streamMargin = 1.25
	eagerMargin  = 1.1
)

// thresholds picks, from c, the smallest message sent single copy (rmaMin)
// and the smallest single copy shared with the sender (pushMin): the
// smallest power of two from which the cheaper single copy beats the ring
// (eager up to eagerMax, then streaming in frames, each with its margin)
// at every larger power of two up to maxSingleCopy, and likewise split
// against read. A machine where the ring always wins gets rmaMin =
// math.MaxInt (never).
func (c copyCost) thresholds(eagerMax, frame int) (rmaMin, pushMin int) {
	rmaMin, pushMin = math.MaxInt, math.MaxInt
	for n := maxSingleCopy; n >= minSingleCopy; n /= 2 {
		x := float64(n)
		ring := c.stream(x, float64(frame)) * streamMargin
		if n <= eagerMax {
			ring = min(ring, c.eager(x)/eagerMargin)
		}
		if min(c.read(x), c.split(x)) >= ring {
			break
		}
		rmaMin = n
	}
	for n := maxSingleCopy; n >= minSingleCopy; n /= 2 {
		if c.split(float64(n)) >= c.read(float64(n)) {
			break
		}
		pushMin = n
	}
	return rmaMin, pushMin
}

// The probe's result in the control line of the lowest local rank's
// segment (layout.go), for the other ranks of the host: it measures, they
// read it after the second barrier of New.
func (c copyCost) store(seg []byte) {
	atomic.StoreUint64(u64(seg, offProbeMem), math.Float64bits(c.memNS))
	atomic.StoreUint64(u64(seg, offProbeCMA), math.Float64bits(c.cmaNS))
	atomic.StoreUint64(u64(seg, offProbeSys), math.Float64bits(c.sysNS)) // last: valid
}

func loadCost(seg []byte) (c copyCost, err error) {
	c.sysNS = math.Float64frombits(atomic.LoadUint64(u64(seg, offProbeSys)))
	c.memNS = math.Float64frombits(atomic.LoadUint64(u64(seg, offProbeMem)))
	c.cmaNS = math.Float64frombits(atomic.LoadUint64(u64(seg, offProbeCMA)))
	if !(c.sysNS > 0 && c.memNS > 0 && c.cmaNS > 0) || math.IsInf(c.sysNS+c.memNS+c.cmaNS, 0) {
		return copyCost{}, errors.New("the lowest local rank has no result")
	}
	return c, nil
}
