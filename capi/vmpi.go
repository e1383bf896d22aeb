package main

import (
	"fmt"
	"strconv"
	"strings"

	"gmpi/devices/vmpi"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi"
)

// The vmpi device's part of MPI_Init. A rank of a grid machine with a
// vendor MPI was started by the vendor's launcher through mpirun's
// vmpi-exec, which set GMPI_VMPI_LIB (the vendor library) and moved the
// vendor launcher's own PMI variables aside into GMPI_VMPI_ENV; the
// vendor is initialized once gmpi's PMI is up, and its rank published
// before the location exchange's barrier.

// vmpiDevice is the process's vmpi device, nil when its machine has none.
var vmpiDevice *vmpi.Device

func vmpiCardKey(rank int) string { return fmt.Sprintf("gmpi-vmpi-%d", rank) }

// gmpiPMIVars are gmpi's PMI variables, which the vendor must not read as
// its own launcher's.
var gmpiPMIVars = []string{"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_SPAWNED"}

// startVendor initializes the vendor MPI when this rank has one and
// publishes its vendor rank; nil without one.
func startVendor(c *pmi.Client, params *param.Values, rank int) (*vmpi.Vendor, error) {
	lib := param.VMPILib.Get(params)
	if lib == "" || c == nil {
		return nil, nil
	}
	machine := param.Machine.Get(params)
	var env []string
	if e := param.VMPIEnv.Get(params); e != "" {
		env = strings.Split(e, "\n")
	}
	v, err := vmpi.Init(machine, lib, gmpiPMIVars, env)
	if err != nil {
		return nil, err
	}
	if err := c.Put(vmpiCardKey(rank), strconv.Itoa(v.Rank)); err != nil {
		return nil, err
	}
	return v, nil
}

// splitVendor takes the ranks of this rank's vendor job (same site,
// machine and vendor MPI) out of the shm and tcp peer lists and builds
// the vmpi device for them.
func splitVendor(c *pmi.Client, v *vmpi.Vendor, cfg mpirt.Config, local, remote []int) ([]int, []int, *vmpi.Device, error) {
	locs := cfg.Locations
	me := locs[cfg.Rank]
	if v == nil || me.VMPI == "" {
		return local, remote, nil, nil
	}
	ranks := map[int]int{}
	same := func(r int) bool {
		l := locs[r]
		return r != cfg.Rank && l.VMPI == me.VMPI && l.Machine == me.Machine && l.Site == me.Site
	}
	for r := range locs {
		if !same(r) {
			continue
		}
		s, err := c.Get(vmpiCardKey(r))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("rank %d of vendor job %s has no vendor rank: %v", r, me.VMPI, err)
		}
		vr, err := strconv.Atoi(s)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("rank %d: bad vendor rank %q", r, s)
		}
		ranks[r] = vr
	}
	if len(ranks) != v.Size-1 {
		return nil, nil, nil, fmt.Errorf("machine %s: the vendor job has %d processes but gmpi places %d there", me.Machine, v.Size, len(ranks)+1)
	}
	drop := func(ps []int) []int {
		var out []int
		for _, p := range ps {
			if _, ok := ranks[p]; !ok {
				out = append(out, p)
			}
		}
		return out
	}
	d, err := vmpi.New(vmpi.Config{Vendor: v, Rank: cfg.Rank, Size: cfg.Size, VendorRank: ranks})
	if err != nil {
		return nil, nil, nil, err
	}
	return drop(local), drop(remote), d, nil
}
