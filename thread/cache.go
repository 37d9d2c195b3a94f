package thread

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"mnote/internal/jsonscan"
)

// MethodReasonixStatus is Reasonix's vendor notification carrying its
// session status, prompt-cache figures included:
// params.status.usage.{turn,cumulative}.{cacheHitTokens,cacheMissTokens,cacheHitRatio}.
const MethodReasonixStatus = "_reasonix.io/session/status_update"

// CacheFigures are prompt-cache figures over a span (one turn, or the
// whole session).
type CacheFigures struct {
	HitTokens  int64 `json:"hitTokens"`
	MissTokens int64 `json:"missTokens"`
	// HitRatio is hit / (hit + miss), from 0 to 1: the agent's figure, or
	// computed when it sends none.
	HitRatio float64 `json:"hitRatio"`
}

// CacheUsage is the prompt-cache use an agent reports, for the current
// (or last) turn and for the whole session.
type CacheUsage struct {
	Turn    CacheFigures `json:"turn"`
	Session CacheFigures `json:"session"`
	// Turns are the figures of each turn that reported some, oldest
	// first, the last MaxCacheTurns of them: the window draws the hit
	// rate's trend from them. (An agent's own notification has none;
	// the thread keeps them.)
	Turns []TurnCache `json:"turns,omitempty"`
}

// TurnCache is one turn's prompt-cache figures.
type TurnCache struct {
	Turn int `json:"turn"`
	CacheFigures
}

// MaxCacheTurns bounds CacheUsage.Turns.
const MaxCacheTurns = 50

// ParseCacheStatus reads the cache figures of an agent notification.
// ok is false for a method that carries none, or params without them; an
// error means the method is one that carries them but params are malformed.
func ParseCacheStatus(method string, params json.RawMessage) (cu CacheUsage, ok bool, err error) {
	if method != MethodReasonixStatus {
		return CacheUsage{}, false, nil
	}
	type figures struct {
		CacheHitTokens  *float64 `json:"cacheHitTokens"`
		CacheMissTokens *float64 `json:"cacheMissTokens"`
		CacheHitRatio   *float64 `json:"cacheHitRatio"`
	}
	var p struct {
		Status struct {
			Usage *struct {
				Turn       *figures `json:"turn"`
				Cumulative *figures `json:"cumulative"`
			} `json:"usage"`
		} `json:"status"`
	}
	if err := jsonscan.Decode(params, &p); err != nil {
		return CacheUsage{}, false, fmt.Errorf("thread: %s: %w: %w", method, ErrInvalidUpdate, err)
	}
	u := p.Status.Usage
	if u == nil || (u.Turn == nil && u.Cumulative == nil) {
		return CacheUsage{}, false, nil
	}
	conv := func(f *figures) CacheFigures {
		if f == nil {
			return CacheFigures{}
		}
		var c CacheFigures
		if f.CacheHitTokens != nil {
			c.HitTokens = tokenCount(*f.CacheHitTokens)
		}
		if f.CacheMissTokens != nil {
			c.MissTokens = tokenCount(*f.CacheMissTokens)
		}
		switch {
		case f.CacheHitRatio != nil && *f.CacheHitRatio >= 0 && *f.CacheHitRatio <= 1:
			c.HitRatio = *f.CacheHitRatio
		case c.HitTokens+c.MissTokens > 0:
			c.HitRatio = float64(c.HitTokens) / float64(c.HitTokens+c.MissTokens)
		}
		return c
	}
	return CacheUsage{Turn: conv(u.Turn), Session: conv(u.Cumulative)}, true, nil
}

func tokenCount(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return int64(math.Round(f))
}

// ApplyNotification applies an agent notification other than
// session/update that carries session state: today Reasonix's status
// update, whose prompt-cache figures become Usage.Cache (they replace the
// previous ones, so a replayed or repeated notification counts nothing
// twice). It returns an error wrapping ErrUnknownKind for a method that
// carries no state the thread keeps, and ErrInvalidUpdate for malformed
// params; either way nothing changed.
func (t *Thread) ApplyNotification(method string, params json.RawMessage) (Change, error) {
	cu, ok, err := ParseCacheStatus(method, params)
	if err != nil {
		return Change{}, err
	}
	if !ok {
		if method == MethodReasonixStatus {
			return Change{}, nil // a status without usage: nothing to keep
		}
		return Change{}, fmt.Errorf("thread: %w: notification %q", ErrUnknownKind, method)
	}
	return t.SetCacheUsage(cu), nil
}

// SetCacheUsage records prompt-cache figures (see ApplyNotification).
func (t *Thread) SetCacheUsage(cu CacheUsage) Change {
	var turns []TurnCache
	if t.usage.Cache != nil {
		turns = t.usage.Cache.Turns
	}
	cu.Turns = recordTurnCache(turns, t.turn, cu.Turn)
	t.usage.Cache = &cu
	return Change{Op: OpMeta, Kind: MetaUsage}
}

// Usage returns a copy of the session's usage state (Meta without the
// rest).
func (t *Thread) Usage() Usage { return cloneUsage(t.usage) }

// recordTurnCache sets turn's figures in turns (a later report of the same
// turn replaces the earlier, as the agent's turn figures grow), keeping
// the last MaxCacheTurns. Figures with no tokens, and turn 0 (before the
// first prompt), are not kept.
func recordTurnCache(turns []TurnCache, turn int, f CacheFigures) []TurnCache {
	if turn <= 0 || f.HitTokens+f.MissTokens == 0 {
		return turns
	}
	turns = slices.Clone(turns)
	if n := len(turns); n > 0 && turns[n-1].Turn == turn {
		turns[n-1].CacheFigures = f
		return turns
	}
	turns = append(turns, TurnCache{Turn: turn, CacheFigures: f})
	if len(turns) > MaxCacheTurns {
		turns = turns[len(turns)-MaxCacheTurns:]
	}
	return turns
}
