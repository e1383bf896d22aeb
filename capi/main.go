// Command capi is gmpi's C API: built with -buildmode=c-shared it is
// libmpi.so. The entry points are generated from spec/mpi.txt (see
// internal/gen); the semantics are in the hand-written files.
package main

//go:generate go run ./internal/gen

// #cgo CFLAGS: -I${SRCDIR}/../include
import "C"

func main() {}
