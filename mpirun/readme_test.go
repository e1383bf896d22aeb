package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	_ "gmpi/coll/basic"
	_ "gmpi/coll/inter"
	_ "gmpi/coll/shm"
	_ "gmpi/coll/tuned"
	"gmpi/runtime/param"
)

// readmeRow is one row of the README's table of variables.
type readmeRow struct{ scope, def string }

// readmeVariables parses the table under "## Environment variables":
// | `NAME` | read by | default | meaning |.
func readmeVariables(t *testing.T) map[string]readmeRow {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Environment variables")
	if i < 0 {
		t.Fatal("README.md: no \"## Environment variables\" section")
	}
	s = s[i:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	rowRE := regexp.MustCompile("^\\| `([A-Z0-9_<>]+)` \\|([^|]*)\\|([^|]*)\\|")
	rows := map[string]readmeRow{}
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("README.md: variable row not of the form | `NAME` | read by | default | meaning |: %s", line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("README.md: %s has two rows", m[1])
		}
		rows[m[1]] = readmeRow{strings.TrimSpace(m[2]), strings.Trim(strings.TrimSpace(m[3]), "`")}
	}
	return rows
}

// TestREADME checks the README's table of variables against the registry
// of tunables, both ways: every declared variable (or its family's
// pattern) has a row with the same scope and default, and every row is a
// declared variable or family.
func TestREADME(t *testing.T) {
	rows := readmeVariables(t)
	if len(rows) < 20 {
		t.Fatalf("README.md: only %d variable rows found", len(rows))
	}
	want := map[string]readmeRow{}
	for _, f := range param.Families() {
		want[f.Pattern] = readmeRow{f.Scope, f.Default}
	}
	instances := 0
	for _, v := range param.All() {
		if v.Family != "" {
			instances++
			continue
		}
		want[v.Name] = readmeRow{v.Scope, v.Default}
	}
	if instances == 0 {
		t.Error("no family instance declared: the collective components are not linked into mpirun")
	}
	for name, w := range want {
		r, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("README.md: no row for %s (scope %q, default %q)", name, w.scope, w.def)
		case r != w:
			t.Errorf("README.md: %s: read by %q, default %q; the registry says %q, %q", name, r.scope, r.def, w.scope, w.def)
		}
	}
	for name := range rows {
		if _, ok := want[name]; !ok {
			t.Errorf("README.md: %s is not declared in the registry (runtime/param)", name)
		}
	}
}
