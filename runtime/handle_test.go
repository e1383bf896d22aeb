package mpirt

import (
	"sync"
	"testing"
)

func TestHandleDecode(t *testing.T) {
	for _, c := range []struct {
		h    Handle
		kind HandleKind
		typ  ObjectType
	}{
		{HandleCommWorld, KindBuiltin, ObjComm},
		{HandleCommSelf, KindBuiltin, ObjComm},
		{HandleCommNull, KindInvalid, ObjComm},
		{HandleGroupEmpty, KindBuiltin, ObjGroup},
		{HandleGroupNull, KindInvalid, ObjGroup},
		{TypeInt, KindBuiltin, ObjDatatype},
		{TypeDoubleInt, KindDirect, ObjDatatype},
		{HandleDatatypeNull, KindInvalid, ObjDatatype},
		{OpSum, KindBuiltin, ObjOp},
		{HandleOpNull, KindInvalid, ObjOp},
		{HandleRequestNull, KindInvalid, ObjRequest},
		{HandleMessageNoProc, KindBuiltin, ObjRequest},
		{HandleErrorsReturn, KindBuiltin, ObjErrhandler},
		{HandleErrhandlerNull, KindInvalid, ObjErrhandler},
		{HandleInfoNull, KindInvalid, ObjInfo},
		{HandleInfoEnv, KindBuiltin, ObjInfo},
		{HandleWinNull, KindInvalid, ObjWin},
		{HandleKeyvalInvalid, KindInvalid, ObjKeyval},
		{Handle(0x64400001), KindBuiltin, ObjKeyval}, // MPI_TAG_UB
		{HandleSessionNull, KindInvalid, ObjSession},
	} {
		if got := c.h.Kind(); got != c.kind {
			t.Errorf("%v.Kind() = %v, want %v", c.h, got, c.kind)
		}
		if got := c.h.Type(); got != c.typ {
			t.Errorf("%v.Type() = %v, want %v", c.h, got, c.typ)
		}
	}
	if !HandleCommNull.IsNull() || HandleCommWorld.IsNull() || HandleMessageNoProc.IsNull() {
		t.Error("IsNull wrong")
	}
	if h := MakeHandle(KindDirect, ObjComm, 5); uint32(h) != 0x84000005 || h.Index() != 5 {
		t.Errorf("MakeHandle = %v", h)
	}
	if TypeInt.String() != "0x4c000405" {
		t.Errorf("String = %q", TypeInt.String())
	}
}

func TestHandleTable(t *testing.T) {
	tab := NewHandleTable[string](ObjComm)
	a := tab.Add("a")
	b := tab.Add("b")
	if a.Kind() != KindDirect || a.Type() != ObjComm || a == b {
		t.Fatalf("handles %v %v", a, b)
	}
	if v, ok := tab.Get(a); !ok || v != "a" {
		t.Fatalf("Get(a) = %q, %v", v, ok)
	}
	if tab.Len() != 2 {
		t.Fatalf("Len = %d", tab.Len())
	}
	// Wrong type, wrong kind, null, never-issued index.
	for _, h := range []Handle{
		MakeHandle(KindDirect, ObjRequest, a.Index()),
		MakeHandle(KindBuiltin, ObjComm, a.Index()),
		MakeHandle(KindIndirect, ObjComm, a.Index()),
		HandleCommNull, HandleCommWorld,
		MakeHandle(KindDirect, ObjComm, 0),
		MakeHandle(KindDirect, ObjComm, 1000),
		MakeHandle(KindDirect, ObjComm, HandleIndexMask),
	} {
		if _, ok := tab.Get(h); ok {
			t.Errorf("Get(%v) succeeded", h)
		}
		if tab.Remove(h) {
			t.Errorf("Remove(%v) succeeded", h)
		}
	}
	if !tab.Remove(a) || tab.Remove(a) {
		t.Fatal("Remove(a) twice")
	}
	if _, ok := tab.Get(a); ok {
		t.Fatal("Get after Remove")
	}
	c := tab.Add("c")
	if c != a {
		t.Errorf("freed slot not reused: %v, want %v", c, a)
	}
	n := 0
	tab.Range(func(h Handle, v string) bool { n++; return true })
	if n != 2 || tab.Len() != 2 {
		t.Errorf("Range saw %d, Len %d", n, tab.Len())
	}
	// Grow across several chunks.
	var hs []Handle
	for i := range 3 * handleChunkSize {
		hs = append(hs, tab.Add(string(rune('A'+i%26))))
	}
	for i, h := range hs {
		if v, ok := tab.Get(h); !ok || v != string(rune('A'+i%26)) {
			t.Fatalf("Get(%v) = %q, %v", h, v, ok)
		}
	}
}

func TestHandleTableZeroValueInit(t *testing.T) {
	var tab HandleTable[*int]
	tab.Init(ObjRequest)
	x := 7
	h := tab.Add(&x)
	if h.Type() != ObjRequest || h.Index() == 0 {
		t.Fatalf("h = %v", h)
	}
	// Datatype tables must not hand out the indices of 0x8c0000II types.
	var dt HandleTable[*Datatype]
	dt.Init(ObjDatatype)
	if h := dt.Add(nil); h.Index() < len(directTypes) {
		t.Fatalf("datatype handle %v collides with predefined pair types", h)
	}
}

func TestHandleTableConcurrent(t *testing.T) {
	tab := NewHandleTable[int](ObjRequest)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				v := g*10000 + i
				h := tab.Add(v)
				if got, ok := tab.Get(h); !ok || got != v {
					t.Errorf("Get(%v) = %d, %v; want %d", h, got, ok, v)
					return
				}
				if i%3 != 0 && !tab.Remove(h) {
					t.Errorf("Remove(%v) failed", h)
					return
				}
			}
		}()
	}
	wg.Wait()
	if want := 8 * 667; tab.Len() != want {
		t.Errorf("Len = %d, want %d", tab.Len(), want)
	}
}

func BenchmarkHandleTableGet(b *testing.B) {
	tab := NewHandleTable[*int](ObjRequest)
	x := 1
	var hs [64]Handle
	for i := range hs {
		hs[i] = tab.Add(&x)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := tab.Get(hs[i&63]); !ok {
				b.Fatal("miss")
			}
			i++
		}
	})
}
