package workspace

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// DefaultIgnore is what the tree, the watcher and the checkpoints skip at
// any depth unless Options.Ignore says otherwise: version control data,
// dependency and cache folders (big, machine-written, never notes), the
// Finder's and Obsidian's own state (rewritten all the time, which would
// otherwise show up as changes during agent turns) and the trash folders.
// Names such as build, dist or target are not in it: in a folder of notes
// they may well hold notes; add them through Options.Ignore.
var DefaultIgnore = []string{
	".git", ".hg", ".svn", ".jj",
	"node_modules", ".venv", "__pycache__", ".cache", ".pytest_cache", ".mypy_cache",
	".DS_Store", ".obsidian", ".Trash", ".Trash-*",
}

// localTrash is mnote's trash folder inside a workspace, used when the
// user's trash is on another device. Always ignored.
const localTrash = ".mnote-trash"

type ignorer struct {
	names    map[string]bool
	patterns []string
}

func newIgnorer(list []string) ignorer {
	ig := ignorer{names: map[string]bool{localTrash: true}}
	for _, n := range list {
		if strings.ContainsAny(n, "*?[") {
			ig.patterns = append(ig.patterns, n)
		} else {
			ig.names[n] = true
		}
	}
	return ig
}

// name reports whether a file or folder name is ignored, editors' and our
// temporary files included.
func (ig ignorer) name(n string) bool {
	if ig.names[n] || isTempName(n) {
		return true
	}
	for _, p := range ig.patterns {
		if ok, _ := path.Match(p, n); ok {
			return true
		}
	}
	return false
}

// rel reports whether any element of a relative path is ignored.
func (ig ignorer) rel(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if ig.name(e) {
			return true
		}
	}
	return false
}

// isTempName matches editors' temporary and backup files and ours: vim's
// swap files (.x.swp, .swo, .swx) and backups (x~), its write test file
// 4913, emacs' lock (.#x) and autosave (#x#) files, gedit's
// .goutputstream-*, and mnote's own .x.mnote-tmp-*.
func isTempName(n string) bool {
	switch {
	case strings.Contains(n, tmpMarker), strings.HasSuffix(n, "~"),
		strings.HasSuffix(n, ".swp"), strings.HasSuffix(n, ".swo"), strings.HasSuffix(n, ".swx"),
		strings.HasPrefix(n, ".#"), len(n) > 1 && strings.HasPrefix(n, "#") && strings.HasSuffix(n, "#"),
		strings.HasPrefix(n, ".goutputstream-"), n == "4913":
		return true
	}
	return false
}

// IsMarkdown reports whether a file name has a Markdown extension.
func IsMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx":
		return true
	}
	return false
}

// TreeOptions selects what Tree lists.
type TreeOptions struct {
	// Dir is the folder to list, workspace-relative ("" = the workspace).
	Dir string
	// AllFiles lists every file, not only Markdown ones.
	AllFiles bool
	// Hidden lists names starting with a dot.
	Hidden bool
	// Depth limits the levels listed below Dir (0 = all, 1 = its entries).
	Depth int
	// Filter keeps the files whose path matches (case-insensitive
	// substring, or the letters in order) and the folders leading to them.
	Filter string
}

