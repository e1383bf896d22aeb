package tuned

import (
	"strings"
	"testing"

	mpirt "gmpi/runtime"
)

// The embedded decision table parses, every rule names an existing
// algorithm of an operation the component has, and every operation's
// last rule is unconditional (each call finds a rule).
func TestDecisionTable(t *testing.T) {
	tab, err := ParseTable(defaultTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range Ops() {
		rules := tab[op.String()]
		if len(rules) == 0 {
			t.Errorf("%s: no rules", op)
			continue
		}
		for _, r := range rules {
			if find(op, r.Algorithm) == nil {
				t.Errorf("%s: unknown algorithm %q", op, r.Algorithm)
			}
		}
		if last := rules[len(rules)-1]; last.ProcsMax != 0 || last.BytesMax != 0 {
			t.Errorf("%s: last rule %+v is conditional", op, last)
		}
	}
	for name := range tab {
		if _, ok := opByName(name); !ok {
			t.Errorf("rules for unknown operation %q", name)
		}
	}
}

// Each operation's first algorithm (the fallback) has no precondition,
// and names are unique.
func TestAlgorithms(t *testing.T) {
	for op, algs := range Algorithms {
		if algs[0].Usable != nil {
			t.Errorf("%s: fallback %s has a precondition", op, algs[0].Name)
		}
		seen := map[string]bool{}
		for _, a := range algs {
			if seen[a.Name] || a.Build == nil {
				t.Errorf("%s: algorithm %q duplicated or without builder", op, a.Name)
			}
			seen[a.Name] = true
		}
	}
}

func TestParseTableErrors(t *testing.T) {
	for _, bad := range []string{
		`{"bcast": [{"algorithm": "nosuch"}]}`,
		`{"nosuchop": [{"algorithm": "binomial"}]}`,
		`{"bcast": 3}`,
		`not json`,
	} {
		if _, err := ParseTable([]byte(bad)); err == nil {
			t.Errorf("ParseTable(%s) accepted", bad)
		}
	}
	tab, err := ParseTable([]byte(`{"_c": "x", "bcast": [{"procs_max": 4, "algorithm": "scatter_allgather"}]}`))
	if err != nil || tab["bcast"][0].Algorithm != "scatter_allgather" {
		t.Errorf("ParseTable: %v %v", tab, err)
	}
}

func TestForceVar(t *testing.T) {
	if v := ForceVar(mpirt.CollReduceScatterBlock); v != "GMPI_COLL_TUNED_REDUCE_SCATTER_BLOCK_ALGORITHM" {
		t.Error(v)
	}
	t.Setenv(ForceVar(mpirt.CollBcast), "nosuch")
	if _, err := New(nil); err == nil || !strings.Contains(err.Error(), "scatter_allgather") {
		t.Errorf("New with a bad forced algorithm: %v", err)
	}
	t.Setenv(ForceVar(mpirt.CollBcast), "scatter_allgather")
	c, err := New(nil)
	if err != nil || c.forced[mpirt.CollBcast] == nil || c.forced[mpirt.CollBcast].Name != "scatter_allgather" {
		t.Errorf("New: %v", err)
	}
}

// The fold to a power of two covers every rank once, in rank order.
func TestFold(t *testing.T) {
	for n := 1; n <= 17; n++ {
		f := newFold(n, 0)
		if f.p > n || 2*f.p <= n {
			t.Fatalf("n=%d: p'=%d", n, f.p)
		}
		for v := range f.p {
			if f.lo(v) >= f.lo(v+1) || f.real(v) < f.lo(v) || f.real(v) >= f.lo(v+1) {
				t.Errorf("n=%d v=%d: lo %d..%d real %d", n, v, f.lo(v), f.lo(v+1), f.real(v))
			}
			if g := newFold(n, f.real(v)); g.me != v {
				t.Errorf("n=%d: rank %d has virtual %d, want %d", n, f.real(v), g.me, v)
			}
		}
		if f.lo(0) != 0 || f.lo(f.p) != n {
			t.Errorf("n=%d: covers %d..%d", n, f.lo(0), f.lo(f.p))
		}
	}
}
