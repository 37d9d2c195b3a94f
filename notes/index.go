package notes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"mnote/store/ftstoken"
	"mnote/store/sqlitedb"
	"mnote/workspace"
)

// MaxNoteSize is the largest note indexed (bigger ones are counted as
// skipped): 4 MiB of text is a book, not a note.
const MaxNoteSize = 4 << 20

// schemaVersion is PRAGMA user_version of the index. An index of another
// version is dropped and built again: it is derived.
const schemaVersion = 4 // 2: titles and tags (tags.go); 3: links to attachments (links.file); 4: the attachments (files)

const schema = `
CREATE TABLE IF NOT EXISTS notes (
    id       INTEGER PRIMARY KEY, -- the rowid of its text in notes_fts
    path     TEXT NOT NULL UNIQUE,
    name     TEXT NOT NULL,    -- lower-case file name without .md, for links
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    skipped  TEXT NOT NULL DEFAULT '' -- why it is not indexed: too-big, not-text
);
CREATE INDEX IF NOT EXISTS notes_name ON notes (name);
CREATE TABLE IF NOT EXISTS headings (
    id    INTEGER PRIMARY KEY, -- its rowid in headings_fts
    path  TEXT NOT NULL,
    line  INTEGER NOT NULL,
    level INTEGER NOT NULL,
    text  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS headings_path ON headings (path);
CREATE TABLE IF NOT EXISTS links (
    src     TEXT NOT NULL,
    line    INTEGER NOT NULL,
    context TEXT NOT NULL,
    target  TEXT NOT NULL,
    key     TEXT NOT NULL,    -- lower-case file name of the target, for backlinks
    heading TEXT NOT NULL,
    alias   TEXT NOT NULL,
    wiki    INTEGER NOT NULL,
    file    INTEGER NOT NULL DEFAULT 0 -- 1: to a file that is no note (an attachment)
);
CREATE INDEX IF NOT EXISTS links_src ON links (src);
CREATE TABLE IF NOT EXISTS files (
    path TEXT NOT NULL PRIMARY KEY, -- a file that is no note (an attachment)
    name TEXT NOT NULL              -- its lower-case file name, for [[a.pdf]] and ![[a.png]]
);
CREATE INDEX IF NOT EXISTS files_name ON files (name);
CREATE INDEX IF NOT EXISTS links_key ON links (key);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5 (
    text,
    tokenize = 'mnote remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS headings_fts USING fts5 (
    text,
    tokenize = 'mnote remove_diacritics 2'
);
`

// Options tunes an Index.
type Options struct {
	// Ignore names files and folders left out wherever they are (".git",
	// "node_modules", …): the workspace's list.
	Ignore []string
}

// Index is one workspace's notes index. It is safe for concurrent use.
type Index struct {
	ws     *workspace.Workspace
	dir    string
	path   string
	w, r   *sql.DB
	ignore map[string]bool
}

// Stats counts what a Sync saw.
type Stats struct {
	Notes   int `json:"notes"`   // indexed
	Read    int `json:"read"`    // read this time (new or changed)
	Removed int `json:"removed"` // gone since the last sync
	TooBig  int `json:"tooBig"`  // over MaxNoteSize
	NotText int `json:"notText"` // not UTF-8 text
}

// Skipped is how many notes are not indexed.
func (s Stats) Skipped() int { return s.TooBig + s.NotText }

// PathFor is where the index of the workspace dir lives under dataDir:
// notes/<first 16 bytes of SHA-256 of dir's real path, hex>.db.
func PathFor(dataDir, dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("notes: %w", err)
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return "", fmt.Errorf("notes: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dataDir, "notes", hex.EncodeToString(sum[:16])+".db"), nil
}

// Open opens (creating it if needed) the index at dbPath of the notes of
// the workspace ws. A file that is not a usable index is replaced by an
// empty one; Sync fills it.
func Open(ctx context.Context, dbPath string, ws *workspace.Workspace, opts Options) (*Index, error) {
	if err := ftstoken.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
		return nil, fmt.Errorf("notes: index folder: %w", err)
	}
	ix, err := open(ctx, dbPath, ws, opts)
	if err == nil {
		return ix, nil
	}
	// Derived data: start again rather than fail.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if rerr := os.Remove(dbPath + suffix); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("notes: index %s is unusable (%v) and cannot be removed: %w", dbPath, err, rerr)
		}
	}
	return open(ctx, dbPath, ws, opts)
}

