//go:build !amd64

package line

func PrefetchW(p *byte) {}
