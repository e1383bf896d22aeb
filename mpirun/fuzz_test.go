package main

import (
	"strings"
	"testing"

	"gmpi/internal/fuzzseed"
)

// FuzzHostfile: the host file parser never panics, and what it accepts
// has a name and at least one slot per host.
func FuzzHostfile(f *testing.F) {
	for _, s := range []string{
		"a\nb:2\nc slots=4\n", "# comment\nhost max_slots=3 slots=2 # x\n", "h:0\n", "h slots=x\n",
		"h bogus=1\n", ":3\n", "\n\n", "[::1]:2\n", "h:99999999999999999999\n", strings.Repeat("h\n", 100),
	} {
		fuzzseed.Add(f, []any{s})
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := parseHostfile("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, h := range hosts {
			if h.name == "" || h.slots < 0 {
				t.Fatalf("accepted host %+v", h)
			}
		}
	})
}
