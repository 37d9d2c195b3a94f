package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"mnote/app/chat"
	"mnote/internal/l10n"
	"mnote/thread"
)

// costLine tells what the agent said the turn and the session cost, ""
// when it reported no cost.
func costLine(loc l10n.Locale, u thread.Usage) string {
	switch {
	case u.Cost == nil:
		return ""
	case u.TurnCost != nil:
		return loc.T("cli.cost_turn", loc.Money(u.TurnCost.Amount, u.TurnCost.Currency), loc.Money(u.Cost.Amount, u.Cost.Currency))
	}
	return loc.T("cli.cost_session", loc.Money(u.Cost.Amount, u.Cost.Currency))
}

// jsonObserver prints one JSON object per line for each event.
type jsonObserver struct {
	out *lineWriter
	j   jsonLine
}

func (o *jsonObserver) Event(ev *chat.Event) {
	j := &o.j
	flush := true
	switch ev.Type {
	case chat.EvUpdate:
		u := ev.Update
		if u == nil {
			// A usage change with no update: an agent's own notification
			// (Reasonix's prompt-cache figures).
			if ev.Usage == nil || ev.Usage.Cache == nil || ev.Change.Kind != thread.MetaUsage {
				return
			}
			j.start("usage")
			j.value("cache", ev.Usage.Cache)
			break
		}
		switch u.SessionUpdate {
		case thread.KindAgentMessageChunk, thread.KindAgentThoughtChunk, thread.KindUserMessageChunk:
			typ := "message_chunk"
			switch u.SessionUpdate {
			case thread.KindAgentThoughtChunk:
				typ = "thought_chunk"
			case thread.KindUserMessageChunk:
				typ = "user_chunk"
			}
			switch {
			case len(ev.Change.Delta) > hugeText:
				j.start(typ)
				j.b = append(j.b, `,"text":`...)
				o.out.writeText(j.b, ev.Change.Delta, "}\n", false)
				return
			case ev.Change.Delta != "":
				j.start(typ)
				j.str("text", ev.Change.Delta)
				flush = false
			case bytes.Contains(u.Meta, []byte(`"usage"`)):
				j.start("usage")
				j.raw("meta", u.Meta)
			case len(u.Content) > 0 && !isEmptyText(u.Content):
				j.start(typ)
				j.raw("content", u.Content)
			default:
				return
			}
		case thread.KindToolCall, thread.KindToolCallUpdate:
			j.start(u.SessionUpdate)
			j.str("toolCallId", u.ToolCallID)
			j.optStr("title", u.Title)
			j.optStr("kind", u.Kind)
			j.optStr("status", u.Status)
			j.raw("locations", u.Locations)
			j.raw("content", u.Content)
			j.raw("rawInput", u.RawInput)
		case thread.KindPlan:
			j.start("plan")
			j.raw("entries", u.Entries)
		case thread.KindUsageUpdate:
			j.start("usage")
			if u.Used != nil {
				j.int("used", *u.Used)
			}
			if u.Size != nil {
				j.int("size", *u.Size)
			}
			if u.Cost != nil {
				j.value("cost", u.Cost)
			}
		default:
			j.start("update")
			j.str("kind", u.SessionUpdate)
		}
	case chat.EvPermission:
		p := ev.Permission
		j.start("permission")
		j.str("phase", "asked")
		j.str("toolCallId", p.ToolCallID)
		j.str("title", p.Title)
		j.str("kind", p.Kind)
		j.value("options", p.Options)
	case chat.EvPermissionDecided:
		p := ev.Permission
		j.start("permission")
		j.str("phase", "decided")
		j.str("toolCallId", p.ToolCallID)
		if ev.Decision.OptionID == "" {
			j.str("outcome", "cancelled")
		} else {
			j.str("outcome", "selected")
			j.str("optionId", ev.Decision.OptionID)
		}
	case chat.EvError, chat.EvBad:
		j.start("error")
		j.str("message", ev.Err.Error())
	case chat.EvTerminal:
		if ev.Change.Delta != "" {
			j.start("terminal_output")
			j.str("terminalId", ev.Change.EntryID)
			j.str("data", ev.Change.Delta)
			flush = false
			break
		}
		tm := ev.Terminal
		if tm == nil {
			return
		}
		j.start("terminal")
		j.str("terminalId", tm.TerminalID)
		j.str("command", tm.Command)
		j.value("args", tm.Args)
		j.str("cwd", tm.Cwd)
		if tm.ExitCode != nil {
			j.int("exitCode", int64(*tm.ExitCode))
		}
		if tm.Signal != "" {
			j.str("signal", tm.Signal)
		}
		if tm.Released {
			j.str("state", "released")
		} else if tm.Exited {
			j.str("state", "exited")
		} else {
			j.str("state", "running")
		}
	default:
		return
	}
	o.out.write(j.end(), flush)
	if cap(j.b) > 256<<10 {
		j.b = nil // a huge chunk's line is not kept for the next one
	}
}

