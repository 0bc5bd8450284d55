//go:build !unix

package recall

import "os"

// mapFile reads the file at path (no memory map on this system).
func mapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	return b, func() error { return nil }, err
}
