package shm

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// maxRW bounds one process_vm_readv call (the kernel caps a transfer at
// MAX_RW_COUNT, just under 2 GiB; shorter reads are looped anyway).
const maxRW = 1 << 30

// ReadRemote copies len(dst) bytes from address addr of local rank peer's
// address space into dst with process_vm_readv (one copy, no ring). peer
// may be this rank itself. It loops over short reads. It fails with an
// error wrapping the errno (errors.Is(err, unix.EPERM) when cross-memory
// attach is not permitted); CanReadRemote tells in advance whether it works.
func (d *Device) ReadRemote(peer int, dst []byte, addr uintptr) error {
	return d.remoteCopy(peer, dst, addr, readv, "process_vm_readv", "from")
}

// WriteRemote copies src into local rank peer's memory at addr with
// process_vm_writev (the pushing half of a cooperative single copy), with
// ReadRemote's rules.
func (d *Device) WriteRemote(peer int, src []byte, addr uintptr) error {
	return d.remoteCopy(peer, src, addr, writev, "process_vm_writev", "to")
}

// remoteCopy runs op (readv or writev) over buf and peer's memory at addr
// until every byte moved, looping over short transfers.
func (d *Device) remoteCopy(peer int, buf []byte, addr uintptr, op func(int, []byte, uintptr) (int, error), name, dir string) error {
	pid := d.pid
	if peer != d.rank {
		if uint(peer) >= uint(len(d.byRank)) || d.byRank[peer] == nil {
			return fmt.Errorf("shm: rank %d is not a local peer of rank %d", peer, d.rank)
		}
		pid = d.byRank[peer].pid
	}
	total := len(buf)
	for len(buf) > 0 {
		n, err := op(pid, buf[:min(len(buf), maxRW)], addr)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err == nil && n == 0 {
			err = unix.EFAULT
		}
		if err != nil {
			hint := ""
			if errors.Is(err, unix.EPERM) {
				hint = " (cross-memory attach not permitted: Yama ptrace_scope, seccomp, or another user)"
			}
			return fmt.Errorf("shm: %s of %d bytes %s rank %d (pid %d) at %#x%s: %w",
				name, total, dir, peer, pid, addr, hint, err)
		}
		buf = buf[n:]
		addr += uintptr(n)
	}
	return nil
}

// CanReadRemote reports whether ReadRemote works towards every local peer.
// New decided it once by reading the first word of each peer's segment
// through the peer's own mapping (or of this process's memory when alone).
func (d *Device) CanReadRemote() bool { return d.canRemote }

// RemoteReadable tells the runtime to use ReadRemote for single-copy
// rendezvous: only when Config.SingleCopy asked for it and it works.
func (d *Device) RemoteReadable() bool { return d.canRemote && d.singleCopy }

// SingleCopyMin tells the runtime, from the copy probe New ran
// (probe.go), the smallest message worth a single copy and the smallest
// single copy worth sharing with the sender (FrameRMAPush); ok is false
// when there was no probe (RemoteReadable is false, or the probe could
// not run: the runtime keeps its defaults).
func (d *Device) SingleCopyMin(eagerMax int) (rmaMin, pushMin int, ok bool) {
	if !d.costOK || !d.RemoteReadable() {
		return 0, 0, false
	}
	rmaMin, pushMin = d.cost.thresholds(eagerMax, d.MaxPayload())
	return rmaMin, pushMin, true
}

// CopyProbe describes the probe's result for diagnostics (GMPI_DEBUG).
func (d *Device) CopyProbe() string {
	if !d.costOK {
		if d.costErr != nil {
			return "copy probe failed: " + d.costErr.Error()
		}
		return "no copy probe"
	}
	return fmt.Sprintf("copy probe: memmove %.1f GB/s, process_vm_readv %.1f GB/s + %.0f ns",
		1/d.cost.memNS, 1/d.cost.cmaNS, d.cost.sysNS)
}

// probeBytes is what the self probe reads (read-only; in the data segment,
// so its address is stable, unlike a stack variable's).
var probeBytes = [8]byte{'g', 'm', 'p', 'i', 'p', 'r', 'o', 'b'}

// probe tries process_vm_readv against every peer while all are known to
// be alive and mapped.
func (d *Device) probe() bool {
	var w [8]byte
	if len(d.peers) == 0 {
		return d.ReadRemote(d.rank, w[:], addrOf(probeBytes[:])) == nil && w == probeBytes
	}
	for _, p := range d.peers {
		if d.ReadRemote(p.rank, w[:], p.addr) != nil {
			return false
		}
		// The peer's mapping starts with the magic word.
		if binary.NativeEndian.Uint64(w[:]) != magic {
			return false
		}
	}
	return true
}
