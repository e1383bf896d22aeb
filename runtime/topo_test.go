package mpirt_test

import (
	"reflect"
	"testing"

	mpirt "gmpi/runtime"
)

func TestDimsCreate(t *testing.T) {
	cases := []struct {
		n       int
		in, out []int
	}{
		{16, []int{0, 0, 0}, []int{4, 2, 2}},
		{12, []int{0, 0}, []int{4, 3}},
		{30, []int{0, 3, 0}, []int{5, 3, 2}},
		{7, []int{0, 0}, []int{7, 1}},
		{1, []int{0, 0, 0}, []int{1, 1, 1}},
		{6, []int{2, 3}, []int{2, 3}},
		{36, []int{0, 0}, []int{6, 6}},
		// MPICH 4.0's choices: the smallest spread, then the largest
		// smallest entries.
		{72, []int{0, 0}, []int{9, 8}},
		{240, []int{0, 0}, []int{16, 15}},
		{360, []int{0, 0, 0}, []int{10, 6, 6}},
		{20, []int{0, 0, 0, 0}, []int{5, 2, 2, 1}},
		{1000000000, []int{0, 0, 0}, []int{1000, 1000, 1000}},
		{72, []int{0, 2, 0}, []int{6, 2, 6}},
		{12, []int{2, 3}, []int{2, 3}}, // all fixed: the product need only divide
	}
	for _, c := range cases {
		d := append([]int(nil), c.in...)
		if err := mpirt.DimsCreate(c.n, d); err != nil || !reflect.DeepEqual(d, c.out) {
			t.Errorf("DimsCreate(%d, %v) = %v, %v; want %v", c.n, c.in, d, err, c.out)
		}
	}
	for _, d := range [][]int{{0, 4}, {-1}, {2, 2}, {0, 14}} {
		if err := mpirt.DimsCreate(7, d); mpirt.ErrorClassOf(err) != mpirt.ErrDims {
			t.Errorf("DimsCreate(7, %v): %v, want MPI_ERR_DIMS", d, err)
		}
	}
}

func TestCartTopology(t *testing.T) {
	job(t, 6, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		if c.TopoKind() != mpirt.Undefined {
			t.Error("world has a topology")
		}
		cart, err := c.CartCreate([]int{3, 2}, []bool{true, false}, false)
		if err != nil {
			t.Fatal(err)
		}
		co, _ := cart.CartCoords(me)
		if !reflect.DeepEqual(co, []int{me / 2, me % 2}) {
			t.Errorf("coords of %d: %v", me, co)
		}
		src, dst, _ := cart.CartShift(0, 1)
		if src != (me+4)%6 || dst != (me+2)%6 {
			t.Errorf("shift 0 of %d: %d %d", me, src, dst)
		}
		src, dst, _ = cart.CartShift(1, 1)
		if me%2 == 0 && (src != mpirt.ProcNull || dst != me+1) || me%2 == 1 && (src != me-1 || dst != mpirt.ProcNull) {
			t.Errorf("shift 1 of %d: %d %d", me, src, dst)
		}
		col, err := cart.CartSub([]bool{true, false})
		if err != nil {
			t.Fatal(err)
		}
		if col.Size() != 3 || col.Rank() != me/2 || col.WorldRank(0) != me%2 {
			t.Errorf("column of %d: size %d rank %d", me, col.Size(), col.Rank())
		}
		if _, _, err := c.CartShift(0, 1); mpirt.ErrorClassOf(err) != mpirt.ErrTopology {
			t.Errorf("shift on world: %v", err)
		}
		d, err := cart.Dup(nil)
		if err != nil || d.TopoKind() != mpirt.TopoCart {
			t.Errorf("dup lost the topology: %v", err)
		}
		for _, x := range []*mpirt.Comm{d, col, cart} {
			if err := x.Free(); err != nil {
				t.Error(err)
			}
		}
		g, err := c.GraphCreate([]int{1, 2, 3, 4}, []int{1, 2, 3, 0}, false)
		if err != nil {
			t.Fatal(err)
		}
		if (me < 4) != (g != nil) {
			t.Errorf("rank %d graph membership", me)
		}
		if g != nil {
			nb, _ := g.GraphNeighbors(me)
			if !reflect.DeepEqual(nb, []int{(me + 1) % 4}) {
				t.Errorf("neighbors of %d: %v", me, nb)
			}
			g.Free()
		}
	})
}
