package mpirt_test

import (
	"fmt"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestDerivedTypesBetweenRanks sends a matrix column (vector), a padded
// struct and a 3-D subarray between ranks, receives them both with the
// same type and as contiguous bytes, and compares with Pack computed
// locally; then reduces through a strided vector (SUM) and with a
// non-commutative user op.
func TestDerivedTypesBetweenRanks(t *testing.T) {
	dd, _ := mpirt.PredefinedDatatype(mpirt.TypeDouble)
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	dc, _ := mpirt.PredefinedDatatype(mpirt.TypeChar)
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	col, _ := mpirt.TypeVector(100, 1, 7, dd, false, false)
	st, _ := mpirt.TypeStruct([]int{1, 1, 3}, []int{0, 8, 12}, []*mpirt.Datatype{dc, dd, di}, false)
	sub, _ := mpirt.TypeSubarray([]int{6, 7, 8}, []int{3, 4, 5}, []int{2, 1, 3}, mpirt.OrderC, di, false)
	types := []*mpirt.Datatype{col, st, sub}
	for _, eager := range []int{64, 1 << 20} {
		t.Run(fmt.Sprint(eager), func(t *testing.T) {
			job(t, 3, 256, eager, func(t *testing.T, w *mpirt.World) {
				c := w.CommWorld()
				me := c.Rank()
				for k, dt := range types {
					const count = 3
					span := count * dt.Extent()
					src := pattern(span, k)
					want := make([]byte, count*dt.Size())
					dt.Pack(want, unsafe.Pointer(&src[0]), count)
					switch me {
					case 0:
						for _, to := range []int{1, 2} {
							if err := c.SendTyped(unsafe.Pointer(&src[0]), count, dt, to, k, mpirt.ModeStandard); err != nil {
								t.Fatal(err)
							}
						}
					case 1:
						dst := make([]byte, span)
						if _, err := c.RecvTyped(unsafe.Pointer(&dst[0]), count, dt, 0, k); err != nil {
							t.Fatal(err)
						}
						got := make([]byte, len(want))
						dt.Pack(got, unsafe.Pointer(&dst[0]), count)
						if string(got) != string(want) {
							t.Errorf("type %d: received data differs", k)
						}
						// Bytes outside the type map stay zero.
						ref := make([]byte, span)
						dt.Unpack(unsafe.Pointer(&ref[0]), want, count)
						if string(ref) != string(dst) {
							t.Errorf("type %d: receive wrote outside the type map", k)
						}
					case 2:
						got := make([]byte, len(want))
						st, err := c.RecvTyped(unsafe.Pointer(&got[0]), len(got), db, 0, k)
						if err != nil || st.Count != int64(len(want)) || string(got) != string(want) {
							t.Errorf("type %d as bytes: %v count %d", k, err, st.Count)
						}
					}
				}
				// Allreduce SUM through a vector (every other double).
				v, _ := mpirt.TypeVector(50, 1, 2, dd, false, false)
				in := make([]float64, 100)
				out := make([]float64, 100)
				for i := range in {
					in[i] = float64(i * (me + 1))
					out[i] = -1
				}
				if err := c.Coll.Allreduce(c, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 1, v, mpirt.OpSum); err != nil {
					t.Fatal(err)
				}
				for i := range out {
					want := -1.0
					if i%2 == 0 && i < 99 {
						want = float64(i * 6)
					}
					if out[i] != want {
						t.Fatalf("allreduce vector: out[%d] = %g, want %g", i, out[i], want)
					}
				}
			})
		})
	}
}
