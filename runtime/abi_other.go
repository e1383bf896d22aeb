//go:build !s390x

package mpirt

// maxTypeAlign is the largest C alignment of a predefined type (long
// double and the 16-byte floats on x86-64 and aarch64).
const maxTypeAlign = 16