// Node is a file or folder in the tree. Paths are workspace-relative and
// slash-separated.
type Node struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// Link: a symbolic link (to a file or folder inside the workspace; its
	// folder contents are not listed, list them with TreeOptions.Dir).
	Link     bool    `json:"link,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Tree lists folders and (Markdown, unless AllFiles) files under opts.Dir,
// folders first, then in natural, case-insensitive order ("note 2" before
// "Note 10"). Ignored names and editors' temporary files are left out;
// symbolic links leading outside the workspace too.
func (w *Workspace) Tree(opts TreeOptions) (*Node, error) {
	rel, err := cleanRel(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	if err := w.checkPath(rel, rel); err != nil {
		return nil, err
	}
	st, r, err := w.stat(rel, rel)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a folder; list its folder: %w", rel, ErrNotRegular)
	}
	name := path.Base(rel)
	if rel == "." {
		name = path.Base(w.dir)
	}
	root := &Node{Name: name, Path: rel, Dir: true}
	var q query
	if opts.Filter != "" {
		q = newQuery(opts.Filter)
	}
	if err := w.list(root, r, opts, 1, q); err != nil {
		return nil, err
	}
	return root, nil
}

// list fills n (whose real, link-free path is real) with its entries.
func (w *Workspace) list(n *Node, real string, opts TreeOptions, depth int, q query) error {
	ents, err := readDir(w.root, real)
	if err != nil {
		return w.mapErr(n.Path, err)
	}
	for _, e := range ents {
		nm := e.Name()
		if w.ign.name(nm) || (!opts.Hidden && strings.HasPrefix(nm, ".")) || w.deniedEntry(join(real, nm), e) {
			continue
		}
		c := &Node{Name: nm, Path: join(n.Path, nm)}
		creal := join(real, nm)
		t := e.Type()
		switch {
		case t.IsDir():
			c.Dir = true
			if opts.Depth == 0 || depth < opts.Depth {
				if err := w.list(c, creal, opts, depth+1, q); err != nil {
					w.log.Debug("list folder", "path", c.Path, "err", err)
				}
			}
			if q.active() && len(c.Children) == 0 && q.score(c.Path, nm) == 0 {
				continue
			}
		case t&fs.ModeSymlink != 0:
			st, err := w.root.Stat(osRel(creal))
			if err != nil || w.deny.of(st) != "" {
				continue // broken, leading outside or into mnote's own data
			}
			c.Link, c.Dir = true, st.IsDir()
			if !c.Dir && !opts.AllFiles && !IsMarkdown(nm) {
				continue
			}
			if q.active() && q.score(c.Path, nm) == 0 {
				continue
			}
		case t.IsRegular():
			if !opts.AllFiles && !IsMarkdown(nm) {
				continue
			}
			if q.active() && q.score(c.Path, nm) == 0 {
				continue
			}
		default:
			if !opts.AllFiles {
				continue
			}
		}
		n.Children = append(n.Children, c)
	}
	sortNodes(n.Children)
	return nil
}

func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

func sortNodes(ns []*Node) {
	sort.Slice(ns, func(i, j int) bool {
		if ns[i].Dir != ns[j].Dir {
			return ns[i].Dir
		}
		return naturalLess(ns[i].Name, ns[j].Name)
	})
}

// naturalLess orders names case-insensitively with runs of digits compared
// by value ("a2" < "a10"); ties fall back to a byte comparison.
func naturalLess(a, b string) bool {
	if c := naturalCompare(a, b); c != 0 {
		return c < 0
	}
	return a < b
}

func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return cmpInt(len(na), len(nb))
			}
			if na != nb {
				return strings.Compare(na, nb)
			}
			continue
		}
		la, lb := lower(ca), lower(cb)
		if la != lb {
			return cmpInt(int(la), int(lb))
		}
		i++
		j++
	}
	return cmpInt(len(a)-i, len(b)-j)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FindOptions tunes Find.
type FindOptions struct {
	// Limit caps the matches (50 when 0).
	Limit int
	// AllFiles matches every file, not only Markdown ones.
	AllFiles bool
	// Dirs includes folders.
	Dirs bool
	// Hidden includes names starting with a dot.
	Hidden bool
}

// Match is a path found by Find.
type Match struct {
	Path  string `json:"path"`
	Name  string `json:"name"`
	Dir   bool   `json:"dir,omitempty"`
	Score int    `json:"score"`
}

// Find lists the paths matching a name query, best first, for the file
// filter and the @-mention picker: an exact name beats a name prefix,
// which beats a substring of the name, then of the path, then the query's
// letters in order (fuzzy). Case is ignored. An empty query lists paths
// in natural order.
func (w *Workspace) Find(queryText string, opts FindOptions) ([]Match, error) {
	if opts.Limit <= 0 {
		opts.Limit = 50
	}
	t, err := w.Tree(TreeOptions{AllFiles: opts.AllFiles, Hidden: opts.Hidden})
	if err != nil {
		return nil, err
	}
	q := newQuery(queryText)
	var out []Match
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, c := range n.Children {
			if !c.Dir || opts.Dirs {
				if s := q.score(c.Path, c.Name); s > 0 {
					out = append(out, Match{Path: c.Path, Name: c.Name, Dir: c.Dir, Score: s})
				}
			}
			walk(c)
		}
	}
	walk(t)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if len(out[i].Path) != len(out[j].Path) {
			return len(out[i].Path) < len(out[j].Path)
		}
		return naturalLess(out[i].Path, out[j].Path)
	})
	if len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

// wordStart is a bonus when q occurs in s at the start of a word.
func wordStart(s, q string) int {
	for i := 0; ; {
		k := strings.Index(s[i:], q)
		if k < 0 {
			return 0
		}
		at := i + k
		if at == 0 || strings.IndexByte("/ -_.", s[at-1]) >= 0 {
			return 100
		}
		i = at + 1
	}
}

// query is a lower-cased name query; words separated by spaces must all
// match, in any order.
type query struct {
	q     string
	words []string
}

func newQuery(s string) query {
	q := strings.ToLower(strings.TrimSpace(s))
	return query{q: q, words: strings.Fields(q)}
}

func (q query) active() bool { return q.q != "" }

// score rates a path against the query; 0 is no match.
func (q query) score(p, name string) int {
	if q.q == "" {
		return 1
	}
	ln, lp := strings.ToLower(name), strings.ToLower(p)
	if s := scoreWord(q.q, ln, lp); s > 0 || len(q.words) < 2 {
		return s
	}
	total := 0
	for _, w := range q.words {
		s := scoreWord(w, ln, lp)
		if s == 0 {
			return 0
		}
		total += s
	}
	return max(total/len(q.words)/2, 1) // below any whole-query match
}

// scoreWord rates lower-cased name ln and path lp against the word q.
func scoreWord(q, ln, lp string) int {
	switch {
	case ln == q:
		return 1000
	case strings.HasPrefix(ln, q):
		return 900
	case strings.Contains(ln, q):
		return 700 + wordStart(ln, q) - min(strings.Index(ln, q), 99)
	case strings.Contains(lp, q):
		return 500 + wordStart(lp, q) - min(strings.Index(lp, q), 99)
	}
	// Fuzzy: the query's letters in order; fewer gaps and matches at word
	// starts score higher.
	score, pos, prev := 400, 0, -2
	for i := 0; i < len(q); i++ {
		k := strings.IndexByte(lp[pos:], q[i])
		if k < 0 {
			return 0
		}
		at := pos + k
		if at != prev+1 {
			score -= 3
		}
		if at == 0 || strings.IndexByte("/ -_.", lp[at-1]) >= 0 {
			score += 2
		}
		prev, pos = at, at+1
	}
	return max(score, 1)
}
