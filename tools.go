//go:build tools

package tools

import (
	_ "github.com/adrg/xdg"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/coder/websocket"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/goccy/go-json"
	_ "github.com/google/shlex"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/wailsapp/wails/v2"
	_ "github.com/yuin/goldmark"
	_ "golang.org/x/time/rate"
)
