package mpirt_test

import (
	"bytes"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestMprobeAnySource: ranks 1..n-1 send eager and rendezvous messages to
// rank 0, which takes each with Mprobe(AnySource, AnyTag) and receives it
// with Mrecv/Imrecv; every sender's messages come in order, and a message
// bound by Mprobe is invisible to Iprobe.
func TestMprobeAnySource(t *testing.T) {
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	sizes := []int{0, 10, 64, 65, 300, 5000}
	job(t, 3, 256, 64, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me, n := c.Rank(), c.Size()
		if me != 0 {
			for i, sz := range sizes {
				if err := c.Send(pattern(sz, me*100+i), 0, i, mpirt.ModeStandard); err != nil {
					t.Error(err)
				}
			}
			return
		}
		next := make([]int, n)
		for k := 0; k < (n-1)*len(sizes); k++ {
			m, st, _ := w.Mprobe(c, c.Context(), mpirt.AnySource, mpirt.AnyTag)
			src, i := st.Source, next[st.Source]
			if st.Tag != i || st.Count != int64(sizes[i]) {
				t.Fatalf("message %d from %d: tag %d count %d", i, src, st.Tag, st.Count)
			}
			if _, ok := w.Iprobe(c, c.Context(), src, i); ok && i < len(sizes) {
				t.Errorf("Iprobe sees message %d from %d after Mprobe bound it", i, src)
			}
			buf := make([]byte, st.Count+1)
			var p unsafe.Pointer
			if len(buf) > 0 {
				p = unsafe.Pointer(&buf[0])
			}
			var rst mpirt.Status
			var err error
			if k%2 == 0 {
				rst, err = w.MrecvTyped(m, p, len(buf), db)
			} else {
				r := w.ImrecvTyped(m, p, len(buf), db)
				err = w.Wait(r)
				rst = r.Status
			}
			if err != nil || rst.Source != src || rst.Count != st.Count ||
				!bytes.Equal(buf[:st.Count], pattern(sizes[i], src*100+i)) {
				t.Fatalf("message %d from %d: err %v status %+v", i, src, err, rst)
			}
			next[src]++
		}
	})
}

// TestMprobeProcNull: a matched probe on MPI_PROC_NULL yields the no-proc
// message, whose receive completes at once.
func TestMprobeProcNull(t *testing.T) {
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	job(t, 1, 256, 64, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		m, st, _ := w.Mprobe(c, c.Context(), mpirt.ProcNull, 3)
		if !m.NoProc() || st.Source != mpirt.ProcNull || w.AddMessage(m) != mpirt.HandleMessageNoProc {
			t.Fatalf("Mprobe(PROC_NULL): %+v", st)
		}
		if w.Message(mpirt.HandleMessageNoProc) != m {
			t.Fatal("MPI_MESSAGE_NO_PROC does not resolve")
		}
		if w.Message(mpirt.HandleMessageNull) != nil {
			t.Fatal("MPI_MESSAGE_NULL resolves")
		}
		b := []byte{7}
		rst, err := w.MrecvTyped(m, unsafe.Pointer(&b[0]), 1, db)
		if err != nil || rst.Source != mpirt.ProcNull || rst.Count != 0 || b[0] != 7 {
			t.Fatalf("Mrecv(NO_PROC): %v %+v", err, rst)
		}
	})
}
