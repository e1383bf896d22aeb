// Package line holds the shm device's cache-line hints. They are in Go
// assembly, which a cgo package (shm has the C express lane) may not
// contain.
package line
