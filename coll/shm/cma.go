package shm

import (
	"fmt"
)

// Single-copy blocks. Through the segment a block is copied twice (into
// the sender's slots, out of them). When every rank can read every other
// rank's memory with cross-memory attach (process_vm_readv) and the host
// is not oversubscribed (agreed when the segment is set up, so all ranks
// take the same path), Gather,
// Allgather, Scatter and Alltoall copy each block once when it is at
// least cmaMin bytes and the segment would need several rounds for it
// (useCMA): every rank publishes the address of its packed
// data (the user's memory when contiguous, else a private buffer packed
// first) in a small slot, the ranks that want a block read it straight
// from the owner's memory into their packed output, and the owner keeps
// its data in place until every reader is done. The bytes are the ones
// the segment path moves: the results are identical.
const cmaMin = 32 << 10

// useCMA reports whether blocks of blk bytes go single-copy, where the
// segment moves perRound bytes of each block per round. Within one round
// the segment path lets the writer run ahead (it returns once its data is
// in its slots), where the single copy holds the owner until its readers
// are done: measured at load 30-40 on 2 cores, 64 KiB blocks at 2 ranks
// were 2-4x slower single-copy, 1 MiB blocks 1.4-2.7x faster.
func (m *module) useCMA(blk, perRound int) bool {
	return m.cma && (m.forceCMA || blk >= cmaMin && blk > perRound)
}

// cmaPost publishes the address of data (nil: nothing to read here) at
// a new two-step round; it returns the round's slot and steps. Readers
// wait for s1, the owners for end (or for the one reader's end).
func (m *module) cmaPost(data []byte) (g *ring, first int, s1, end uint64) {
	s1, end = m.pv.step+1, m.pv.step+2
	m.pv.step = end
	g = &m.small
	first, free := g.alloc(8, end)
	m.waitAll(free)
	putAddr(m.seg.slots(m.me, g, first, 8), data)
	m.publish(s1)
	return g, first, s1, end
}

// cmaRead copies len(dst) bytes at offset off of what rank r published
// at (g, first, s1) into dst.
func (m *module) cmaRead(r int, g *ring, first int, s1 uint64, dst []byte, off int) error {
	if len(dst) == 0 {
		return nil
	}
	m.waitRank(r, s1)
	addr := getAddr(m.seg.slots(r, g, first, 8))
	if addr == 0 {
		return fmt.Errorf("coll/shm: rank %d published no data", r)
	}
	if err := m.c.World().ReadRemote(m.c.WorldRank(r), dst, addr+uintptr(off)); err != nil {
		return fmt.Errorf("coll/shm: reading rank %d's block: %w", r, err)
	}
	return nil
}

// Single-copy reductions. redCMAMin: Reduce and Allreduce of at least
// this many (packed) bytes go single-copy when the module may (cma,
// push): every rank publishes where its operand is (and, where the
// result is wanted, where the result goes); rank r reduces slice r of
// every round, reading the other ranks' pieces of that slice straight
// from their memory, and writes its result slice straight into every
// output (its own with a copy, the others' with process_vm_writev).
// Every byte of an operand is copied once (by the rank that owns its
// slice) and every byte of a result once per output, all ranks working
// in parallel; through the segment, the operands are copied in, the
// slices combined into the slots and copied out again. The association
// is combine's (the binomial tree of coll/basic), so the bits are the
// same on both paths. redCMARound bounds a round (the private buffers
// that hold the other ranks' pieces of one slice).
const (
	redCMAMin   = 64 << 10
	redCMARound = 1 << 20
)

// useCMARed reports whether a reduction of total packed bytes (units of
// unit bytes) goes single-copy.
func (m *module) useCMARed(total, unit int) bool {
	return m.cma && m.push && (m.forceCMA || total >= redCMAMin && total/unit >= m.n)
}

// reductionCMA is the single-copy reduction (see redCMAMin) of a's
// packed operand into a.out (every rank when a.all, else the root's).
// inPlace: a.in and a.out are the same memory.
func (m *module) reductionCMA(a *redArgs, inPlace bool) error {
	x := m.redCMABegin(inPlace)
	m.waitAll(x.free)
	m.redCMAPost(a, &x)
	m.waitAll(x.s1)
	m.redCMAWork(a, &x)
	// The others read this rank's operand and write its output until
	// they completed end.
	m.waitAll(x.end)
	return m.redCMAFinish(a, &x)
}

