package workspace

// WatchErrForTest exposes the watch error mapping to the tests.
var WatchErrForTest = watchErr

// SetCheckpointLimitsForTest lowers the size limits of checkpoints and
// returns a function that restores them.
func SetCheckpointLimitsForTest(files, bytes int64) func() {
	old := checkpointLimits
	checkpointLimits.files, checkpointLimits.bytes = files, bytes
	return func() { checkpointLimits = old }
}
