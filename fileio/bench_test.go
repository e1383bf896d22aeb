package fileio

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// BenchmarkSievedRead: bench/io.c's indep_read at 2 processes, as seen by
// one of them: 32 MiB in 1 KiB blocks every 2 KiB (data sieving).
func BenchmarkSievedRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	const per = 32 << 20
	if err := os.WriteFile(path, make([]byte, 2*per), 0o644); err != nil {
		b.Fatal(err)
	}
	blk, _ := mpirt.TypeContiguous(1024, predef(mpirt.TypeByte), false)
	vec, _ := mpirt.TypeResized(blk, 0, 2048, false)
	vec.Commit()
	buf := make([]byte, per)
	job(b, 1, nil, func(w *mpirt.World) {
		f, err := Open("b", w.CommWorld(), NewRegistry(), path, ModeRdonly, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.SetView("b", 0, predef(mpirt.TypeByte), vec, "native", nil); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(per)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := f.Do("b", Access{Ptr: Explicit, Buf: unsafe.Pointer(&buf[0]), Count: per, Dt: predef(mpirt.TypeByte)}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		f.Close("b")
	})
}
