package app_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/cloudsync"
	"mnote/controlplane/api"
	"mnote/notes"
	"mnote/thread"
	"mnote/workspace"
)

// typesTS is the UI's copy of the API's types: it re-exports the files of
// typesDir, one an area, where the interfaces are.
const (
	typesTS  = "../frontend/src/api/types.ts"
	typesDir = "../frontend/src/api/types"
)

// readTypesTS is types.ts and the files of typesDir, one after the other.
func readTypesTS(t *testing.T) string {
	files, err := filepath.Glob(filepath.Join(typesDir, "*.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range append([]string{typesTS}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
		src.WriteByte('\n')
	}
	return src.String()
}

// contract pairs each TypeScript interface of types.ts with the Go types
// whose JSON it describes (what the bridge returns or emits).
var contract = map[string][]any{
	"Agent":                     {app.Agent{}},
	"AgentCaps":                 {app.AgentCaps{}},
	"AuthMethod":                {app.AuthMethod{}},
	"AgentCheck":                {app.AgentCheck{}},
	"AgentStatusEvent":          {app.AgentStatusEvent{}},
	"AgentStartEvent":           {app.AgentStartEvent{}},
	"AgentInstallEvent":         {app.AgentInstallEvent{}},
	"InstallStarted":            {app.InstallStarted{}},
	"RegistryListing":           {app.RegistryListing{}},
	"RegistryAgent":             {app.RegistryAgent{}},
	"RegistrySource":            {runtimes.RegistrySource{}},
	"SessionSummary":            {app.SessionSummary{}},
	"ForkOrigin":                {app.ForkOrigin{}},
	"ForkLink":                  {app.ForkLink{}},
	"ForkResult":                {app.ForkResult{}},
	"TrashedSession":            {app.TrashedSession{}},
	"PermissionOption":          {app.PermissionOption{}, thread.PermissionOption{}},
	"PermissionRequest":         {app.PermissionRequest{}},
	"PermissionRule":            {app.PermissionRule{}},
	"WriteEffect":               {app.WriteEffect{}},
	"Snapshot":                  {app.Snapshot{}},
	"Hit":                       {app.Hit{}},
	"RunningAgent":              {app.RunningAgent{}},
	"SessionsChanged":           {app.SessionsChanged{}},
	"WorkspaceInfo":             {app.WorkspaceInfo{}},
	"NotesIndexStatus":          {app.NotesIndexStatus{}},
	"LinksUpdated":              {app.LinksUpdated{}},
	"LinksUndo":                 {app.LinksUndo{}},
	"NoteHit":                   {notes.Hit{}},
	"NoteHitLine":               {notes.HitLine{}},
	"TagCount":                  {notes.TagCount{}},
	"NoteTitle":                 {notes.NoteTitle{}},
	"NoteHeading":               {notes.Heading{}},
	"NoteLink":                  {notes.Link{}},
	"TurnChanges":               {app.TurnChanges{}},
	"TurnFile":                  {app.ChangedFile{}},
	"PromptContext":             {app.PromptContext{}},
	"ImageArg":                  {app.ImageArg{}},
	"ImageData":                 {app.ImageData{}},
	"Attached":                  {app.Attached{}},
	"Exported":                  {app.Exported{}},
	"AppendPayload":             {app.AppendPayload{}},
	"TerminalPayload":           {app.TerminalPayload{}},
	"TerminalOutputPayload":     {app.TerminalOutputPayload{}},
	"Terminal":                  {thread.Terminal{}},
	"TurnPayload":               {app.TurnPayload{}},
	"NoticePayload":             {app.NoticePayload{}},
	"PermissionResolvedPayload": {app.ResolvedPayload{}},
	"ElicitationRequest":        {app.ElicitationRequest{}},
	"ElicitationResolved":       {app.ElicitationResolvedPayload{}},
	"AgentSession":              {app.AgentSession{}},
	"AgentSessions":             {app.AgentSessions{}},
	"ApiErrorShape":             {app.Error{}},
	"ThreadSnapshot":            {thread.Snapshot{}},
	"Entry":                     {thread.Entry{}},
	"Block":                     {thread.Block{}},
	"ToolCall":                  {thread.ToolCall{}},
	"ToolCallContent":           {thread.ToolCallContent{}},
	"Location":                  {thread.Location{}},
	"PlanEntry":                 {thread.PlanEntry{}},
	"RuntimeChange":             {thread.RuntimeChange{}},
	"Mode":                      {thread.Mode{}},
	"Model":                     {thread.Model{}},
	"Command":                   {thread.Command{}},
	"Usage":                     {thread.Usage{}},
	"Cost":                      {thread.Cost{}},
	"CacheUsage":                {thread.CacheUsage{}},
	"CacheFigures":              {thread.CacheFigures{}},
	"TurnCache":                 {thread.TurnCache{}},
	"BufferState":               {workspace.BufferState{}},
	"TreeNode":                  {workspace.Node{}},
	"FindHit":                   {workspace.Match{}},
	"FileDiff":                  {workspace.FileDiff{}},
	"RevertResult":              {workspace.RevertResult{}},
	"Hunk":                      {workspace.Hunk{}},
	"HunkReview":                {workspace.HunkReview{}},
	"FileHunks":                 {workspace.FileHunks{}},
	"FSRefusedPayload":          {app.FSRefusedPayload{}},
	"WorkspaceChange":           {workspace.Change{}},
	"BufferEvent":               {workspace.BufferEvent{}},
	"WorkspaceChanged":          {workspace.Event{}},
	"SyncStatus":                {cloudsync.Status{}},
	"RemovedData":               {cloudsync.Removed{}},
	"ParkedRecord":              {cloudsync.Parked{}},
	"Share":                     {api.Share{}},
}

// tsOnly are fields types.ts has that Go never sends, and why.
var tsOnly = map[string]string{
	// A custom agent's env may hold keys; agents.list never sends it back.
	"Agent.env": "never sent: a custom agent's env may hold secrets",
}

// notInContract are package app's exported JSON structs that have no
// interface of their own in types.ts, and why.
var notInContract = map[string]string{
	"ThreadEvent":   "a union in types.ts (ThreadEvent), one member per type",
	"Selection":     "inline in PromptContext",
	"TurnStarted":   "inline in the client ({turn})",
	"Config":        "not JSON",
	"RecordedEvent": "tests only",
}

// types.ts and the Go DTOs agree: for each paired interface, every JSON
// field of the Go struct is there, optional (?) exactly when Go may leave
// it out (omitempty, omitzero), of a matching kind where types.ts names a
// primitive or an array; and the interface has no field Go does not send.
func TestTypesContract(t *testing.T) {
	ts := parseTS(readTypesTS(t))
	for name, gos := range contract {
		iface, ok := ts.interfaces[name]
		if !ok {
			t.Errorf("types.ts has no interface %s", name)
			continue
		}
		seen := map[string]bool{}
		for _, v := range gos {
			gt := reflect.TypeOf(v)
			for _, f := range jsonFields(gt) {
				seen[f.name] = true
				tf, ok := iface.fields[f.name]
				switch {
				case !ok:
					t.Errorf("%s.%s (Go %s.%s) is missing in types.ts", name, f.name, gt, f.goName)
				case tf.optional != f.optional:
					t.Errorf("%s.%s: optional in types.ts %v, Go %s.%s omits it when empty %v", name, f.name, tf.optional, gt, f.goName, f.optional)
				default:
					if tk, gk := ts.kind(tf.typ), goKind(f.typ); tk != "" && gk != "" && tk != gk {
						t.Errorf("%s.%s: types.ts says %q (%s), Go %s.%s is %s (%s)", name, f.name, tf.typ, tk, gt, f.goName, f.typ, gk)
					}
				}
			}
		}
		for fn := range iface.fields {
			if !seen[fn] && tsOnly[name+"."+fn] == "" {
				t.Errorf("%s.%s is in types.ts but Go (%v) never sends it", name, fn, gos)
			}
		}
	}
	for k := range tsOnly {
		iface, ok := ts.interfaces[strings.Split(k, ".")[0]]
		if !ok || !iface.has(strings.Split(k, ".")[1]) {
			t.Errorf("tsOnly names %s, which types.ts no longer has", k)
		}
	}

	// Every exported JSON struct of package app is paired or excused.
	paired := map[string]bool{}
	for _, gos := range contract {
		for _, v := range gos {
			if gt := reflect.TypeOf(v); gt.PkgPath() == "mnote/app" {
				paired[gt.Name()] = true
			}
		}
	}
	for _, name := range appJSONStructs(t) {
		if !paired[name] && notInContract[name] == "" {
			t.Errorf("app.%s has JSON tags but no interface in types.ts: add it to both (or to notInContract, saying why)", name)
		}
	}
}

// The reader of types.ts sees what the contract test relies on.
func TestTypesContractReader(t *testing.T) {
	ts := parseTS(`// x
export type Kind = 'a' | 'b';
export interface X {
  /** doc; with a semicolon */
  a: string;
  b?: Kind | null;
  c: { d: number; e?: string }[] | null;
  f?: Record<string, number>;
  [key: string]: unknown;
}
export interface Y { g: boolean }`)
	x := ts.interfaces["X"]
	if len(x.fields) != 4 || x.fields["a"].optional || !x.fields["b"].optional || x.fields["c"].optional || !x.fields["f"].optional {
		t.Fatalf("X = %+v", x)
	}
	if ts.kind(x.fields["b"].typ) != "string" || ts.kind(x.fields["c"].typ) != "array" || ts.kind(x.fields["f"].typ) != "" {
		t.Fatalf("kinds: b %q c %q f %q", ts.kind(x.fields["b"].typ), ts.kind(x.fields["c"].typ), ts.kind(x.fields["f"].typ))
	}
	if y := ts.interfaces["Y"]; y.fields["g"].typ != "boolean" || ts.kind("boolean") != "boolean" {
		t.Fatalf("Y = %+v", y)
	}
}

type goField struct {
	name, goName string
	optional     bool
	typ          reflect.Type
}

// jsonFields are the fields encoding/json writes for t, with embedded
// structs' fields promoted.
func jsonFields(t reflect.Type) []goField {
	var out []goField
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		o := slices.ContainsFunc(strings.Split(opts, ","), func(s string) bool { return s == "omitempty" || s == "omitzero" })
		out = append(out, goField{name: name, goName: f.Name, optional: o, typ: f.Type})
	}
	return out
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// goKind is the JSON kind of a Go type: string, number, boolean, array,
// or "" (objects and raw JSON, not compared).
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "string"
	case t == rawType:
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return ""
}

