// cert-manager's controller for the test environment (test/env/cert-manager.ts), built by build.sh against the
// cert-manager module at CERT_MANAGER_VERSION.
//
// cert-manager's own main package lives in a separate module (cmd/controller, named controller-binary) that the Go
// module proxy cannot serve, so this small main does what that one does for the controllers the product's
// certificates need, with the library's own API: one ContextFactory, the registered constructors of the controllers
// named below, then the shared informers. The Certificate controllers, the CertificateRequest approver and the CA
// and self-signed issuers are cert-manager's code, unchanged; ACME, Vault, Venafi, the ingress and gateway shims
// and the CertificateSigningRequest controllers are not linked in. No leader election (the environment runs one
// process) and no webhook: the CRDs' schemas are the admission checks.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/cert-manager/cert-manager/pkg/controller"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

// cert-manager's defaults for the options these controllers read (its controller configuration's defaults).
const (
	workers               = 5
	requestMinimumBackoff = time.Hour
	requestMaximumBackoff = 32 * time.Hour
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of cert-manager's identity")
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "cert-manager",
		"namespace of the Secrets ClusterIssuers refer to")
	flag.Parse()
	logf.InitLogs()
	defer logf.FlushLogs()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	if err := run(ctx, *kubeconfig, *clusterResourceNamespace); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, clusterResourceNamespace string) error {
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: clusterResourceNamespace},
		CertificateOptions: controller.CertificateOptions{
			CertificateRequestMinimumBackoffDuration: requestMinimumBackoff,
			CertificateRequestMaximumBackoffDuration: requestMaximumBackoff,
		},
	})
	if err != nil {
		return fmt.Errorf("building the controller context: %w", err)
	}
	names := make([]string, 0, len(controller.Known()))
	for name := range controller.Known() {
		names = append(names, name)
	}
	sort.Strings(names)
	log := logf.FromContext(ctx)
	errs := make(chan error, len(names))
	var wg sync.WaitGroup
	for _, name := range names {
		iface, err := controller.Known()[name](factory)
		if err != nil {
			return fmt.Errorf("constructing controller %s: %w", name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			log.Info("starting controller", "controller", name)
			if err := iface.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("controller %s: %w", name, err)
			}
		}()
	}
	// The constructors registered their informers; start them (Build shares the factory's informer factories).
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case err := <-errs:
		return err
	case <-done:
		return ctx.Err()
	}
}
