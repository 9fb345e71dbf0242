package stdio

import (
	"context"
	"os"
	"syscall"
)

// passSignals passes each signal the host sends on to the server. One
// that ends a process means the host is ending its server: the server's
// exit is then not healed.
func (s *Supervisor) passSignals(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stopped:
			return
		case sig := <-s.opt.Signals:
			ss, ok := sig.(syscall.Signal)
			if !ok {
				continue
			}
			s.mu.Lock()
			c := s.cur
			ending := ends(ss)
			if ending && c != nil {
				c.signalled = true
			}
			s.mu.Unlock()
			if c != nil {
				c.signal(ss)
			}
			if ending {
				s.closeDown()
			}
		}
	}
}

// ends reports whether sig, sent by a host, means it is ending its server.
func ends(sig os.Signal) bool {
	switch sig {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
		return true
	}
	return false
}
