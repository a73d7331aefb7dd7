package server

import (
	"fmt"
	"time"
)

// Defaults of the statement and session limits.
const (
	// DefaultMaxSQLBytes keeps a FlightInfo, which carries the SQL once (in
	// its descriptor), well under gRPC's default 4 MiB receive limit.
	DefaultMaxSQLBytes = 1 << 20
	// DefaultTicketTTL lets a client fetch a result again for a while
	// (a retry, a second reader) without tickets piling up.
	DefaultTicketTTL = 15 * time.Minute
	// DefaultMaxSessionsPerClient is a tenth of the default MaxSessions:
	// one client cannot take the store for itself.
	DefaultMaxSessionsPerClient = 1000
	// DefaultMaxTicketBytes bounds the SQL and parameters of all tickets
	// held: four clients at their own 64 MiB, or 100,000 tickets of
	// 2.5 KiB, where without it 100 addresses could hold 6.4 GB.
	DefaultMaxTicketBytes = 256 << 20
)

func (c Config) withSessionDefaults() Config {
	if c.MaxSQLBytes == 0 {
		c.MaxSQLBytes = DefaultMaxSQLBytes
	}
	if c.TicketTTL == 0 {
		c.TicketTTL = DefaultTicketTTL
	}
	if c.MaxTicketBytes == 0 {
		c.MaxTicketBytes = DefaultMaxTicketBytes
	}
	if c.MaxSessionsPerClient == 0 {
		c.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	return c
}

func (c Config) validateSessions() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max SQL bytes", int64(c.MaxSQLBytes)}, {"ticket TTL", int64(c.TicketTTL)},
		{"max sessions per client", int64(c.MaxSessionsPerClient)}, {"max ticket bytes", c.MaxTicketBytes},
	} {
		if f.v < 0 {
			return fmt.Errorf("server: negative %s %d", f.name, f.v)
		}
	}
	return nil
}