// redCMA is one single-copy reduction's state between its phases (the
// blocking form runs them in a row, the nonblocking one as the waits
// between them complete): begin, post once every rank completed free,
// work once every rank completed s1, finish once every rank completed
// end.
type redCMA struct {
	g             *ring
	first         int
	s1, end, free uint64
	inPlace       bool
	err           error
}

func (m *module) redCMABegin(inPlace bool) redCMA {
	x := redCMA{s1: m.pv.step + 1, end: m.pv.step + 2, g: &m.small, inPlace: inPlace}
	m.pv.step = x.end
	x.first, x.free = x.g.alloc(24, x.end)
	return x
}

func (x *redCMA) info(m *module, r int) []byte { return m.seg.slots(r, x.g, x.first, 24) }

// redCMAPost publishes where this rank's operand and output are.
func (m *module) redCMAPost(a *redArgs, x *redCMA) {
	mine := x.info(m, m.me)
	putAddr(mine, a.in)
	putAddr(mine[8:], a.out)
	m.publish(x.s1)
}

// redCMAWork reduces this rank's slice of every round and writes it
// into every output, then publishes end.
func (m *module) redCMAWork(a *redArgs, x *redCMA) {
	wantOut := func(r int) bool { return a.all || r == a.root }
	mine := x.info(m, m.me)
	w := m.c.World()
	fail := func(e error) {
		if x.err == nil {
			x.err = e
		}
	}
	total := len(a.in)
	per := redCMARound / a.unit * a.unit
	pieces := make([][]byte, m.n)
	for off := 0; off < total; off += per {
		bytes := min(per, total-off)
		units := bytes / a.unit
		lo, hi := off+units*m.me/m.n*a.unit, off+units*(m.me+1)/m.n*a.unit
		if hi <= lo {
			continue
		}
		// Every rank's piece of this rank's slice.
		for d := 0; d < m.n; d++ {
			r := (m.me + d) % m.n
			if r == m.me {
				pieces[r] = a.in[lo:hi]
				continue
			}
			pieces[r] = m.buf(bufTree+70+d, hi-lo)
			addr := getAddr(x.info(m, r))
			if addr == 0 {
				fail(fmt.Errorf("coll/shm: rank %d published no operand", r))
				continue
			}
			if e := w.ReadRemote(m.c.WorldRank(r), pieces[r], addr+uintptr(lo)); e != nil {
				fail(fmt.Errorf("coll/shm: reading rank %d's operand: %w", r, e))
			}
		}
		// The result slice: into this rank's output when it has one
		// (not over its own operand: the tree reads it after it wrote
		// dst), else a private buffer.
		var res []byte
		if wantOut(m.me) && !x.inPlace {
			res = a.out[lo:hi]
		} else {
			res = m.buf(bufAcc, hi-lo)
		}
		m.combineRange(a, res, 0, 0, m.n, func(r int) []byte { return pieces[r] })
		if wantOut(m.me) && x.inPlace {
			copy(a.out[lo:hi], res)
		}
		for d := 1; d < m.n; d++ {
			r := (m.me + d) % m.n
			if !wantOut(r) {
				continue
			}
			addr := getAddr(x.info(m, r)[8:])
			if addr == 0 {
				fail(fmt.Errorf("coll/shm: rank %d published no output", r))
				continue
			}
			if e := w.WriteRemote(m.c.WorldRank(r), res, addr+uintptr(lo)); e != nil {
				fail(fmt.Errorf("coll/shm: writing a result slice to rank %d: %w", r, e))
			}
		}
	}
	// Status word: whether every copy of this rank succeeded (the ranks
	// whose output it wrote learn of a failure from it).
	mine[16] = 0
	if x.err == nil {
		mine[16] = 1
	}
	m.publish(x.end)
}

// redCMAFinish checks, once every rank completed end, that the ranks
// that wrote this rank's output succeeded.
func (m *module) redCMAFinish(a *redArgs, x *redCMA) error {
	if a.all || m.me == a.root {
		for r := range m.n {
			if r != m.me && x.info(m, r)[16] != 1 && x.err == nil {
				x.err = fmt.Errorf("coll/shm: rank %d could not complete its part of the reduction", r)
			}
		}
	}
	return x.err
}
