package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"mnote/internal/jsonscan"
)

// ElicitationBroker answers elicitation/create requests (form mode): the
// agent asks the user a structured question. RequestElicitation blocks
// until the user answers or ctx is done (the turn was cancelled, the
// session closed, or the agent withdrew the request with
// $/cancel_request); then the request is answered "cancel".
type ElicitationBroker interface {
	RequestElicitation(ctx context.Context, req *ElicitationRequest) (ElicitationAnswer, error)
}

// ElicitationRequest is an elicitation/create request in form mode.
type ElicitationRequest struct {
	Mode       string `json:"mode"`
	Message    string `json:"message"`
	SessionID  string `json:"sessionId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// RequestedSchema is the form's schema, as the agent sent it (its
	// properties in the agent's order); Schema is it decoded.
	RequestedSchema json.RawMessage   `json:"requestedSchema"`
	Schema          ElicitationSchema `json:"-"`
}

// ElicitationSchema is the restricted JSON Schema of a form: an object of
// primitive properties.
type ElicitationSchema struct {
	Type        string                         `json:"type,omitempty"`
	Title       string                         `json:"title,omitempty"`
	Description string                         `json:"description,omitempty"`
	Properties  map[string]ElicitationProperty `json:"properties"`
	Required    []string                       `json:"required,omitempty"`
	// Order is the properties' names in the agent's order.
	Order []string `json:"-"`
}

// ElicitationProperty is one field of a form: string (an enum when Enum
// or OneOf is set), number, integer, boolean, or array (a multi-select).
type ElicitationProperty struct {
	Type        string          `json:"type"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Enum        []string        `json:"enum,omitempty"`
	OneOf       []EnumOption    `json:"oneOf,omitempty"`
	Format      string          `json:"format,omitempty"`
	MinLength   *int            `json:"minLength,omitempty"`
	MaxLength   *int            `json:"maxLength,omitempty"`
	Pattern     string          `json:"pattern,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	Items       *MultiSelect    `json:"items,omitempty"`
	MinItems    *int            `json:"minItems,omitempty"`
	MaxItems    *int            `json:"maxItems,omitempty"`
}

// EnumOption is a titled choice.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// MultiSelect is the items of an array property: plain values (Enum) or
// titled ones (AnyOf).
type MultiSelect struct {
	Type  string       `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitempty"`
	AnyOf []EnumOption `json:"anyOf,omitempty"`
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitationAnswer is the user's answer: accept with Content (an object
// that passes ValidateContent), decline, or cancel.
type ElicitationAnswer struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

var cancelledElicitation = ElicitationAnswer{Action: ElicitCancel}

// elicitation answers one elicitation/create request.
func (s *Session) elicitation(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	req, err := ParseElicitation(params)
	if err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid elicitation/create params: " + err.Error()}
	}
	s.mu.Lock()
	cancelled := s.cancelled && s.turn
	s.mu.Unlock()
	if cancelled || ctx.Err() != nil {
		return cancelledElicitation, nil
	}
	if s.el == nil {
		// Nobody to ask: the user never saw it, so it is declined.
		return ElicitationAnswer{Action: ElicitDecline}, nil
	}
	ans, err := s.el.RequestElicitation(ctx, req)
	if err != nil || ctx.Err() != nil {
		return cancelledElicitation, nil
	}
	switch ans.Action {
	case ElicitAccept:
		if err := req.Schema.ValidateContent(ans.Content); err != nil {
			// The broker must check; an answer that slipped through is
			// never sent as it is.
			s.a.log.Warn("elicitation answer does not match its schema; cancelled", "err", err)
			return cancelledElicitation, nil
		}
		if len(ans.Content) == 0 {
			ans.Content = json.RawMessage("{}")
		}
		return ans, nil
	case ElicitDecline:
		return ElicitationAnswer{Action: ElicitDecline}, nil
	}
	return cancelledElicitation, nil
}

// ParseElicitation decodes elicitation/create params and checks the
// schema. Only form mode is offered (clientCapabilities.elicitation.form);
// a request without a mode is a form, as in MCP.
func ParseElicitation(params json.RawMessage) (*ElicitationRequest, error) {
	var req ElicitationRequest
	if err := jsonscan.Decode(params, &req); err != nil {
		return nil, err
	}
	if req.Mode == "" {
		req.Mode = "form"
	}
	if req.Mode != "form" {
		return nil, fmt.Errorf("mode %q is not supported (this client offers form mode only)", req.Mode)
	}
	if len(req.RequestedSchema) == 0 || string(req.RequestedSchema) == "null" {
		return nil, errors.New("requestedSchema is missing")
	}
	if err := json.Unmarshal(req.RequestedSchema, &req.Schema); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	if err := req.Schema.check(); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	req.Schema.Order = propertyOrder(req.RequestedSchema)
	req.RequestedSchema = append(json.RawMessage(nil), req.RequestedSchema...)
	return &req, nil
}

