// Package components is the list of collective components a world uses:
// the library builds its selector from it and mpirun --info describes it,
// so neither keeps a list of its own.
package components

import (
	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/coll/hetero"
	"gmpi/coll/hier"
	"gmpi/coll/inter"
	"gmpi/coll/shm"
	"gmpi/coll/tuned"
	"gmpi/runtime/param"
)

// List returns the components of a world with tunables p. jobID names
// the job in shared-memory segment names; empty, the shm component
// declines every communicator.
func List(p *param.Values, jobID string) ([]coll.Component, error) {
	tc, err := tuned.New(p)
	if err != nil {
		return nil, err
	}
	return []coll.Component{basic.Component{}, tc, inter.Component{}, shm.Component{JobID: jobID}, hier.Component{}, hetero.Component{}}, nil
}
