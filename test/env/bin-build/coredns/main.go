// coredns is CoreDNS at the pinned release (test/env/versions.env, COREDNS_VERSION) with only the plugins the
// environment's Corefile uses (test/env/nodes/coredns.ts): bind, ready, errors and kubernetes. This is CoreDNS's
// documented way to choose plugins at compile time without editing its plugin.cfg (a main of one's own that imports
// the plugins and sets dnsserver.Directives, in plugin.cfg's order). Its release main links every plugin, with the
// cloud providers' SDKs, tracing and dnstap; this one compiles in about half the time and serves the same answers.
// Built by test/env/bin-build/build.sh coredns.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins of the Corefile, in the order of CoreDNS's plugin.cfg (the order a query passes through them).
var directives = []string{"bind", "ready", "errors", "kubernetes"}

func init() {
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}
