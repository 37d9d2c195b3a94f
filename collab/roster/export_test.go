package roster

import "mnote/collab/keys"

// SignStatementForTest signs any statement, valid or not, for the tests
// that play a hostile server or member.
func SignStatementForTest(by *keys.Device, s Statement) ([]byte, error) { return s.encode(by) }

// SignDeviceStatementForTest signs any device statement.
func SignDeviceStatementForTest(by *keys.Device, s DeviceStatement) ([]byte, error) {
	return s.encode(by)
}

// HeadForTest is the hash a next statement links to.
func (r *Roster) HeadForTest() [32]byte { return r.chain.checkpoint().Head }
