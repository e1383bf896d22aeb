package fileio

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// job runs body on n ranks (goroutines, each with its own World over an
// in-memory device) that claim the host hosts[i] (one host when nil).
func job(t testing.TB, n int, hosts []string, body func(w *mpirt.World)) {
	t.Helper()
	jobEnv(t, n, hosts, nil, body)
}

// jobEnv is job with env[i] as rank i's tunables (nil: none).
func jobEnv(t testing.TB, n int, hosts []string, env []map[string]string, body func(w *mpirt.World)) {
	t.Helper()
	nw := memdev.NewNetwork(n, 1<<16)
	if hosts == nil {
		hosts = make([]string, n)
		for i := range hosts {
			hosts[i] = "h"
		}
	}
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		var routes []mpirt.Route
		for p := 0; p < n; p++ {
			if p != i {
				routes = append(routes, mpirt.Route{Peer: p, Device: nw.Device(i)})
			}
		}
		cfg := mpirt.Config{Rank: i, Size: n, Hostname: hosts[i], Hosts: hosts, LocalRanks: n}
		if env != nil && env[i] != nil {
			p, err := param.Map(env[i])
			if err != nil {
				t.Fatal(err)
			}
			cfg.Params = p
		}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}))
		if err != nil {
			t.Fatal(err)
		}
		worlds[i] = w
	}
	var wg sync.WaitGroup
	for _, w := range worlds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(w)
		}()
	}
	wg.Wait()
	for _, w := range worlds {
		w.Close()
	}
	if left, _ := filepath.Glob("/dev/shm/gmpi-" + itoa(int64(os.Getpid())) + "-fileio-*"); len(left) > 0 {
		t.Errorf("left in /dev/shm: %v", left)
	}
}

func class(err error) int {
	var e *mpirt.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return -1
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "exists")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "readonly")
	if err := os.WriteFile(ro, []byte("x"), 0o444); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	var mu sync.Mutex
	job(t, 2, nil, func(w *mpirt.World) {
		c := w.CommWorld()
		check := func(what string, err error, want int) {
			if class(err) != want {
				mu.Lock()
				t.Errorf("rank %d: %s: got %v, want class %d", c.Rank(), what, err, want)
				mu.Unlock()
			}
		}
		_, err := Open("t", c, reg, filepath.Join(dir, "missing"), ModeRdonly, nil)
		check("missing file", err, mpirt.ErrNoSuchFile)
		_, err = Open("t", c, reg, existing, ModeCreate|ModeExcl|ModeRdwr, nil)
		check("MODE_EXCL on an existing file", err, mpirt.ErrFileExists)
		_, err = Open("t", c, reg, existing, ModeRdonly|ModeRdwr, nil)
		check("two access modes", err, mpirt.ErrAmode)
		_, err = Open("t", c, reg, existing, ModeRdonly|ModeCreate, nil)
		check("RDONLY|CREATE", err, mpirt.ErrAmode)
		_, err = Open("t", c, reg, filepath.Join(dir, "nodir", "f"), ModeCreate|ModeWronly, nil)
		check("missing directory", err, mpirt.ErrNoSuchFile)
		if os.Geteuid() != 0 {
			_, err = Open("t", c, reg, ro, ModeRdwr, nil)
			check("read-only file opened RDWR", err, mpirt.ErrAccess)
		}
		f, err := Open("t", c, reg, existing, ModeRdonly, nil)
		check("open", err, -1)
		if f != nil {
			var v int32
			_, err = f.Do("t", Access{Write: true, Buf: unsafe.Pointer(&v), Count: 1, Dt: predef(mpirt.TypeInt)})
			check("write to RDONLY", err, mpirt.ErrReadOnly)
			check("close", f.Close("t"), -1)
		}
		f, err = Open("t", c, reg, filepath.Join(dir, "wo"), ModeWronly|ModeCreate|ModeDeleteOnClose, nil)
		check("open", err, -1)
		if f != nil {
			var v int32
			_, err = f.Do("t", Access{Buf: unsafe.Pointer(&v), Count: 1, Dt: predef(mpirt.TypeInt)})
			check("read from WRONLY", err, mpirt.ErrAccess)
			check("close", f.Close("t"), -1)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "wo")); !os.IsNotExist(err) {
		t.Errorf("MPI_MODE_DELETE_ON_CLOSE left the file: %v", err)
	}
	if class(Delete("t", filepath.Join(dir, "missing"))) != mpirt.ErrNoSuchFile {
		t.Errorf("deleting a missing file is not MPI_ERR_NO_SUCH_FILE")
	}
}

