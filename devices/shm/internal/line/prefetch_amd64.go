package line

// PrefetchW asks for the cache line at p in the exclusive state (AMD's
// and Intel's PREFETCHW), so that a later store to it does not wait for
// the line to come over from the consumer's core.
//
//go:noescape
func PrefetchW(p *byte)
