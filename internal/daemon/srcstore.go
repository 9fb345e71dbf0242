package daemon

import (
	"context"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// storeSource is one server's session store: each read of it is a signal,
// a snapshot carrying whether the server process started or went since.
type storeSource struct {
	server string
	w      *store.Watcher
	sp     *proc.Server
	first  chan struct{} // closed once the initial read is queued
}

func (s *storeSource) Name() string { return "store " + s.server }

func (s *storeSource) Run(ctx context.Context, emit emitFunc) error {
	defer closeIfOpen(s.first)
	updates := make(chan store.Update, 16)
	errc := make(chan error, 1)
	go func() {
		defer close(updates)
		errc <- s.w.Run(ctx, updates)
	}()
	for u := range updates {
		o := storeSignal(s.server, u)
		if snap, ok := o.(health.StoreSnapshot); ok {
			snap.ServerStarted, snap.ServerGone = s.sp.Started(ctx)
			o = snap
		}
		emit(signalIn{o: o})
		closeIfOpen(s.first)
	}
	return <-errc
}

func storeSignal(server string, u store.Update) health.Observation {
	switch {
	case u.Err != nil:
		return health.StoreError{Server: server, Detail: u.Err.Error()}
	case u.Gone || u.Snapshot == nil:
		return health.StoreGone{Server: server, Detail: "the file is absent"}
	}
	sessions := make([]health.StoreSession, 0, len(u.Snapshot.Sessions))
	for _, s := range u.Snapshot.Sessions {
		sessions = append(sessions, health.StoreSession{ID: s.ID, Client: s.Client, LastActivity: s.LastActivity, Created: s.Created})
	}
	return health.StoreSnapshot{Server: server, Sessions: sessions, Truncated: u.Snapshot.Truncated}
}
