// Package store keeps mnote's sessions on disk: one append-only JSONL
// transcript per session (the source of truth) and a SQLite index derived
// from the transcripts (sessions, runtime bindings, turns, full-text search),
// plus the two tables that are not derived (remembered permission rules and
// the sync outbox).
//
// # Transcripts
//
// A transcript is transcripts/<session-id>.jsonl, mode 0600, one record a
// line:
//
//	{"v":1,"seq":N,"ts_ms":T,"dir":"in"|"out"|"app","kind":"…","data":<JSON>}
//
// "in" and "out" records hold every ACP line of the session exactly as it
// was received or sent; "app" records are mnote's own (see the Kind*
// constants and the record types in records.go). The first record of every
// file is an app "session" record.
//
// A Writer holds an exclusive flock(2) on its file for as long as it is
// open, so a second Writer, in this process or another, gets ErrSessionBusy.
// Readers take no lock: they stop at the last complete line.
//
// # Durability policy
//
// Append copies the record into a 64 KiB in-memory buffer. The buffer is
// written to the file (write(2), into the OS page cache) when it fills, on
// Flush, Sync and Close, and otherwise by a timer armed on the first
// unflushed append, so no record stays only in memory for longer than
// 100 ms. Nothing is fsynced on that path. The caller calls Sync (flush +
// fsync) at every turn end and right after recording a permission decision;
// Close also syncs.
//
// What a crash can cost:
//   - mnote killed (kill -9, panic): at most the last 100 ms of records that
//     were still in the buffer. The OS keeps everything already written.
//   - power loss or kernel crash: everything since the last Sync, that is at
//     most the current turn up to its last permission decision.
//
// Either way the file can end with a torn line. Readers ignore it and
// OpenTranscript truncates it before appending again; nothing before it is
// lost. A failed write, flush or sync (disk full, I/O error) is sticky: the
// Writer refuses every later call with an error naming the file and wrapping
// the cause, and reports it once to WriterOptions.OnError, so the caller can
// stop the turn instead of going on with an in-memory-only session.
//
// # Index
//
// The SQLite index (mnote.db, WAL) can always be rebuilt from the
// transcripts: Index.Rebuild rereads all of them, Index.Reconcile (run at
// start) reindexes the transcripts whose size changed and drops the rows of
// the transcripts that are gone, and a corrupt database file is moved aside
// and recreated empty by OpenIndex (Reconcile then refills it). A session
// whose last turn never ended while no Writer holds its transcript (mnote
// was killed mid-turn) is indexed "interrupted" by Reconcile and Rebuild,
// not "running" forever; one whose Writer lives, in any process, stays
// "running". Transcript
// records become index rows through one piece of code, the Indexer, used
// both live and for rebuilds. In a rebuild it replays the records into a
// thread.Thread of its own; live, it follows the session's own thread (the
// session applies each change once and reports it, ObserveApplied), so
// search hits name the same entry ids ("e1", "e2", ...) as the UI either
// way. Live writes happen in batches on a goroutine of the Indexer's (every
// 500 ms or 8,192 records), never one UPDATE per chunk and never on the
// goroutine reading the agent; the caller's Flush at turn end writes the
// rest. Short answers of one turn split by thoughts and tool calls share a
// full-text row; the first MiB of a message is indexed.
package store