// vectorType is count blocks of blen ints, stride ints apart, resized to
// extent ints.
func vectorType(t testing.TB, count, blen, stride, extent int) *mpirt.Datatype {
	it := predef(mpirt.TypeInt)
	v, err := mpirt.TypeVector(count, blen, stride, it, false, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := mpirt.TypeResized(v, 0, extent*4, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Commit()
	return r
}

// TestInterleaved writes an interleaved view from every rank (block i of
// rank r at int (i*n+r)*b) collectively and independently, with and
// without collective buffering and data sieving, and reads it back.
func TestInterleaved(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{1, 2, 3} {
		for _, mode := range []string{"enable", "disable", "automatic"} {
			path := filepath.Join(dir, "v"+itoa(int64(n))+mode)
			reg := NewRegistry()
			const blocks, b = 50, 3
			var mu sync.Mutex
			job(t, n, []string{"a", "b", "a"}[:n], func(w *mpirt.World) {
				c := w.CommWorld()
				r := c.Rank()
				fail := func(format string, args ...any) {
					mu.Lock()
					t.Errorf("n=%d %s rank %d: "+format, append([]any{n, mode, r}, args...)...)
					mu.Unlock()
				}
				in := mpirt.NewInfo()
				in.Set("romio_cb_write", mode)
				in.Set("romio_cb_read", mode)
				in.Set("romio_ds_write", mode)
				in.Set("romio_ds_read", mode)
				in.Set("cb_buffer_size", "256") // many rounds
				f, err := Open("t", c, reg, path, ModeCreate|ModeRdwr, in)
				if err != nil {
					fail("open: %v", err)
					return
				}
				defer f.Close("t")
				it := predef(mpirt.TypeInt)
				ft := vectorType(t, 1, b, b, n*b)
				if err := f.SetView("t", int64(r*b*4), it, ft, "native", nil); err != nil {
					fail("set_view: %v", err)
					return
				}
				data := make([]int32, blocks*b)
				for i := range data {
					data[i] = int32(1000*r + i)
				}
				half := len(data) / 2
				// First half collectively, second half independently.
				if _, err := f.Do("t", Access{Write: true, Coll: true, Ptr: Individual, Buf: unsafe.Pointer(&data[0]), Count: int64(half), Dt: it}); err != nil {
					fail("write_all: %v", err)
				}
				if _, err := f.Do("t", Access{Write: true, Ptr: Explicit, Offset: int64(half), Buf: unsafe.Pointer(&data[half]), Count: int64(len(data) - half), Dt: it}); err != nil {
					fail("write_at: %v", err)
				}
				if err := f.Sync("t"); err != nil {
					fail("sync: %v", err)
				}
				got := make([]int32, len(data)+b)
				st, err := f.Do("t", Access{Coll: true, Ptr: Explicit, Buf: unsafe.Pointer(&got[0]), Count: int64(len(got)), Dt: it})
				if err != nil {
					fail("read_at_all: %v", err)
				}
				if st.Count != int64(4*len(data)) {
					fail("read_at_all at the end of the file: count %d bytes, want %d", st.Count, 4*len(data))
				}
				for i := range data {
					if got[i] != data[i] {
						fail("element %d: read %d, wrote %d", i, got[i], data[i])
						break
					}
				}
				if pos, _ := f.Position("t"); pos != int64(half) {
					fail("individual pointer %d, want %d", pos, half)
				}
			})
			// The whole file, as plain ints.
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != 4*blocks*b*n {
				t.Errorf("n=%d %s: file has %d bytes, want %d", n, mode, len(raw), 4*blocks*b*n)
				continue
			}
			for k := 0; k < blocks*b*n; k++ {
				blk, in := k/b, k%b
				r, i := blk%n, blk/n*b+in
				if v := int32(binary.LittleEndian.Uint32(raw[4*k:])); v != int32(1000*r+i) {
					t.Errorf("n=%d %s: int %d of the file is %d, want %d", n, mode, k, v, 1000*r+i)
					break
				}
			}
		}
	}
}

func TestOrderedAndShared(t *testing.T) {
	dir := t.TempDir()
	for _, hosts := range [][]string{{"h", "h", "h"}, {"a", "b", "c"}} {
		path := filepath.Join(dir, "ord"+hosts[1])
		reg := NewRegistry()
		var mu sync.Mutex
		job(t, 3, hosts, func(w *mpirt.World) {
			c := w.CommWorld()
			r := c.Rank()
			fail := func(format string, args ...any) {
				mu.Lock()
				t.Errorf("hosts %v rank %d: "+format, append([]any{hosts, r}, args...)...)
				mu.Unlock()
			}
			f, err := Open("t", c, reg, path, ModeCreate|ModeRdwr, nil)
			if err != nil {
				fail("open: %v", err)
				return
			}
			defer f.Close("t")
			bt := predef(mpirt.TypeByte)
			msg := make([]byte, r+1)
			for i := range msg {
				msg[i] = byte('a' + r)
			}
			if _, err := f.Ordered("t", Access{Write: true, Ptr: Shared, Buf: unsafe.Pointer(&msg[0]), Count: int64(len(msg)), Dt: bt}); err != nil {
				fail("write_ordered: %v", err)
			}
			if p, _ := f.PositionShared("t"); p != 6 {
				fail("shared pointer after write_ordered: %d, want 6", p)
			}
			c.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{})
			// Independent shared-pointer writes: each claims its own range.
			one := []byte{byte('x' + r)}
			if _, err := f.Do("t", Access{Write: true, Ptr: Shared, Buf: unsafe.Pointer(&one[0]), Count: 1, Dt: bt}); err != nil {
				fail("write_shared: %v", err)
			}
			if err := f.SeekShared("t", 0, SeekSet); err != nil {
				fail("seek_shared: %v", err)
			}
			got := make([]byte, r+1)
			if _, err := f.Ordered("t", Access{Ptr: Shared, Buf: unsafe.Pointer(&got[0]), Count: int64(len(got)), Dt: bt}); err != nil {
				fail("read_ordered: %v", err)
			}
			if string(got) != string(msg) {
				fail("read_ordered got %q, want %q", got, msg)
			}
		})
		raw, _ := os.ReadFile(path)
		if len(raw) != 9 || string(raw[:6]) != "abbccc" {
			t.Errorf("hosts %v: file %q, want abbccc and three of x, y, z", hosts, raw)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*shfp*")); len(left) > 0 {
			t.Errorf("shared pointer files left: %v", left)
		}
	}
}

func TestViewMap(t *testing.T) {
	it := predef(mpirt.TypeInt)
	ft := vectorType(t, 2, 1, 2, 5) // ints 0 and 2 of every 5
	v, err := newView(8, it, ft, nativeRep)
	if err != nil {
		t.Fatal(err)
	}
	var got []seg
	v.each(4, 16, func(off, n int64) error { got = append(got, seg{off, n}); return nil })
	want := []seg{{8 + 8, 4}, {8 + 20, 4}, {8 + 28, 4}, {8 + 40, 4}}
	if len(got) != len(want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segments %v, want %v", got, want)
		}
	}
	if o := v.byteOffset(12); o != 8+28 {
		t.Errorf("byteOffset(12) = %d, want %d", o, 8+28)
	}
	for pos := int64(0); pos < 40; pos += 4 {
		if p := v.streamPos(v.byteOffset(pos)); p != pos {
			t.Errorf("streamPos(byteOffset(%d)) = %d", pos, p)
		}
	}
}

