// The "mnote" FTS5 tokenizer: unicode61 for every script, with runs of
// Chinese, Japanese and Korean characters cut into overlapping bigrams
// (the approach of Lucene's CJK analyzer). See doc.go.
#include <stdlib.h>
#include <string.h>

// The few SQLite declarations this file needs (sqlite3.h and fts5.h are
// part of github.com/mattn/go-sqlite3, which compiles SQLite into the
// binary but does not export its headers). The functions are declared weak:
// cgo links this package's objects alone once to look for dynamic imports,
// where SQLite is not there yet; in the program they resolve to SQLite.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_api_routines sqlite3_api_routines;
typedef struct Fts5Tokenizer Fts5Tokenizer;
typedef struct fts5_api fts5_api;
typedef struct fts5_tokenizer fts5_tokenizer;

extern int sqlite3_auto_extension(void (*)(void)) __attribute__((weak));
extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **) __attribute__((weak));
extern int sqlite3_bind_pointer(sqlite3_stmt *, int, void *, const char *, void (*)(void *)) __attribute__((weak));
extern int sqlite3_step(sqlite3_stmt *) __attribute__((weak));
extern int sqlite3_finalize(sqlite3_stmt *) __attribute__((weak));

#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_NOMEM 7
#define SQLITE_ROW 100

typedef int (*xTokenFn)(void *pCtx, int tflags, const char *pToken, int nToken, int iStart, int iEnd);

struct fts5_tokenizer {
	int (*xCreate)(void *, const char **azArg, int nArg, Fts5Tokenizer **ppOut);
	void (*xDelete)(Fts5Tokenizer *);
	int (*xTokenize)(Fts5Tokenizer *, void *pCtx, int flags, const char *pText, int nText, xTokenFn xToken);
};

struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api *pApi, const char *zName, void *pUserData, fts5_tokenizer *pTokenizer,
	                        void (*xDestroy)(void *));
	int (*xFindTokenizer)(fts5_api *pApi, const char *zName, void **ppUserData, fts5_tokenizer *pTokenizer);
	/* more members follow; not used */
};

#define FTS5_TOKENIZE_QUERY 0x0001
#define FTS5_TOKEN_COLOCATED 0x0001

// A tokenizer instance wraps a unicode61 instance made with the same
// arguments (remove_diacritics, tokenchars, ...).
typedef struct {
	fts5_tokenizer inner;
	Fts5Tokenizer *innerTok;
} mnoteTok;

static int mnoteCreate(void *pCtx, const char **azArg, int nArg, Fts5Tokenizer **ppOut) {
	fts5_api *api = (fts5_api *)pCtx;
	void *ud = 0;
	mnoteTok *t = calloc(1, sizeof(*t));
	if (!t) return SQLITE_NOMEM;
	int rc = api->xFindTokenizer(api, "unicode61", &ud, &t->inner);
	if (rc == SQLITE_OK) rc = t->inner.xCreate(ud, azArg, nArg, &t->innerTok);
	if (rc != SQLITE_OK) {
		free(t);
		return rc;
	}
	*ppOut = (Fts5Tokenizer *)t;
	return SQLITE_OK;
}

static void mnoteDelete(Fts5Tokenizer *p) {
	mnoteTok *t = (mnoteTok *)p;
	if (!t) return;
	t->inner.xDelete(t->innerTok);
	free(t);
}

// mnoteIsCJK: the scripts written without spaces between words (Han, kana,
// Hangul, which Korean spaces by phrase, not by word).
int mnoteIsCJK(unsigned c) {
	return (c >= 0x3040 && c <= 0x30FF) ||   /* Hiragana, Katakana */
	       (c >= 0x31F0 && c <= 0x31FF) ||   /* Katakana extensions */
	       (c >= 0x3400 && c <= 0x4DBF) ||   /* Han extension A */
	       (c >= 0x4E00 && c <= 0x9FFF) ||   /* Han */
	       (c >= 0xF900 && c <= 0xFAFF) ||   /* Han compatibility */
	       (c >= 0xFF66 && c <= 0xFF9F) ||   /* halfwidth Katakana */
	       (c >= 0x1100 && c <= 0x11FF) ||   /* Hangul Jamo */
	       (c >= 0x3130 && c <= 0x318F) ||   /* Hangul compatibility Jamo */
	       (c >= 0xAC00 && c <= 0xD7AF) ||   /* Hangul syllables */
	       (c >= 0x20000 && c <= 0x3134F) || /* Han extensions B-H, compatibility supplement */
	       c == 0x3005 || c == 0x3007;       /* 々 〇 */
}