func open(ctx context.Context, dbPath string, ws *workspace.Workspace, opts Options) (_ *Index, err error) {
	if err := sqlitedb.Create(dbPath); err != nil {
		return nil, fmt.Errorf("notes: open index: %w", err)
	}
	ix := &Index{ws: ws, dir: ws.Dir(), path: dbPath, ignore: make(map[string]bool)}
	for _, n := range opts.Ignore {
		ix.ignore[n] = true
	}
	defer func() {
		if err != nil {
			ix.Close()
		}
	}()
	const q = "_busy_timeout=5000&_synchronous=NORMAL"
	if ix.w, err = sqlitedb.OpenWriter(ctx, sqlitedb.DSN(dbPath, q+"&_journal_mode=WAL&_txlock=immediate")); err != nil {
		return nil, fmt.Errorf("notes: open index %s: %w", dbPath, err)
	}
	var v int
	if err := ix.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return nil, fmt.Errorf("notes: index %s: %w", dbPath, err)
	}
	if v != schemaVersion && v != 0 {
		return nil, fmt.Errorf("notes: index %s has version %d", dbPath, v)
	}
	if _, err := ix.w.ExecContext(ctx, schema+metaSchema+fmt.Sprintf("PRAGMA user_version = %d;", schemaVersion)); err != nil {
		return nil, fmt.Errorf("notes: index %s: %w", dbPath, err)
	}
	if ix.r, err = sqlitedb.OpenReaders(sqlitedb.DSN(dbPath, q+"&_query_only=1")); err != nil {
		return nil, fmt.Errorf("notes: open index %s: %w", dbPath, err)
	}
	return ix, nil
}

// Close closes the index.
func (ix *Index) Close() error {
	var errs []error
	if ix.r != nil {
		errs = append(errs, ix.r.Close())
	}
	if ix.w != nil {
		errs = append(errs, ix.w.Close())
	}
	return errors.Join(errs...)
}

// Dir is the notes folder.
func (ix *Index) Dir() string { return ix.dir }

type fileInfo struct {
	size, mtime int64
}

