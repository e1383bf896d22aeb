package grid

import (
	"os"
	"path/filepath"
	"testing"

	"gmpi/internal/fuzzseed"
)

// FuzzParse: a grid file parser never panics and never loops; every
// rank of an accepted grid names one of its hosts.
func FuzzParse(f *testing.F) {
	examples, _ := filepath.Glob("../../examples/*.toml")
	for _, p := range examples {
		if b, err := os.ReadFile(p); err == nil {
			fuzzseed.Add(f, []any{string(b)})
		}
	}
	for _, s := range []string{
		"", "[[site]]\nname = \"a\"\n", "[wan]\nlatency = \"10ms\"\nbandwidth = \"1MB/s\"\n",
		"[[site]]\nname = \"a\"\n[[site.machine]]\nname = \"m\"\nprocs = 2\nhosts = [\"h1\", \"h2\"]\n",
		"[[site]]\nname = \"a\"\n[[site.machine]]\nname = \"m\"\nprocs = 99999999999\nhosts = [\"h\"]\n",
		"[[site]]\nname = 3\n", "[[wan.link]]\nsites = [\"a\"]\n", "x = [[[[[[[[[[1]]]]]]]]]]\n",
	} {
		fuzzseed.Add(f, []any{s})
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse("fuzz.toml", s)
		if err != nil || g == nil {
			return
		}
		hosts := map[*Host]bool{}
		for _, h := range g.Hosts() {
			hosts[h] = true
		}
		rs := g.Ranks()
		if len(rs) > 1<<20 {
			t.Fatalf("accepted a grid of %d ranks", len(rs))
		}
		for i, r := range rs {
			if r.Rank != i || !hosts[r.Host] {
				t.Fatalf("rank %d: %+v is not on one of the grid's hosts", i, r)
			}
		}
	})
}
