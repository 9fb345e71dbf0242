package casfile

import "errors"

// errNoExchange: the system or file system has no atomic exchange.
var errNoExchange = errors.New("no atomic exchange")
