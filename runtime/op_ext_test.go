package mpirt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func newFloat(v float64) *big.Float { return new(big.Float).SetFloat64(v) }

// randomExt returns a random 16-byte float of format fm, biased towards
// the interesting cases: zeros, ties, overflow and underflow, subnormals,
// infinities and NaNs. It never makes the invalid x87 encodings (unnormals,
// pseudo-denormals), whose treatment by hardware we do not emulate.
func randomExt(rng *rand.Rand, fm extFormat) [16]byte {
	sign := uint64(rng.IntN(2))
	var exp uint64
	var hiMant, lo uint64 = rng.Uint64() & (1<<48 - 1), rng.Uint64()
	switch r := rng.IntN(20); {
	case r < 2: // zero
		hiMant, lo = 0, 0
	case r < 4: // small integer, so that MIN/MAX/LOC see ties
		v := fm.encode(newFloat(float64(rng.IntN(5) - 2)))
		return v
	case r < 10:
		exp = uint64(extBias - 20 + rng.IntN(40))
	case r < 12:
		exp = uint64(0x7ffe - rng.IntN(20)) // near overflow
	case r < 14:
		exp = uint64(1 + rng.IntN(40)) // near underflow
	case r < 16: // subnormal
		exp = 0
	case r < 17: // infinity
		exp, hiMant, lo = 0x7fff, 0, 0
	case r < 18: // NaN, quiet or signaling
		exp = 0x7fff
		if hiMant == 0 && lo == 0 {
			lo = 1
		}
	default: // sums that cancel: the same magnitude
		exp = extBias
		hiMant, lo = 0x1234, 0x8000000000000000
	}
	var b [16]byte
	if fm.explicit {
		switch {
		case exp == 0x7fff && lo == 0 && hiMant == 0:
			lo = 1 << 63 // infinity
		case exp == 0x7fff:
			lo |= 1 << 63 // NaN
			if lo<<1 == 0 {
				lo |= 1
			}
		case exp != 0:
			lo |= 1 << 63
		default:
			lo &^= 1 << 63
		}
		binary.LittleEndian.PutUint64(b[0:], lo)
		binary.LittleEndian.PutUint16(b[8:], uint16(sign<<15|exp))
		return b
	}
	binary.LittleEndian.PutUint64(b[0:], lo)
	binary.LittleEndian.PutUint64(b[8:], sign<<63|exp<<48|hiMant)
	return b
}

const extProbeC = `
#include <stdio.h>
#include <string.h>
typedef _Complex float __attribute__((mode(TC))) QC;
#define OPS(T, CT) \
	if (w == 16) { T x, y, z; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); \
		switch (op) { case 's': z = y + x; break; case 'p': z = y * x; break; \
		case 'x': z = (y > x) ? y : x; break; case 'n': z = (y < x) ? y : x; break; } \
		memcpy(r, &z, sizeof z); \
	} else { CT x, y, z; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); \
		switch (op) { case 'S': z = y + x; break; case 'P': z = y * x; break; } \
		memcpy(r, &z, sizeof z); }
int main(int argc, char **argv) {
	int quad = argv[1][0] == 'q';
	char op = argv[2][0];
	size_t w = (op == 'S' || op == 'P') ? 32 : 16;
	unsigned char a[32], b[32], r[32];
	while (fread(a, 1, w, stdin) == w && fread(b, 1, w, stdin) == w) {
		memset(r, 0, sizeof r);
		if (quad) { OPS(__float128, QC) } else { OPS(long double, _Complex long double) }
		fwrite(r, 1, w, stdout);
	}
	return 0;
}
`

