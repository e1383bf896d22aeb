package main

// extern int gmpi_gettid(void);
import "C"

import mpirt "gmpi/runtime"

// The runtime learns thread ids from a per-thread cache in C (tid.c)
// rather than a system call per MPI call.
func init() { mpirt.SetThreadID(func() int { return int(C.gmpi_gettid()) }) }
