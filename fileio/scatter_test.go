package fileio

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestScatterRead checks the preadv form of a sieved read against the
// segments read one by one: small and large holes (larger than the junk
// buffer), more segments than one preadv takes, and spans that run past
// the end of the file.
func TestScatterRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 3 << 20
	file := make([]byte, size)
	rnd := rand.New(rand.NewSource(1))
	rnd.Read(file)
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	for trial := 0; trial < 200; trial++ {
		var segs []seg
		off := int64(rnd.Intn(4096))
		nseg := 1 + rnd.Intn(3000)
		for i := 0; i < nseg; i++ {
			n := int64(1 + rnd.Intn(2048))
			segs = append(segs, seg{off, n})
			gap := int64(rnd.Intn(64))
			switch rnd.Intn(8) {
			case 0:
				gap = int64(rnd.Intn(200 << 10)) // past the junk buffer
			case 1:
				gap = 1 + int64(rnd.Intn(4096))
			}
			off += n + gap
		}
		// The reference: each segment read up to the end of the file.
		var want []byte
		var total int64
		short := false
		for _, sg := range segs {
			total += sg.n
			if short {
				continue
			}
			end := min(sg.off+sg.n, size)
			if sg.off < end {
				want = append(want, file[sg.off:end]...)
			}
			short = sg.off+sg.n > size
		}
		data := make([]byte, total)
		n, err := scatterRead(int(fd.Fd()), segs, data)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(want)) || !bytes.Equal(data[:n], want) {
			t.Fatalf("trial %d (%d segments to %d): got %d bytes, want %d (equal prefix: %v)",
				trial, len(segs), segs[len(segs)-1].off+segs[len(segs)-1].n, n, len(want), bytes.Equal(data[:min(n, int64(len(want)))], want[:min(n, int64(len(want)))]))
		}
	}
}
