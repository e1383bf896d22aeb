package mpirt_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"sync"
	"testing"

	mpirt "gmpi/runtime"
)

func TestGroupSetOps(t *testing.T) {
	a := mpirt.NewGroup([]int{5, 1, 3, 7})
	b := mpirt.NewGroup([]int{3, 4, 5})
	cases := []struct {
		name string
		got  *mpirt.Group
		want []int
	}{
		{"union", mpirt.Union(a, b), []int{5, 1, 3, 7, 4}},
		{"intersection", mpirt.Intersection(a, b), []int{5, 3}},
		{"difference", mpirt.Difference(a, b), []int{1, 7}},
		{"difference-rev", mpirt.Difference(b, a), []int{4}},
	}
	for _, c := range cases {
		if got := append([]int{}, c.got.Ranks()...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	inc, err := a.Incl([]int{3, 0})
	if err != nil || !reflect.DeepEqual(inc.Ranks(), []int{7, 5}) {
		t.Errorf("incl: %v %v", inc, err)
	}
	exc, err := a.Excl([]int{1})
	if err != nil || !reflect.DeepEqual(exc.Ranks(), []int{5, 3, 7}) {
		t.Errorf("excl: %v %v", exc, err)
	}
	if _, err := a.Incl([]int{4}); mpirt.ErrorClassOf(err) != mpirt.ErrRank {
		t.Errorf("incl out of range: %v", err)
	}
	if _, err := a.Incl([]int{1, 1}); mpirt.ErrorClassOf(err) != mpirt.ErrRank {
		t.Errorf("incl duplicate: %v", err)
	}
	big := make([]int, 20)
	for i := range big {
		big[i] = 100 + i
	}
	g := mpirt.NewGroup(big)
	ri, err := g.RangeIncl([][3]int{{0, 9, 3}, {19, 15, -2}})
	if err != nil || !reflect.DeepEqual(ri.Ranks(), []int{100, 103, 106, 109, 119, 117, 115}) {
		t.Errorf("range_incl: %v %v", ri.Ranks(), err)
	}
	re, err := g.RangeExcl([][3]int{{1, 19, 2}})
	if err != nil || re.Size() != 10 || re.WorldRank(9) != 118 {
		t.Errorf("range_excl: %v %v", re.Ranks(), err)
	}
	if _, err := g.RangeIncl([][3]int{{0, 5, 0}}); mpirt.ErrorClassOf(err) != mpirt.ErrArg {
		t.Errorf("stride 0: %v", err)
	}
	// Malformed ranges are MPI_ERR_ARG, as in MPICH.
	if _, err := g.RangeIncl([][3]int{{0, 5, 1}, {5, 6, 1}}); mpirt.ErrorClassOf(err) != mpirt.ErrArg {
		t.Errorf("overlapping ranges: %v", err)
	}
	tr, err := mpirt.TranslateRanks(a, []int{0, 1, 2, mpirt.ProcNull}, b)
	if err != nil || !reflect.DeepEqual(tr, []int{2, mpirt.Undefined, 0, mpirt.ProcNull}) {
		t.Errorf("translate: %v %v", tr, err)
	}
	if mpirt.CompareGroups(a, mpirt.NewGroup([]int{5, 1, 3, 7})) != mpirt.Ident ||
		mpirt.CompareGroups(a, mpirt.NewGroup([]int{7, 5, 1, 3})) != mpirt.Similar ||
		mpirt.CompareGroups(a, b) != mpirt.Unequal {
		t.Error("compare")
	}
	// Large groups use the index map.
	if g.RankOf(117) != 17 || g.RankOf(5) != -1 {
		t.Error("RankOf on a large group")
	}
}

// splitRef computes what MPI_Comm_split must give rank me.
func splitRef(colors, keys []int, me int) []int {
	if colors[me] == mpirt.Undefined {
		return nil
	}
	var rs []int
	for r, c := range colors {
		if c == colors[me] {
			rs = append(rs, r)
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return keys[rs[i]] < keys[rs[j]] })
	return rs
}

func TestSplitProperty(t *testing.T) {
	const n = 8
	rng := rand.New(rand.NewSource(1))
	const rounds = 30
	colors := make([][]int, rounds)
	keys := make([][]int, rounds)
	for i := range colors {
		colors[i], keys[i] = make([]int, n), make([]int, n)
		for r := 0; r < n; r++ {
			colors[i][r] = rng.Intn(4)
			if rng.Intn(5) == 0 {
				colors[i][r] = mpirt.Undefined
			}
			keys[i][r] = rng.Intn(3) - 1
		}
	}
	job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		for i := range colors {
			nc, err := c.Split(colors[i][me], keys[i][me])
			if err != nil {
				t.Fatal(err)
			}
			want := splitRef(colors[i], keys[i], me)
			if want == nil {
				if nc != nil {
					t.Errorf("round %d: rank %d got a communicator for MPI_UNDEFINED", i, me)
				}
				continue
			}
			var got []int
			for r := 0; r < nc.Size(); r++ {
				got = append(got, nc.WorldRank(r))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d rank %d: got %v want %v", i, me, got, want)
			}
			if nc.Coll.Barrier(nc) != nil {
				t.Error("barrier")
			}
			if err := nc.Free(); err != nil {
				t.Error(err)
			}
		}
		if f := w.FreeContexts(); f != 4094 {
			t.Errorf("rank %d: %d free context pairs after freeing everything, want 4094", me, f)
		}
	})
}