func isEmptyText(content json.RawMessage) bool {
	var b thread.ContentBlock
	return json.Unmarshal(content, &b) == nil && b.Type == "text" && b.Text == ""
}

// textObserver prints the answer as plain text, with thoughts and tool
// calls as short dimmed lines (dimmed only on a terminal).
type textObserver struct {
	out     *lineWriter
	color   bool
	last    string // kind of the last thing printed
	midLine bool
}

func (o *textObserver) dim(s string) string {
	if o.color {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}

func (o *textObserver) printf(flush bool, format string, a ...any) {
	o.out.write([]byte(fmt.Sprintf(format, a...)), flush)
}

// newline ends a partly printed line before a line of another kind.
func (o *textObserver) newline() {
	if o.midLine {
		o.out.write([]byte("\n"), false)
		o.midLine = false
	}
}

func (o *textObserver) Event(ev *chat.Event) {
	switch ev.Type {
	case chat.EvUpdate:
		u := ev.Update
		if u == nil {
			return
		}
		switch u.SessionUpdate {
		case thread.KindAgentMessageChunk:
			if ev.Change.Delta == "" {
				return
			}
			if o.last != "message" {
				o.newline()
				o.last = "message"
			}
			o.out.write([]byte(termSafe(ev.Change.Delta)), false)
			o.midLine = !strings.HasSuffix(ev.Change.Delta, "\n")
		case thread.KindAgentThoughtChunk:
			if ev.Change.Delta == "" {
				return
			}
			if o.last != "thought" {
				o.newline()
				o.out.write([]byte(o.dim("thinking: ")), false)
				o.last = "thought"
			}
			o.out.write([]byte(o.dim(termSafe(strings.ReplaceAll(ev.Change.Delta, "\n", " ")))), false)
			o.midLine = true
		case thread.KindToolCall:
			o.newline()
			o.printf(true, "%s\n", o.dim(fmt.Sprintf("tool %s: %s (%s)", termLine(deref(u.Kind, "other")), termLine(deref(u.Title, u.ToolCallID)), termLine(deref(u.Status, "pending")))))
			o.last = "tool"
		case thread.KindToolCallUpdate:
			if u.Status == nil {
				return
			}
			o.newline()
			title := u.ToolCallID
			if u.Title != nil {
				title = *u.Title
			}
			o.printf(true, "%s\n", o.dim(fmt.Sprintf("tool %s: %s", termLine(title), termLine(*u.Status))))
			o.last = "tool"
		case thread.KindPlan:
			var entries []thread.PlanEntry
			if json.Unmarshal(u.Entries, &entries) != nil {
				return
			}
			o.newline()
			var b strings.Builder
			b.WriteString("plan:\n")
			for _, e := range entries {
				mark := " "
				switch e.Status {
				case "completed":
					mark = "x"
				case "in_progress":
					mark = ">"
				}
				fmt.Fprintf(&b, "  [%s] %s\n", mark, termLine(e.Content))
			}
			o.printf(true, "%s", o.dim(b.String()))
			o.last = "plan"
		}
	case chat.EvPermissionDecided:
		o.newline()
		outcome := "cancelled"
		if ev.Decision.OptionID != "" {
			outcome = ev.Decision.OptionID
		}
		o.printf(true, "%s\n", o.dim(fmt.Sprintf("permission %s: %s", termLine(deref(&ev.Permission.Title, ev.Permission.ToolCallID)), termLine(outcome))))
		o.last = "permission"
	case chat.EvTerminal:
		o.terminal(ev)
	case chat.EvTurnEnded:
		o.newline()
		o.out.Flush()
	}
}

// terminal prints an agent's terminal dimmed, like a tool call: the
// command when it starts, its output without escape sequences, and how it
// ended.
func (o *textObserver) terminal(ev *chat.Event) {
	if d := ev.Change.Delta; d != "" {
		if o.last != "terminal" {
			o.newline()
			o.last = "terminal"
		}
		text := stripEscapes(d)
		o.out.write([]byte(o.dim(termSafe(text))), false)
		if text != "" {
			o.midLine = !strings.HasSuffix(text, "\n")
		}
		return
	}
	tm := ev.Terminal
	if tm == nil {
		return
	}
	var line string
	switch {
	case tm.Released:
		return // its end was said
	case tm.Signal != "":
		line = "terminal killed (" + termLine(tm.Signal) + ")"
	case tm.ExitCode != nil:
		line = fmt.Sprintf("terminal exit %d", *tm.ExitCode)
	case tm.Exited:
		line = "terminal ended"
	default:
		line = "terminal: $ " + termLine(strings.Join(append([]string{tm.Command}, tm.Args...), " ")) + "  (" + termLine(tm.Cwd) + ")"
	}
	o.newline()
	o.printf(true, "%s\n", o.dim(line))
	o.last = "terminal-state"
}

func deref(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}