// TestHintDefaults: collective buffering is automatic by default (as in
// ROMIO), GMPI_IO_HINTS changes the defaults, and the info given to open
// overrides both.
func TestHintDefaults(t *testing.T) {
	dir := t.TempDir()
	get := func(env string, info *mpirt.Info) map[string]string {
		t.Setenv("GMPI_IO_HINTS", env)
		got := map[string]string{}
		job(t, 1, nil, func(w *mpirt.World) {
			f, err := Open("t", w.CommWorld(), NewRegistry(), filepath.Join(dir, "h"), ModeCreate|ModeRdwr, info)
			if err != nil {
				t.Errorf("open: %v", err)
				return
			}
			defer f.Close("t")
			in := f.Info()
			for _, k := range []string{"romio_cb_write", "romio_cb_read", "cb_buffer_size"} {
				got[k], _ = in.Get(k)
			}
		})
		return got
	}
	if g := get("", nil); g["romio_cb_write"] != "automatic" || g["romio_cb_read"] != "automatic" {
		t.Errorf("defaults: %v, want automatic collective buffering", g)
	}
	g := get(" romio_cb_write = enable,cb_buffer_size=65536,nokey,romio_cb_read=disable", nil)
	if g["romio_cb_write"] != "enable" || g["romio_cb_read"] != "disable" || g["cb_buffer_size"] != "65536" {
		t.Errorf("GMPI_IO_HINTS: %v", g)
	}
	in := mpirt.NewInfo()
	in.Set("romio_cb_write", "disable")
	in.Set("cb_buffer_size", "4096")
	g = get("romio_cb_write=enable,cb_buffer_size=8192", in)
	if g["romio_cb_write"] != "disable" || g["cb_buffer_size"] != "4096" {
		t.Errorf("open's info over GMPI_IO_HINTS: %v", g)
	}
}
