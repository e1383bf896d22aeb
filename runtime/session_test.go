package mpirt_test

import (
	"errors"
	"sync/atomic"
	"testing"

	mpirt "gmpi/runtime"
)

func TestF90Types(t *testing.T) {
	job(t, 1, 1<<16, 1<<12, func(t *testing.T, w *mpirt.World) {
		cases := []struct {
			comb, p, r, size int
		}{
			{mpirt.CombinerF90Integer, mpirt.Undefined, 2, 1},
			{mpirt.CombinerF90Integer, mpirt.Undefined, 9, 4},
			{mpirt.CombinerF90Integer, mpirt.Undefined, 18, 8},
			{mpirt.CombinerF90Real, 6, 37, 4},
			{mpirt.CombinerF90Real, mpirt.Undefined, 38, 8},
			{mpirt.CombinerF90Complex, 15, mpirt.Undefined, 16},
		}
		for _, c := range cases {
			d, err := w.F90Type(c.comb, c.p, c.r)
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			if d.Size() != c.size {
				t.Errorf("%+v: size %d", c, d.Size())
			}
			comb, ni, _, _, nd := d.Envelope()
			if comb != c.comb || nd != 0 || (ni != 1) != (c.comb != mpirt.CombinerF90Integer) {
				t.Errorf("%+v: envelope %d %d %d", c, comb, ni, nd)
			}
			if d2, _ := w.F90Type(c.comb, c.p, c.r); d2 != d {
				t.Errorf("%+v: not cached", c)
			}
		}
		for _, c := range [][3]int{{mpirt.CombinerF90Integer, 0, 19}, {mpirt.CombinerF90Real, 16, 1}, {mpirt.CombinerF90Complex, 1, 308}} {
			if _, err := w.F90Type(c[0], c[1], c[2]); !errors.Is(err, &mpirt.Error{Class: mpirt.ErrOther}) {
				t.Errorf("%v: error %v, want MPI_ERR_OTHER", c, err)
			}
		}
	})
}

func TestGeneralizedRequest(t *testing.T) {
	job(t, 1, 1<<16, 1<<12, func(t *testing.T, w *mpirt.World) {
		r := w.NewGeneralized(&mpirt.Generalized{})
		if w.Test(r) {
			t.Fatal("complete before MPI_Grequest_complete")
		}
		if err := w.Complete(r); err != nil {
			t.Fatal(err)
		}
		if !w.Test(r) {
			t.Fatal("not complete after Complete")
		}
		if err := w.Complete(r); !errors.Is(err, &mpirt.Error{Class: mpirt.ErrRequest}) {
			t.Fatalf("second Complete: %v", err)
		}
		// A poll hook completes the request during progress.
		var polls atomic.Int32
		var p *mpirt.Request
		p = w.NewGeneralized(&mpirt.Generalized{Poll: func() {
			if polls.Add(1) == 3 {
				w.Complete(p)
			}
		}})
		if err := w.Wait(p); err != nil || polls.Load() != 3 {
			t.Fatalf("wait via poll: %v, %d polls", err, polls.Load())
		}
		// A block hook runs before Wait blocks.
		var b *mpirt.Request
		b = w.NewGeneralized(&mpirt.Generalized{Block: func() { w.Complete(b) }})
		if err := w.WaitAll([]*mpirt.Request{b}); err != nil || !b.Done() {
			t.Fatalf("wait via block: %v", err)
		}
	})
}

func TestSessionPsets(t *testing.T) {
	interJob(t, 3, func(t *testing.T, w *mpirt.World) {
		g, ok := w.PsetGroup("MPI://world")
		if !ok || g.Size() != 3 {
			t.Fatalf("world pset: %v", ok)
		}
		s, ok := w.PsetGroup(mpirt.PsetSelf)
		if !ok || s.Size() != 1 || s.WorldRank(0) != w.Rank() {
			t.Fatalf("self pset")
		}
		if _, ok := w.PsetGroup("mpi://nothing"); ok {
			t.Fatal("unknown pset found")
		}
		c, err := w.CommFromGroup(g, "t1")
		if err != nil || c.Size() != 3 || c.Rank() != w.Rank() {
			t.Fatalf("CommFromGroup: %v", err)
		}
		c.Free()
		// Rank 0 alone against ranks 1 and 2.
		local, remote := mpirt.NewGroup([]int{0}), mpirt.NewGroup([]int{1, 2})
		if w.Rank() != 0 {
			local, remote = remote, local
		}
		ic, err := w.IntercommFromGroups(local, 0, remote, 0, "t2")
		if err != nil || !ic.IsInter() || ic.RemoteSize() != remote.Size() {
			t.Fatalf("IntercommFromGroups: %v", err)
		}
		ic.Free()
		sess := w.NewSession(mpirt.HandleErrorsReturn, mpirt.NewInfo())
		if w.Session(sess.Handle()) != sess || sess.Handle().Type() != mpirt.ObjSession {
			t.Fatal("session handle")
		}
		w.FreeSession(sess)
		if w.Session(sess.Handle()) != nil {
			t.Fatal("freed session still resolves")
		}
	})
}
