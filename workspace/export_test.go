package workspace

// WatchErrForTest exposes the watch error mapping to the tests.
var WatchErrForTest = watchErr
