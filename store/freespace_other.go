//go:build !linux

package store

// freeSpace is unknown off Linux.
func freeSpace(string) int64 { return -1 }
