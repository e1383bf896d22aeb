package main

import (
	"strings"
	"testing"

	"gmpi/coll/components"
	"gmpi/runtime/param"
)

// TestInfo runs mpirun --info --parsable and checks it against the
// registry and the components' own descriptions.
func TestInfo(t *testing.T) {
	r := mpirun(t, "", []string{"GMPI_EAGER_LIMIT=4K", "GMPI_COLL_TUNED_PRIORITY=99",
		"GMPI_JOB_SECRET=00112233445566778899aabbccddeeff", "GMPI_COLL_SHM_OPS=barrier",
		"GMPI_COLL_TUNED_BCAST_ALGORITHM=scatter_allgather"}, "--info", "--parsable")
	if r.code != 0 {
		t.Fatalf("mpirun --info --parsable: exit %d, stderr %s", r.code, r.stderr)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(r.stdout, "\n") {
		lines[l] = true
	}
	want := func(l string) {
		t.Helper()
		if !lines[l] {
			t.Errorf("--info --parsable lacks %q", l)
		}
	}
	want("version:" + version)
	want("param:GMPI_EAGER_LIMIT:value:4K")
	want("param:GMPI_EAGER_LIMIT:default:65536")
	want("param:GMPI_SPIN_NS:type:duration")
	want("component:tuned:priority:99:30")
	want("coll:bcast:tuned:algorithms:binomial,scatter_allgather")
	want("coll:bcast:tuned:control:GMPI_COLL_TUNED_BCAST_ALGORITHM")
	want("param:GMPI_COLL_TUNED_BCAST_ALGORITHM:value:scatter_allgather")
	want("coll:bcast:shm:state:off")
	want("coll:barrier:shm:state:on")
	comps, err := components.List(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comps {
		d := c.Describe(nil)
		if len(d.Ops) == 0 {
			t.Errorf("component %s describes no operation", d.Name)
		}
		for _, o := range d.Ops {
			want("coll:" + o.Op + ":" + d.Name + ":algorithms:" + strings.Join(o.Algorithms, ","))
		}
	}
	for _, v := range param.All() {
		present := strings.Contains(r.stdout, "\nparam:"+v.Name+":value:")
		if present == v.Internal {
			t.Errorf("%s (internal %v) shown %v without --all", v.Name, v.Internal, present)
		}
	}
	if strings.Contains(r.stdout, "00112233") {
		t.Error("--info shows the job secret")
	}

	// --all adds the launch plumbing, never the secret's value.
	r = mpirun(t, "", []string{"GMPI_JOB_SECRET=00112233445566778899aabbccddeeff", "GMPI_SITE=east"}, "--info", "--all")
	if r.code != 0 {
		t.Fatalf("mpirun --info --all: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, s := range []string{"*GMPI_SITE = east", "*GMPI_JOB_SECRET = (set, not shown)", "Collective components",
		"  tuned  priority  30", "GMPI_COLL_TUNED_ALLREDUCE_ALGORITHM forces one", "[launch (set by mpirun)]"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("--info --all lacks %q", s)
		}
	}
	if strings.Contains(r.stdout, "00112233") {
		t.Error("--info --all shows the job secret")
	}

	// A malformed value is reported naming the variable, with a failing
	// exit status; --info runs no program.
	r = mpirun(t, "", []string{"GMPI_SHM_FRAME=huge"}, "--info")
	if r.code == 0 || !strings.Contains(r.stderr, "GMPI_SHM_FRAME=") {
		t.Errorf("GMPI_SHM_FRAME=huge: exit %d, stderr %q", r.code, r.stderr)
	}
	if r = mpirun(t, "", nil, "--info", pmiprogBin); r.code != 2 {
		t.Errorf("--info with a program: exit %d", r.code)
	}
}
