package main

// #include "express.h"
import "C"

// Background progress of nonblocking collectives (runtime/bgprogress.go):
// every export shim brackets its call with bgEnter/bgExit, which take and
// release the runtime's baton while the progress goroutine runs; the
// express lane is off for that time (it bypasses the shims).

func bgEnter() {
	if w := world; w != nil {
		w.BgEnter()
	}
	if C.gmpi_express_reqs.npost != 0 {
		expressHandover() // the engine first learns of the lane's receives
	}
}

func bgExit() {
	if w := world; w != nil {
		w.BgExit()
	}
}

// expressHold turns the express lane off while background progress runs
// (true) and back on afterwards, if it was on.
func expressHold(hold bool) {
	x := &C.gmpi_express
	if hold {
		expressWasOn = x.on != 0
		x.on = 0
	} else if expressWasOn {
		x.on = 1
	}
}

var expressWasOn bool
