package mpirt_test

import (
	"encoding/binary"
	"testing"

	mpirt "gmpi/runtime"
)

// Level sub-communicators (SubComm): ranks, nesting, refusals, and that
// their traffic never matches the parent's on the same tag.
func TestSubComm(t *testing.T) {
	const n = 5
	job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		var group []int // the world ranks of my parity
		for r := range n {
			if r%2 == me%2 {
				group = append(group, r)
			}
		}
		lo, err := c.SubComm(1, group)
		if err != nil {
			t.Fatalf("rank %d: SubComm: %v", me, err)
		}
		if lo.Size() != len(group) || lo.Rank() != me/2 || lo.SubDepth() != 1 || lo.WorldRank(lo.Rank()) != me {
			t.Fatalf("rank %d: sub-communicator size %d rank %d depth %d", me, lo.Size(), lo.Rank(), lo.SubDepth())
		}
		// The same tag on both: each ring gets its own communicator's data.
		const tag = 7
		put := func(x int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(x)) }
		ln, lr := lo.Size(), lo.Rank()
		bl, bc := make([]byte, 4), make([]byte, 4)
		rl := lo.CollIrecv(bl, (lr+ln-1)%ln, tag)
		rc := c.CollIrecv(bc, (me+n-1)%n, tag)
		sc, err := c.CollIsend(put(1000+me), (me+1)%n, tag)
		if err != nil {
			t.Fatal(err)
		}
		sl, err := lo.CollIsend(put(lr), (lr+1)%ln, tag)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*mpirt.Request{rl, rc, sc, sl} {
			if err := w.Wait(r); err != nil {
				t.Fatal(err)
			}
		}
		got := func(b []byte) int { return int(binary.LittleEndian.Uint32(b)) }
		if g := got(bc); g != 1000+(me+n-1)%n {
			t.Errorf("rank %d: parent ring got %d", me, g)
		}
		if g := got(bl); g != (lr+ln-1)%ln {
			t.Errorf("rank %d: sub-communicator ring got %d", me, g)
		}

		// Nested below lo: only me.
		one, err := lo.SubComm(2, []int{me})
		if err != nil || one.Size() != 1 || one.SubDepth() != 2 {
			t.Fatalf("rank %d: nested SubComm: %v", me, err)
		}
		// Refusals: index out of range, a group without the caller, a
		// member outside the parent.
		if _, err := c.SubComm(0, group); err == nil {
			t.Errorf("rank %d: SubComm index 0 accepted", me)
		}
		other := []int{(me + 1) % n}
		if _, err := c.SubComm(3, other); err == nil {
			t.Errorf("rank %d: SubComm without the caller accepted", me)
		}
		outside := me + 1 // of the other parity
		if outside == n {
			outside = me - 1
		}
		if _, err := lo.SubComm(3, []int{me, outside}); err == nil {
			t.Errorf("rank %d: SubComm with a member outside the parent accepted", me)
		}
	})
}

// Inline and InlineParallel: a schedule on the parent composed of
// schedules built on sub-communicators, run twice (as a persistent
// collective is), each step with its own communicator and tag.
func TestScheduleInline(t *testing.T) {
	const n = 6
	job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
		w.SetThreadLevel(3)
		c := w.CommWorld()
		me := c.Rank()
		var even, half []int
		for r := range n {
			if r%2 == me%2 {
				even = append(even, r)
			}
			if r/3 == me/3 {
				half = append(half, r)
			}
		}
		a, err := c.SubComm(1, even)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.SubComm(2, half)
		if err != nil {
			t.Fatal(err)
		}
		val := 0
		word := func(x int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(x)) }
		out, in := make([]byte, 4), make([]byte, 4)
		// ring(sub): send val to the next member, add what the previous sent.
		ring := func(sub *mpirt.Comm, into, from []byte) *mpirt.Schedule {
			s := sub.NewSchedule()
			k, r := sub.Size(), sub.Rank()
			s.Local(func() error { copy(from, word(val)); return nil })
			s.Send(sub, from, (r+1)%k)
			s.Recv(sub, into, (r+k-1)%k)
			s.Round()
			s.Local(func() error { val += int(binary.LittleEndian.Uint32(into)); return nil })
			return s
		}
		inA, inB, fromA, fromB := make([]byte, 4), make([]byte, 4), make([]byte, 4), make([]byte, 4)
		s := c.NewSchedule()
		s.Local(func() error { val = me + 1; return nil })
		s.Inline(ring(a, inA, fromA)) // val += previous in a
		// Both rings at once: they read val when their first round
		// runs, side by side.
		var pa, pb int
		chA := a.NewSchedule()
		chA.Send(a, word(me), (a.Rank()+1)%a.Size())
		chA.Recv(a, in, (a.Rank()+a.Size()-1)%a.Size())
		chA.Round()
		chA.Local(func() error { pa = int(binary.LittleEndian.Uint32(in)); return nil })
		chB := b.NewSchedule()
		chB.Send(b, word(100+me), (b.Rank()+1)%b.Size())
		chB.Recv(b, out, (b.Rank()+b.Size()-1)%b.Size())
		chB.Round()
		chB.Local(func() error { pb = int(binary.LittleEndian.Uint32(out)); return nil })
		s.InlineParallel(chA, chB)
		s.Inline(ring(b, inB, fromB)) // val += previous in b
		// prevIn(g, r): r's predecessor in ring g.
		prevIn := func(g []int, r int) int {
			for i, x := range g {
				if x == r {
					return g[(i+len(g)-1)%len(g)]
				}
			}
			return -1
		}
		evenOf := func(r int) []int { // r's parity ring
			var g []int
			for x := range n {
				if x%2 == r%2 {
					g = append(g, x)
				}
			}
			return g
		}
		// After a's ring: v(r) = r+1 + prevA(r)+1; b's ring adds the
		// predecessor's v.
		v := func(r int) int { return r + 1 + prevIn(evenOf(r), r) + 1 }
		wantVal := v(me) + v(prevIn(half, me))
		for run := range 2 {
			r, err := s.Start()
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Wait(r); err != nil {
				t.Fatal(err)
			}
			if pa != prevIn(even, me) || pb != 100+prevIn(half, me) {
				t.Errorf("rank %d run %d: parallel rings got %d, %d", me, run, pa, pb)
			}
			if val != wantVal {
				t.Errorf("rank %d run %d: val %d, want %d", me, run, val, wantVal)
			}
		}
	})
}