// Sync brings the index up to date with the folder: notes that are new or
// whose size or modification time changed are read, those gone are
// dropped. progress, if not nil, is told done of total notes now and then.
func (ix *Index) Sync(ctx context.Context, progress func(done, total int)) (Stats, error) {
	var st Stats
	onDisk := make(map[string]fileInfo)
	files := make(map[string]bool) // the attachments
	err := ix.ws.WalkAgentFiles(ctx, func(p string, fi fs.FileInfo) error {
		switch {
		case ix.ignoredPath(p):
		case isNoteName(p):
			onDisk[p] = fileInfo{fi.Size(), fi.ModTime().UnixNano()}
		default:
			files[p] = true
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("notes: walk %s: %w", ix.dir, err)
	}
	known := make(map[string]fileInfo)
	rows, err := ix.w.QueryContext(ctx, `SELECT path, size, mtime_ns FROM notes`)
	if err != nil {
		return st, fmt.Errorf("notes: %w", err)
	}
	for rows.Next() {
		var p string
		var fi fileInfo
		if err := rows.Scan(&p, &fi.size, &fi.mtime); err != nil {
			rows.Close()
			return st, fmt.Errorf("notes: %w", err)
		}
		known[p] = fi
	}
	rows.Close()
	var todo []string
	for p, fi := range onDisk {
		if k, ok := known[p]; !ok || k != fi {
			todo = append(todo, p)
		}
	}
	tx, err := ix.w.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("notes: %w", err)
	}
	defer tx.Rollback()
	for p := range known {
		if _, ok := onDisk[p]; !ok {
			if err := deleteNote(ctx, tx, p); err != nil {
				return st, err
			}
			st.Removed++
		}
	}
	if err := syncFiles(ctx, tx, files); err != nil {
		return st, err
	}
	ps, err := prepare(ctx, tx)
	if err != nil {
		return st, err
	}
	for i, p := range todo {
		_, had := known[p]
		if err := ix.indexFile(ctx, ps, p, had, onDisk[p], &st); err != nil {
			return st, err
		}
		st.Read++
		if progress != nil && (i%200 == 199 || i == len(todo)-1) {
			progress(i+1, len(todo))
		}
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("notes: %w", err)
	}
	if err := ix.w.QueryRowContext(ctx, `SELECT count(*) FROM notes WHERE skipped = ''`).Scan(&st.Notes); err != nil {
		return st, fmt.Errorf("notes: %w", err)
	}
	var big, text int
	ix.w.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE skipped = 'too-big'), count(*) FILTER (WHERE skipped = 'not-text') FROM notes`).Scan(&big, &text)
	st.TooBig, st.NotText = big, text
	return st, nil
}

// Update indexes the note at rel (slash-separated, relative to the folder)
// again, or drops it when it is gone or no note. A folder's path updates
// what it holds (a created or moved-in folder).
func (ix *Index) Update(ctx context.Context, rel string) error {
	rel = path.Clean(rel)
	root, err := os.OpenRoot(ix.dir)
	if err != nil {
		return fmt.Errorf("notes: open %s: %w", ix.dir, err)
	}
	defer root.Close()
	fi, lerr := root.Lstat(rel)
	if lerr == nil && fi.IsDir() {
		_, err := ix.Sync(ctx, nil)
		return err
	}
	tx, err := ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	defer tx.Rollback()
	regular := lerr == nil && fi.Mode().IsRegular() && !ix.ignoredPath(rel)
	if err := setFile(ctx, tx, rel, regular && !isNoteName(rel)); err != nil {
		return err
	}
	if !regular || !isNoteName(rel) {
		if err := deleteNote(ctx, tx, rel); err != nil {
			return err
		}
	} else if ps, err := prepare(ctx, tx); err != nil {
		return err
	} else if err := ix.indexFile(ctx, ps, rel, true, fileInfo{fi.Size(), fi.ModTime().UnixNano()}, &Stats{}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	return nil
}

// Remove drops the note or folder at rel (a folder: every note in it).
func (ix *Index) Remove(ctx context.Context, rel string) error {
	rel = path.Clean(rel)
	tx, err := ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT path FROM notes WHERE path = ? OR (path >= ? AND path < ?)`, rel, rel+"/", rel+"0")
	if err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	var gone []string
	for rows.Next() {
		var p string
		rows.Scan(&p)
		gone = append(gone, p)
	}
	rows.Close()
	for _, p := range gone {
		if err := deleteNote(ctx, tx, p); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE path = ? OR (path >= ? AND path < ?)`, rel, rel+"/", rel+"0"); err != nil {
		return fmt.Errorf("notes: drop %s: %w", rel, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("notes: %w", err)
	}
	return nil
}

func (ix *Index) ignored(name string) bool {
	return ix.ignore[name] || name == ".mnote-trash"
}

func (ix *Index) ignoredPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if ix.ignored(part) {
			return true
		}
	}
	return false
}

// stmts are the statements of one write transaction, prepared once.
type stmts struct {
	tx                            *sql.Tx
	note, text, head, headFTS, lk *sql.Stmt
	title, tag                    *sql.Stmt
}

func prepare(ctx context.Context, tx *sql.Tx) (*stmts, error) {
	s := &stmts{tx: tx}
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&s.note, `INSERT INTO notes (path, name, size, mtime_ns, skipped) VALUES (?, ?, ?, ?, ?)`},
		{&s.text, `INSERT INTO notes_fts (rowid, text) VALUES (?, ?)`},
		{&s.head, `INSERT INTO headings (path, line, level, text) VALUES (?, ?, ?, ?)`},
		{&s.headFTS, `INSERT INTO headings_fts (rowid, text) VALUES (?, ?)`},
		{&s.title, `INSERT INTO titles (path, title) VALUES (?, ?)`},
		{&s.tag, `INSERT INTO tags (path, line, tag, key, context) VALUES (?, ?, ?, ?, ?)`},
		{&s.lk, `INSERT INTO links (src, line, context, target, key, heading, alias, wiki, file) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			return nil, fmt.Errorf("notes: %w", err)
		}
		*p.dst = st
	}
	return s, nil
}

