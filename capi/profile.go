package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"gmpi/runtime/param"
)

// GMPI_CPUPROFILE=FILE writes a Go CPU profile of each rank from MPI_Init
// to MPI_Finalize into FILE.<rank> (a developer's tool: `go tool pprof
// build/lib/libmpi.so FILE.0`). A profile that cannot be started is
// reported on stderr and the job runs unprofiled.
var profileFile *os.File

func startProfile(p *param.Values, rank int) {
	path := param.CPUProfile.Get(p)
	if path == "" {
		return
	}
	path = strings.TrimSpace(path) + "." + strconv.Itoa(rank)
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.Stderr.WriteString("gmpi: GMPI_CPUPROFILE: " + err.Error() + "\n")
		return
	}
	profileFile = f
}

func stopProfile() {
	if profileFile != nil {
		pprof.StopCPUProfile()
		profileFile.Close()
		profileFile = nil
	}
}
