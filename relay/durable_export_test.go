package relay

// SetSyncHookForTest routes every later batch sync of s's group committer
// through h, which is handed the real sync and decides whether and when to
// call it (durable_test.go). nil restores the plain sync.
func SetSyncHookForTest(s *Server, h func(sync func() error) error) {
	if h == nil {
		s.commit.syncHook.Store(nil)
		return
	}
	s.commit.syncHook.Store(&h)
}
