// Command uiserve is mnote's headless commands (cli.Main) serving the
// folder named by MNOTE_TEST_UI as the UI, in place of frontend/dist,
// which only the UI build fills: the serve tests run it (see uiServe in
// ../../uiserve_test.go), so they pass on a fresh clone without that build.
package main

import (
	"os"

	"mnote/app/cli"
)

func main() {
	if dir := os.Getenv("MNOTE_TEST_UI"); dir != "" {
		cli.Assets = os.DirFS(dir)
	}
	os.Exit(cli.Main(os.Args[1:]))
}