// indexFile reads one note and replaces its rows (in s's transaction);
// known says whether the index may hold rows of it, seen is the size and
// modification time the walk saw (kept when the note is skipped). The note is read as an
// agent's read would read it (workspace.ReadAgentFile): what that refuses
// (a file with several hard links, a symbolic link, a FIFO, mnote's own
// folders) is not indexed at all, so search, the listing, outlines and
// backlinks show nothing an agent may not read.
func (ix *Index) indexFile(ctx context.Context, s *stmts, rel string, known bool, seen fileInfo, st *Stats) error {
	tx := s.tx
	if known {
		if err := deleteNote(ctx, tx, rel); err != nil {
			return err
		}
	}
	b, fi, err := ix.ws.ReadAgentFile(rel)
	name := strings.ToLower(strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
	skipped := ""
	var text string
	switch {
	case errors.Is(err, workspace.ErrTooLarge), err == nil && len(b) > MaxNoteSize:
		skipped = "too-big"
		st.TooBig++
	case errors.Is(err, workspace.ErrNotText), err == nil && bytes.IndexByte(b, 0) >= 0:
		skipped = "not-text"
		st.NotText++
	case err != nil:
		return nil // refused, or gone meanwhile (the watcher will say so)
	default:
		text = string(bytes.TrimPrefix(b, []byte("\uFEFF")))
	}
	if fi != nil {
		seen = fileInfo{fi.Size(), fi.ModTime().UnixNano()}
	}
	res, err := s.note.ExecContext(ctx, rel, name, seen.size, seen.mtime, skipped)
	if err != nil {
		return fmt.Errorf("notes: index %s: %w", rel, err)
	}
	if skipped != "" {
		return nil
	}
	id, _ := res.LastInsertId()
	if _, err := s.text.ExecContext(ctx, id, text); err != nil {
		return fmt.Errorf("notes: index %s: %w", rel, err)
	}
	note := parse(rel, text)
	for _, h := range note.heads {
		res, err := s.head.ExecContext(ctx, rel, h.Line, h.Level, h.Text)
		if err != nil {
			return fmt.Errorf("notes: index %s: %w", rel, err)
		}
		hid, _ := res.LastInsertId()
		if _, err := s.headFTS.ExecContext(ctx, hid, h.Text); err != nil {
			return fmt.Errorf("notes: index %s: %w", rel, err)
		}
	}
	if note.title != "" {
		if _, err := s.title.ExecContext(ctx, rel, note.title); err != nil {
			return fmt.Errorf("notes: index %s: %w", rel, err)
		}
	}
	for _, t := range note.tags {
		if _, err := s.tag.ExecContext(ctx, rel, t.Line, t.Tag, strings.ToLower(t.Tag), t.Context); err != nil {
			return fmt.Errorf("notes: index %s: %w", rel, err)
		}
	}
	for _, l := range note.links {
		if _, err := s.lk.ExecContext(ctx, rel, l.Line, l.Context, l.Target, linkKey(l), l.Heading, l.Alias, l.Wiki, l.file); err != nil {
			return fmt.Errorf("notes: index %s: %w", rel, err)
		}
	}
	return nil
}

// linkKey is the name a link is found by (lower-case): a note's file name
// without its extension, an attachment's with it.
func linkKey(l Link) string {
	key := strings.ToLower(path.Base(l.Target))
	if !l.Wiki && !l.file {
		key = strings.TrimSuffix(key, path.Ext(key))
	}
	return key
}

// syncFiles makes the attachments the index knows those of onDisk.
func syncFiles(ctx context.Context, tx *sql.Tx, onDisk map[string]bool) error {
	rows, err := tx.QueryContext(ctx, `SELECT path FROM files`)
	if err != nil {
		return fmt.Errorf("notes: attachments: %w", err)
	}
	var gone []string
	known := make(map[string]bool)
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return fmt.Errorf("notes: attachments: %w", err)
		}
		known[p] = true
		if !onDisk[p] {
			gone = append(gone, p)
		}
	}
	rows.Close()
	for _, p := range gone {
		if err := setFile(ctx, tx, p, false); err != nil {
			return err
		}
	}
	for p := range onDisk {
		if !known[p] {
			if err := setFile(ctx, tx, p, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// setFile records rel as an attachment (is), or drops it.
func setFile(ctx context.Context, tx *sql.Tx, rel string, is bool) error {
	q, args := `DELETE FROM files WHERE path = ?`, []any{rel}
	if is {
		q, args = `INSERT OR IGNORE INTO files (path, name) VALUES (?, ?)`, []any{rel, strings.ToLower(path.Base(rel))}
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("notes: attachment %s: %w", rel, err)
	}
	return nil
}

// deleteNote drops a note's rows. The full-text rows go by rowid: FTS5
// finds a row by any other column only by reading them all.
func deleteNote(ctx context.Context, tx *sql.Tx, rel string) error {
	for _, q := range []string{
		`DELETE FROM notes_fts WHERE rowid = (SELECT id FROM notes WHERE path = ?)`,
		`DELETE FROM headings_fts WHERE rowid IN (SELECT id FROM headings WHERE path = ?)`,
		`DELETE FROM notes WHERE path = ?`,
		`DELETE FROM headings WHERE path = ?`,
		`DELETE FROM links WHERE src = ?`,
		`DELETE FROM titles WHERE path = ?`,
		`DELETE FROM tags WHERE path = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, rel); err != nil {
			return fmt.Errorf("notes: drop %s: %w", rel, err)
		}
	}
	return nil
}