// appJSONStructs are the exported struct types of package app (its
// non-test Go files) with at least one json tag.
func appJSONStructs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if fl.Tag != nil && strings.Contains(fl.Tag.Value, `json:"`) {
					out = append(out, ts.Name.Name)
					break
				}
			}
			return true
		})
	}
	if len(out) < 10 {
		t.Fatalf("found only %v in package app", out)
	}
	return out
}

// ---- a small reader of types.ts ---------------------------------------------

type tsField struct {
	optional bool
	typ      string
}

type tsInterface struct {
	fields map[string]tsField
}

func (i tsInterface) has(name string) bool { _, ok := i.fields[name]; return ok }

type tsFile struct {
	interfaces map[string]tsInterface
	aliases    map[string]string // export type X = <no braces>;
}

var (
	tsComments    = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	tsInterfaceRE = regexp.MustCompile(`export interface (\w+)(?:\s+extends\s+[\w\s,<>]+)?\s*\{`)
	tsAlias       = regexp.MustCompile(`export type (\w+)\s*=\s*([^;{]+);`)
	tsMember      = regexp.MustCompile(`(?s)^(?:readonly\s+)?(\w+)(\?)?\s*:\s*(.+)$`)
)

// parseTS reads `export interface X { a: T; b?: U }` and simple
// `export type X = ...;` aliases. Index signatures are left out.
func parseTS(src string) tsFile {
	src = tsComments.ReplaceAllString(src, "")
	out := tsFile{interfaces: map[string]tsInterface{}, aliases: map[string]string{}}
	for _, m := range tsAlias.FindAllStringSubmatch(src, -1) {
		out.aliases[m[1]] = strings.TrimSpace(m[2])
	}
	for _, loc := range tsInterfaceRE.FindAllStringSubmatchIndex(src, -1) {
		name := src[loc[2]:loc[3]]
		body := src[loc[1]:]
		depth, end := 1, len(body)
		for i, r := range body {
			if r == '{' {
				depth++
			} else if r == '}' {
				if depth--; depth == 0 {
					end = i
					break
				}
			}
		}
		iface := tsInterface{fields: map[string]tsField{}}
		for _, member := range splitTop(body[:end], ';') {
			m := tsMember.FindStringSubmatch(strings.TrimSpace(member))
			if m == nil {
				continue // an index signature, or nothing
			}
			iface.fields[m[1]] = tsField{optional: m[2] == "?", typ: strings.Join(strings.Fields(m[3]), " ")}
		}
		out.interfaces[name] = iface
	}
	return out
}

// splitTop splits s at sep outside brackets, braces, parentheses and <>.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{', '[', '(', '<':
			depth++
		case '}', ']', ')', '>':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// kind is the JSON kind a TypeScript type names: string (string and
// string literals), number, boolean, array, or "" (anything else). null
// and undefined alternatives do not count; aliases are followed.
func (f tsFile) kind(typ string) string {
	kinds := map[string]bool{}
	for _, alt := range splitTop(typ, '|') {
		alt = strings.TrimSpace(alt)
		if a, ok := f.aliases[alt]; ok && a != typ {
			alt = a
			if k := f.kind(a); k != "" {
				kinds[k] = true
				continue
			}
			return ""
		}
		switch {
		case alt == "null" || alt == "undefined" || alt == "":
		case alt == "string" || strings.HasPrefix(alt, "'") || strings.HasPrefix(alt, `"`):
			kinds["string"] = true
		case alt == "number" || alt == "boolean":
			kinds[alt] = true
		case strings.HasSuffix(alt, "[]") || strings.HasPrefix(alt, "Array<"):
			kinds["array"] = true
		default:
			return ""
		}
	}
	if len(kinds) != 1 {
		return ""
	}
	for k := range kinds {
		return k
	}
	return ""
}
