//go:build desktop

package main

import (
	_ "embed"
	"os"

	"mnote/desktop"
)

//go:embed build/appicon.png
var icon []byte

// The window's binary (mnote-app): see main.go and package desktop.
func main() { os.Exit(desktop.Run(os.Args[1:], icon)) }
