package fileio

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// TestUnseen: ranks 2 and 3 (hosts h2, h3) are on a machine that does
// not see dir (GMPI_IO_UNSEEN, as mpirun sets it from a grid file's
// filesystems). Collective writes and reads from every rank reach the
// file through aggregators among ranks 0 and 1; the blind ranks'
// independent access, size, sync and shared pointer go through proxies.
func TestUnseen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.dat")
	const n, per = 4, 3000 // ints per rank, interleaved in blocks of 7
	env := make([]map[string]string, n)
	for r := 2; r < n; r++ {
		env[r] = map[string]string{param.IOUnseen.Name(): "/nonexistent-other:" + dir}
	}
	reg := NewRegistry()
	var mu sync.Mutex
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		t.Errorf(format, args...)
	}
	it := predef(mpirt.TypeInt)
	jobEnv(t, n, []string{"h0", "h1", "h2", "h3"}, env, func(w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		f, err := Open("t", c, reg, path, ModeCreate|ModeRdwr, nil)
		if err != nil {
			fail("rank %d: open: %v", me, err)
			return
		}
		// Rank r owns blocks r, r+n, r+2n, ... of 7 ints.
		ft := vectorType(t, per/7+1, 7, 7*n, 7*n)
		if err := f.SetView("t", int64(me*7*4), it, ft, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		buf := make([]int32, per)
		for i := range buf {
			buf[i] = int32(me*1000000 + i)
		}
		st, err := f.Do("t", Access{Write: true, Ptr: Explicit, Coll: true, Buf: unsafe.Pointer(&buf[0]), Count: per, Dt: it})
		if err != nil || st.Count != per*4 {
			fail("rank %d: write_at_all: %v (count %d)", me, err, st.Count)
		}
		// Read back the next rank's data.
		next := (me + 1) % n
		if err := f.SetView("t", int64(next*7*4), it, ft, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		got := make([]int32, per)
		st, err = f.Do("t", Access{Ptr: Explicit, Coll: true, Buf: unsafe.Pointer(&got[0]), Count: per, Dt: it})
		if err != nil || st.Count != per*4 {
			fail("rank %d: read_at_all: %v (count %d)", me, err, st.Count)
		}
		for i, v := range got {
			if v != int32(next*1000000+i) {
				fail("rank %d: read_at_all: int %d is %d, want %d", me, i, v, next*1000000+i)
				break
			}
		}
		// Independent access, forwarded for the blind ranks: each reads
		// its neighbour's data through the view (noncontiguous: data
		// sieving through the proxy), then writes its own again.
		clear(got)
		st, err = f.Do("t", Access{Ptr: Explicit, Buf: unsafe.Pointer(&got[0]), Count: per, Dt: it})
		if err != nil || st.Count != per*4 {
			fail("rank %d: read_at: %v (count %d)", me, err, st.Count)
		}
		for i, v := range got {
			if v != int32(next*1000000+i) {
				fail("rank %d: read_at: int %d is %d, want %d", me, i, v, next*1000000+i)
				break
			}
		}
		if err := f.SetView("t", int64(me*7*4), it, ft, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		for i := range buf {
			buf[i] = -buf[i]
		}
		if _, err := f.Do("t", Access{Write: true, Ptr: Explicit, Buf: unsafe.Pointer(&buf[0]), Count: per, Dt: it}); err != nil {
			fail("rank %d: write_at: %v", me, err)
		}
		if err := f.Sync("t"); err != nil {
			fail("rank %d: sync: %v", me, err)
		}
		size, err := f.Size("t")
		if want := int64(4 * 7 * n * (per/7 + 1)); err != nil || size < int64(4*per*n) || size > want {
			fail("rank %d: get_size: %d, %v", me, size, err)
		}
		if err := c.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}); err != nil {
			fail("barrier: %v", err)
		}
		if err := f.SetView("t", int64(next*7*4), it, ft, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		clear(got)
		if _, err := f.Do("t", Access{Ptr: Explicit, Coll: true, Buf: unsafe.Pointer(&got[0]), Count: per, Dt: it}); err != nil {
			fail("rank %d: read_at_all: %v", me, err)
		}
		for i, v := range got {
			if v != -int32(next*1000000+i) {
				fail("rank %d: read after independent writes: int %d is %d, want %d", me, i, v, -(next*1000000 + i))
				break
			}
		}
		// The shared pointer, individually (blind: through the proxy).
		if err := f.SetView("t", 0, it, it, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		if err := f.SeekShared("t", 100, SeekSet); err != nil {
			fail("rank %d: seek_shared: %v", me, err)
		}
		val := int32(me)
		if _, err := f.Do("t", Access{Write: true, Ptr: Shared, Buf: unsafe.Pointer(&val), Count: 1, Dt: it}); err != nil {
			fail("rank %d: write_shared: %v", me, err)
		}
		if err := c.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}); err != nil {
			fail("barrier: %v", err)
		}
		if p, err := f.PositionShared("t"); err != nil || p != 100+n {
			fail("rank %d: position_shared %d, %v; want %d", me, p, err, 100+n)
		}
		var four [n]int32
		if _, err := f.Do("t", Access{Ptr: Explicit, Offset: 100, Buf: unsafe.Pointer(&four[0]), Count: n, Dt: it}); err != nil {
			fail("rank %d: read_at: %v", me, err)
		}
		seen := 0
		for _, v := range four {
			if v >= 0 && v < n {
				seen |= 1 << v
			}
		}
		if seen != 1<<n-1 {
			fail("rank %d: write_shared wrote %v, want each rank once", me, four)
		}
		if err := c.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}); err != nil {
			fail("barrier: %v", err)
		}
		// Ordered access: the shared pointer lives with the ranks that see
		// the file.
		if err := f.SetView("t", 0, it, it, "native", nil); err != nil {
			fail("rank %d: set_view: %v", me, err)
		}
		if err := f.SeekShared("t", 0, SeekSet); err != nil {
			fail("rank %d: seek_shared: %v", me, err)
		}
		ord := make([]int32, me+1)
		for i := range ord {
			ord[i] = int32(me)
		}
		if _, err := f.Ordered("t", Access{Write: true, Ptr: Shared, Coll: true, Buf: unsafe.Pointer(&ord[0]), Count: int64(me + 1), Dt: it}); err != nil {
			fail("rank %d: write_ordered: %v", me, err)
		}
		if err := f.SetSize("t", 4*10); err != nil {
			fail("rank %d: set_size: %v", me, err)
		}
		if err := f.Close("t"); err != nil {
			fail("rank %d: close: %v", me, err)
		}
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// write_ordered: 0, 1 1, 2 2 2, 3 3 3 3.
	want := []int32{0, 1, 1, 2, 2, 2, 3, 3, 3, 3}
	if len(b) != 40 {
		t.Fatalf("file has %d bytes, want 40 (set_size)", len(b))
	}
	for i, v := range want {
		if got := int32(binary.LittleEndian.Uint32(b[4*i:])); got != v {
			t.Errorf("int %d of the file is %d, want %d", i, got, v)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestUnseenByAll: a file under a directory no process sees is
// MPI_ERR_NO_SUCH_FILE on every process.
func TestUnseenByAll(t *testing.T) {
	dir := t.TempDir()
	env := []map[string]string{{param.IOUnseen.Name(): dir}, {param.IOUnseen.Name(): dir}}
	reg := NewRegistry()
	var mu sync.Mutex
	jobEnv(t, 2, []string{"h0", "h1"}, env, func(w *mpirt.World) {
		_, err := Open("t", w.CommWorld(), reg, filepath.Join(dir, "x"), ModeCreate|ModeRdwr, nil)
		if class(err) != mpirt.ErrNoSuchFile {
			mu.Lock()
			t.Errorf("rank %d: open: %v, want MPI_ERR_NO_SUCH_FILE", w.CommWorld().Rank(), err)
			mu.Unlock()
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("the file was created: %v", err)
	}
}