// propertyOrder reads the names of schema.properties in document order.
func propertyOrder(schema json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top["properties"]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// IsRequired reports whether the property name must be answered.
func (sc *ElicitationSchema) IsRequired(name string) bool { return slices.Contains(sc.Required, name) }

// CheckValue reports why v does not fit the property name ("" if it
// does): one of FieldError's reasons.
func (sc *ElicitationSchema) CheckValue(name string, v json.RawMessage) string {
	p, ok := sc.Properties[name]
	if !ok {
		return "unknown"
	}
	return p.check(v)
}

// maxFormFields bounds the fields of one form (a question, not a database).
const maxFormFields = 100

// check refuses schemas a form cannot be built from.
func (sc *ElicitationSchema) check() error {
	if sc.Type != "" && sc.Type != "object" {
		return fmt.Errorf("type must be \"object\", not %q", sc.Type)
	}
	if len(sc.Properties) > maxFormFields {
		return fmt.Errorf("%d properties; a form asks at most %d", len(sc.Properties), maxFormFields)
	}
	for name, p := range sc.Properties {
		switch p.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if p.Items == nil || (len(p.Items.Enum) == 0 && len(p.Items.AnyOf) == 0) {
				return fmt.Errorf("property %q: an array needs items with enum or anyOf", name)
			}
		default:
			return fmt.Errorf("property %q: type %q is not one a form can ask", name, p.Type)
		}
		if p.Pattern != "" {
			if _, err := regexp.Compile(p.Pattern); err != nil {
				return fmt.Errorf("property %q: pattern: %w", name, err)
			}
		}
	}
	for _, r := range sc.Required {
		if _, ok := sc.Properties[r]; !ok {
			return fmt.Errorf("required property %q is not defined", r)
		}
	}
	return nil
}

// ValidateContent checks an accepted answer against the schema: an object
// of the defined properties only, every required one present, each of its
// type, within its bounds, one of its choices, of its format.
func (sc *ElicitationSchema) ValidateContent(content json.RawMessage) error {
	values := map[string]json.RawMessage{}
	if len(content) > 0 && string(content) != "null" {
		if err := json.Unmarshal(content, &values); err != nil {
			return errors.New("the answer is not an object")
		}
	}
	var errs []error
	for name, v := range values {
		if string(v) == "null" {
			continue // not given (required is checked below)
		}
		p, ok := sc.Properties[name]
		if !ok {
			errs = append(errs, &FieldError{Field: name, Reason: "unknown"})
			continue
		}
		if reason := p.check(v); reason != "" {
			errs = append(errs, &FieldError{Field: name, Reason: reason})
		}
	}
	for _, r := range sc.Required {
		if v, ok := values[r]; !ok || string(v) == "null" {
			errs = append(errs, &FieldError{Field: r, Reason: "required"})
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// FieldError is one field of an answer that does not match the schema.
// Reason is a code: unknown, required, type, min, max, minLength,
// maxLength, pattern, format, choice, minItems, maxItems.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// check returns why v does not fit p ("" if it does).
func (p *ElicitationProperty) check(v json.RawMessage) string {
	switch p.Type {
	case "string":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "type"
		}
		return p.checkString(s)
	case "number", "integer":
		var f float64
		if json.Unmarshal(v, &f) != nil {
			return "type"
		}
		if p.Type == "integer" && (f != math.Trunc(f) || math.IsInf(f, 0)) {
			return "type"
		}
		if p.Minimum != nil && f < *p.Minimum {
			return "min"
		}
		if p.Maximum != nil && f > *p.Maximum {
			return "max"
		}
	case "boolean":
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return "type"
		}
	case "array":
		var list []string
		if json.Unmarshal(v, &list) != nil || list == nil {
			return "type"
		}
		allowed := p.Items.Enum
		for _, o := range p.Items.AnyOf {
			allowed = append(allowed, o.Const)
		}
		for i, s := range list {
			if !slices.Contains(allowed, s) || slices.Contains(list[:i], s) {
				return "choice"
			}
		}
		if p.MinItems != nil && len(list) < *p.MinItems {
			return "minItems"
		}
		if p.MaxItems != nil && len(list) > *p.MaxItems {
			return "maxItems"
		}
	default:
		return "type"
	}
	return ""
}

func (p *ElicitationProperty) checkString(s string) string {
	if len(p.Enum) > 0 || len(p.OneOf) > 0 {
		ok := slices.Contains(p.Enum, s)
		for _, o := range p.OneOf {
			ok = ok || o.Const == s
		}
		if !ok {
			return "choice"
		}
		return ""
	}
	n := utf8.RuneCountInString(s)
	if p.MinLength != nil && n < *p.MinLength {
		return "minLength"
	}
	if p.MaxLength != nil && n > *p.MaxLength {
		return "maxLength"
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil || !re.MatchString(s) {
			return "pattern"
		}
	}
	if !validFormat(p.Format, s) {
		return "format"
	}
	return ""
}

func validFormat(format, s string) bool {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	}
	return true
}
