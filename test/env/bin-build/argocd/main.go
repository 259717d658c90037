// argocd for the test environment (test/env/argocd.ts), built by build.sh against Argo CD at ARGOCD_VERSION.
//
// Argo CD's own main (cmd/main.go) links every component, and some of those (the CLI, the API server) pull modules
// the Go module proxy these machines reach does not resolve. This main links only what the environment runs, each
// Argo CD's own cobra command, unchanged:
//
//	argocd application-controller [flags]   cmd/argocd-application-controller/commands
//	argocd repo-server [flags]              cmd/argocd-repo-server/commands
//	argocd health --argocd-cm FILE          below: Argo CD's health assessment of objects, as the controller makes it
//
// ARGOCD_BINARY_NAME=argocd-git-ask-pass runs the git credential helper, as Argo CD's main does (the repo-server sets
// it for git; the environment's repository needs no credentials, so it is there for completeness only).
//
// `health` reads a ConfigMap (the argocd-cm the README gives users) the way Argo CD's settings manager parses it
// (resource.customizations.* split keys), then for each Kubernetes object it reads as one JSON line on stdin, writes
// one JSON line {"status":"Healthy","message":"..."} (status "" when no health check applies) computed by
// gitops-engine's health.GetResourceHealth with those overrides: Argo CD's Lua VM (gopher-lua) running our scripts,
// as `argocd admin settings resource-overrides health` does for one file.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

func main() {
	if os.Getenv("ARGOCD_BINARY_NAME") == common.CommandGitAskPass {
		run(gitaskpass.NewCommand(), os.Args[1:])
		return
	}
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: %s application-controller|repo-server|health [flags]", os.Args[0]))
	}
	switch os.Args[1] {
	case "application-controller":
		run(appcontroller.NewCommand(), os.Args[2:])
	case "repo-server":
		run(reposerver.NewCommand(), os.Args[2:])
	case "health":
		runHealth(os.Args[2:])
	default:
		fail(fmt.Errorf("unknown command %q: application-controller, repo-server or health", os.Args[1]))
	}
}

func run(command *cobra.Command, args []string) {
	command.SetArgs(args)
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func runHealth(args []string) {
	flags := flag.NewFlagSet("health", flag.ExitOnError)
	cmPath := flags.String("argocd-cm", "", "the argocd-cm ConfigMap (YAML) whose resource.customizations apply")
	_ = flags.Parse(args)
	raw, err := os.ReadFile(*cmPath)
	if err != nil {
		fail(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		fail(fmt.Errorf("%s: %w", *cmPath, err))
	}
	// The settings manager finds only ConfigMaps labelled as Argo CD's, in its namespace.
	const namespace = "argocd"
	cm.Namespace = namespace
	cm.Name = common.ArgoCDConfigMapName
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["app.kubernetes.io/part-of"] = "argocd"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Name: common.ArgoCDSecretName, Namespace: namespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"},
	}}
	manager := settings.NewSettingsManager(context.Background(), fake.NewClientset(&cm, secret), namespace)
	if err := manager.ResyncInformers(); err != nil {
		fail(err)
	}
	overrides, err := manager.GetResourceOverrides()
	if err != nil {
		fail(err)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(in.Bytes()); err != nil {
			fail(err)
		}
		result, err := health.GetResourceHealth(obj, lua.ResourceHealthOverrides(overrides))
		if err != nil {
			fail(fmt.Errorf("%s/%s: %w", obj.GetKind(), obj.GetName(), err))
		}
		v := verdict{}
		if result != nil {
			v = verdict{Status: string(result.Status), Message: result.Message}
		}
		if err := out.Encode(v); err != nil {
			fail(err)
		}
	}
	if err := in.Err(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "argocd:", err)
	os.Exit(1)
}
