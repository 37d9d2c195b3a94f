package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"mnote/internal/xdgdirs"
)

// Paths are the files and folders mnote uses.
type Paths struct {
	ConfigFile  string // config.json
	DataDir     string // holds DB, Transcripts and Trash
	DB          string // the SQLite index, mnote.db
	Transcripts string // <session-id>.jsonl files
	Trash       string // transcripts of deleted sessions
	LogDir      string
	StateDir    string
}

// DefaultPaths returns the paths from the environment at call time (see
// package xdgdirs: the XDG base directories, or all under MNOTE_HOME=DIR).
func DefaultPaths() Paths {
	d := xdgdirs.Get()
	return pathsUnder(d.ConfigFile, d.Data, d.State, d.Logs)
}

func pathsUnder(configFile, dataDir, stateDir, logDir string) Paths {
	return Paths{
		ConfigFile:  configFile,
		DataDir:     dataDir,
		DB:          filepath.Join(dataDir, "mnote.db"),
		Transcripts: filepath.Join(dataDir, "transcripts"),
		Trash:       filepath.Join(dataDir, "trash"),
		LogDir:      logDir,
		StateDir:    stateDir,
	}
}

// TranscriptPath returns the transcript file of a session.
func (p Paths) TranscriptPath(id string) string {
	return filepath.Join(p.Transcripts, id+transcriptExt)
}

// TrashPath returns where a deleted session's transcript is kept.
func (p Paths) TrashPath(id string) string {
	return filepath.Join(p.Trash, id+transcriptExt)
}

// Ensure creates the folders with mode 0700. Folders it creates (parents
// included) get exactly 0700 whatever the umask; mnote's own folders (data,
// transcripts, trash, logs, state) are set to 0700 even if they existed.
func (p Paths) Ensure() error {
	own := []string{p.DataDir, p.Transcripts, p.Trash, p.LogDir, p.StateDir}
	for _, dir := range append(own, filepath.Dir(p.ConfigFile)) {
		if dir == "" {
			continue
		}
		if err := mkdirPrivate(dir); err != nil {
			return err
		}
	}
	for _, dir := range own {
		if dir == "" {
			continue
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("store: stat %s: %w", dir, err)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(dir, 0o700); err != nil {
				return fmt.Errorf("store: chmod %s: %w", dir, err)
			}
		}
	}
	return nil
}

// mkdirPrivate is os.MkdirAll that chmods every folder it creates to 0700.
func mkdirPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("store: %s is not a folder", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: stat %s: %w", dir, err)
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirPrivate(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("store: create folder %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("store: chmod %s: %w", dir, err)
	}
	return nil
}
