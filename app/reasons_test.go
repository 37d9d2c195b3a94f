package app_test

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mnote/app"
)

// reasonsJSON is the list the frontend's tests word every reason of (its
// errtext.test.ts fails on a reason without words in both languages).
var reasonsJSON = filepath.Join("..", "frontend", "tests", "testdata", "reasons.json")

var updateReasons = flag.Bool("update-reasons", false, "rewrite "+reasonsJSON)

type reasonList struct {
	Reasons []string `json:"reasons"`
	Codes   []string `json:"codes"`
}

// constValues is the values of the string constants of file whose names
// start with prefix, in their order.
func constValues(t *testing.T, file, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", n.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
		}
	}
	return out
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Every Reason constant is in app.Reasons once, snake_case; API.md's
// "Errors" table has a row for each and none for a reason that does not
// exist; and the frontend's list (which its tests word) is the same.
func TestReasonsListedDocumentedAndWorded(t *testing.T) {
	consts := constValues(t, "reasons.go", "Reason")
	if len(consts) < 50 {
		t.Fatalf("only %d reasons parsed", len(consts))
	}
	seen := map[string]bool{}
	for _, r := range consts {
		if !snakeCase.MatchString(r) || seen[r] {
			t.Errorf("reason %q: not snake_case, or twice", r)
		}
		seen[r] = true
	}
	if !slices.Equal(consts, app.Reasons) {
		t.Errorf("app.Reasons is not the constants in their order:\n%v\n%v", app.Reasons, consts)
	}

	doc, err := os.ReadFile("API.md")
	if err != nil {
		t.Fatal(err)
	}
	errorsSection, _, _ := strings.Cut(string(doc)[strings.Index(string(doc), "## Errors"):], "\n## Methods")
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|").FindAllStringSubmatch(errorsSection, -1)
	var documented []string
	for _, m := range rows {
		documented = append(documented, m[1])
	}
	if !slices.Equal(documented, consts) {
		t.Errorf("API.md's reasons table is not the reasons in their order:\n%v\n%v", documented, consts)
	}

	want := reasonList{Reasons: consts, Codes: constValues(t, "errors.go", "Code")}
	if len(want.Codes) < 10 {
		t.Fatalf("codes: %v", want.Codes)
	}
	if *updateReasons {
		b, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(reasonsJSON, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(reasonsJSON)
	if err != nil {
		t.Fatalf("%v (go test -tags sqlite_fts5 ./app/ -run Reasons -update-reasons writes it)", err)
	}
	var got reasonList
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Reasons, want.Reasons) || !slices.Equal(got.Codes, want.Codes) {
		t.Errorf("%s is not the Go list: run go test -tags sqlite_fts5 ./app/ -run Reasons -update-reasons, then word the new reasons in frontend/src/lib/errtext.ts", reasonsJSON)
	}
}

// An Error carries its reason and params in its JSON (the page words it
// from them) beside the English message.
func TestErrorJSONCarriesReasonAndParams(t *testing.T) {
	e := &app.Error{Code: app.CodeBadRequest, Reason: app.ReasonOutsideFolder, Message: "refused", Params: map[string]string{"path": "/etc"}}
	var back map[string]any
	if err := json.Unmarshal([]byte(e.Error()), &back); err != nil {
		t.Fatal(err)
	}
	if back["code"] != "bad_request" || back["reason"] != "outside_folder" || back["message"] != "refused" ||
		back["params"].(map[string]any)["path"] != "/etc" {
		t.Fatalf("%s", e.Error())
	}
	plain := (&app.Error{Code: app.CodeInternal, Message: "x"}).Error()
	if strings.Contains(plain, "reason") || strings.Contains(plain, "params") {
		t.Fatalf("empty reason and params are left out: %s", plain)
	}
}

// Every notice Go sends the page names its case (a Reason, else at least
// a Code): the page words it in its language from that (errtext.ts
// noticeText), and shows Go's English Message only for a case it does not
// know. A NoticePayload literal with neither fails here.
func TestNoticesNameTheirCase(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(x ast.Node) bool {
			lit, ok := x.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "NoticePayload" {
				return true
			}
			n++
			named := false
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, _ := kv.Key.(*ast.Ident)
				if v, ok := kv.Value.(*ast.BasicLit); ok && v.Value == `""` {
					continue
				}
				if k != nil && (k.Name == "Reason" || k.Name == "Code") {
					named = true
				}
			}
			if !named {
				t.Errorf("%s: a notice with neither Reason nor Code: the page can only show its English", fset.Position(lit.Pos()))
			}
			return true
		})
	}
	if n < 5 {
		t.Fatalf("only %d notices found", n)
	}
}
