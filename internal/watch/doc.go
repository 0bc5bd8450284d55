// Package watch owns kb's file-system watching: a debounced, recursive
// watcher on top of fsnotify that turns bursts of raw events into one
// sorted batch per burst.
//
// Directories are watched recursively, including directories created
// later, and a path that does not exist yet is picked up when it appears
// (coding agents create their transcript directories lazily). A kernel
// queue overflow becomes a "rescan" event per watched root so the caller
// can rescan, and running out of inotify watches is reported as
// ErrWatchLimit instead of being lost.
package watch
