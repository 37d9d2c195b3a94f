package sqlitedb

/*
#include <stdint.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// From sqlite3.h; the library is the one mattn/go-sqlite3 compiles in.
extern int64_t sqlite3_memory_used(void);
extern int64_t sqlite3_memory_highwater(int resetFlag);

// glibc fixes how many arenas it makes when a second thread first
// allocates, which Go's runtime threads do before main: set it before
// that, from the ELF constructor (glibc passes it the arguments), for the
// headless commands (any argument) only.
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
__attribute__((constructor)) static void mnote_one_malloc_arena(int argc, char **argv, char **envp) {
	(void)argv;
	(void)envp;
	if (argc > 1) {
		mallopt(M_ARENA_MAX, 1);
	}
}
#endif
*/
import "C"

// A process that runs a headless command (one with arguments) keeps one
// glibc malloc arena for all its threads (see the constructor above). Go
// runs cgo calls on whichever thread is free, so SQLite's allocations
// otherwise spread over an arena per thread, each keeping its own free
// memory: about 0.6 MB apiece in a streaming session, 4 MB of a 19 MB
// peak. The window keeps glibc's default: GTK and WebKit allocate from
// many threads at once.

// MemoryUsed returns the bytes SQLite holds now and the most it held.
func MemoryUsed() (now, peak int64) {
	return int64(C.sqlite3_memory_used()), int64(C.sqlite3_memory_highwater(0))
}
