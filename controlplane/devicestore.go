package controlplane

// DeviceStore keeps accounts' devices, key envelopes and pairing mailboxes.
type DeviceStore interface{}

func (s *Server) deviceRoutes() {}