// TestConcurrentCreation creates communicators from two goroutines per
// process on two different parents and checks that no process ever holds
// two live communicators with the same context id.
func TestConcurrentCreation(t *testing.T) {
	const n = 4
	job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
		world := w.CommWorld()
		a, err := world.Dup(nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := world.Split(0, -world.Rank()) // reversed order
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		live := map[uint32]string{}
		add := func(c *mpirt.Comm, who string) {
			mu.Lock()
			defer mu.Unlock()
			if o, ok := live[c.Context()]; ok {
				t.Errorf("rank %d: context %d given to %s while %s holds it", w.Rank(), c.Context(), who, o)
			}
			live[c.Context()] = who
		}
		del := func(c *mpirt.Comm) {
			mu.Lock()
			delete(live, c.Context())
			mu.Unlock()
		}
		var wg sync.WaitGroup
		for gi, parent := range []*mpirt.Comm{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var keep []*mpirt.Comm
				for i := 0; i < 40; i++ {
					nc, err := parent.Dup(nil)
					if err != nil {
						t.Error(err)
						return
					}
					add(nc, fmt.Sprintf("g%d#%d", gi, i))
					if err := nc.Coll.Barrier(nc); err != nil {
						t.Error(err)
					}
					keep = append(keep, nc)
					if i%3 == 2 {
						del(keep[0])
						keep[0].Free()
						keep = keep[1:]
					}
				}
				for _, c := range keep {
					del(c)
					c.Free()
				}
			}()
		}
		wg.Wait()
		a.Free()
		b.Free()
		if f := w.FreeContexts(); f != 4094 {
			t.Errorf("rank %d: %d free context pairs, want 4094", w.Rank(), f)
		}
	})
}

func TestCreateGroupAndCompare(t *testing.T) {
	job(t, 5, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		odd, _ := c.Group().RangeIncl([][3]int{{1, 4, 2}})
		if me%2 == 1 {
			nc, err := c.CreateGroup(odd, 7)
			if err != nil {
				t.Fatal(err)
			}
			if nc.Size() != 2 || nc.Rank() != me/2 {
				t.Errorf("create_group: size %d rank %d", nc.Size(), nc.Rank())
			}
			nc.Free()
		}
		nc, err := c.Create(odd)
		if err != nil {
			t.Fatal(err)
		}
		if (nc != nil) != (me%2 == 1) {
			t.Errorf("rank %d: create membership wrong", me)
		}
		if nc != nil {
			nc.Free()
		}
		d, _ := c.Dup(nil)
		if mpirt.CompareComms(c, c) != mpirt.Ident || mpirt.CompareComms(c, d) != mpirt.Congruent {
			t.Error("compare dup")
		}
		r, _ := c.Split(0, -me)
		if n := mpirt.CompareComms(c, r); n != mpirt.Similar && c.Size() > 1 {
			t.Errorf("compare reversed: %d", n)
		}
		d.Free()
		r.Free()
		if err := c.Free(); mpirt.ErrorClassOf(err) != mpirt.ErrComm {
			t.Errorf("freeing MPI_COMM_WORLD: %v", err)
		}
	})
}

func TestAttrsCallbacks(t *testing.T) {
	job(t, 2, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		var log []string
		k := &mpirt.Keyval{Kind: mpirt.ObjComm,
			Copy: func(obj mpirt.Handle, v uintptr) (uintptr, bool, error) {
				log = append(log, fmt.Sprintf("copy %d", v))
				return v + 1, true, nil
			},
			Delete: func(obj mpirt.Handle, v uintptr) error {
				log = append(log, fmt.Sprintf("delete %d", v))
				if v == 99 {
					return mpirt.Errorf(mpirt.ErrOther, "", "refused")
				}
				return nil
			}}
		w.NewKeyval(k)
		d, _ := c.Dup(nil)
		d.Attrs.Set(d.Handle(), k, 10)
		d.Attrs.Set(d.Handle(), k, 11) // deletes 10
		d2, err := d.Dup(nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := d2.Attrs.Get(k); !ok || v != 12 {
			t.Errorf("copied value %d %v", v, ok)
		}
		d2.Attrs.Set(d2.Handle(), k, 99)
		if err := d2.Free(); mpirt.ErrorClassOf(err) != mpirt.ErrOther {
			t.Errorf("free with failing delete: %v", err)
		}
		d.Free()
		want := []string{"delete 10", "copy 11", "delete 12", "delete 99", "delete 11"}
		if !reflect.DeepEqual(log, want) {
			t.Errorf("callbacks: %v, want %v", log, want)
		}
	})
}

// TestKeyvalFreedWhileAttached: a freed key keeps its handle while an
// attribute uses it (freeing again is harmless) and loses it with the last.
func TestKeyvalFreedWhileAttached(t *testing.T) {
	job(t, 1, 256, 512, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		deletes := 0
		k := &mpirt.Keyval{Kind: mpirt.ObjComm,
			Copy:   func(obj mpirt.Handle, v uintptr) (uintptr, bool, error) { return v, true, nil },
			Delete: func(obj mpirt.Handle, v uintptr) error { deletes++; return nil }}
		h := w.NewKeyval(k)
		d, _ := c.Dup(nil)
		d.Attrs.Set(d.Handle(), k, 1)
		if !w.FreeKeyval(h) || !w.FreeKeyval(h) || w.Keyval(h) != k {
			t.Fatalf("freed key with an attribute lost its handle")
		}
		d2, err := d.Dup(nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Free()
		if w.Keyval(h) != k {
			t.Fatalf("key lost its handle while the duplicate still uses it")
		}
		d2.Free()
		if w.Keyval(h) != nil || deletes != 2 {
			t.Errorf("after the last attribute: handle live %v, %d deletes", w.Keyval(h) != nil, deletes)
		}
	})
}
