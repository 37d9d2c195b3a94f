package workspace_test

import (
	"path/filepath"
	"testing"

	"mnote/workspace"
)

// TestAgentWriteKeepsUnsavedEdits is issue 13: the person typed a line
// and did not save; the agent writes the file. The typed line survives in
// the buffer (merged with the agent's change, still dirty), the disk holds
// the agent's write only, the agent reads back both, and saving writes
// both.
func TestAgentWriteKeepsUnsavedEdits(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	p := filepath.Join(dir, "n.md")
	write(t, p, "# Title\n\none\ntwo\nthree\n\nfour\nfive\n")
	bs := w.Buffers()
	ev := collect(w)
	if _, err := bs.Open("n.md"); err != nil {
		t.Fatal(err)
	}
	mine := "# Title\n\none\ntwo\nthree\n\nfour\nfive\ntyped by me\n"
	if _, err := bs.Update("n.md", mine, true); err != nil {
		t.Fatal(err)
	}
	fsys := w.AgentFS(workspace.Hooks{})
	theirs := "# Agent title\n\none\ntwo\nthree\n\nfour\nfive\n"
	if err := fsys.WriteTextFile(t.Context(), p, theirs); err != nil {
		t.Fatal(err)
	}
	be := ev.waitBuffer(t, "n.md", workspace.BufferMerged)
	want := "# Agent title\n\none\ntwo\nthree\n\nfour\nfive\ntyped by me\n"
	if be.Buffer.Content != want || !be.Buffer.Dirty || be.Buffer.Conflict {
		t.Fatalf("merged event %+v, want content %q, dirty, no conflict", be.Buffer, want)
	}
	if got := read(t, p); got != theirs {
		t.Errorf("disk = %q, want the agent's write %q", got, theirs)
	}
	got, err := fsys.ReadTextFile(t.Context(), p, nil, nil)
	if err != nil || got != want {
		t.Errorf("agent reads back %q (%v), want the merged buffer", got, err)
	}
	if _, err := bs.Save("n.md"); err != nil {
		t.Fatalf("save after merge: %v", err)
	}
	if got := read(t, p); got != want {
		t.Errorf("disk after save = %q, want %q", got, want)
	}
}

// TestAgentWriteOverlappingUnsavedEditsConflicts: when the agent changes
// the lines the person changed, the buffer keeps the person's text and
// gets a conflict whose theirs is the agent's write; the agent reads its
// write; Keep mine then Save writes the person's text, Take theirs the
// agent's.
func TestAgentWriteOverlappingUnsavedEditsConflicts(t *testing.T) {
	for _, take := range []string{"mine", "theirs"} {
		t.Run(take, func(t *testing.T) {
			w, dir := open(t, workspace.Options{})
			p := filepath.Join(dir, "n.md")
			write(t, p, "a\nb\nc\n")
			bs := w.Buffers()
			ev := collect(w)
			if _, err := bs.Open("n.md"); err != nil {
				t.Fatal(err)
			}
			mine := "a\nB typed\nc\n"
			if _, err := bs.Update("n.md", mine, true); err != nil {
				t.Fatal(err)
			}
			fsys := w.AgentFS(workspace.Hooks{})
			theirs := "a\nb by agent\nc\n"
			if err := fsys.WriteTextFile(t.Context(), p, theirs); err != nil {
				t.Fatal(err)
			}
			be := ev.waitBuffer(t, "n.md", workspace.BufferConflict)
			if be.Buffer.Content != mine || !be.Buffer.Conflict || !be.Buffer.Dirty {
				t.Fatalf("conflict event %+v, want mine kept in conflict", be.Buffer)
			}
			if th, err := bs.Theirs("n.md"); err != nil || th != theirs {
				t.Errorf("theirs = %q (%v), want the agent's write", th, err)
			}
			if got, err := fsys.ReadTextFile(t.Context(), p, nil, nil); err != nil || got != theirs {
				t.Errorf("agent reads %q (%v) during the conflict, want its write", got, err)
			}
			want := theirs
			if take == "mine" {
				want = mine
				if _, err := bs.KeepMine("n.md"); err != nil {
					t.Fatal(err)
				}
				if _, err := bs.Save("n.md"); err != nil {
					t.Fatalf("save after keep mine: %v", err)
				}
			} else if _, err := bs.TakeTheirs("n.md"); err != nil {
				t.Fatal(err)
			}
			if got := read(t, p); got != want {
				t.Errorf("disk = %q, want %q", got, want)
			}
			if st, _ := bs.Get("n.md"); st.Content != want || st.Dirty || st.Conflict {
				t.Errorf("buffer %+v, want %q clean", st, want)
			}
		})
	}
}

// TestAgentWriteOfBufferItReadIsClean: an agent that read the unsaved
// buffer and wrote it back with a change leaves a clean buffer.
func TestAgentWriteOfBufferItReadIsClean(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	p := filepath.Join(dir, "n.md")
	write(t, p, "a\n")
	bs := w.Buffers()
	if _, err := bs.Open("n.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Update("n.md", "a\nmine\n", true); err != nil {
		t.Fatal(err)
	}
	fsys := w.AgentFS(workspace.Hooks{})
	if s, err := fsys.ReadTextFile(t.Context(), p, nil, nil); err != nil || s != "a\nmine\n" {
		t.Fatalf("agent read %q, %v", s, err)
	}
	if err := fsys.WriteTextFile(t.Context(), p, "a\nmine\nagent\n"); err != nil {
		t.Fatal(err)
	}
	if st, _ := bs.Get("n.md"); st.Content != "a\nmine\nagent\n" || st.Dirty || st.Conflict {
		t.Errorf("buffer %+v, want the agent's text, clean", st)
	}
}

func TestMerge3(t *testing.T) {
	for _, c := range []struct {
		name, base, mine, theirs, want string
		ok                             bool
	}{
		{"apart", "1\n2\n3\n4\n5\n", "1 m\n2\n3\n4\n5\n", "1\n2\n3\n4\n5 t\n", "1 m\n2\n3\n4\n5 t\n", true},
		{"adjacent lines", "1\n2\n3\n", "1\n2 m\n3\n", "1\n2\n3 t\n", "1\n2 m\n3 t\n", true},
		{"same line", "1\n2\n3\n", "1\n2 m\n3\n", "1\n2 t\n3\n", "", false},
		{"same change twice", "1\n2\n3\n", "1\n2 x\n3\n4 m\n", "0 t\n1\n2 x\n3\n", "0 t\n1\n2 x\n3\n4 m\n", true},
		{"insert at same place", "1\n2\n", "1\nm\n2\n", "1\nt\n2\n", "", false},
		{"insert beside a change", "1\n2\n3\n", "1\nm\n2\n3\n", "1\n2 t\n3\n", "", false},
		{"append and prepend", "x\n", "x\nm\n", "t\nx\n", "t\nx\nm\n", true},
		{"no newline at end", "a\nb", "a m\nb", "a\nb t", "a m\nb t", true},
		{"empty base", "", "m\n", "t\n", "", false},
		{"theirs deletes elsewhere", "1\n2\n3\n4\n", "1 m\n2\n3\n4\n", "1\n2\n4\n", "1 m\n2\n4\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := workspace.Merge3ForTest(c.base, c.mine, c.theirs)
			if ok != c.ok || got != c.want {
				t.Errorf("merge3 = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
