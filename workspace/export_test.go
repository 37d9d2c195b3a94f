package workspace

import "io/fs"

// WatchErrForTest exposes the watch error mapping to the tests.
var WatchErrForTest = watchErr

// SetCheckpointLimitsForTest lowers the size limits of checkpoints and
// returns a function that restores them.
func SetCheckpointLimitsForTest(files, bytes int64) func() {
	old := checkpointLimits
	checkpointLimits.files, checkpointLimits.bytes = files, bytes
	return func() { checkpointLimits = old }
}

// MoveNoReplaceForTest exposes moveNoReplace: a rename that a target
// appearing after the caller's check cannot be lost to.
func (w *Workspace) MoveNoReplaceForTest(from, to string) error { return w.moveNoReplace(from, to) }

// Merge3ForTest exposes the line merge of an agent's write into unsaved
// edits.
func Merge3ForTest(base, mine, theirs string) (string, bool) { return merge3(base, mine, theirs) }

// ReadDirForTest exposes the tree's folder listing through the root.
func (w *Workspace) ReadDirForTest(rel string) ([]fs.DirEntry, error) { return readDir(w.root, rel) }
