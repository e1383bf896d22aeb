//go:build !amd64

package shm

import "sync/atomic"

// publishCtl stores a record's ctl word with release semantics (see
// publish_amd64.go); weaker memory models need the atomic store.
func publishCtl(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
