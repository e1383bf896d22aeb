package param

import (
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	v, err := Map(map[string]string{
		"GMPI_SPIN_NS": "2us", "GMPI_SHM_RING": "2M", "GMPI_TCP_TIMEOUT": "1.5",
		"GMPI_ASYNC_PROGRESS": "off", "GMPI_OVERSUBSCRIBED": "auto", "GMPI_TCP_POLL": "1",
		"GMPI_COLL_SHM_OPS": " Reduce, bcast ,", "GMPI_EAGER_LIMIT": "",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := SpinNS.Get(v); got != 2*time.Microsecond {
		t.Errorf("GMPI_SPIN_NS=2us: %v", got)
	}
	if got := ShmRing.Get(v); got != 2<<20 {
		t.Errorf("GMPI_SHM_RING=2M: %v", got)
	}
	if got := TCPTimeout.Get(v); got != 1500*time.Millisecond {
		t.Errorf("GMPI_TCP_TIMEOUT=1.5: %v", got)
	}
	if AsyncProgress.Get(v) {
		t.Error("GMPI_ASYNC_PROGRESS=off is on")
	}
	if _, set := Oversubscribed.Lookup(v); set {
		t.Error("GMPI_OVERSUBSCRIBED=auto counts as forced")
	}
	if poll, set := TCPPoll.Lookup(v); !poll || !set {
		t.Errorf("GMPI_TCP_POLL=1: %v, %v", poll, set)
	}
	if got := strings.Join(CollShmOps.Get(v), ","); got != "reduce,bcast" {
		t.Errorf("GMPI_COLL_SHM_OPS: %q", got)
	}
	if got, set := EagerLimit.Lookup(v); got != 65536 || set {
		t.Errorf("empty GMPI_EAGER_LIMIT: %v, %v; want the default, unset", got, set)
	}
	// Defaults, also from a nil snapshot.
	for _, s := range []*Values{nil, {}} {
		if SpinNS.Get(s) != 50*time.Microsecond || !Express.Get(s) || Device.Get(s) != "auto" ||
			StartupTimeout.Get(s) != 120*time.Second || strings.Join(CollShmOps.Get(s), ",") != "all" {
			t.Errorf("defaults wrong in %v", s)
		}
	}
}

// TestLoadErrors: every malformed value is reported, naming its variable;
// the well-formed ones are still read.
func TestLoadErrors(t *testing.T) {
	v, err := Map(map[string]string{
		"GMPI_SPIN_NS": "soon", "GMPI_SHM_RING": "lots", "GMPI_EXPRESS": "maybe",
		"GMPI_DEVICE": "carrier-pigeon", "GMPI_COLL_SHM_OPS": "bcast,nosuch", "GMPI_EAGER_LIMIT": "-5",
		"GMPI_PUSH_MIN": "1K", "GMPI_SHM_FRAME": "0",
	})
	if err == nil {
		t.Fatal("malformed values accepted")
	}
	for _, name := range []string{"GMPI_SPIN_NS", "GMPI_SHM_RING", "GMPI_EXPRESS", "GMPI_DEVICE", "GMPI_COLL_SHM_OPS", "GMPI_EAGER_LIMIT", "GMPI_SHM_FRAME"} {
		if !strings.Contains(err.Error(), name+"=") {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
	if PushMin.Get(v) != 1024 {
		t.Errorf("well-formed GMPI_PUSH_MIN=1K lost: %d", PushMin.Get(v))
	}
	if SpinNS.Get(v) != 50*time.Microsecond {
		t.Errorf("malformed GMPI_SPIN_NS gave %v", SpinNS.Get(v))
	}
}

func TestRegistry(t *testing.T) {
	all := All()
	if len(all) < 30 {
		t.Fatalf("only %d variables declared", len(all))
	}
	for i, v := range all {
		if i > 0 && all[i-1].Name >= v.Name {
			t.Errorf("All not sorted at %s", v.Name)
		}
		if v.Desc == "" || v.Scope == "" {
			t.Errorf("%s: no description or scope", v.Name)
		}
		if Lookup(v.Name) != v {
			t.Errorf("Lookup(%s) is not its declaration", v.Name)
		}
		// The default, as shown, parses back to the default (except
		// the descriptive ones).
		if v.Default != "" && v.Default != "auto" && v.Default != "GMPI_EAGER_LIMIT" {
			if _, err := v.parse(v.Default); err != nil {
				t.Errorf("%s: default %q does not parse: %v", v.Name, v.Default, err)
			}
		}
	}
	if !JobSecret.Var().Secret || !JobSecret.Var().Internal || SpinNS.Var().Internal {
		t.Error("secret/internal flags wrong")
	}
	if got := TunedAlgorithm.Name("reduce_scatter_block"); got != "GMPI_COLL_TUNED_REDUCE_SCATTER_BLOCK_ALGORITHM" {
		t.Errorf("family name %q", got)
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("GMPI_EMU_DEBUG", "yes")
	t.Setenv("GMPI_SPIN_NS", "bad") // another variable's error does not matter
	if d, err := EmuDebug.Env(); err != nil || !d {
		t.Errorf("EmuDebug.Env() = %v, %v", d, err)
	}
	if _, err := SpinNS.Env(); err == nil || !strings.Contains(err.Error(), "GMPI_SPIN_NS") {
		t.Errorf("SpinNS.Env() error %v", err)
	}
}
