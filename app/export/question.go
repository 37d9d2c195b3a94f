package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// answerRow is one answered field of an agent's question: the field's
// label (its schema title, else its name) and the answer as words.
type answerRow struct{ label, value string }

// answerRows are the answered fields of q in the order its form lists
// them (then any the form does not name), as the chat's question card
// shows them: a choice by its title, yes/no words, lists joined.
func (d *doc) answerRows(q *thread.Question) []answerRow {
	if q.Action != "accept" || len(q.Content) == 0 {
		return nil
	}
	var content map[string]json.RawMessage
	if json.Unmarshal(q.Content, &content) != nil {
		return nil
	}
	type field struct {
		name, label string
		choices     map[string]string
	}
	var fields []field
	if props, ok := member(q.Schema, "properties"); ok {
		m, _ := jsonscan.Object(props, 0)
		for m.Next() {
			name, ok := m.KeyText()
			if !ok {
				break
			}
			raw, ok := m.Value()
			if !ok {
				break
			}
			f := field{name: name, label: name, choices: choices(raw)}
			if t, ok := member(raw, "title"); ok {
				if s, ok := jsonscan.StringValue(t); ok && strings.TrimSpace(s) != "" {
					f.label = s
				}
			}
			fields = append(fields, f)
		}
	}
	var words func(raw json.RawMessage, choices map[string]string) string
	words = func(raw json.RawMessage, choices map[string]string) string {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return string(raw)
		}
		switch v := v.(type) {
		case bool:
			if v {
				return d.l.T("export.answer_yes")
			}
			return d.l.T("export.answer_no")
		case string:
			if c, ok := choices[v]; ok {
				return c
			}
			return v
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		case []any:
			var items []json.RawMessage
			_ = json.Unmarshal(raw, &items)
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = words(it, choices)
			}
			return strings.Join(parts, d.l.T("export.answer_sep"))
		}
		return string(raw)
	}
	var rows []answerRow
	seen := map[string]bool{}
	for _, f := range fields {
		if v, ok := content[f.name]; ok && !seen[f.name] {
			seen[f.name] = true
			rows = append(rows, answerRow{f.label, words(v, f.choices)})
		}
	}
	// The rest in the answer's own order.
	m, _ := jsonscan.Object(q.Content, 0)
	for m.Next() {
		name, ok := m.KeyText()
		if !ok {
			break
		}
		if raw, ok := m.Value(); ok && !seen[name] {
			seen[name] = true
			rows = append(rows, answerRow{name, words(raw, nil)})
		}
	}
	return rows
}

// member is the value of the object b's member key.
func member(b []byte, key string) ([]byte, bool) {
	m, ok := jsonscan.Object(b, 0)
	if !ok {
		return nil, false
	}
	for m.Next() {
		if k, ok := m.KeyText(); ok && k == key {
			return m.Value()
		}
	}
	return nil, false
}

// choices are a field's choice titles by value: enum with enumNames, or
// oneOf/anyOf of {const, title} (for an array field, those of its items).
func choices(field []byte) map[string]string {
	var f struct {
		Enum      []string `json:"enum"`
		EnumNames []string `json:"enumNames"`
		OneOf     []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"oneOf"`
		AnyOf []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"anyOf"`
		Items json.RawMessage `json:"items"`
	}
	if json.Unmarshal(field, &f) != nil {
		return nil
	}
	if len(f.Items) > 0 {
		return choices(f.Items)
	}
	out := map[string]string{}
	for i, v := range f.Enum {
		if i < len(f.EnumNames) && f.EnumNames[i] != "" {
			out[v] = f.EnumNames[i]
		}
	}
	for _, c := range append(f.OneOf, f.AnyOf...) {
		if c.Title != "" {
			out[c.Const] = c.Title
		}
	}
	return out
}

// markdownQuestion writes a question entry: what was asked, what became
// of it, and the answer.
func (d *doc) markdownQuestion(w io.Writer, q *thread.Question) {
	fmt.Fprintf(w, "**%s** %s\n\n", d.l.T("export.question_asked"), oneLine(q.Message))
	fmt.Fprintf(w, "_%s_\n", d.l.QuestionStatus(q.Action))
	for _, r := range d.answerRows(q) {
		fmt.Fprintf(w, "- %s\n", d.l.T("export.md_field", oneLine(r.label), oneLine(r.value)))
	}
	fmt.Fprintln(w)
}

// htmlQuestion is markdownQuestion as HTML.
func (d *doc) htmlQuestion(w io.Writer, q *thread.Question) {
	fmt.Fprintf(w, "<section class=\"entry question\">\n<div class=\"who\">%s</div>\n<p class=\"asked\">%s</p>\n<p class=\"status\">%s</p>\n",
		esc(d.l.T("export.question_asked")), esc(q.Message), esc(d.l.QuestionStatus(q.Action)))
	if rows := d.answerRows(q); len(rows) > 0 {
		fmt.Fprint(w, "<dl>\n")
		for _, r := range rows {
			fmt.Fprintf(w, "<dt>%s</dt><dd>%s</dd>\n", esc(r.label), esc(r.value))
		}
		fmt.Fprint(w, "</dl>\n")
	}
	fmt.Fprint(w, "</section>\n")
}