// utf8At decodes the character at s[i] (n bytes left) into *c and returns
// its length (1 for a byte that starts no valid sequence).
static int utf8At(const unsigned char *s, int n, unsigned *c) {
	unsigned b = s[0];
	if (b < 0x80 || n < 2) { *c = b; return 1; }
	if ((b & 0xE0) == 0xC0) { *c = ((b & 0x1F) << 6) | (s[1] & 0x3F); return 2; }
	if ((b & 0xF0) == 0xE0 && n >= 3) { *c = ((b & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F); return 3; }
	if ((b & 0xF8) == 0xF0 && n >= 4) {
		*c = ((b & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
		return 4;
	}
	*c = b;
	return 1;
}

typedef struct {
	void *pCtx;
	xTokenFn xToken;
	int query;
} splitCtx;

// splitToken passes a unicode61 token on, cutting its CJK runs: each pair of
// neighbouring characters is a token; in documents (not queries) every
// character is a token too, at the position of the pair it starts (the
// run's last one at the last pair's), so that a one-character query is one
// term, whose doclist FTS5 reads newest first and stops at the limit. Offsets point into the token when unicode61
// kept its length (case folding of most scripts does), else at the whole token.
static int splitToken(void *p, int tflags, const char *pToken, int nToken, int iStart, int iEnd) {
	splitCtx *c = (splitCtx *)p;
	const unsigned char *s = (const unsigned char *)pToken;
	int i = 0, any = 0;
	for (i = 0; i < nToken; i++) {
		if (s[i] >= 0xE1) { any = 1; break; } /* every CJK character is 3 or 4 bytes, lead byte >= 0xE1 */
	}
	if (!any) return c->xToken(c->pCtx, tflags, pToken, nToken, iStart, iEnd);
	int exact = (iEnd - iStart) == nToken;
#define OFF(x) (exact ? iStart + (x) : ((x) == nToken ? iEnd : iStart))
	int rc = SQLITE_OK;
	int segStart = 0; /* start of the current non-CJK segment */
	i = 0;
	while (i < nToken && rc == SQLITE_OK) {
		unsigned ch;
		int len = utf8At(s + i, nToken - i, &ch);
		if (!mnoteIsCJK(ch)) {
			i += len;
			continue;
		}
		if (i > segStart) rc = c->xToken(c->pCtx, tflags, pToken + segStart, i - segStart, OFF(segStart), OFF(i));
		/* a CJK run from i */
		int prev = i, prevLen = len, n = 1;
		int j = i + len;
		while (j < nToken && rc == SQLITE_OK) {
			unsigned ch2;
			int len2 = utf8At(s + j, nToken - j, &ch2);
			if (!mnoteIsCJK(ch2)) break;
			rc = c->xToken(c->pCtx, tflags, pToken + prev, prevLen + len2, OFF(prev), OFF(j + len2));
			/* in documents, each character at its bigram's position */
			if (rc == SQLITE_OK && !c->query)
				rc = c->xToken(c->pCtx, tflags | FTS5_TOKEN_COLOCATED, pToken + prev, prevLen, OFF(prev), OFF(prev + prevLen));
			prev = j;
			prevLen = len2;
			j += len2;
			n++;
		}
		/* the run's last character: alone (a run of one), or at the last bigram's position */
		if (rc == SQLITE_OK && (n == 1 || !c->query))
			rc = c->xToken(c->pCtx, n == 1 ? tflags : (tflags | FTS5_TOKEN_COLOCATED), pToken + prev, prevLen,
			               OFF(prev), OFF(prev + prevLen));
		i = j;
		segStart = j;
	}
	if (segStart == 0) /* no CJK after all (other scripts of 3-byte characters) */
		return c->xToken(c->pCtx, tflags, pToken, nToken, iStart, iEnd);
	if (rc == SQLITE_OK && segStart < nToken)
		rc = c->xToken(c->pCtx, tflags, pToken + segStart, nToken - segStart, OFF(segStart), OFF(nToken));
#undef OFF
	return rc;
}

static int mnoteTokenize(Fts5Tokenizer *p, void *pCtx, int flags, const char *pText, int nText, xTokenFn xToken) {
	mnoteTok *t = (mnoteTok *)p;
	splitCtx c = {pCtx, xToken, (flags & FTS5_TOKENIZE_QUERY) != 0};
	return t->inner.xTokenize(t->innerTok, &c, flags, pText, nText, splitToken);
}

static int registerOn(sqlite3 *db, char **pzErr, const sqlite3_api_routines *api) {
	(void)pzErr;
	(void)api;
	fts5_api *fts = 0;
	sqlite3_stmt *st = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0);
	if (rc != SQLITE_OK) return SQLITE_OK; /* no FTS5 in this build: nothing to add to */
	sqlite3_bind_pointer(st, 1, (void *)&fts, "fts5_api_ptr", 0);
	sqlite3_step(st);
	sqlite3_finalize(st);
	if (!fts || fts->iVersion < 2) return SQLITE_OK;
	fts5_tokenizer tok = {mnoteCreate, mnoteDelete, mnoteTokenize};
	return fts->xCreateTokenizer(fts, "mnote", (void *)fts, &tok, 0);
}

// mnoteRegister makes every SQLite connection opened from now on know the
// tokenizer. It returns an SQLite result code, or -1 when SQLite is not
// linked into the program.
int mnoteRegister(void) {
	if (!sqlite3_auto_extension) return -1;
	return sqlite3_auto_extension((void (*)(void))registerOn);
}
