package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"mnote/acp"
)

// RequestElicitation answers an agent's question (elicitation/create): on
// a terminal it asks field by field; without one it declines (--approve
// policies decide permissions, never answers).
func (b *policyBroker) RequestElicitation(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	if b.tty == nil {
		fmt.Fprintf(b.errOut, "mnote: the agent asked a question (%q); declined (no terminal to ask on)\n", termLine(req.Message))
		return acp.ElicitationAnswer{Action: acp.ElicitDecline}, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	answer := make(chan acp.ElicitationAnswer, 1)
	go func() { answer <- b.form(req) }()
	select {
	case a := <-answer:
		return a, nil
	case <-ctx.Done():
		fmt.Fprintln(b.tty, "\n(cancelled)")
		return acp.ElicitationAnswer{Action: acp.ElicitCancel}, ctx.Err()
	}
}

// form asks the fields of req on the terminal. An empty line keeps the
// default (or leaves an optional field out); "-" at the first question
// declines; end of input cancels.
func (b *policyBroker) form(req *acp.ElicitationRequest) acp.ElicitationAnswer {
	r := bufio.NewReader(b.tty)
	sc := &req.Schema
	fmt.Fprintf(b.tty, "\nThe agent asks: %s\n", termLine(req.Message))
	fmt.Fprint(b.tty, "Answer it? [Y/n] ")
	line, err := r.ReadString('\n')
	if err != nil {
		return acp.ElicitationAnswer{Action: acp.ElicitCancel}
	}
	if l := strings.ToLower(strings.TrimSpace(line)); l == "n" || l == "no" || l == "-" {
		return acp.ElicitationAnswer{Action: acp.ElicitDecline}
	}
	values := map[string]json.RawMessage{}
	for _, name := range sc.Order {
		p := sc.Properties[name]
		for {
			fmt.Fprint(b.tty, fieldQuestion(name, &p, sc.IsRequired(name)))
			line, err := r.ReadString('\n')
			if err != nil {
				return acp.ElicitationAnswer{Action: acp.ElicitCancel}
			}
			v, given, reason := parseField(&p, strings.TrimSpace(line))
			if reason == "" && given {
				reason = sc.CheckValue(name, v)
			}
			if reason == "" && !given && sc.IsRequired(name) {
				reason = "required"
			}
			if reason != "" {
				fmt.Fprintf(b.tty, "  not accepted (%s); try again.\n", termLine(reason))
				continue
			}
			if given {
				values[name] = v
			}
			break
		}
	}
	content, _ := json.Marshal(values)
	if err := sc.ValidateContent(content); err != nil {
		fmt.Fprintf(b.tty, "The answer does not fit the form (%s); declined.\n", termLine(err.Error()))
		return acp.ElicitationAnswer{Action: acp.ElicitDecline}
	}
	return acp.ElicitationAnswer{Action: acp.ElicitAccept, Content: content}
}

// fieldQuestion is the prompt for one field.
func fieldQuestion(name string, p *acp.ElicitationProperty, required bool) string {
	var q strings.Builder
	label := p.Title
	if label == "" {
		label = name
	}
	fmt.Fprintf(&q, "  %s", termLine(label))
	if p.Description != "" {
		fmt.Fprintf(&q, " — %s", termLine(p.Description))
	}
	q.WriteString("\n")
	for i, c := range choices(p) {
		fmt.Fprintf(&q, "    %d) %s\n", i+1, termLine(c.Title))
	}
	var hints []string
	switch p.Type {
	case "boolean":
		hints = append(hints, "y/n")
	case "number", "integer":
		hints = append(hints, p.Type)
		if p.Minimum != nil {
			hints = append(hints, "min "+strconv.FormatFloat(*p.Minimum, 'g', -1, 64))
		}
		if p.Maximum != nil {
			hints = append(hints, "max "+strconv.FormatFloat(*p.Maximum, 'g', -1, 64))
		}
	case "array":
		hints = append(hints, "numbers separated by commas")
	}
	if len(p.Default) > 0 {
		hints = append(hints, "default "+termLine(string(p.Default)))
	}
	if required {
		hints = append(hints, "required")
	}
	if len(hints) > 0 {
		fmt.Fprintf(&q, "  (%s)", strings.Join(hints, ", "))
	}
	q.WriteString(": ")
	return q.String()
}

// choices are an enum's options, titled.
func choices(p *acp.ElicitationProperty) []acp.EnumOption {
	var out []acp.EnumOption
	for _, e := range p.Enum {
		out = append(out, acp.EnumOption{Const: e, Title: e})
	}
	out = append(out, p.OneOf...)
	if p.Items != nil {
		for _, e := range p.Items.Enum {
			out = append(out, acp.EnumOption{Const: e, Title: e})
		}
		out = append(out, p.Items.AnyOf...)
	}
	return out
}

// parseField turns a typed line into the field's JSON value; an empty line
// is the default (given) or nothing (not given).
func parseField(p *acp.ElicitationProperty, line string) (v json.RawMessage, given bool, reason string) {
	if line == "" {
		if len(p.Default) > 0 && string(p.Default) != "null" {
			return p.Default, true, ""
		}
		return nil, false, ""
	}
	opts := choices(p)
	pick := func(s string) (string, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > len(opts) {
			return "", false
		}
		return opts[n-1].Const, true
	}
	var val any
	switch {
	case p.Type == "array":
		var list []string
		for _, part := range strings.Split(line, ",") {
			c, ok := pick(part)
			if !ok {
				return nil, true, "choice"
			}
			list = append(list, c)
		}
		val = list
	case len(opts) > 0:
		c, ok := pick(line)
		if !ok {
			return nil, true, "choice"
		}
		val = c
	case p.Type == "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			val = true
		case "n", "no", "false":
			val = false
		default:
			return nil, true, "type"
		}
	case p.Type == "number" || p.Type == "integer":
		f, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, true, "type"
		}
		val = f
	default:
		val = line
	}
	b, err := json.Marshal(val)
	if err != nil {
		return nil, true, "type"
	}
	return b, true, ""
}
