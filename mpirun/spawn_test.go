package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gmpi/mpirun/grid"
	"gmpi/runtime/pmi"
)

func TestParseSoft(t *testing.T) {
	for _, c := range []struct {
		v    string
		max  int
		want []int
		bad  bool
	}{
		{"1:4", 4, []int{1, 2, 3, 4}, false},
		{"0,2:8:2", 5, []int{0, 2, 4}, false},
		{"3", 8, []int{3}, false},
		{"9", 8, nil, true},
		{"1:2:0", 4, nil, true},
		{"4:1", 4, nil, true},
		{"a", 4, nil, true},
		{"1:2:3:4", 4, nil, true},
		{"-1", 4, nil, true},
	} {
		got, err := parseSoft(c.v, c.max)
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("parseSoft(%q, %d) = %v, %v", c.v, c.max, got, err)
		}
	}
}

func TestSpawnCounts(t *testing.T) {
	j := &job{size: 2, opts: &options{universe: 5}}
	j.spawned.pids = map[int]int{100: 1} // 3 running: 2 free
	block := func(n int, soft string) *pmi.SpawnBlock {
		b := &pmi.SpawnBlock{Cmd: pmi.SpawnCmd{N: n, Exec: "x"}}
		if soft != "" {
			b.Cmd.Info = [][2]string{{"soft", soft}}
		}
		return b
	}
	for _, c := range []struct {
		blocks []*pmi.SpawnBlock
		want   []int
		err    string
	}{
		{[]*pmi.SpawnBlock{block(4, "")}, []int{4}, ""},                        // oversubscribes
		{[]*pmi.SpawnBlock{block(4, "1:4")}, []int{2}, ""},                     // the free slots
		{[]*pmi.SpawnBlock{block(1, ""), block(4, "0:4")}, []int{1, 1}, ""},    // per command, in order
		{[]*pmi.SpawnBlock{block(4, "3,4")}, nil, "allows no count that fits"}, // refused
		{[]*pmi.SpawnBlock{block(2, ""), block(3, "0,3")}, []int{2, 0}, ""},    // soft allows none
		{[]*pmi.SpawnBlock{block(2, "x")}, nil, `info key soft="x"`},
	} {
		got, err := j.spawnCounts(c.blocks)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: err %v, want %q", c.want, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("counts %v %v, want %v", got, err, c.want)
		}
	}
}

func TestPlaceAt(t *testing.T) {
	g, err := grid.Parse("g.toml", `
[[site]]
name = "A"
  [[site.machine]]
  name = "ma"
  procs = 1
  hosts = ["a0", "a1"]
[[site]]
name = "B"
  [[site.machine]]
  name = "mb"
  procs = 1
  hosts = ["b0"]
`)
	if err != nil {
		t.Fatal(err)
	}
	hosts := func(rs []grid.Rank) []string {
		var hs []string
		for _, r := range rs {
			hs = append(hs, r.Host.Name)
		}
		return hs
	}
	rs, err := placeAt(g, []app{{n: 3, at: "site=A"}, {n: 2, at: "machine=mb"}, {n: 1}})
	if err != nil || !slices.Equal(hosts(rs), []string{"a0", "a1", "a0", "b0", "b0", "a0"}) {
		t.Errorf("placeAt: %v %v", hosts(rs), err)
	}
	if _, err := placeAt(g, []app{{n: 1, at: "site=C"}}); err == nil || !strings.Contains(err.Error(), `no site "C"`) {
		t.Errorf("unknown site: %v", err)
	}
	if _, err := placeAt(g, []app{{at: "host=a0"}}); err == nil {
		t.Error("--at without -n accepted")
	}
}

func TestAtOption(t *testing.T) {
	o, err := parseArgs([]string{"--grid", "g", "-n", "2", "--at", "site=A", "prog", ":", "-n", "1", "--at=host=h", "prog2"})
	if err != nil || len(o.apps) != 2 || o.apps[0].at != "site=A" || o.apps[1].at != "host=h" {
		t.Fatalf("parseArgs: %+v %v", o, err)
	}
	if _, err := parseArgs([]string{"--at", "rack=1", "prog"}); err == nil {
		t.Error("--at rack=1 accepted")
	}
	if _, err := parseArgs([]string{"--emulate-share", os.DevNull, "prog"}); err == nil {
		t.Error("--emulate-share without --emulate accepted")
	}
}