// TestOpExtFloatAgainstC checks SUM, PROD, MAX and MIN on MPI_LONG_DOUBLE
// and MPI_REAL16, and SUM/PROD on their complex types, bit for bit
// against what gcc's long double (x87) and __float128 (libgcc soft-fp)
// compute.
func TestOpExtFloatAgainstC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "ext.c"), filepath.Join(dir, "ext")
	if err := os.WriteFile(src, []byte(extProbeC), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O1", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("cannot compile the probe: %v\n%s", err, out)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 20000
	for _, c := range []struct {
		fmtName string
		fm      extFormat
		real    Handle
		cplx    Handle
	}{
		{"x87", formatX87, TypeLongDouble, TypeCLongDoubleComplex},
		{"quad", formatQuad, TypeReal16, TypeComplex32},
	} {
		for _, o := range []struct {
			code byte
			op   Handle
		}{{'s', OpSum}, {'p', OpProd}, {'x', OpMax}, {'n', OpMin}, {'S', OpSum}, {'P', OpProd}} {
			dt := c.real
			w := 16
			if o.code == 'S' || o.code == 'P' {
				dt, w = c.cplx, 32
			}
			d, _ := PredefinedDatatype(dt)
			in := make([]byte, n*w)
			inout := make([]byte, n*w)
			var stdin bytes.Buffer
			for i := range n {
				for j := 0; j < w; j += 16 {
					a, b := randomExt(rng, c.fm), randomExt(rng, c.fm)
					copy(in[i*w+j:], a[:])
					copy(inout[i*w+j:], b[:])
				}
				stdin.Write(in[i*w : i*w+w])
				stdin.Write(inout[i*w : i*w+w])
			}
			cmd := exec.Command(exe, c.fmtName, string(o.code))
			cmd.Stdin = &stdin
			want, err := cmd.Output()
			if err != nil || len(want) != n*w {
				t.Fatalf("probe: %v (%d bytes)", err, len(want))
			}
			got := slices.Clone(inout)
			if err := ReduceLocal(o.op, d, in, got, n); err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i := range n {
				for j := 0; j < w; j += 16 {
					off := i*w + j
					g, wa := got[off:off+16], want[off:off+16]
					if c.fm.explicit {
						g, wa = g[:10], wa[:10]
					}
					if bytes.Equal(g, wa) {
						continue
					}
					if bad++; bad <= 5 {
						t.Errorf("%s %s element %d part %d: in %s inout %s: got %s, C %s",
							d, OpName(o.op), i, j/16, hexExt(in[off:off+16]), hexExt(inout[off:off+16]), hexExt(g), hexExt(wa))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s %s: %d of %d elements differ", d, OpName(o.op), bad, n)
			}
		}
	}
}

func hexExt(b []byte) string {
	s := ""
	for i := len(b) - 1; i >= 0; i-- {
		s += fmt.Sprintf("%02x", b[i])
	}
	return s
}

func TestOpExtRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, fm := range []extFormat{formatX87, formatQuad} {
		for range 20000 {
			b := randomExt(rng, fm)
			var x extNum
			fm.decode(b[:], &x)
			if x.nan {
				continue
			}
			got := fm.encode(fm.round(&x.f))
			n := 16
			if fm.explicit {
				n = 10
			}
			if !bytes.Equal(got[:n], b[:n]) {
				t.Fatalf("%+v: %s -> %s -> %s", fm, hexExt(b[:n]), x.f.Text('g', 40), hexExt(got[:n]))
			}
		}
	}
}

// TestOpExtBigEndian: binary128 stored big-endian (long double and
// REAL*16 on s390x) reduces as its little-endian bytes do, byte-reversed:
// the kernels of a big-endian machine, here on any machine.
func TestOpExtBigEndian(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	le, be := formatQuad, formatQuad
	be.be = true
	rev := func(b [16]byte) [16]byte { slices.Reverse(b[:]); return b }
	for range 5000 {
		a, b := randomExt(rng, le), randomExt(rng, le)
		var xa, xb, ya, yb extNum
		le.decode(a[:], &xa)
		le.decode(b[:], &xb)
		ra, rb := rev(a), rev(b)
		be.decode(ra[:], &ya)
		be.decode(rb[:], &yb)
		if xa.nan != ya.nan || !xa.nan && xa.f.Cmp(&ya.f) != 0 || xa.bits != ya.bits {
			t.Fatalf("decode of %s big-endian differs", hexExt(a[:]))
		}
		for _, op := range []struct {
			name   string
			le, be [16]byte
		}{
			{"sum", le.out(le.add(&xb, &xa)), be.out(be.add(&yb, &ya))},
			{"prod", le.out(le.mul(&xb, &xa)), be.out(be.mul(&yb, &ya))},
		} {
			if want := rev(op.le); want != op.be {
				t.Fatalf("%s of %s and %s: big-endian %s, want %s", op.name, hexExt(a[:]), hexExt(b[:]), hexExt(op.be[:]), hexExt(want[:]))
			}
		}
	}
	if one := be.out(be.encode(big.NewFloat(1))); one[0] != 0x3f || one[1] != 0xff || one[15] != 0 {
		t.Errorf("1.0 big-endian binary128 is %s", hexExt(one[:]))
	}
}
