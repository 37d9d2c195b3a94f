package api

import "time"

// Roles of a shared session's members.
const (
	RoleOwner     = "owner"     // the session's owner: manages members, runs turns
	RoleEditor    = "editor"    // runs turns on their own agent
	RoleCommenter = "commenter" // adds comments, runs nothing
	RoleViewer    = "viewer"    // reads
)

// Kinds of shared log entries. KindComment is the only kind a commenter
// may append; every other kind belongs to a run and needs the run's lease.
const (
	KindComment  = "comment"
	KindPrompt   = "prompt"
	KindAnswer   = "answer"
	KindThought  = "thought"
	KindTool     = "tool"
	KindPlan     = "plan"
	KindQuestion = "question"
	KindStatus   = "status" // a run's state: started, ended, failed …
)

// RunKinds are the entry kinds of a run, appended only under its lease.
var RunKinds = []string{KindPrompt, KindAnswer, KindThought, KindTool, KindPlan, KindQuestion, KindStatus}

// SharedSession is a session shared with members, as one member sees it.
// Role is the caller's role. Head is the sequence number of the last
// entry of the shared log (0: none yet), RosterHead that of the last
// statement of the roster log.
type SharedSession struct {
	Session    SessionRecord `json:"session"`
	Owner      string        `json:"owner"` // the owner's account name
	Role       string        `json:"role"`
	Head       int64         `json:"head"`
	RosterHead int64         `json:"rosterHead"`
	SharedAt   time.Time     `json:"sharedAt"`
}

// SharedSessionList is the body of GET /v1/shared.
type SharedSessionList struct {
	Sessions []SharedSession `json:"sessions"`
}

// ShareSessionRequest is the body of PUT /v1/sessions/{id}/shared:
// the owner's first signed roster statement (opaque to the server).
type ShareSessionRequest struct {
	Statement []byte `json:"statement"`
}

// Member is an account's role in a shared session.
type Member struct {
	Account   string    `json:"account"`   // the account's name
	AccountID string    `json:"accountId"` // the account's id
	Role      string    `json:"role"`
	AddedAt   time.Time `json:"addedAt"`
}

// MemberList is the body of GET /v1/sessions/{id}/members and of the
// live stream's "members" event.
type MemberList struct {
	Members    []Member `json:"members"`
	RosterHead int64    `json:"rosterHead"`
}

// SetMemberRequest is the body of PUT /v1/sessions/{id}/members/{account}.
// Statement is the owner's signed roster statement for this change,
// opaque to the server, appended to the roster log.
type SetMemberRequest struct {
	Role      string `json:"role"`
	Statement []byte `json:"statement"`
}

// RemoveMemberRequest is the body of DELETE /v1/sessions/{id}/members/{account}.
type RemoveMemberRequest struct {
	Statement []byte `json:"statement"`
}

// AppendRosterRequest is the body of POST /v1/sessions/{id}/roster: one
// of the owner's signed statements that changes no member (a new epoch).
type AppendRosterRequest struct {
	Statement []byte `json:"statement"`
}

// RosterStatement is one statement of a session's roster log, in order.
type RosterStatement struct {
	Seq       int64     `json:"seq"`
	Actor     string    `json:"actor"` // the account that made the change (the owner)
	Statement []byte    `json:"statement"`
	CreatedAt time.Time `json:"createdAt"`
}

// RosterPage is the body of GET /v1/sessions/{id}/roster.
type RosterPage struct {
	Statements []RosterStatement `json:"statements"`
	Head       int64             `json:"head"`
}

// AppendEntryRequest is the body of PUT /v1/sessions/{id}/entries/{seq}.
// Ciphertext is opaque to the server (the client binds session, epoch,
// seq and author device into its associated data). RunID is required for
// the run kinds and must be the run that holds the lease.
type AppendEntryRequest struct {
	Epoch        int64  `json:"epoch"`
	Kind         string `json:"kind"`
	RunID        string `json:"runId,omitempty"`
	AuthorDevice string `json:"authorDevice"`
	Ciphertext   []byte `json:"ciphertext"`
}

// Entry is one entry of a shared log: the metadata the server needs and
// the ciphertext. Actor is the account that appended it, from its token.
type Entry struct {
	Seq          int64     `json:"seq"`
	Epoch        int64     `json:"epoch"`
	Kind         string    `json:"kind"`
	RunID        string    `json:"runId,omitempty"`
	AuthorDevice string    `json:"authorDevice"`
	Actor        string    `json:"actor"`
	Size         int       `json:"size"`
	Time         time.Time `json:"time"`
	Ciphertext   []byte    `json:"ciphertext,omitempty"`
}

// EntryPage is the body of GET /v1/sessions/{id}/entries. More is true
// when entries after the last one given exist (ask again with after =
// the last seq).
type EntryPage struct {
	Entries []Entry `json:"entries"`
	Head    int64   `json:"head"`
	More    bool    `json:"more"`
}

// LeaseRequest is the body of POST /v1/sessions/{id}/lease: ask for the
// session's one-turn-at-a-time lease for a run, or renew it (heartbeat).
type LeaseRequest struct {
	RunID  string `json:"runId"`
	Device string `json:"device,omitempty"`
}

// Lease is the right to run one turn in a shared session until Expires;
// its holder renews it by asking again.
type Lease struct {
	RunID     string    `json:"runId"`
	Account   string    `json:"account"`
	Device    string    `json:"device,omitempty"`
	GrantedAt time.Time `json:"grantedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// QueuedRun is a run waiting for the lease; Position 1 gets it next.
type QueuedRun struct {
	RunID       string    `json:"runId"`
	Account     string    `json:"account"`
	Device      string    `json:"device,omitempty"`
	Position    int       `json:"position"`
	RequestedAt time.Time `json:"requestedAt"`
}

// LeaseState is the lease and the queue of a session (GET and POST
// /v1/sessions/{id}/lease, the live stream's "lease" event). Granted and
// Position answer a POST: whether the asked run holds the lease, or its
// place in the queue.
type LeaseState struct {
	Lease    *Lease      `json:"lease,omitempty"`
	Queue    []QueuedRun `json:"queue"`
	Granted  bool        `json:"granted,omitempty"`
	Position int         `json:"position,omitempty"`
}

// Viewer is a member with a live stream open.
type Viewer struct {
	Account string `json:"account"`
	Device  string `json:"device,omitempty"`
}

// Presence is the live stream's "presence" event: who is viewing (has a
// live stream open) and who is running (holds the lease).
type Presence struct {
	Viewers []Viewer `json:"viewers"`
	Running string   `json:"running,omitempty"`
}

// Ready is the live stream's "ready" event, sent once the replay of the
// entries after the asked sequence number is done.
type Ready struct {
	Head int64 `json:"head"`
}

// Live stream event types (Server-Sent Events "event:" names).
const (
	EventEntry    = "entry"
	EventReady    = "ready"
	EventMembers  = "members"
	EventLease    = "lease"
	EventPresence = "presence"
	EventRevoked  = "revoked" // the caller is no longer a member; the stream ends
)
