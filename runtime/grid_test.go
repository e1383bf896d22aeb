package mpirt

import (
	"reflect"
	"testing"
)

func TestGridTopology(t *testing.T) {
	locs := []Location{
		{Site: "b", Machine: "b1", Host: "h0"},
		{Site: "a", Machine: "a1", Host: "h1", VMPI: "a1"},
		{Site: "a", Machine: "a1", Host: "h2", VMPI: "a1"},
		{Site: "b", Machine: "b2", Host: "h3", VMPI: "b2"},
		{Site: "a", Machine: "a2", Host: "h4"},
		{Site: "b", Machine: "b1", Host: "h0"},
	}
	g := NewGridTopology(locs)
	wantDepth := []int{3, 4, 4, 4, 3, 3}
	wantColors := [][]int{{0, 0, 0}, {0, 1, 1, 0}, {0, 1, 1, 0}, {0, 0, 2, 1}, {0, 1, 3}, {0, 0, 0}}
	if !reflect.DeepEqual(g.Depth, wantDepth) || !reflect.DeepEqual(g.Colors, wantColors) {
		t.Errorf("depths %v colors %v, want %v %v", g.Depth, g.Colors, wantDepth, wantColors)
	}
	// Without a grid: one site, one machine, whatever the hosts.
	g = NewGridTopology([]Location{{Host: "x"}, {Host: "y"}})
	if !reflect.DeepEqual(g.Colors, [][]int{{0, 0, 0}, {0, 0, 0}}) {
		t.Errorf("no grid: %v", g.Colors)
	}
}

func TestLocationEncoding(t *testing.T) {
	l := Location{Site: "s", Machine: "m", Host: "h", VMPI: ""}
	got, err := DecodeLocation(l.Encode())
	if err != nil || got != l {
		t.Errorf("round trip: %+v %v", got, err)
	}
	if got, err := DecodeLocation("plainhost"); err != nil || got != (Location{Host: "plainhost"}) {
		t.Errorf("bare host: %+v %v", got, err)
	}
	if _, err := DecodeLocation("a\nb"); err == nil {
		t.Error("two fields accepted")
	}
}
